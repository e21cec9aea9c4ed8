/* SPDX-License-Identifier: Apache-2.0 */
/* Findings from events.log lines, the same text whether the daemon taps its own lines
 * or `vigil report` reads the file back. A line's text (after its time stamp) reads
 *   type=NVML_EVENT gpu=0 event=Xid(79) mask=0x0008 data=79 xid=79 class=reboot
 *   meaning="GPU has fallen off the bus" action="reboot the machine; ..." severity=critical
 *   nvidia_action=RESTART_BM
 * Each kind's handler is named by its row in core/event_kinds.c. See findings.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/event_findings.h"
#include "core/findings.h"
#include "util/parse.h"

#define VAL_LEN 192

/* "gpuN" from gpu=N, else def. */
static void source_of(const struct event_line *l, char *out, size_t cap, const char *def)
{
        char v[8];
        struct strbuf sb;
        sb_init_fixed(&sb, out, cap);
        if (event_field(l, "gpu", v, sizeof(v)) && v[0])
                sb_printf(&sb, "gpu%s", v);
        else
                sb_puts(&sb, def);
}

EVENT_FINDING(evf_nvml_event)
{
        char ev[VAL_LEN], xid[24], meaning[VAL_LEN], action[VAL_LEN], text[FINDING_TEXT_LEN];
        event_field(l, "event", ev, sizeof(ev));
        if (strstr(ev, "GpuUnavailable"))
                findings_note(f, FINDING_GPU_LOST, src, NULL, 0, t, NULL);
        if (!event_field(l, "xid", xid, sizeof(xid)))
                return;
        struct strbuf sb;
        sb_init_fixed(&sb, text, sizeof(text));
        event_field(l, "meaning", meaning, sizeof(meaning));
        sb_puts(&sb, meaning);
        if (event_field(l, "action", action, sizeof(action)) && action[0])
                sb_printf(&sb, ". Action: %s", action);
        struct finding *x = findings_note(f, FINDING_XID, src, xid, 1, t, text);
        /* How serious (detect/xid_catalog.h's severity, from what it takes to get the
         * GPU back): an Xid NVIDIA's catalog asks nothing for (severity=info: 63, 92,
         * ...) is worth knowing, not an alarm; an application's fault or one to watch is
         * a warning; a reset, a reboot, a person to look, and a code the catalog does
         * not list (no severity) are critical. */
        char sev[16];
        if (x && event_field(l, "severity", sev, sizeof(sev))) {
                if (!strcmp(sev, "info")) {
                        x->alarm = false;
                        x->severity = FINDING_FYI;
                } else if (!strcmp(sev, "warning")) {
                        x->severity = FINDING_WARNING;
                }
        }
}

/* "type=TEMP_OVER_MAX gpu=0 state=above temp=95C max=90C" (detect/gpu_rules.c): the
 * anomaly the daemon counts per sample as TEMP_OVER_MAX, with its first time. */
EVENT_FINDING(evf_temp_over_max)
{
        char state[16], temp[16], max[16], text[96];
        event_field(l, "state", state, sizeof(state));
        if (strcmp(state, "above"))
                return;
        event_field(l, "temp", temp, sizeof(temp));
        event_field(l, "max", max, sizeof(max));
        snprintf(text, sizeof(text), "%s, above its maximum operating temperature %s", temp, max);
        findings_note(f, FINDING_ANOMALY, src, "TEMP_OVER_MAX", 0, t, text);
}

/* A memory condition other than ok: a reset or the part's replacement is due. */
EVENT_FINDING(evf_gpu_memory)
{
        char state[32], text[96];
        event_field(l, "state", state, sizeof(state));
        if (!strcmp(state, "ok"))
                return;
        snprintf(text, sizeof(text), "memory %s (%s)", state,
                 strcmp(state, "remap_failed") ? "reset the GPU" : "replace the GPU");
        findings_note(f, FINDING_ANOMALY, src, "GPU_MEMORY", 0, t, text);
}

