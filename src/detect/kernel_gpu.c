/* SPDX-License-Identifier: Apache-2.0 */
/* Detector: GPU failures as the kernel log shows them, read live from the kernel log
 * reader (collect/kmsg.h) through its tap: every record the kernel hands over, from the
 * daemon's start position on, however many arrive between two ticks (the records
 * already there at start are in the snapshots, never reported as new). Each line
 * collect/gpu_klog.h knows is an event with a meaning and an action:
 *
 *   type=KERNEL_GPU kind=fallen_off_bus gpu=0 pci=0000:01:00.0 xid=79 meaning="GPU has
 *   fallen off the bus" action="..." text="fallen off the bus and is not responding ..."
 *
 * a count in vigil_gpu_kernel_errors_total{kind} (core/counters.h) and, through its
 * events.log line, a finding (core/findings_events.c).
 *
 * An Xid line is also an NVML event, usually: an Xid line of a GPU waits GRACE_NS for
 * the NVML event listener's Xid of the same code (counted in struct gpu_counters); one
 * that NVML delivered is left to it, one it missed is reported here, counted as an Xid
 * and takes the crash snapshot an NVML Xid would (asked of detect/gpu_events.c through
 * ctx->gpu_crash_wanted). A GPU fallen off the bus without an Xid 79 is an Xid 79: the
 * same wait, counters, finding and snapshot; with an Xid 79 line of the same GPU within
 * MERGE_NS it is that Xid's, not a second loss. The driver's init failure prints up to
 * three lines (RmInitAdapter, rm_init_adapter, the probe) and the probe summary: one
 * failure per INIT_MERGE_NS and device; a GSP failure's lines (banner, heartbeat,
 * timeout) one per GSP_MERGE_NS; a line that asks for a reset is always one. Every
 * event counts once in vigil_gpu_kernel_errors_total, after these merges. PCIe AER
 * lines count when the device is a GPU, its upstream port (the GPU's link, from
 * sysfs) or another NVIDIA device (sysfs, or the nvidia driver printed it); the root
 * port's "error received" line and the device's own line after it are one error. A
 * loss marks the GPU lost (ctx->gpu_lost_klog) for detect/gpu_missing.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/gpu_klog.h"
#include "collect/kmsg.h"
#include "core/counters.h"
#include "core/eventlog.h"
#include "core/vigil.h"
#include "detect/sxid_catalog.h"
#include "detect/xid_catalog.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/strbuf.h"
#include "util/hot.h"

_Static_assert(COUNTERS_KLOG_KINDS == KLOG_KIND_COUNT, "core/counters.h COUNTERS_KLOG_KINDS");

#define GRACE_NS         (3 * NSEC_PER_SEC)  /* an Xid line waits this for NVML's event */
#define MERGE_NS         (30 * NSEC_PER_SEC) /* fallen off the bus and Xid 79: one loss */
#define INIT_MERGE_NS    (10 * NSEC_PER_SEC) /* one init failure's lines */
#define PENDING_MAX      64
#define RECENT_MAX       16
#define CODES_MAX        16
#define GSP_MERGE_NS     (10 * NSEC_PER_SEC) /* one GSP failure's lines */
#define GSP_HOLD_RECORDS 12 /* records a GSP failure's first line waits for its Xid */
#define LINES_PER_MIN    10 /* events.log lines per kind and device a minute; more are counted */
#define LIMIT_SLOTS      64

struct pending {
        bool used;
        struct klog_event e;
        int slot;
        char pci[16];
        int64_t due_ns, real_ns;
};

struct recent {
        enum klog_kind kind;
        unsigned code;
        char pci[16];
        int64_t mono_ns;
};

/* Per GPU and Xid code: Xids counted here (added) and NVML events matched to lines. */
struct code_match {
        uint32_t code;
        uint64_t added, claimed;
};

/* A flood (corrected AER errors, an Xid storm) writes LINES_PER_MIN lines a minute per
 * kind and device, then fewer (limit_pass); the rest are counted (always) and named in
 * the next line written. */
struct limit {
        enum klog_kind kind;
        char pci[16];
        int64_t window_ns; /* 0: unused */
        int64_t period_ns; /* the window's length: a minute, doubled while flooding */
        unsigned lines, allowed;
        uint64_t held; /* lines not written since the last one */
};

struct kgpu {
        bool known; /* the GPU's address is parsed */
        struct klog_pci pci, port;
        bool have_port;
        struct code_match match[CODES_MAX];
};

