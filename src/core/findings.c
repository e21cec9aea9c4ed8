/* SPDX-License-Identifier: Apache-2.0 */
/* The findings model: the table of kinds, merging, sorting and rendering. The events.log
 * reader is in findings_events.c. See findings.h. */
#include "core/findings.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/parse.h"
#include "util/xml.h"

/* One entry per kind, in the enum's order (the order findings are listed in). */
const struct finding_kind_info findings_kinds[FINDING_KIND_COUNT] = {
    [FINDING_GPU_LOST] = {.name = "gpu_lost",
                          .title = "GPU lost",
                          .alarm = true,
                          .critical = true,
                          .runbook = "Stop the GPU's work and reboot the machine (a GPU off the "
                                     "bus needs it); read the crash snapshot and the post-mortem; "
                                     "reseat or replace the GPU if it falls off again."},
    [FINDING_GPU_MISSING] = {.name = "gpus_missing",
                             .title = "GPUs missing",
                             .alarm = true,
                             .critical = true,
                             .runbook =
                                 "Compare nvidia-smi -L with the GPUs expected; find the missing "
                                 "GPU's bus id in the kernel log (fallen off the bus, init "
                                 "failure); reboot; inspect its seating, riser and power."},
    [FINDING_XID] = {.name = "xid",
                     .title = "Xid",
                     .alarm = true,
                     .critical = true,
                     .runbook = "Do what the description's action says (NVIDIA's Xid catalog); "
                                "vigil xid CODE explains the code."},
    [FINDING_CRASH_SNAPSHOT] =
        {.name = "crash_snapshot",
         .title = "crash snapshot",
         .alarm = true,
         .critical = true,
         .runbook = "Read the crash snapshot named: every sample of the last 5 minutes, the GPU "
                    "processes and the kernel log around the failure."},
    [FINDING_SPIKE_SNAPSHOT] =
        {.name = "spike_snapshot",
         .title = "fan-spike snapshots",
         .alarm = true,
         .runbook = "Read the fan-spike snapshots: a fan that jumps without a temperature rise is "
                    "the fan controller failing; watch for Xid 62, 119 and 154."},
    [FINDING_SNAPSHOT] = {.name = "snapshot", .title = "snapshot on request"},
    [FINDING_NVML_FAILED] =
        {.name = "nvml_failed",
         .title = "NVML failures",
         .alarm = true,
         .runbook = "Check the GPU with nvidia-smi and the kernel log; reset the GPU (nvidia-smi "
                    "-r) if it does not answer again, reboot if that fails."},
    [FINDING_ANOMALY] = {.name = "anomaly",
                         .title = "anomaly",
                         .alarm = true,
                         .runbook = "Read the anomaly flags in the day's CSV and events.log (the "
                                    "README says what each flag means) and act on the one named."},
    [FINDING_THROTTLE] = {.name = "throttle",
                          .title = "throttle reason",
                          .alarm = true,
                          .share = true,
                          .runbook = "Clocks were held down for the reason named: check cooling "
                                     "for thermal reasons, the power limit for a power cap, the "
                                     "power supply and baseboard for a hardware slowdown."},
    [FINDING_POWER_LIMIT] = {.name = "power_limit",
                             .title = "power limit changed",
                             .alarm = true,
                             .runbook =
                                 "Find who changed the GPU's power limit (nvidia-smi -q -d POWER) "
                                 "and restore it with nvidia-smi -pl if the change was not meant."},
    [FINDING_ENFORCED_LIMIT] =
        {.name = "enforced_limit",
         .title = "enforced power limit changed",
         .alarm = true,
         .runbook =
             "The driver enforces another limit than the one configured: check the baseboard's "
             "out-of-band caps and power brake, the cooling and the power supply."},
    [FINDING_PI_THROTTLE] =
        {.name = "pi_throttle",
         .title = "Pi",
         .alarm = true,
         .runbook = "Replace the Pi's power supply with the official one (5.1 V; 3 A for a Pi 4, 5 "
                    "A for a Pi 5) and a short cable; improve cooling if it throttles for heat."},
    [FINDING_PI_BOOT] =
        {.name = "pi_since_boot",
         .title = "Pi since boot",
         .alarm = true,
         .runbook = "Replace the Pi's power supply with the official one (5.1 V; 3 A for a Pi 4, 5 "
                    "A for a Pi 5) and a short cable; improve cooling if it throttles for heat."},
    [FINDING_TEMPERATURE] =
        {.name = "temperature",
         .title = "temperature",
         .alarm = true,
         .runbook = "Check the machine's cooling: fans, airflow, dust and the room's temperature."},
    [FINDING_INCIDENT] = {.name = "incident",
                          .title = "incident",
                          .alarm = true,
                          .runbook = "Read the incident snapshot named: the last minute of the "
                                     "watched processes and the kernel lines about them."},
    [FINDING_LEAK] = {.name = "leak",
                      .title = "rising",
                      .alarm = true,
                      .runbook = "Restart the growing program before the time left runs out, and "
                                 "report the leak to its vendor with vigil report's trend."},
    [FINDING_SHM] = {.name = "shm",
                     .title = "/dev/shm",
                     .alarm = true,
                     .runbook = "Find the files in /dev/shm (ls -la /dev/shm), restart the program "
                                "that leaves them, or give the tmpfs more room."},
    [FINDING_DISK_PAUSE] = {.name = "disk_pause",
                            .title = "writes paused (disk low)",
                            .alarm = true,
                            .runbook = "Free space on the log directory's file system (or lower "
                                       "--min-disk-mb); vigil resumes writing by itself."},
    [FINDING_WRITE_ERRORS] =
        {.name = "write_errors",
         .title = "write errors",
         .alarm = true,
         .runbook = "Check the log directory's disk: I/O errors in the kernel log or a read-only "
                    "remount mean a failing disk or SD card to back up and replace."},
    [FINDING_MISSED_DEADLINE] = {.name = "missed_deadlines",
                                 .title = "missed deadlines",
                                 .alarm = true,
                                 .runbook =
                                     "The machine was overloaded or vigil was stopped: check the "
                                     "load, swapping and the kernel log around the time."},
    [FINDING_LISTENER] = {.name = "event_listener",
                          .title = "NVML event listener failed",
                          .alarm = true,
                          .runbook = "Check the NVIDIA driver (nvidia-smi) and the kernel log; "
                                     "vigil restarts the listener by itself."},
    [FINDING_STORAGE] =
        {.name = "storage",
         .title = "storage",
         .alarm = true,
         .runbook = "Check the file system named: a read-only remount or I/O errors mean a failing "
                    "disk or SD card to back up and replace; free space if it is filling."},
    [FINDING_KERNEL_GPU] =
        {.name = "kernel_gpu",
         .title = "kernel log",
         .alarm = true,
         .runbook = "Do what the description's action says; for PCIe errors check the GPU's "
                    "seating, riser and slot; for GSP failures reset the GPU or reboot."},
    [FINDING_WATCH_DOWN] = {.name = "watch_down",
                            .title = "watch down",
                            .alarm = true,
                            .critical = true,
                            .runbook =
                                "Start the watched program again: check its service (systemctl "
                                "status), its log and the OOM or crash lines vigil names."},
    [FINDING_WATCH_RESTART] = {.name = "watch_restart",
                               .title = "watch restarted",
                               .alarm = true,
                               .runbook = "Read the cause vigil names (an OOM kill, a crash) and "
                                          "the incident snapshot; fix what made the program end."},
    [FINDING_OOM_KILL] = {.name = "oom_kill",
                          .title = "OOM kill",
                          .alarm = true,
                          .runbook = "Memory ran out: find what grows (vigil report's trend), add "
                                     "memory or limit the workload."},
    [FINDING_PROCESS_FAULT] = {.name = "process_fault",
                               .title = "process fault",
                               .alarm = true,
                               .runbook = "A program crashed: read the kernel line named, update "
                                          "the program and report the crash to its vendor."},
    [FINDING_DISPLAY] = {.name = "display",
                         .title = "screen",
                         .alarm = true,
                         .runbook = "Check the screen: its cable, its power and input, and whether "
                                    "the TV was switched to standby."},
    [FINDING_NETWORK] =
        {.name = "network",
         .title = "network",
         .alarm = true,
         .runbook = "Check the cable or the Wi-Fi signal, the router and the default route."},
    [FINDING_NVLINK] =
        {.name = "nvlink",
         .title = "NVLink and fabric",
         .alarm = true,
         .runbook = "Reset the GPUs and NVSwitches at a safe point (nvidia-smi -r, the fabric "
                    "manager restarted); if errors rise again inspect the NVLink bridge or "
                    "baseboard; for a fabric not completed check nvidia-fabricmanager."},
    [FINDING_POSTMORTEM] = {.name = "postmortem",
                            .title = "previous run ended uncleanly",
                            .alarm = true,
                            .critical = true,
                            .runbook = "Read the post-mortem named: the cause of the unclean end, "
                                       "the last samples and the kernel log before it."},
};