/* A PCIe link below its maximum. */
EVENT_FINDING(evf_pcie_link)
{
        char state[16], w[16], mw[16], g[16], mg[16], text[128];
        event_field(l, "state", state, sizeof(state));
        if (strcmp(state, "degraded"))
                return;
        event_field(l, "width", w, sizeof(w));
        event_field(l, "max_width", mw, sizeof(mw));
        event_field(l, "gen", g, sizeof(g));
        event_field(l, "max_gen", mg, sizeof(mg));
        snprintf(text, sizeof(text), "PCIe link gen %s x%s, below its maximum gen %s x%s", g, w, mg,
                 mw);
        findings_note(f, FINDING_ANOMALY, src, "PCIE_LINK", 0, t, text);
}

/* An NVLink line: errors rising or a link down is a finding by link ("link 3 down",
 * "link 3 recovery_events +2 (14 in all)"); a link back up notes nothing. */
EVENT_FINDING(evf_nvlink)
{
        char state[16], link[8], counter[32], delta[24], total[24], text[128];
        event_field(l, "state", state, sizeof(state));
        event_field(l, "link", link, sizeof(link));
        if (!strcmp(state, "down")) {
                snprintf(text, sizeof(text), "NVLink link %s down", link);
                findings_note(f, FINDING_NVLINK, src, "NVLINK_DOWN", 0, t, text);
        } else if (!strcmp(state, "errors")) {
                event_field(l, "counter", counter, sizeof(counter));
                event_field(l, "delta", delta, sizeof(delta));
                event_field(l, "total", total, sizeof(total));
                snprintf(text, sizeof(text), "NVLink link %s %s errors +%s (%s in all)", link,
                         counter, delta, total);
                findings_note(f, FINDING_NVLINK, src, "NVLINK_ERRORS", 0, t, text);
        }
}

/* A fabric line: a probe that did not complete, failed, or a health fault. */
EVENT_FINDING(evf_fabric)
{
        char state[16], fabric[24], health[96], text[160];
        event_field(l, "state", state, sizeof(state));
        event_field(l, "fabric", fabric, sizeof(fabric));
        event_field(l, "health", health, sizeof(health));
        if (!strcmp(state, "incomplete") || !strcmp(state, "failed"))
                snprintf(text, sizeof(text),
                         "NVLink fabric %s (probe %s): check nvidia-fabricmanager", state, fabric);
        else if (!strcmp(state, "degraded"))
                snprintf(text, sizeof(text), "NVLink fabric degraded: %s", health);
        else
                return;
        findings_note(f, FINDING_NVLINK, src, "FABRIC", 0, t, text);
}

EVENT_FINDING(evf_nvml_failed)
{
        char err[VAL_LEN];
        event_field(l, "error", err, sizeof(err));
        struct finding *x = findings_note(f, FINDING_GPU_LOST, src, NULL, 1, t, err);
        if (x && isnan(x->open_t))
                x->open_t = t;
}

static void on_recovered_kind(struct findings *f, enum finding_kind kind, const char *src, double t)
{
        struct finding *x = findings_note(f, kind, src, NULL, 0, t, NULL);
        if (!x)
                return;
        if (isfinite(x->open_t) && isfinite(t) && t >= x->open_t)
                x->value += t - x->open_t;
        x->open_t = NAN;
}

EVENT_FINDING(evf_crash_snapshot)
{
        char file[VAL_LEN], reason[VAL_LEN];
        event_field(l, "file", file, sizeof(file));
        event_field(l, "reason", reason, sizeof(reason));
        if (!strncmp(reason, "Requested: ", 11))
                findings_note(f, FINDING_SNAPSHOT, src, NULL, 1, t, file);
        else
                findings_note(f, FINDING_CRASH_SNAPSHOT, src, file, 1, t, reason);
}

/* "TDP_REDUCED" from "TDP_REDUCED(300W)", "PWR+" from "PWR+75W" (as the report
 * counts the CSV's flags). */
static void anomaly_key(const char *flag, char *out, size_t cap)
{
        const char *paren = strncmp(flag, "PWR+", 4) ? strchr(flag, '(') : flag + 4;
        copy_bounded(out, cap, flag, paren ? (size_t)(paren - flag) : strlen(flag));
}