struct kernel_gpu {
        struct vigil_ctx *ctx;
        struct klog_join join;
        unsigned wanted_rank[VIGIL_MAX_GPUS]; /* the crash reason asked for: how severe */
        struct pending pending[PENDING_MAX];
        struct recent recent[RECENT_MAX];
        unsigned recent_next;
        struct limit limits[LIMIT_SLOTS];
        struct limit others[KLOG_KIND_COUNT]; /* by kind: the pairs without a slot */
        struct {
                bool held;
                struct klog_event e;
                int slot;
                char pci[16];
                unsigned left; /* records it still waits */
                int64_t mono_ns, real_ns;
        } gsp;                    /* gsp_hold(): a GSP failure's first line */
        struct klog_pci aer_port; /* aer_told(): the port's line taken last */
        enum klog_kind aer_port_kind;
        bool aer_port_taken;
        struct kgpu gpu[VIGIL_MAX_GPUS];
};

/* ---- the GPUs' addresses ---- */

/* "DDDD:BB:DD.F" of the port the device at ROOT/sys/bus/pci/devices/BDF hangs off:
 * the directory above it in sysfs (devices/pci0000:00/0000:00:01.0/0000:01:00.0). */
static bool upstream_port(const char *root, const char *bdf, struct klog_pci *ret)
{
        char rel[96], path[4096], link[4096];
        snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s", bdf);
        if (path_join(path, sizeof(path), root, rel) < 0)
                return false;
        ssize_t n = readlink(path, link, sizeof(link) - 1);
        if (n <= 0)
                return false;
        link[n] = '\0';
        char *last = strrchr(link, '/');
        if (!last)
                return false;
        *last = '\0';
        char *up = strrchr(link, '/');
        up = up ? up + 1 : link;
        return klog_pci_parse(up, strlen(up), ret) > 0 && ret->fn >= 0;
}

/* An NVIDIA device (vendor 0x10de in sysfs): an NVSwitch, a GPU NVML does not list. */
static bool nvidia_device(const char *root, const char *bdf)
{
        char rel[96], path[4096], buf[16] = "";
        snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/vendor", bdf);
        if (path_join(path, sizeof(path), root, rel) < 0)
                return false;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        return n >= 6 && !strncmp(buf, "0x10de", 6);
}

VIGIL_HOT static void learn_gpus(struct kernel_gpu *s)
{
        struct vigil_ctx *ctx = s->ctx;
        unsigned n = ctx->frame->ngpus < VIGIL_MAX_GPUS ? ctx->frame->ngpus : VIGIL_MAX_GPUS;
        for (unsigned slot = 0; slot < n; slot++) {
                struct kgpu *g = &s->gpu[slot];
                const char *id = ctx->frame->gpus[slot].pci_bus_id;
                if (g->known || !id[0] || !klog_pci_parse(id, strlen(id), &g->pci))
                        continue;
                char bdf[16];
                klog_pci_format(bdf, sizeof(bdf), &g->pci);
                g->known = true;
                g->have_port = upstream_port(ctx->opt->root, bdf, &g->port);
                counters_add_klog(ctx->extra, bdf, (int)slot, COUNTERS_KLOG_KINDS);
        }
}

static bool is_aer(enum klog_kind k)
{
        return k == KLOG_AER_CORRECTED || k == KLOG_AER_NONFATAL || k == KLOG_AER_FATAL;
}

/* The GPU slot the line is about (an AER line: also the GPU's upstream port); -1. */
static int slot_of(const struct kernel_gpu *s, const struct klog_event *e)
{
        for (int slot = 0; e->have_pci && slot < VIGIL_MAX_GPUS; slot++) {
                const struct kgpu *g = &s->gpu[slot];
                if (g->known &&
                    (klog_pci_same(&e->pci, &g->pci) ||
                     (is_aer(e->kind) && g->have_port && klog_pci_same(&e->pci, &g->port))))
                        return slot;
        }
        return -1;
}

/* ---- what a line means ---- */

static const char *action_of(const char *a)
{
        static const struct {
                const char *name, *action;
        } acts[] = {
            {"NONE", "none: the GPU is usable"},
            {"GPU_RESET", "stop the GPU's work and reset it (nvidia-smi -r), or reboot"},
            {"NODE_REBOOT", "drain the machine and reboot it"},
            {"DRAIN_P2P", "stop peer-to-peer work on the GPU, then reset it"},
            {"DRAIN_AND_RESET",
             "let the running work finish, take no new work, then reset the GPU"},
            {"RECOVER_IMEX_DOMAIN", "recover the IMEX domain (see NVIDIA's IMEX guide)"},
        };
        for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
                if (!strcmp(a, acts[i].name))
                        return acts[i].action;
        return "see the driver's message";
}