/* Clock-event reasons that are not a problem: an idle GPU, clocks set on purpose. */
static bool benign_reason(const char *key)
{
        return !strcmp(key, "GpuIdle") || !strcmp(key, "AppClocks") || !strcmp(key, "None");
}

void findings_init(struct findings *f)
{
        memset(f, 0, offsetof(struct findings, items));
}

void findings_copy(struct findings *dst, const struct findings *src)
{
        memcpy(dst, src, offsetof(struct findings, items));
        memcpy(dst->items, src->items, src->n * sizeof(src->items[0]));
}

static void copy_str(char *out, size_t cap, const char *s)
{
        copy_bounded(out, cap, s ? s : "", s ? strlen(s) : 0);
}

void findings_add_source(struct findings *f, const char *source)
{
        if (!source || !source[0])
                return;
        for (unsigned i = 0; i < f->nsources; i++)
                if (!strcmp(f->sources[i], source))
                        return;
        if (f->nsources < FINDINGS_MAX_SRCS)
                copy_str(f->sources[f->nsources++], FINDING_SRC_LEN, source);
}

const struct finding *findings_find(const struct findings *f, enum finding_kind kind,
                                    const char *source, const char *key)
{
        source = source ? source : "";
        key = key ? key : "";
        for (size_t i = 0; i < f->n; i++) {
                const struct finding *x = &f->items[i];
                if (x->kind == kind && !strncmp(x->source, source, FINDING_SRC_LEN - 1) &&
                    !strncmp(x->key, key, FINDING_KEY_LEN - 1))
                        return x;
        }
        return NULL;
}