static void on_change(struct findings *f, enum finding_kind kind, const struct event_line *l,
                      const char *src, double t)
{
        char from[32], to[32], text[96];
        event_field(l, "from", from, sizeof(from));
        event_field(l, "to", to, sizeof(to));
        snprintf(text, sizeof(text), "%s \xE2\x86\x92 %s", from, to);
        findings_note(f, kind, src, NULL, 1, t, text);
}

EVENT_FINDING(evf_trend)
{
        (void)src;
        char name[FINDING_KEY_LEN], state[16], slope[32], text[128];
        event_field(l, "field", name, sizeof(name));
        event_field(l, "state", state, sizeof(state));
        if (strcmp(state, "rising") != 0)
                return;
        char out[24];
        event_field(l, "slope_per_h", slope, sizeof(slope));
        if (event_field(l, "runs_out_in", out, sizeof(out)))
                snprintf(text, sizeof(text), "%s per hour; at this rate memory runs out in ~%s",
                         slope, out);
        else
                snprintf(text, sizeof(text), "%s per hour", slope);
        struct finding *x = findings_note(f, FINDING_LEAK, "host", name, 1, t, text);
        double v;
        if (x && parse_double(slope, strlen(slope), &v) == 0)
                x->value = v;
}

static void on_pi(struct findings *f, enum finding_kind kind, const char *what,
                  const struct event_line *l, double t)
{
        char v[VAL_LEN], state[40];
        event_field(l, what, v, sizeof(v));
        if (kind == FINDING_PI_BOOT) {
                findings_note(f, kind, "pi", NULL, 0, t, v);
                return;
        }
        event_field(l, "state", state, sizeof(state));
        /* A current state follows its clear event: the finding stays (it happened) and
         * says it cleared. */
        bool cleared = !strcmp(state, "cleared");
        struct finding *x = findings_note(f, kind, "pi", v, !cleared, t, NULL);
        if (x)
                x->cleared = cleared;
}

static void on_disk(struct findings *f, const struct event_line *l, bool low, double t)
{
        char v[32];
        double s;
        if (low) {
                findings_note(f, FINDING_DISK_PAUSE, "host", NULL, 1, t, NULL);
                return;
        }
        struct finding *x = findings_note(f, FINDING_DISK_PAUSE, "host", NULL, 0, t, NULL);
        if (x && event_field(l, "paused_s", v, sizeof(v)) && parse_double(v, strlen(v), &s) == 0) {
                x->value += s;
                snprintf(x->text, sizeof(x->text), "paused %.0f s in all", x->value);
        }
}

EVENT_FINDING(evf_write_resumed)
{
        (void)src;
        char v[32], err[VAL_LEN];
        uint64_t n = 0;
        event_field(l, "dropped_rows", v, sizeof(v));
        event_field(l, "error", err, sizeof(err));
        if (parse_u64(v, strlen(v), &n) < 0)
                n = 0;
        findings_note(f, FINDING_WRITE_ERRORS, "host", NULL, n ? n : 1, t, err);
}

/* type=STORAGE state=read-only fs=root mount=/ ..., type=STORAGE_ERRORS new=N ...,
 * type=STORAGE_FILL state=filling ... full_in=5.2h (detect/storage_rules.c). */
static void on_storage(struct findings *f, const struct event_line *l, const char *type, double t)
{
        char state[24], fs[32], v[VAL_LEN], text[FINDING_TEXT_LEN];
        uint64_t n = 0;
        event_field(l, "state", state, sizeof(state));
        event_field(l, "fs", fs, sizeof(fs));
        if (!strcmp(type, "STORAGE") && !strcmp(state, "read-only")) {
                event_field(l, "mount", v, sizeof(v));
                snprintf(text, sizeof(text), "%.40s (%.120s) mounted read-only", fs, v);
                findings_note(f, FINDING_STORAGE, "host", "read-only", 1, t, text);
        } else if (!strcmp(type, "STORAGE_ERRORS") && event_field(l, "new", v, sizeof(v))) {
                if (parse_u64(v, strlen(v), &n) < 0)
                        n = 1;
                event_field(l, "last", v, sizeof(v));
                findings_note(f, FINDING_STORAGE, "host", "errors", n ? n : 1, t, v);
        } else if (!strcmp(type, "STORAGE_FILL") && !strcmp(state, "filling")) {
                event_field(l, "full_in", v, sizeof(v));
                snprintf(text, sizeof(text), "%.40s full in %.40s at this rate", fs, v);
                findings_note(f, FINDING_STORAGE, "host", "filling", 1, t, text);
        }
}

