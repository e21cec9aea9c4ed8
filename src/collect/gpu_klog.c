/* SPDX-License-Identifier: Apache-2.0 */
/* GPU failures in kernel log lines. See gpu_klog.h. Parses
 *   NVRM: The NVIDIA GPU 0000:b3:00.0\x0aNVRM: (PCI ID: 10de:26b5) installed in this system has\x0aNVRM: fallen off the bus and is not responding to commands.
 */
#include "collect/gpu_klog.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/xid_line.h"
#include "util/parse.h"

const char *const klog_kind_names[KLOG_KIND_COUNT] = {
    [KLOG_XID] = "xid",
    [KLOG_RECOVERY_ACTION] = "recovery_action",
    [KLOG_SXID] = "sxid",
    [KLOG_FALLEN_OFF_BUS] = "fallen_off_bus",
    [KLOG_INIT_FAILED] = "init_failed",
    [KLOG_GSP_TIMEOUT] = "gsp_timeout",
    [KLOG_AER_CORRECTED] = "aer_corrected",
    [KLOG_AER_NONFATAL] = "aer_nonfatal",
    [KLOG_AER_FATAL] = "aer_fatal",
};

/* Hex digits at s[0..n), at most max of them; the count (0: none). */
static size_t hex_run(const char *s, size_t n, size_t max, uint64_t *ret)
{
        size_t i = 0;
        uint64_t v = 0;
        for (; i < n && i < max; i++) {
                int d = parse_hex_digit(s[i]);
                if (d < 0)
                        break;
                v = v * 16 + (uint64_t)d;
        }
        if (i < n && i == max && parse_hex_digit(s[i]) >= 0)
                return 0; /* too long for this field */
        *ret = v;
        return i;
}

size_t klog_pci_parse(const char *s, size_t n, struct klog_pci *ret)
{
        uint64_t f[3], fn = 0;
        size_t len[3], o = 0;
        unsigned k = 0;
        for (; k < 3; k++) {
                len[k] = hex_run(s + o, n - o, 8, &f[k]);
                if (!len[k])
                        return 0;
                o += len[k];
                if (o >= n || s[o] != ':' || k == 2)
                        break;
                o++;
        }
        if (k == 0)
                return 0;
        bool with_domain = k == 2;
        unsigned b = with_domain ? 1 : 0;
        if (len[b] != 2 || len[b + 1] != 2 || (with_domain && len[0] < 4))
                return 0;
        int func = -1;
        if (o + 1 < n && s[o] == '.' && hex_run(s + o + 1, 1, 1, &fn) == 1 && fn < 8) {
                func = (int)fn;
                o += 2;
        }
        /* An address ends at a word boundary: not "0000:01:00.0abc". */
        if (o < n && (parse_hex_digit(s[o]) >= 0 || s[o] == '.'))
                return 0;
        ret->domain = with_domain ? (uint32_t)f[0] : 0;
        ret->bus = (unsigned)f[b];
        ret->dev = (unsigned)f[b + 1];
        ret->fn = func;
        return o;
}

size_t klog_pci_format(char *out, size_t cap, const struct klog_pci *p)
{
        int n = snprintf(out, cap, "%04x:%02x:%02x.%x", (unsigned)p->domain, p->bus, p->dev,
                         p->fn < 0 ? 0u : (unsigned)p->fn);
        if (n < 0 || cap == 0)
                return 0;
        return (size_t)n < cap ? (size_t)n : cap - 1;
}

bool klog_pci_same(const struct klog_pci *a, const struct klog_pci *b)
{
        return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev &&
               (a->fn < 0 || b->fn < 0 || a->fn == b->fn);
}

static const char *find(const char *s, size_t n, const char *pat)
{
        return memmem(s, n, pat, strlen(pat));
}

static void put_detail(struct klog_event *e, const char *s, size_t n)
{
        while (n > 0 && (*s == ' ' || *s == ',' || *s == ':')) {
                s++;
                n--;
        }
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\r'))
                n--;
        copy_bounded(e->detail, sizeof(e->detail), s, n);
}

static void ev_init(struct klog_event *e, enum klog_kind kind)
{
        memset(e, 0, sizeof(*e));
        e->kind = kind;
        e->gpu_instance = -1;
}