/* An SXid's meaning and action. The code's row in NVIDIA's Fabric Manager guide
 * (detect/sxid_catalog.c, appendix D) names it and says its impact and recovery; the
 * unit is the code's range (NVSWITCH_ERR_HW_*,
 * src/common/nvswitch/interface/ctrl_dev_nvswitch.h:824-1288, 595.45.04); how bad the
 * driver found it is its first line's "Fatal"/"Non-fatal". A code the guide does not list
 * is described by the driver's word alone: a fatal one leaves the NVSwitch, and the GPUs
 * whose traffic crossed it, unusable until they are reset; a non-fatal one was contained
 * by the hardware. */
static void sxid_describe(const struct klog_event *e, char *meaning, size_t mcap, char *action,
                          size_t acap)
{
        static const char *const units[] = {
            [0] = "host",    [1] = "ingress", [2] = "egress",        [3] = "fstate",
            [4] = "tstate",  [5] = "route",   [6] = "NPORT",         [7] = "NVLCTRL",
            [8] = "NVLIPT",  [9] = "NVLTLC",  [10] = "DL/PL link",   [11] = "AFS",
            [12] = "MINION", [13] = "NXBAR",  [14] = "sourcetrack",  [15] = "NVLIPT link",
            [16] = "SOE",    [17] = "CCI",    [18] = "OSFP thermal", [19] = "multicast",
        };
        unsigned u = e->code / 1000;
        const char *unit =
            u >= 10 && u - 10 < sizeof(units) / sizeof(units[0]) ? units[u - 10] : "NVSwitch";
        bool fatal = e->flags & KLOG_F_FATAL;
        const struct sxid_info *x = sxid_lookup(e->code);
        if (x) {
                snprintf(meaning, mcap, "%s NVSwitch error (%s): %s; %s",
                         fatal ? "fatal" : "non-fatal", unit, x->name, sxid_class_impact(x->cls));
                /* A driver that calls a row of a milder class fatal is believed. */
                enum sxid_class c = fatal && !sxid_class_critical(x->cls) ? SXID_FATAL : x->cls;
                snprintf(action, acap, "%s", sxid_class_action(c));
                return;
        }
        snprintf(meaning, mcap, "%s NVSwitch error (%s)", fatal ? "fatal" : "non-fatal", unit);
        snprintf(action, acap, "%s", sxid_class_action(fatal ? SXID_FATAL : SXID_THROUGHPUT));
}

/* Whether an SXid line is critical: the driver calls it fatal, or the guide's row takes
 * the GPUs behind the NVSwitch out of service. */
static bool sxid_critical(const struct klog_event *e)
{
        const struct sxid_info *x = sxid_lookup(e->code);
        return (e->flags & KLOG_F_FATAL) || (x && sxid_class_critical(x->cls));
}