struct finding *findings_get(struct findings *f, enum finding_kind kind, const char *source,
                             const char *key)
{
        if ((unsigned)kind >= FINDING_KIND_COUNT)
                return NULL;
        const struct finding *found = findings_find(f, kind, source, key);
        if (found)
                return &f->items[found - f->items];
        source = source ? source : "";
        key = key ? key : "";
        if (f->n >= FINDINGS_MAX) {
                f->dropped++;
                return NULL;
        }
        struct finding *x = &f->items[f->n++];
        memset(x, 0, sizeof(*x));
        x->kind = kind;
        copy_str(x->source, sizeof(x->source), source);
        copy_str(x->key, sizeof(x->key), key);
        /* Corrected PCIe errors are worth knowing (a rising count is a marginal link),
         * not an alarm. */
        x->alarm = findings_kinds[kind].alarm &&
                   !(kind == FINDING_THROTTLE && benign_reason(key)) &&
                   !(kind == FINDING_KERNEL_GPU && !strcmp(key, "aer_corrected"));
        x->severity = !x->alarm                       ? FINDING_FYI
                      : findings_kinds[kind].critical ? FINDING_CRITICAL
                                                      : FINDING_WARNING;
        x->first_t = x->last_t = x->open_t = NAN;
        findings_add_source(f, source);
        return x;
}