/* The address right after the text pat (and an optional "PCI:") in s: true when found. */
static bool pci_after(const char *s, size_t n, const char *pat, struct klog_pci *ret,
                      const char **ret_end)
{
        const char *p = find(s, n, pat);
        if (!p)
                return false;
        p += strlen(pat);
        struct cursor c = cur_make(p, (size_t)(s + n - p));
        cur_lit(&c, "PCI:");
        size_t k = klog_pci_parse(c.p, (size_t)(c.end - c.p), ret);
        if (!k)
                return false;
        if (ret_end)
                *ret_end = c.p + k;
        return true;
}

/* The recovery action's name from the text after "to 0x%x (": gpu.c:7130. */
static const char *action_name(const char *s, size_t n)
{
        static const struct {
                const char *text, *name;
        } names[] = {
            {"None)", "NONE"},
            {"GPU Reset Required)", "GPU_RESET"},
            {"Node Reboot Required)", "NODE_REBOOT"},
            {"Drain P2P)", "DRAIN_P2P"},
            {"Drain and Reset)", "DRAIN_AND_RESET"},
            {"Recover IMEX Domain)", "RECOVER_IMEX_DOMAIN"},
        };
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                size_t k = strlen(names[i].text);
                if (n >= k && !memcmp(s, names[i].text, k))
                        return names[i].name;
        }
        return "UNKNOWN";
}

static int parse_xid(const char *s, size_t n, struct klog_event *ret)
{
        struct xid_line x;
        if (xid_parse_line(s, n, &x) < 0)
                return -ENOENT;
        struct klog_event e;
        ev_init(&e, x.code == 154 ? KLOG_RECOVERY_ACTION : KLOG_XID);
        e.code = x.code;
        e.have_pci = klog_pci_parse(x.pci, strlen(x.pci), &e.pci) > 0;
        put_detail(&e, x.message, strlen(x.message));
        if (x.code == 154) {
                /* "... changed from 0x0 (None) to 0x1 (GPU Reset Required)" */
                const char *to = find(x.message, strlen(x.message), " to 0x");
                const char *open = to ? strchr(to, '(') : NULL;
                snprintf(e.action, sizeof(e.action), "%s",
                         open ? action_name(open + 1, strlen(open + 1)) : "UNKNOWN");
        }
        *ret = e;
        return 0;
}

/* nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, ... */
static int parse_sxid(const char *s, size_t n, struct klog_event *ret)
{
        struct klog_event e;
        const char *end;
        ev_init(&e, KLOG_SXID);
        if (!pci_after(s, n, "SXid (", &e.pci, &end))
                return -ENOENT;
        struct cursor c = cur_make(end, (size_t)(s + n - end));
        uint64_t code;
        if (!cur_lit(&c, "):") || cur_u64(&c, &code) < 0 || code > 0xffffffffu || !cur_lit(&c, ","))
                return -ENOENT;
        e.have_pci = true;
        e.code = (unsigned)code;
        cur_skip_blank(&c);
        /* The first line says how bad: "Fatal, ..." or "Non-fatal, ..." (NVSWITCH_REPORT_
         * FATAL/NONFATAL, intr_nvswitch.h:88-139, error_nvswitch.h:233); the lines after
         * it are "Severity %d Engine instance %02d Sub-engine instance %02d" and "Data
         * {0x%08x, ...}" (error_nvswitch.c:43-67, 595.45.04): the same SXid. */
        size_t rest = (size_t)(c.end - c.p);
        if (rest >= 6 && !memcmp(c.p, "Fatal,", 6))
                e.flags |= KLOG_F_FATAL;
        if ((rest >= 9 && !memcmp(c.p, "Severity ", 9)) || (rest >= 6 && !memcmp(c.p, "Data {", 6)))
                e.flags |= KLOG_F_CONTINUATION;
        put_detail(&e, c.p, rest);
        *ret = e;
        return 0;
}