/* The meaning and action of e into the buffers. */
static void describe(const struct klog_event *e, char *meaning, size_t mcap, char *action,
                     size_t acap)
{
        static const char *const text[KLOG_KIND_COUNT][2] = {
            [KLOG_SXID] = {"NVSwitch error",
                           "a fatal SXid needs the NVSwitch reset by the fabric manager or a "
                           "reboot; a non-fatal one: watch for repeats"},
            [KLOG_INIT_FAILED] = {"the NVIDIA driver could not initialise the GPU",
                                  "check the GPU's power, seating and the driver and firmware "
                                  "versions; reboot; replace the GPU if it persists"},
            [KLOG_GSP_TIMEOUT] = {"the GPU's GSP firmware did not answer the driver in time "
                                  "or failed (no Xid 119/120 logged)",
                                  "watch for Xid 119/120; reset the GPU if it repeats"},
            [KLOG_AER_CORRECTED] = {"PCIe corrected error on the GPU's link",
                                    "none at once; a rising count is a marginal link: check "
                                    "the seating, riser and slot"},
            [KLOG_AER_NONFATAL] = {"PCIe uncorrected (non-fatal) error on the GPU's link",
                                   "check the link (lspci -vvv); reset the GPU if it misbehaves"},
            [KLOG_AER_FATAL] = {"PCIe uncorrected (fatal) error on the GPU's link",
                                "reboot; check the seating, riser and slot; replace the part if "
                                "it repeats"},
        };
        const struct xid_info *x = NULL;
        if (e->kind == KLOG_XID || e->kind == KLOG_FALLEN_OFF_BUS)
                x = xid_lookup(e->kind == KLOG_XID ? e->code : 79);
        if (e->kind == KLOG_SXID) {
                sxid_describe(e, meaning, mcap, action, acap);
        } else if (e->flags & KLOG_F_NOT_RECOVERED) {
                snprintf(meaning, mcap,
                         "the kernel could not recover the device from a PCIe "
                         "error");
                snprintf(action, acap,
                         "stop the GPU's work and reset it (nvidia-smi -r), or "
                         "reboot; check the seating, riser and slot");
        } else if (e->flags & KLOG_F_RESET) {
                snprintf(meaning, mcap, "%s; the driver says the GPU needs a reset",
                         text[e->kind][0] ? text[e->kind][0] : "");
                snprintf(action, acap, "%s", action_of("GPU_RESET"));
        } else if (e->kind == KLOG_RECOVERY_ACTION) {
                snprintf(meaning, mcap, "the driver asks for a recovery action: %s", e->action);
                snprintf(action, acap, "%s", action_of(e->action));
        } else if (x) {
                snprintf(meaning, mcap, "%s", x->meaning);
                snprintf(action, acap, "%s", x->action);
        } else if (e->kind == KLOG_XID) {
                snprintf(meaning, mcap, "Xid %u (not in vigil's catalog)", e->code);
                snprintf(action, acap, "see NVIDIA's Xid catalog");
        } else {
                snprintf(meaning, mcap, "%s", text[e->kind][0] ? text[e->kind][0] : "");
                snprintf(action, acap, "%s", text[e->kind][1] ? text[e->kind][1] : "");
        }
}

/* An Xid code the line stands for (a GPU fallen off the bus: 79); 0 for none. */
static unsigned xid_of(const struct klog_event *e)
{
        if (e->kind == KLOG_XID || e->kind == KLOG_RECOVERY_ACTION)
                return e->code;
        return e->kind == KLOG_FALLEN_OFF_BUS ? 79 : 0;
}

/* Double quotes would end the events.log value: they become single ones. */
static void unquote(char *s)
{
        for (; *s; s++)
                if (*s == '"')
                        *s = '\'';
}

/* The entry of Xid code (> 0) of GPU g, added when new; NULL when the table is full. */
static struct code_match *match_of(struct kgpu *g, unsigned code)
{
        for (unsigned i = 0; i < CODES_MAX; i++) {
                if (!g->match[i].code)
                        g->match[i].code = code;
                if (g->match[i].code == code)
                        return &g->match[i];
        }
        return NULL;
}

/* ---- reporting ---- */

/* The window of the pair (kind, pci): its own slot, a slot that is idle (its window
 * over with nothing held), or, with every slot busy, the one its kind shares with the
 * other pairs of that kind without a slot: the bound holds for any number of devices,
 * and a flood of one kind over many devices leaves the other kinds their lines. */
static struct limit *limit_of(struct kernel_gpu *s, enum klog_kind kind, const char *pci,
                              int64_t now_ns)
{
        struct limit *free_l = NULL;
        for (unsigned i = 0; i < LIMIT_SLOTS; i++) {
                struct limit *l = &s->limits[i];
                if (l->window_ns && l->kind == kind && !strcmp(l->pci, pci))
                        return l;
                bool idle = !l->window_ns || (now_ns - l->window_ns >= l->period_ns && !l->held);
                if (idle && !free_l)
                        free_l = l;
        }
        if (!free_l)
                return &s->others[kind];
        memset(free_l, 0, sizeof(*free_l));
        free_l->kind = kind;
        snprintf(free_l->pci, sizeof(free_l->pci), "%s", pci);
        return free_l;
}

/* True when a line of kind for pci may be written now; *ret_held: lines held back
 * before it. Every line is counted either way. A window allows LINES_PER_MIN lines in
 * its first minute; while the flood goes on (a window ends with lines held), the next
 * window is twice as long, up to an hour, and writes one line naming what it held:
 * a flood that lasts days writes a line an hour per pair, and cannot rotate events.log
 * (50 MB, core/eventlog.h) past the lines written before it. */