/* type=GPU_COUNT state=missing answering=1 expected=2 from=state, then state=back
 * (detect/gpu_missing.c): fewer GPUs answering than the machine should have. */
EVENT_FINDING(evf_gpu_count)
{
        (void)src;
        char state[16], answering[16], expected[16], from[24], text[FINDING_TEXT_LEN];
        event_field(l, "state", state, sizeof(state));
        if (!strcmp(state, "back")) {
                on_recovered_kind(f, FINDING_GPU_MISSING, "host", t);
                return;
        }
        event_field(l, "answering", answering, sizeof(answering));
        event_field(l, "expected", expected, sizeof(expected));
        event_field(l, "from", from, sizeof(from));
        snprintf(text, sizeof(text), "%s of %s expected GPUs answer (expected: %s)", answering,
                 expected,
                 !strcmp(from, "config")  ? "expected-gpus"
                 : !strcmp(from, "state") ? "the most counted at a start, from vigil.state"
                                          : "the count at the first start");
        struct finding *x = findings_note(f, FINDING_GPU_MISSING, "host", NULL, 1, t, text);
        if (x && isnan(x->open_t))
                x->open_t = t;
}

/* type=KERNEL_GPU kind=fallen_off_bus gpu=0 pci=0000:01:00.0 xid=79 meaning="..."
 * action="..." (detect/kernel_gpu.c): an Xid the NVML events missed is an Xid; a GPU
 * fallen off the bus is a GPU lost, as an Xid 79 is; the other kinds are findings of
 * their own, by kind (an SXid by code). A line without gpu= is the address's. */
EVENT_FINDING(evf_kernel_gpu)
{
        char kind[32], xid[24], v[VAL_LEN], key[FINDING_KEY_LEN], text[FINDING_TEXT_LEN];
        char pci[FINDING_SRC_LEN];
        event_field(l, "kind", kind, sizeof(kind));
        if (!event_field(l, "gpu", v, sizeof(v)) && event_field(l, "pci", pci, sizeof(pci)) &&
            pci[0])
                src = pci;
        struct strbuf sb;
        sb_init_fixed(&sb, text, sizeof(text));
        event_field(l, "meaning", v, sizeof(v));
        sb_puts(&sb, v);
        if (event_field(l, "action", v, sizeof(v)) && v[0])
                sb_printf(&sb, ". Action: %s", v);
        if (!strcmp(kind, "fallen_off_bus") ||
            (event_field(l, "xid", xid, sizeof(xid)) && !strcmp(xid, "79"))) {
                /* Lost until the GPU answers again (GPU_RECOVERED of its gpu=): a device
                 * NVML does not list, or one whose samples never failed, stays lost. */
                struct finding *x = findings_note(f, FINDING_GPU_LOST, src, NULL, 1, t, text);
                if (x && isnan(x->open_t))
                        x->open_t = t;
        }
        if (event_field(l, "xid", xid, sizeof(xid))) {
                findings_note(f, FINDING_XID, src, xid, 1, t, text);
                return;
        }
        if (!strcmp(kind, "sxid") && event_field(l, "sxid", v, sizeof(v)))
                snprintf(key, sizeof(key), "sxid %.20s", v);
        else
                snprintf(key, sizeof(key), "%.40s", kind);
        struct finding *x = findings_note(f, FINDING_KERNEL_GPU, src, key, 1, t, text);
        char sev[16];
        if (x && event_field(l, "severity", sev, sizeof(sev)) && !strcmp(sev, "critical"))
                x->severity = FINDING_CRITICAL; /* a fatal SXid, a reset asked for */
}