/* The fallen-off-the-bus lines that are no Xid (gpu_klog.h). */
static int parse_fallen(const char *s, size_t n, struct klog_event *ret)
{
        static const char *const heads[] = {"NVRM: The NVIDIA GPU ", "NVRM: GPU at ", "NVRM: GPU "};
        struct klog_event e;
        ev_init(&e, KLOG_FALLEN_OFF_BUS);
        const char *fallen = find(s, n, "fallen off the bus");
        if (!fallen || !find(s, n, "NVRM: "))
                return -ENOENT;
        for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]) && !e.have_pci; i++)
                e.have_pci = pci_after(s, n, heads[i], &e.pci, NULL);
        /* The probe message says more than "fallen off the bus": that it does not answer. */
        const char *full = find(s, n, "fallen off the bus and is not responding to commands");
        put_detail(&e, full ? full : fallen,
                   full ? strlen("fallen off the bus and is not responding to commands")
                        : strlen("fallen off the bus"));
        *ret = e;
        return 0;
}

static int parse_init_failed(const char *s, size_t n, struct klog_event *ret)
{
        struct klog_event e;
        const char *p;
        ev_init(&e, KLOG_INIT_FAILED);
        if ((p = find(s, n, "RmInitAdapter failed")) ||
            (p = find(s, n, "rm_init_adapter failed"))) {
                e.have_pci = pci_after(s, n, "NVRM: GPU ", &e.pci, NULL);
        } else if ((p = find(s, n, "probe with driver nvidia failed with error"))) {
                /* dev_err(): "nvidia 0000:01:00.0: probe with driver nvidia ..." */
                e.have_pci = pci_after(s, n, "nvidia ", &e.pci, NULL);
        } else if ((p = find(s, n, "nvidia: probe of ")) && find(s, n, "failed with error")) {
                e.have_pci = pci_after(s, n, "nvidia: probe of ", &e.pci, NULL);
        } else if ((p = find(s, n, "NVRM: The NVIDIA probe routine failed for "))) {
                p += strlen("NVRM: "); /* kernel-open/nvidia/nv.c:968, after the probes */
        } else if (find(s, n, "NVRM: ") &&
                   ((p = find(s, n,
                              "(the GPU is likely in a bad state and may need to be reset)")) ||
                    (p = find(s, n, "(the GPU may be in a bad state and may need to be reset)")))) {
                /* The GSP boot gave up: kernel_gsp.c:4681 (595.45.04; 3468 in 570.86.15)
                 * after "unexpected WPR2 already up", arch/turing/kernel_gsp_tu102.c:1180
                 * after "failed to wait for GFW boot complete". */
                e.flags |= KLOG_F_RESET;
                e.have_pci = pci_after(s, n, "NVRM: GPU ", &e.pci, NULL);
        } else {
                return -ENOENT;
        }
        put_detail(&e, p, (size_t)(s + n - p));
        *ret = e;
        return 0;
}

/* The lines of a GSP failure, printed with the "NVRM: " prefix (and, in the open
 * driver's builds, the function's name: "NVRM: _kgspLogRpcTimeout: ..."). The text
 * after the match is the detail; "GPU%d" after it is the driver's instance. Sources:
 * src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c at 595.45.04 unless said otherwise. */
static const struct gsp_form {
        const char *text;
        bool instance; /* "GPU%d"/"GSP%d" right after the text */
        bool reset;    /* the line asks for a reset */
} gsp_forms[] = {
    /* 2386 _kgspLogRpcTimeout (570.86.15: 1974, 550.54.14: 1750), when not an Xid 119 */
    {"waiting for RPC response from GPU", true, false},
    /* 535.113.01: 1334 */
    {"Timeout waiting for RPC from GSP", true, false},
    /* 2375 the banner of _kgspLogRpcTimeout's full report (570.86.15: 1963) */
    {"* GSP Timeout *", false, false},
    /* its banner before 550 (535.113.01: 1328), and the GSP's own error report
     * (arch/turing/kernel_gsp_tu102.c, 550.54.14: 868) */
    {"* GSP Failure *", false, false},
    /* arch/turing/kernel_gsp_tu102.c:979 (550.54.14: 842): the GSP crashed */
    {"* GSP-CrashCat Report *", false, false},
    /* 2303 _kgspIsHeartbeatTimedOut; 2890, 2894 after the poll (595.x only) */
    {"Heartbeat timed out, currentTimeMs", false, false},
    {"GSP RM heartbeat timed out", false, false},
    {"LibOS heartbeat timed out", false, false},
    /* 2586, 2590, 2594 _kgspClassifyGspTimeout */
    {"= GSP core unresponsive =", false, false},
    {"= GSP-RM unresponsive =", false, false},
    {"= GSP-RM is slow =", false, false},
    /* 2446 _kgspLogRpcSanityCheckFailure: "GPU%d sanity check failed 0x%x waiting for
     * RPC response from GSP." (the instance comes first: not read) */
    {"sanity check failed", false, false},
    /* 2477 (570.86.15: 2036): past the reset threshold, with the GPU's address */
    {"Rate limiting GSP RPC error prints for GPU at ", false, true},
};