static bool limit_pass(struct kernel_gpu *s, enum klog_kind kind, const char *pci, int64_t now_ns,
                       uint64_t *ret_held)
{
        struct limit *l = limit_of(s, kind, pci, now_ns);
        if (!l->window_ns || now_ns - l->window_ns >= l->period_ns) {
                bool flooding = l->window_ns && l->held;
                l->period_ns = !flooding                             ? 60 * NSEC_PER_SEC
                               : l->period_ns >= 3600 * NSEC_PER_SEC ? 3600 * NSEC_PER_SEC
                                                                     : l->period_ns * 2;
                l->allowed = flooding ? 1 : LINES_PER_MIN;
                l->window_ns = now_ns ? now_ns : 1;
                l->lines = 0;
        }
        if (l->lines >= l->allowed) {
                l->held++;
                return false;
        }
        l->lines++;
        *ret_held = l->held;
        l->held = 0;
        return true;
}

/* How severe an Xid is, for choosing a snapshot's reason: a lost GPU first, then a
 * reboot, a reset or a person to look (or a code not in the catalog), then the rest. */
static unsigned xid_rank(unsigned xid)
{
        static const unsigned by_class[] = {
            [XID_CLASS_INFO] = 1,  [XID_CLASS_APP] = 2,    [XID_CLASS_WATCH] = 2,
            [XID_CLASS_RESET] = 3, [XID_CLASS_REBOOT] = 4, [XID_CLASS_SERVICE] = 3,
        };
        const struct xid_info *x = xid_lookup(xid);
        if (xid == 79)
                return 5;
        return x && (unsigned)x->cls < sizeof(by_class) / sizeof(by_class[0]) ? by_class[x->cls]
                                                                              : 3;
}

/* An Xid the NVML events missed (a GPU fallen off the bus: 79): counted as NVML's
 * would be, and the crash snapshot asked of gpu-events (its cooldown applies). */
static void request_crash(struct kernel_gpu *s, int slot, unsigned xid, const struct klog_event *e)
{
        struct vigil_ctx *ctx = s->ctx;
        char meaning[200], action[200];
        counters_add_xid(ctx->extra, (unsigned)slot, xid);
        struct code_match *m = match_of(&s->gpu[slot], xid);
        if (m)
                m->added++;
        /* Several in one tick: the snapshot takes the most severe reason, not the last. */
        unsigned rank = xid_rank(xid);
        if (ctx->gpu_crash_wanted[slot][0] && rank <= s->wanted_rank[slot])
                return;
        s->wanted_rank[slot] = rank;
        describe(e, meaning, sizeof(meaning), action, sizeof(action));
        snprintf(ctx->gpu_crash_wanted[slot], sizeof(ctx->gpu_crash_wanted[slot]),
                 "Kernel log: Xid(%u) %.120s", xid, meaning);
}

static void report(struct kernel_gpu *s, const struct klog_event *e, int slot, const char *pci,
                   int64_t mono_ns, int64_t real_ns)
{
        struct vigil_ctx *ctx = s->ctx;
        char meaning[200], action[200], detail[KLOG_DETAIL_MAX], line[900];
        unsigned xid = xid_of(e);
        uint64_t held = 0;
        if (xid && slot >= 0)
                request_crash(s, slot, xid, e);
        if (!limit_pass(s, e->kind, pci, mono_ns, &held))
                return;
        describe(e, meaning, sizeof(meaning), action, sizeof(action));
        snprintf(detail, sizeof(detail), "%s", e->detail);
        unquote(detail);
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        event_begin(&sb, EV_KERNEL_GPU);
        sb_printf(&sb, " kind=%s", klog_kind_names[e->kind]);
        if (slot >= 0)
                sb_printf(&sb, " gpu=%u", ctx->frame->gpus[slot].index);
        if (pci[0])
                sb_printf(&sb, " pci=%s", pci);
        if (xid)
                sb_printf(&sb, " xid=%u", xid);
        if (e->kind == KLOG_SXID)
                sb_printf(&sb, " sxid=%u", e->code);
        if (e->action[0])
                sb_printf(&sb, " recovery_action=%s", e->action);
        if (e->gpu_instance >= 0)
                sb_printf(&sb, " driver_gpu=%d", e->gpu_instance);
        if (held)
                sb_printf(&sb, " held_back=%llu", (unsigned long long)held);
        if ((e->kind == KLOG_SXID && sxid_critical(e)) ||
            (e->flags & (KLOG_F_RESET | KLOG_F_NOT_RECOVERED)))
                sb_puts(&sb, " severity=critical");
        sb_printf(&sb, " meaning=\"%s\" action=\"%s\" text=\"%s\"", meaning, action, detail);
        eventlog_printf(ctx->events, real_ns, "%s", line);
        vlog(LOG_WARN, "kernel log: %s%s%s: %s (%s)", klog_kind_names[e->kind], pci[0] ? " " : "",
             pci, meaning, detail);
}