/* type=POSTMORTEM end=reboot quiet=2026-12-03T03:01:02.300 file=postmortem/...
 * (local/postmortem_sink.c): how the previous run ended, and where its post-mortem is. */
EVENT_FINDING(evf_postmortem)
{
        (void)src;
        char end[24], cause[32], quiet[40], file[VAL_LEN], text[FINDING_TEXT_LEN];
        event_field(l, "end", end, sizeof(end));
        bool why = event_field(l, "cause", cause, sizeof(cause)) && cause[0];
        if (!event_field(l, "quiet", quiet, sizeof(quiet)))
                snprintf(quiet, sizeof(quiet), "unknown");
        if (!event_field(l, "file", file, sizeof(file)))
                snprintf(file, sizeof(file), "not written");
        struct strbuf sb;
        sb_init_fixed(&sb, text, sizeof(text));
        if (why)
                sb_printf(&sb, "cause %s: ", cause);
        sb_printf(&sb, "%s; quiet since %.40s; post-mortem %.80s",
                  !strcmp(end, "reboot")   ? "the machine rebooted or lost power under it"
                  : !strcmp(end, "killed") ? "vigil was killed or crashed"
                                           : "it ended without a clean stop (boot id unknown)",
                  quiet, file);
        findings_note(f, FINDING_POSTMORTEM, "host", end, 1, t, text);
}

EVENT_FINDING(event_finding_none)
{
        (void)f;
        (void)l;
        (void)src;
        (void)t;
}

EVENT_FINDING(evf_gpu_recovered)
{
        (void)l;
        on_recovered_kind(f, FINDING_GPU_LOST, src, t);
}

EVENT_FINDING(evf_spike_snapshot)
{
        char v[VAL_LEN];
        event_field(l, "file", v, sizeof(v));
        findings_note(f, FINDING_SPIKE_SNAPSHOT, src, NULL, 1, t, v);
}

EVENT_FINDING(evf_snapshot)
{
        char v[VAL_LEN];
        event_field(l, "snapshot", v, sizeof(v));
        findings_note(f, FINDING_SNAPSHOT, src, NULL, 1, t, v);
}

EVENT_FINDING(evf_anomaly)
{
        char v[VAL_LEN], key[FINDING_KEY_LEN];
        event_field(l, "flag", v, sizeof(v));
        anomaly_key(v, key, sizeof(key));
        findings_note(f, FINDING_ANOMALY, src, key, 0, t, NULL);
}

EVENT_FINDING(evf_tdp_change)
{
        on_change(f, FINDING_POWER_LIMIT, l, src, t);
}

EVENT_FINDING(evf_enforced_limit_change)
{
        on_change(f, FINDING_ENFORCED_LIMIT, l, src, t);
}

EVENT_FINDING(evf_rpi_throttle)
{
        (void)src;
        on_pi(f, FINDING_PI_THROTTLE, "condition", l, t);
}

EVENT_FINDING(evf_rpi_throttle_history)
{
        (void)src;
        on_pi(f, FINDING_PI_BOOT, "since_boot", l, t);
}

EVENT_FINDING(evf_rpi_temp)
{
        char v[VAL_LEN];
        (void)src;
        event_field(l, "level", v, sizeof(v));
        if (strcmp(v, "normal") != 0)
                findings_note(f, FINDING_TEMPERATURE, "host", v, 1, t, NULL);
}

EVENT_FINDING(evf_incident)
{
        char v[VAL_LEN];
        (void)src;
        event_field(l, "reason", v, sizeof(v));
        findings_note(f, FINDING_INCIDENT, "host", v, 1, t, NULL);
}

EVENT_FINDING(evf_shm)
{
        char v[VAL_LEN];
        (void)src;
        event_field(l, "state", v, sizeof(v));
        if (!strcmp(v, "full"))
                findings_note(f, FINDING_SHM, "host", "full", 1, t, NULL);
}

EVENT_FINDING(evf_disk_low)
{
        (void)src;
        on_disk(f, l, true, t);
}

