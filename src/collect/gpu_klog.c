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
        put_detail(&e, c.p, (size_t)(c.end - c.p));
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
        } else {
                return -ENOENT;
        }
        put_detail(&e, p, (size_t)(s + n - p));
        *ret = e;
        return 0;
}

/* "Timeout after 45s of waiting for RPC response from GPU0 GSP!" (550 and later) or
 * "Timeout waiting for RPC from GSP0!" (535), printed without an Xid. */
static int parse_gsp(const char *s, size_t n, struct klog_event *ret)
{
        static const char *const pats[] = {"waiting for RPC response from GPU",
                                           "Timeout waiting for RPC from GSP"};
        struct klog_event e;
        ev_init(&e, KLOG_GSP_TIMEOUT);
        for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
                const char *p = find(s, n, pats[i]);
                if (!p)
                        continue;
                struct cursor c =
                    cur_make(p + strlen(pats[i]), (size_t)(s + n - p - strlen(pats[i])));
                uint64_t inst;
                if (cur_u64(&c, &inst) == 0 && inst < 1024)
                        e.gpu_instance = (int)inst;
                const char *from = find(s, n, "Timeout");
                put_detail(&e, from ? from : p, (size_t)(s + n - (from ? from : p)));
                *ret = e;
                return 0;
        }
        return -ENOENT;
}

/* "<driver> <address>: [AER: ]PCIe Bus Error: severity=..., type=..., (...)" */
static int parse_aer(const char *s, size_t n, struct klog_event *ret)
{
        static const struct {
                const char *text;
                enum klog_kind kind;
        } sev[] = {
            {"Corrected", KLOG_AER_CORRECTED},
            {"Uncorrected (Non-Fatal)", KLOG_AER_NONFATAL},
            {"Uncorrected (Fatal)", KLOG_AER_FATAL},
        };
        const char *p = find(s, n, "Bus Error: severity=");
        if (!p)
                return -ENOENT;
        const char *v = p + strlen("Bus Error: severity=");
        size_t vn = (size_t)(s + n - v);
        struct klog_event e;
        size_t i = 0;
        for (; i < sizeof(sev) / sizeof(sev[0]); i++) {
                size_t k = strlen(sev[i].text);
                if (vn > k && !memcmp(v, sev[i].text, k) && v[k] == ',')
                        break;
        }
        if (i == sizeof(sev) / sizeof(sev[0]))
                return -ENOENT;
        ev_init(&e, sev[i].kind);
        /* The device is the dev_printk() prefix: the word after the driver's name. */
        const char *sp = memchr(s, ' ', (size_t)(p - s));
        if (sp)
                e.have_pci = klog_pci_parse(sp + 1, (size_t)(p - sp - 1), &e.pci) > 0;
        put_detail(&e, v, vn);
        *ret = e;
        return 0;
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

int klog_join_feed(struct klog_join *j, const char *s, size_t n, struct klog_event *ret)
{
        static const char head[] = "NVRM: The NVIDIA GPU ";
        struct klog_event e;
        int r = klog_parse_line(s, n, &e);
        if (r == 0 && e.kind == KLOG_FALLEN_OFF_BUS && !e.have_pci && j->pending) {
                e.pci = j->pci; /* the message's last line; its address was on the first */
                e.have_pci = true;
        }
        if (r == 0 && e.kind == KLOG_FALLEN_OFF_BUS)
                j->pending = false;
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