static int parse_gsp(const char *s, size_t n, struct klog_event *ret)
{
        struct klog_event e;
        if (!find(s, n, "NVRM: "))
                return -ENOENT;
        for (size_t i = 0; i < sizeof(gsp_forms) / sizeof(gsp_forms[0]); i++) {
                const struct gsp_form *f = &gsp_forms[i];
                const char *p = find(s, n, f->text);
                if (!p)
                        continue;
                ev_init(&e, KLOG_GSP_TIMEOUT);
                const char *after = p + strlen(f->text);
                struct cursor c = cur_make(after, (size_t)(s + n - after));
                uint64_t inst;
                if (f->instance && cur_u64(&c, &inst) == 0 && inst < 1024)
                        e.gpu_instance = (int)inst;
                if (f->reset) {
                        e.flags |= KLOG_F_RESET;
                        e.have_pci = pci_after(s, n, f->text, &e.pci, NULL);
                }
                /* The detail starts at the words, after "NVRM: " and a function name. */
                const char *from = find(s, n, "Timeout after ");
                if (!from || from > p)
                        from = p;
                while (from > s && from[-1] != ' ' && from[-1] != ':' && from[-1] != '*' &&
                       from[-1] != '=')
                        from--;
                while (from < s + n && (*from == '*' || *from == '=' || *from == ' '))
                        from++;
                put_detail(&e, from, (size_t)(s + n - from));
                size_t k = strlen(e.detail);
                while (k > 0 &&
                       (e.detail[k - 1] == '*' || e.detail[k - 1] == '=' || e.detail[k - 1] == ' '))
                        e.detail[--k] = '\0';
                *ret = e;
                return 0;
        }
        return -ENOENT;
}

/* drivers/pci/pcie/aer.c's severities, aer_error_severity_string[]: "Corrected",
 * "Uncorrected (Non-Fatal)", "Uncorrected (Fatal)" (5.4-6.15), "Correctable",
 * "Uncorrectable (Non-Fatal)", "Uncorrectable (Fatal)" (6.16 on). The kind, and the
 * length taken at s; 0 when s does not start with one. */
static size_t aer_severity(const char *s, size_t n, enum klog_kind *ret)
{
        static const struct {
                const char *text;
                enum klog_kind kind;
        } sev[] = {
            {"Corrected", KLOG_AER_CORRECTED},
            {"Correctable", KLOG_AER_CORRECTED},
            {"Uncorrected (Non-Fatal)", KLOG_AER_NONFATAL},
            {"Uncorrectable (Non-Fatal)", KLOG_AER_NONFATAL},
            {"Uncorrected (Fatal)", KLOG_AER_FATAL},
            {"Uncorrectable (Fatal)", KLOG_AER_FATAL},
        };
        for (size_t i = 0; i < sizeof(sev) / sizeof(sev[0]); i++) {
                size_t k = strlen(sev[i].text);
                if (n >= k && !memcmp(s, sev[i].text, k)) {
                        *ret = sev[i].kind;
                        return k;
                }
        }
        return 0;
}

/* The device of a dev_printk() line, "<driver> <address>: ...", the text before end;
 * *ret_nvidia: the driver is nvidia's. */
static bool printk_device(const char *s, const char *end, struct klog_pci *ret, bool *ret_nvidia)
{
        for (const char *sp = memchr(s, ' ', (size_t)(end - s)); sp && sp < end;
             sp = memchr(sp + 1, ' ', (size_t)(end - sp - 1))) {
                size_t k = klog_pci_parse(sp + 1, (size_t)(end - sp - 1), ret);
                if (!k || sp[1 + k] != ':')
                        continue;
                *ret_nvidia = sp - s >= 6 && !memcmp(sp - 6, "nvidia", 6) &&
                              (sp - s == 6 || sp[-7] == ' ' || sp[-7] == ']' || sp[-7] == ':');
                return ret->fn >= 0;
        }
        return false;
}