/* NVML's count of Xid code on slot: the counters' less what this detector added. */
static uint64_t nvml_xids(const struct kernel_gpu *s, unsigned slot, unsigned code,
                          const struct code_match *m)
{
        const struct gpu_counters *g = &s->ctx->extra->gpus[slot];
        uint64_t n = 0;
        for (unsigned i = 0; i < g->nxids && i < COUNTERS_MAX_XIDS; i++)
                if (g->xids[i].xid == code)
                        n = g->xids[i].count;
        return m && n >= m->added ? n - m->added : n;
}

/* Pending lines whose wait is over: NVML's if it delivered the Xid, else reported. */
VIGIL_HOT static void mature(struct kernel_gpu *s, int64_t now_ns)
{
        for (unsigned i = 0; i < PENDING_MAX; i++) {
                struct pending *p = &s->pending[i];
                if (!p->used || p->due_ns > now_ns)
                        continue;
                p->used = false;
                unsigned code = xid_of(&p->e);
                struct code_match *m = match_of(&s->gpu[p->slot], code);
                if (m && nvml_xids(s, (unsigned)p->slot, code, m) > m->claimed) {
                        m->claimed++; /* NVML delivered it: its line, count and snapshot */
                        continue;
                }
                report(s, &p->e, p->slot, p->pci, now_ns, p->real_ns);
        }
}

static void wait_for_nvml(struct kernel_gpu *s, const struct klog_event *e, int slot,
                          const char *pci, int64_t mono_ns, int64_t real_ns)
{
        unsigned free_i = PENDING_MAX, oldest = 0;
        for (unsigned i = 0; i < PENDING_MAX; i++) {
                if (!s->pending[i].used && free_i == PENDING_MAX)
                        free_i = i;
                if (s->pending[i].due_ns < s->pending[oldest].due_ns)
                        oldest = i;
        }
        if (free_i == PENDING_MAX) { /* full: decide the oldest now */
                mature(s, s->pending[oldest].due_ns);
                free_i = oldest;
        }
        struct pending *p = &s->pending[free_i];
        p->used = true;
        p->e = *e;
        p->slot = slot;
        snprintf(p->pci, sizeof(p->pci), "%s", pci);
        p->due_ns = mono_ns + GRACE_NS;
        p->real_ns = real_ns;
}

/* A line of kind (and code) within window_ns of the last one remembered: for the same
 * device, or, when either has no address (a GSP line, the probe summary), any device. */
static bool seen_recently(struct kernel_gpu *s, enum klog_kind kind, unsigned code, const char *pci,
                          int64_t now_ns, int64_t window_ns, bool any_without_pci)
{
        for (unsigned i = 0; i < RECENT_MAX; i++) {
                const struct recent *r = &s->recent[i];
                bool same = !strcmp(r->pci, pci) || (any_without_pci && (!r->pci[0] || !pci[0]));
                if (r->mono_ns && r->kind == kind && r->code == code && same &&
                    now_ns - r->mono_ns <= window_ns)
                        return true;
        }
        return false;
}

static void remember(struct kernel_gpu *s, enum klog_kind kind, unsigned code, const char *pci,
                     int64_t now_ns)
{
        struct recent *r = &s->recent[s->recent_next++ % RECENT_MAX];
        r->kind = kind;
        r->code = code;
        snprintf(r->pci, sizeof(r->pci), "%s", pci);
        r->mono_ns = now_ns;
}

/* An Xid 79 line: a fallen-off-the-bus line of the same device waiting is its. True
 * when there was one. */
static bool drop_fallen(struct kernel_gpu *s, const char *pci)
{
        bool dropped = false;
        for (unsigned i = 0; i < PENDING_MAX; i++) {
                struct pending *p = &s->pending[i];
                if (p->used && p->e.kind == KLOG_FALLEN_OFF_BUS && !strcmp(p->pci, pci)) {
                        p->used = false;
                        dropped = true;
                }
        }
        return dropped;
}