struct finding *findings_note(struct findings *f, enum finding_kind kind, const char *source,
                              const char *key, uint64_t n, double t, const char *text)
{
        struct finding *x = findings_get(f, kind, source, key);
        f->gen++;
        if (!x)
                return NULL;
        x->count += n;
        if (isfinite(t)) {
                if (isnan(x->first_t) || t < x->first_t)
                        x->first_t = t;
                if (isnan(x->last_t) || t > x->last_t)
                        x->last_t = t;
        }
        if (text)
                copy_str(x->text, sizeof(x->text), text);
        return x;
}

bool findings_clean(const struct findings *f)
{
        for (size_t i = 0; i < f->n; i++)
                if (f->items[i].alarm)
                        return false;
        return f->dropped == 0;
}

const char *findings_severity_name(enum finding_severity s)
{
        static const char *const names[FINDING_SEVERITY_COUNT] = {
            [FINDING_CRITICAL] = "critical", [FINDING_WARNING] = "warning", [FINDING_FYI] = "fyi"};
        return (unsigned)s < FINDING_SEVERITY_COUNT ? names[s] : "?";
}

static int cmp_finding(const void *l, const void *r)
{
        const struct finding *a = l, *b = r;
        if (a->severity != b->severity)
                return a->severity < b->severity ? -1 : 1;
        if (a->kind != b->kind)
                return a->kind < b->kind ? -1 : 1;
        int s = strverscmp(a->source, b->source);
        if (s)
                return s;
        if (a->first_t != b->first_t && !isnan(a->first_t) && !isnan(b->first_t))
                return a->first_t < b->first_t ? -1 : 1;
        return strverscmp(a->key, b->key);
}

void findings_sort(struct findings *f)
{
        qsort(f->items, f->n, sizeof(f->items[0]), cmp_finding);
}