/* The AER lines (drivers/pci/pcie/aer.c, err.c; "AER: " is the files' dev_fmt):
 *   aer_print_error():     "<drv> <dev>: PCIe Bus Error: severity=%s, type=%s, (%s)"
 *                          (4.x: "..., id=%04x(%s)"; some builds and excerpts leave out
 *                          "severity=": "PCIe Bus Error: Uncorrectable (Non-Fatal), ...")
 *   aer_print_port_info(): "<drv> <port>: AER: [Multiple ]%s error received: <dev>"
 *                          (5.4-6.10), "... error message received from <dev>" (6.11
 *                          on), "... error received from <dev>": the device it names
 *   err.c report_error_detected(): "<drv> <dev>: AER: can't recover (no error_detected
 *                          callback)": the kernel gave up on the device */
static int parse_aer(const char *s, size_t n, struct klog_event *ret)
{
        static const char *const received[] = {" error received: ", " error received from ",
                                               " error message received from "};
        struct klog_event e;
        enum klog_kind kind;
        const char *p = find(s, n, "PCIe Bus Error: ");
        if (p) {
                const char *v = p + strlen("PCIe Bus Error: ");
                if ((size_t)(s + n - v) >= 9 && !memcmp(v, "severity=", 9))
                        v += 9;
                size_t vn = (size_t)(s + n - v), k = aer_severity(v, vn, &kind);
                if (!k || (k < vn && v[k] != ','))
                        return -ENOENT;
                ev_init(&e, kind);
                bool nv = false;
                e.have_pci = printk_device(s, p, &e.pci, &nv);
                e.flags |= nv ? KLOG_F_NVIDIA : 0;
                put_detail(&e, v, vn);
                *ret = e;
                return 0;
        }
        const char *aer = find(s, n, "AER: ");
        if (!aer)
                return -ENOENT;
        const char *t = aer + 5;
        size_t tn = (size_t)(s + n - t);
        if ((p = find(t, tn, "can't recover"))) {
                ev_init(&e, KLOG_AER_FATAL);
                bool nv = false;
                e.flags |= KLOG_F_NOT_RECOVERED;
                e.have_pci = printk_device(s, aer, &e.pci, &nv);
                e.flags |= nv ? KLOG_F_NVIDIA : 0;
                put_detail(&e, p, (size_t)(s + n - p));
                *ret = e;
                return 0;
        }
        if (tn > 9 && !memcmp(t, "Multiple ", 9)) {
                t += 9;
                tn -= 9;
        }
        size_t k = aer_severity(t, tn, &kind);
        if (!k)
                return -ENOENT;
        for (size_t i = 0; i < sizeof(received) / sizeof(received[0]); i++) {
                size_t rn = strlen(received[i]);
                if (tn < k + rn || memcmp(t + k, received[i], rn))
                        continue;
                ev_init(&e, kind);
                e.flags |= KLOG_F_FROM_PORT;
                const char *dev = t + k + rn;
                e.have_pci = klog_pci_parse(dev, (size_t)(s + n - dev), &e.pci) > 0;
                put_detail(&e, aer + 5, (size_t)(s + n - aer - 5));
                *ret = e;
                return 0;
        }
        return -ENOENT;
}

int klog_parse_line(const char *s, size_t n, struct klog_event *ret)
{
        static int (*const parsers[])(const char *, size_t, struct klog_event *) = {
            parse_xid, parse_sxid, parse_fallen, parse_init_failed, parse_aer,
        };
        if (find(s, n, "Xid (")) {
                /* An Xid line: only the Xid parsers (its text may say "fallen off
                 * the bus" or "waiting for RPC": those are the Xid's). */
                return find(s, n, "SXid (") ? parse_sxid(s, n, ret) : parse_xid(s, n, ret);
        }
        for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++)
                if (parsers[i](s, n, ret) == 0)
                        return 0;
        return parse_gsp(s, n, ret);
}

/* Firmware-first AER (APEI GHES): the firmware's record, "[Hardware Error]: event
 * severity: recoverable" (drivers/firmware/efi/cper.c cper_estatus_print(), severities
 * cper_severity_str(): "recoverable", "fatal", "corrected", "info"), then, from the AER
 * driver, "<drv> <dev>: AER: aer_status: 0x%08x, aer_mask: 0x%08x" (aer.c
 * cper_print_aer()): one error of the device, of the firmware's severity. */