EVENT_FINDING(evf_disk_resumed)
{
        (void)src;
        on_disk(f, l, false, t);
}

EVENT_FINDING(evf_storage)
{
        (void)src;
        on_storage(f, l, "STORAGE", t);
}

EVENT_FINDING(evf_storage_errors)
{
        (void)src;
        on_storage(f, l, "STORAGE_ERRORS", t);
}

EVENT_FINDING(evf_storage_fill)
{
        (void)src;
        on_storage(f, l, "STORAGE_FILL", t);
}

EVENT_FINDING(evf_event_listener)
{
        char v[VAL_LEN];
        event_field(l, "error", v, sizeof(v));
        findings_note(f, FINDING_LISTENER, src, NULL, 1, t, v);
}

/* "type=OOM_KILL pid=1234 comm=chromium watch=player ..." (detect/kernel_host.c): one
 * finding per victim, the watch's name or the command's. */
EVENT_FINDING(evf_oom_kill)
{
        char watch[VAL_LEN], comm[VAL_LEN], pid[24], text[FINDING_TEXT_LEN];
        event_field(l, "comm", comm, sizeof(comm));
        event_field(l, "pid", pid, sizeof(pid));
        bool watched = event_field(l, "watch", watch, sizeof(watch)) && watch[0];
        struct strbuf sb;
        sb_init_fixed(&sb, text, sizeof(text));
        sb_printf(&sb, "%s (pid %s)", comm, pid);
        struct finding *x =
            findings_note(f, FINDING_OOM_KILL, src, watched ? watch : comm, 1, t, text);
        if (x && watched)
                x->severity = FINDING_CRITICAL; /* the watched program itself */
}

/* "type=PROCESS_FAULT pid=12 comm=chromium watch=player what=segfault". */
EVENT_FINDING(evf_process_fault)
{
        char watch[VAL_LEN], comm[VAL_LEN], what[VAL_LEN];
        event_field(l, "comm", comm, sizeof(comm));
        event_field(l, "what", what, sizeof(what));
        bool watched = event_field(l, "watch", watch, sizeof(watch)) && watch[0];
        findings_note(f, FINDING_PROCESS_FAULT, src, watched ? watch : comm, 1, t, what);
}

/* "type=WATCH watch=player state=gone|missing|back|restarted ... cause=..."
 * (detect/watch_live.c): the time it was not running, and its restarts. */
EVENT_FINDING(evf_watch)
{
        char watch[VAL_LEN], state[16], cause[VAL_LEN];
        event_field(l, "watch", watch, sizeof(watch));
        event_field(l, "state", state, sizeof(state));
        bool why = event_field(l, "cause", cause, sizeof(cause)) && cause[0];
        if (!strcmp(state, "gone") || !strcmp(state, "missing")) {
                struct finding *x =
                    findings_note(f, FINDING_WATCH_DOWN, src, watch, 1, t, why ? cause : NULL);
                if (x && isnan(x->open_t))
                        x->open_t = t;
                return;
        }
        if (strcmp(state, "back") && strcmp(state, "restarted"))
                return;
        /* A restart without a gap has no time down to tell: only an open one closes. */
        struct finding *x = findings_find(f, FINDING_WATCH_DOWN, src, watch)
                                ? findings_get(f, FINDING_WATCH_DOWN, src, watch)
                                : NULL;
        if (x && isfinite(x->open_t) && isfinite(t) && t >= x->open_t)
                x->value += t - x->open_t;
        if (x) {
                x->open_t = NAN;
                x->last_t = t;
        }
        findings_note(f, FINDING_WATCH_RESTART, src, watch, 1, t, why ? cause : NULL);
}

void findings_feed_event(struct findings *f, double t, const char *text, size_t len)
{
        struct event_line l = {text, len};
        char src[FINDING_SRC_LEN];
        f->gen++;
        const struct event_kind_desc *d = event_kind_of(&l);
        if (!d)
                return;
        source_of(&l, src, sizeof(src), "host");
        d->finding(f, &l, src, t);
}