/* "2026-12-02 12:00:01" in local time. */
static void put_time(struct strbuf *out, double t)
{
        char buf[32];
        time_t s = (time_t)floor(t);
        struct tm tm;
        if (!localtime_r(&s, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
                return;
        sb_puts(out, buf);
}

static void put_when(const struct finding *x, struct strbuf *out)
{
        bool first = isfinite(x->first_t), last = isfinite(x->last_t);
        if (x->count > 1 || (x->count == 1 && !first))
                sb_printf(out, "%llux", (unsigned long long)x->count);
        if (!first)
                return;
        sb_puts(out, x->count > 1 ? ", " : "");
        if (last && x->last_t - x->first_t >= 1.0) {
                sb_puts(out, "first ");
                put_time(out, x->first_t);
                sb_puts(out, ", last ");
                put_time(out, x->last_t);
        } else {
                put_time(out, x->first_t);
        }
}

const char *findings_label(const struct finding *x)
{
        return findings_severity_name(x->alarm ? x->severity : FINDING_FYI);
}

void findings_line(const struct finding *x, bool running, struct strbuf *out)
{
        const struct finding_kind_info *k = &findings_kinds[x->kind];
        sb_puts(out, k->title);
        const char *key = x->key;
        /* A Pi condition that cleared is no longer "currently" so. */
        if (x->cleared && !strncmp(key, "currently ", 10))
                key += 10;
        if (key[0] && x->kind != FINDING_CRASH_SNAPSHOT)
                sb_printf(out, " %s", key);
        if (x->cleared)
                sb_puts(out, ", cleared");
        if (k->share && isfinite(x->value))
                sb_printf(out, " %.1f%% of the time", 100.0 * x->value);
        bool gone = x->kind == FINDING_GPU_LOST || x->kind == FINDING_GPU_MISSING ||
                    x->kind == FINDING_WATCH_DOWN;
        if (gone && x->value > 0)
                sb_printf(out, " for %.1f s in all", x->value);
        if (x->kind == FINDING_GPU_LOST && x->count)
                sb_puts(out, isnan(x->open_t) ? ", back"
                             : running        ? ", still lost"
                                              : ", still lost at the end");
        if (x->kind == FINDING_GPU_MISSING && x->count)
                sb_puts(out, isnan(x->open_t) ? ", all back" : ", still missing");
        if (x->kind == FINDING_WATCH_DOWN && x->count)
                sb_puts(out, isnan(x->open_t) ? ", back" : ", still missing");
        size_t mark = out->len;
        sb_puts(out, " (");
        size_t inner = out->len;
        put_when(x, out);
        if (out->len == inner) {
                out->len = mark; /* nothing to say in brackets */
                out->buf[mark] = '\0';
        } else {
                sb_putc(out, ')');
        }
        if (x->kind == FINDING_CRASH_SNAPSHOT && x->key[0])
                sb_printf(out, ": %s", x->key);
        if (x->text[0])
                sb_printf(out, "%s%s", x->kind == FINDING_CRASH_SNAPSHOT ? ", " : ": ", x->text);
}

void findings_text(const struct findings *f, const char *indent, struct strbuf *out)
{
        if (findings_clean(f)) {
                sb_printf(out, "%sWhat happened: nothing \xE2\x80\x94 clean", indent);
                for (unsigned i = 0; i < f->nsources; i++)
                        sb_printf(out, "%s%s", i ? ", " : " (watched: ", f->sources[i]);
                sb_puts(out, f->nsources ? ")\n" : "\n");
        } else {
                sb_printf(out, "%sWhat happened:\n", indent);
        }
        for (size_t i = 0; i < f->n; i++) {
                const struct finding *x = &f->items[i];
                sb_printf(out, "%s  (%s) %s", indent, findings_label(x), x->source);
                sb_puts(out, x->source[0] ? ": " : "");
                findings_line(x, f->running, out);
                sb_putc(out, '\n');
        }
        if (f->dropped)
                sb_printf(out, "%s  (%llu more findings not listed)\n", indent,
                          (unsigned long long)f->dropped);
}

void findings_html(const struct findings *f, struct strbuf *out)
{
        char buf[512];
        struct strbuf line;
        bool clean = findings_clean(f);
        sb_printf(out, "<section class=\"findings %s\"><h2>What happened</h2>\n",
                  clean ? "clean" : "alarm");
        if (clean) {
                sb_puts(out, "<p class=\"clean\">Nothing \xE2\x80\x94 clean");
                for (unsigned i = 0; i < f->nsources; i++) {
                        sb_puts(out, i ? ", " : " (watched: ");
                        sb_xml_puts(out, f->sources[i]);
                }
                sb_puts(out, f->nsources ? ")</p>\n" : "</p>\n");
        }
        if (f->n)
                sb_puts(out, "<ul>\n");
        for (size_t i = 0; i < f->n; i++) {
                const struct finding *x = &f->items[i];
                sb_init_fixed(&line, buf, sizeof(buf));
                findings_line(x, f->running, &line);
                sb_printf(out, "<li class=\"finding %s %s%s\"><span class=\"sev\">%s</span> <b>",
                          findings_kinds[x->kind].name, findings_label(x), x->alarm ? " alarm" : "",
                          findings_label(x));
                sb_xml_puts(out, x->source);
                sb_puts(out, "</b> ");
                sb_xml_escape(out, line.buf, line.len);
                sb_puts(out, "</li>\n");
        }
        if (f->n)
                sb_puts(out, "</ul>\n");
        if (f->dropped)
                sb_printf(out, "<p>(%llu more findings not listed)</p>\n",
                          (unsigned long long)f->dropped);
        sb_puts(out, "</section>\n");
}