/* The root port's "error received from" line for a device, taken, and then the device's
 * own lines of that error (KLOG_F_AFTER_PORT, collect/gpu_klog.h): one error, the
 * port's line. True for the device's line of an error taken already. */
static bool aer_told(struct kernel_gpu *s, const struct klog_event *e)
{
        if (e->flags & KLOG_F_FROM_PORT) {
                s->aer_port = e->pci;
                s->aer_port_kind = e->kind;
                s->aer_port_taken = e->have_pci;
                return false;
        }
        bool told = (e->flags & KLOG_F_AFTER_PORT) && s->aer_port_taken &&
                    e->kind == s->aer_port_kind && klog_pci_same(&e->pci, &s->aer_port);
        s->aer_port_taken = false;
        return told;
}

/* A line of a failure given already: the driver's init failure (up to three lines and
 * the probe summary, INIT_MERGE_NS) and a GSP failure (its banner, heartbeat and timeout
 * lines, GSP_MERGE_NS) are one event each; a line that asks for a reset is always one. */
static bool merged(struct kernel_gpu *s, const struct klog_event *e, const char *pci,
                   int64_t mono_ns)
{
        int64_t window = e->kind == KLOG_INIT_FAILED   ? INIT_MERGE_NS
                         : e->kind == KLOG_GSP_TIMEOUT ? GSP_MERGE_NS
                                                       : 0;
        if (!window)
                return false;
        bool again = seen_recently(s, e->kind, 0, pci, mono_ns, window, true);
        remember(s, e->kind, 0, pci, mono_ns);
        return again && !(e->flags & KLOG_F_RESET);
}

/* An event taken: counted once by kind (not a loss's second line: the fallen-off line an
 * Xid 79 line replaced was counted), then reported, or, an Xid of a GPU, held for NVML. */
static void take(struct kernel_gpu *s, const struct klog_event *e, int slot, const char *pci,
                 int64_t mono_ns, int64_t real_ns, bool counted)
{
        unsigned xid = xid_of(e);
        if (!counted)
                counters_add_klog(s->ctx->extra, pci, slot, e->kind);
        if (xid == 79 && slot >= 0)
                s->ctx->gpu_lost_klog[slot] = true;
        if (xid && slot >= 0)
                wait_for_nvml(s, e, slot, pci, mono_ns, real_ns);
        else
                report(s, e, slot, pci, mono_ns, real_ns);
}

/* The first line of a GSP failure waits GSP_HOLD_RECORDS records (or the end of the
 * tick): the driver prints the heartbeat lines and the "GSP Timeout" banner before the
 * timeout itself (kernel_gsp.c:2303, 2375, 2386), which is an Xid 119 when the driver
 * classifies it so; the failure is then that Xid's, not a second event. */
static void gsp_hold(struct kernel_gpu *s, const struct klog_event *e, int slot, const char *pci,
                     int64_t mono_ns, int64_t real_ns)
{
        s->gsp.held = true;
        s->gsp.e = *e;
        s->gsp.slot = slot;
        snprintf(s->gsp.pci, sizeof(s->gsp.pci), "%s", pci);
        s->gsp.left = GSP_HOLD_RECORDS;
        s->gsp.mono_ns = mono_ns;
        s->gsp.real_ns = real_ns;
}

static void gsp_release(struct kernel_gpu *s);

