/* SPDX-License-Identifier: Apache-2.0 */
/* The findings model: the table of kinds, merging, sorting and rendering. The events.log
 * reader is in findings_events.c. See findings.h. */
#include "core/findings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/parse.h"
#include "util/xml.h"

/* One entry per kind, in the enum's order (the order findings are listed in). */
const struct finding_kind_info findings_kinds[FINDING_KIND_COUNT] = {
    [FINDING_GPU_LOST] = {.name = "gpu_lost", .title = "GPU lost", .alarm = true, .critical = true},
    [FINDING_GPU_MISSING] = {.name = "gpus_missing",
                             .title = "GPUs missing",
                             .alarm = true,
                             .critical = true},
    [FINDING_XID] = {.name = "xid", .title = "Xid", .alarm = true, .critical = true},
    [FINDING_CRASH_SNAPSHOT] = {.name = "crash_snapshot",
                                .title = "crash snapshot",
                                .alarm = true,
                                .critical = true},
    [FINDING_SPIKE_SNAPSHOT] = {.name = "spike_snapshot",
                                .title = "fan-spike snapshots",
                                .alarm = true},
    [FINDING_SNAPSHOT] = {.name = "snapshot", .title = "snapshot on request"},
    [FINDING_NVML_FAILED] = {.name = "nvml_failed", .title = "NVML failures", .alarm = true},
    [FINDING_ANOMALY] = {.name = "anomaly", .title = "anomaly", .alarm = true},
    [FINDING_THROTTLE] = {.name = "throttle",
                          .title = "throttle reason",
                          .alarm = true,
                          .share = true},
    [FINDING_POWER_LIMIT] = {.name = "power_limit", .title = "power limit changed", .alarm = true},
    [FINDING_ENFORCED_LIMIT] = {.name = "enforced_limit",
                                .title = "enforced power limit changed",
                                .alarm = true},
    [FINDING_PI_THROTTLE] = {.name = "pi_throttle", .title = "Pi", .alarm = true},
    [FINDING_PI_BOOT] = {.name = "pi_since_boot", .title = "Pi since boot", .alarm = true},
    [FINDING_TEMPERATURE] = {.name = "temperature", .title = "temperature", .alarm = true},
    [FINDING_INCIDENT] = {.name = "incident", .title = "incident", .alarm = true},
    [FINDING_LEAK] = {.name = "leak", .title = "rising", .alarm = true},
    [FINDING_SHM] = {.name = "shm", .title = "/dev/shm", .alarm = true},
    [FINDING_DISK_PAUSE] = {.name = "disk_pause",
                            .title = "writes paused (disk low)",
                            .alarm = true},
    [FINDING_WRITE_ERRORS] = {.name = "write_errors", .title = "write errors", .alarm = true},
    [FINDING_MISSED_DEADLINE] = {.name = "missed_deadlines",
                                 .title = "missed deadlines",
                                 .alarm = true},
    [FINDING_LISTENER] = {.name = "event_listener",
                          .title = "NVML event listener failed",
                          .alarm = true},
    [FINDING_STORAGE] = {.name = "storage", .title = "storage", .alarm = true},
    [FINDING_KERNEL_GPU] = {.name = "kernel_gpu", .title = "kernel log", .alarm = true},
    [FINDING_WATCH_DOWN] = {.name = "watch_down",
                            .title = "watch down",
                            .alarm = true,
                            .critical = true},
    [FINDING_WATCH_RESTART] = {.name = "watch_restart", .title = "watch restarted", .alarm = true},
    [FINDING_OOM_KILL] = {.name = "oom_kill", .title = "OOM kill", .alarm = true},
    [FINDING_PROCESS_FAULT] = {.name = "process_fault", .title = "process fault", .alarm = true},
    [FINDING_DISPLAY] = {.name = "display", .title = "screen", .alarm = true},
    [FINDING_NETWORK] = {.name = "network", .title = "network", .alarm = true},
    [FINDING_NVLINK] = {.name = "nvlink", .title = "NVLink and fabric", .alarm = true},
    [FINDING_POSTMORTEM] = {.name = "postmortem",
                            .title = "previous run ended uncleanly",
                            .alarm = true,
                            .critical = true},
};

/* Clock-event reasons that are not a problem: an idle GPU, clocks set on purpose. */
static bool benign_reason(const char *key)
{
        return !strcmp(key, "GpuIdle") || !strcmp(key, "AppClocks") || !strcmp(key, "None");
}

void findings_init(struct findings *f)
{
        memset(f, 0, sizeof(*f));
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