static bool ghes_severity(struct klog_join *j, const char *s, size_t n)
{
        static const struct {
                const char *word;
                enum klog_kind kind;
        } sev[] = {{"recoverable", KLOG_AER_NONFATAL},
                   {"fatal", KLOG_AER_FATAL},
                   {"corrected", KLOG_AER_CORRECTED}};
        const char *p = find(s, n, "[Hardware Error]: ");
        const char *v = p ? find(p, (size_t)(s + n - p), "event severity: ") : NULL;
        if (!v)
                return false;
        v += strlen("event severity: ");
        j->ghes_left = 0;
        for (size_t i = 0; i < sizeof(sev) / sizeof(sev[0]); i++) {
                size_t k = strlen(sev[i].word);
                if ((size_t)(s + n - v) >= k && !memcmp(v, sev[i].word, k)) {
                        j->ghes_kind = sev[i].kind;
                        j->ghes_left = KLOG_GHES_WINDOW;
                }
        }
        return true;
}

static int parse_cper_aer(struct klog_join *j, const char *s, size_t n, struct klog_event *ret)
{
        const char *p = find(s, n, "AER: aer_status: ");
        if (!j->ghes_left || !p)
                return -ENOENT;
        struct klog_event e;
        bool nv = false;
        ev_init(&e, j->ghes_kind);
        e.have_pci = printk_device(s, p, &e.pci, &nv);
        e.flags |= nv ? KLOG_F_NVIDIA : 0;
        put_detail(&e, p + 5, (size_t)(s + n - p - 5));
        j->ghes_left = 0; /* one error per firmware record */
        *ret = e;
        return 0;
}

int klog_join_feed(struct klog_join *j, const char *s, size_t n, struct klog_event *ret)
{
        if (j->ghes_left)
                j->ghes_left--;
        if (ghes_severity(j, s, n))
                return -ENOENT;
        if (parse_cper_aer(j, s, n, ret) == 0)
                return 0;
        static const char head[] = "NVRM: The NVIDIA GPU ";
        struct klog_event e;
        int r = klog_parse_line(s, n, &e);
        if (r == 0 && e.kind == KLOG_FALLEN_OFF_BUS && !e.have_pci && j->pending) {
                e.pci = j->pci; /* the message's last line; its address was on the first */
                e.have_pci = true;
        }
        if (r == 0 && e.kind == KLOG_FALLEN_OFF_BUS)
                j->pending = false;
        if (j->sxid_left)
                j->sxid_left--;
        if (j->aer_left)
                j->aer_left--;
        if (r == 0 && e.kind == KLOG_SXID) {
                bool same =
                    j->sxid_left && j->sxid_code == e.code && klog_pci_same(&j->sxid_pci, &e.pci);
                if (same && (e.flags & KLOG_F_CONTINUATION))
                        return -ENOENT; /* a line of the SXid given already */
                j->sxid_pci = e.pci;
                j->sxid_code = e.code;
                j->sxid_left = KLOG_JOIN_WINDOW;
        }
        if (r == 0 &&
            (e.kind == KLOG_AER_CORRECTED || e.kind == KLOG_AER_NONFATAL ||
             e.kind == KLOG_AER_FATAL) &&
            !(e.flags & KLOG_F_NOT_RECOVERED)) {
                if (e.flags & KLOG_F_FROM_PORT) {
                        j->aer_pci = e.pci;
                        j->aer_kind = e.kind;
                        j->aer_left = e.have_pci ? KLOG_JOIN_WINDOW : 0;
                } else if (j->aer_left && e.have_pci && e.kind == j->aer_kind &&
                           klog_pci_same(&j->aer_pci, &e.pci)) {
                        j->aer_left = 0; /* the device's own account of that error */
                        e.flags |= KLOG_F_AFTER_PORT;
                }
        }
        if (r == 0) {
                *ret = e;
                return 0;
        }
        struct klog_pci pci;
        if (pci_after(s, n, head, &pci, NULL)) {
                /* The first line of a message that may be "fallen off the bus" (or
                 * another, e.g. "is not supported"): wait for its last line. */
                j->pending = true;
                j->pci = pci;
                j->left = KLOG_JOIN_WINDOW;
        } else if (j->pending && --j->left == 0) {
                j->pending = false;
        }
        return -ENOENT;
}