static void one_line(struct kernel_gpu *s, const struct klog_event *e, int64_t mono_ns,
                     int64_t real_ns)
{
        char pci[16] = "";
        int slot = slot_of(s, e);
        if (e->have_pci)
                klog_pci_format(pci, sizeof(pci),
                                slot >= 0 && !is_aer(e->kind) ? &s->gpu[slot].pci : &e->pci);
        if (is_aer(e->kind) && slot < 0 && !(e->flags & KLOG_F_NVIDIA) &&
            !(pci[0] && nvidia_device(s->ctx->opt->root, pci)))
                return; /* another device's link */
        if (is_aer(e->kind) && aer_told(s, e))
                return;
        if (e->kind == KLOG_GSP_TIMEOUT && s->gsp.held && s->gsp.e.gpu_instance < 0 &&
            e->gpu_instance >= 0) {
                /* The timeout line names the driver's GPU: the held failure takes it. */
                s->gsp.e.gpu_instance = e->gpu_instance;
                snprintf(s->gsp.e.detail, sizeof(s->gsp.e.detail), "%s", e->detail);
        }
        if (merged(s, e, pci, mono_ns))
                return;
        unsigned xid = xid_of(e);
        bool replaced_fallen = false;
        if (xid == 79) {
                /* A loss is one, whichever of its lines comes first: an Xid 79 line
                 * takes the place of a fallen-off line waiting; a second line within
                 * MERGE_NS is the same loss. */
                bool replaced = e->kind == KLOG_XID && drop_fallen(s, pci);
                bool again = !replaced && pci[0] &&
                             seen_recently(s, KLOG_XID, 79, pci, mono_ns, MERGE_NS, false);
                remember(s, KLOG_XID, 79, pci, mono_ns);
                if (again)
                        return;
                replaced_fallen = replaced;
        }
        if (e->kind == KLOG_XID && (e->code == 119 || e->code == 120) && s->gsp.held) {
                /* The GSP failure held is this Xid's, unless they name different GPUs. */
                const char *g = strstr(e->detail, "from GPU");
                struct cursor c = cur_make(g ? g + 8 : "", g ? strlen(g + 8) : 0);
                uint64_t inst;
                bool named = g && cur_u64(&c, &inst) == 0;
                if (!named || s->gsp.e.gpu_instance < 0 || inst == (uint64_t)s->gsp.e.gpu_instance)
                        s->gsp.held = false;
        }
        if (e->kind == KLOG_GSP_TIMEOUT && !(e->flags & KLOG_F_RESET)) {
                gsp_hold(s, e, slot, pci, mono_ns, real_ns);
                return;
        }
        take(s, e, slot, pci, mono_ns, real_ns,
             xid == 79 && e->kind == KLOG_XID && replaced_fallen);
}

/* The GSP failure held (gsp_hold) is one of its own: taken. */
static void gsp_release(struct kernel_gpu *s)
{
        if (!s->gsp.held)
                return;
        s->gsp.held = false;
        take(s, &s->gsp.e, s->gsp.slot, s->gsp.pci, s->gsp.mono_ns, s->gsp.real_ns, false);
}

/* ---- the detector ---- */

/* Every record the kernel hands over, as the kernel log source reads it (kmsg_drain(),
 * collect/kmsg.h's tap): none is missed when more arrive between two ticks than the
 * ring keeps. The records already there at start were read before the tap was set. */
static void kernel_gpu_tap(void *arg, const struct kmsg_record *rec)
{
        struct kernel_gpu *s = arg;
        struct klog_event e;
        if (klog_join_feed(&s->join, rec->text, rec->len, &e) == 0) {
                learn_gpus(s); /* the source drains before this detector's tick */
                one_line(s, &e, now_mono_ns(), now_real_ns());
        }
        if (s->gsp.held && s->gsp.left && --s->gsp.left == 0)
                gsp_release(s);
}

static int kernel_gpu_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->kmsg || kmsg_error(ctx->kmsg))
                return -ENODEV; /* no kernel log: the source said why */
        struct kernel_gpu *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->ctx = ctx;
        ctx->extra->klog_on = true;
        learn_gpus(s);
        kmsg_set_tap(ctx->kmsg, kernel_gpu_tap, s);
        *ret_state = s;
        return 0;
}

VIGIL_HOT static void kernel_gpu_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct kernel_gpu *s = state;
        struct kmsg_stats st;
        learn_gpus(s);
        gsp_release(s); /* its lines come at once: the tick's records held them all */
        mature(s, t->mono_ns);
        for (unsigned slot = 0; slot < ctx->frame->ngpus && slot < VIGIL_MAX_GPUS; slot++)
                if (!ctx->gpu_crash_wanted[slot][0])
                        s->wanted_rank[slot] = 0; /* taken: the next request starts anew */
        kmsg_get_stats(ctx->kmsg, &st);
        ctx->extra->klog_skipped[KLOG_SKIP_MALFORMED] = st.malformed;
        ctx->extra->klog_skipped[KLOG_SKIP_OVERWRITTEN] = st.lost;
        ctx->extra->klog_skipped[KLOG_SKIP_OVERSIZE] = st.oversize;
}

static void kernel_gpu_fini(void *state)
{
        struct kernel_gpu *s = state;
        if (s->ctx->kmsg)
                kmsg_set_tap(s->ctx->kmsg, NULL, NULL);
        free(s);
}

const struct vigil_detector vigil_detector_kernel_gpu = {
    .name = "kernel-gpu",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = kernel_gpu_init,
    .feed = kernel_gpu_feed,
    .fini = kernel_gpu_fini,
};
