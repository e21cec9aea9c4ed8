/* SPDX-License-Identifier: Apache-2.0 */
/* The findings of `vigil report`. See report_findings.h. */
#include "report/report_findings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void from_gpu(const struct gpu_acc *a, struct findings *f)
{
        findings_add_source(f, a->name);
        if (a->failures) {
                struct finding *x =
                    findings_note(f, FINDING_NVML_FAILED, a->name, NULL, a->failures,
                                  a->first_failure_t, a->first_failure);
                if (x)
                        findings_note(f, FINDING_NVML_FAILED, a->name, NULL, 0, a->last_failure_t,
                                      NULL);
        }
        for (unsigned i = 0; i < a->ntypes; i++) {
                if (!a->type_count[i])
                        continue;
                /* TDP changes are listed as power-limit changes (from events.log). */
                if (!strncmp(a->type_name[i], "TDP_", 4) &&
                    findings_find(f, FINDING_POWER_LIMIT, a->name, NULL))
                        continue;
                findings_note(f, FINDING_ANOMALY, a->name, a->type_name[i], a->type_count[i],
                              a->type_first_t[i], NULL);
                findings_note(f, FINDING_ANOMALY, a->name, a->type_name[i], 0, a->type_last_t[i],
                              NULL);
        }
        uint64_t samples = a->rows - a->failures;
        for (unsigned r = 0; r < a->nreasons && samples; r++) {
                if (!a->reason_samples[r])
                        continue;
                struct finding *x = findings_get(f, FINDING_THROTTLE, a->name, a->reason_name[r]);
                if (x)
                        x->value = (double)a->reason_samples[r] / (double)samples;
        }
}

/* The daemon's leak rules (detect/trend.c, default --leak-* thresholds) on the whole
 * period: a rising Chromium count or PSS over at least 30 minutes is a leak; with the
 * memory available falling, the time until it is gone (host_acc_runs_out_h()). */
static const struct {
        enum host_col f;
        double per_h; /* threshold */
        const char *unit;
} leak_rules[] = {
    {HC_CHROMIUM_PROCS, 1.0, "processes"},
    {HC_CHROMIUM_PSS, 10.0, "MB"},
    {HC_PLAYER_PSS, 10.0, "MB"},
};

#define LEAK_MIN_SPAN_S 1800.0

static void leaks(const struct host_acc *a, struct findings *f)
{
        char text[FINDING_TEXT_LEN];
        double slope, level;
        if (!(a->last_t - a->first_t >= LEAK_MIN_SPAN_S))
                return;
        for (size_t i = 0; i < sizeof(leak_rules) / sizeof(leak_rules[0]); i++) {
                const struct stat_series *s = &a->series[leak_rules[i].f];
                if (!s->p || s->total < 8 ||
                    stat_series_theil_sen(s, STAT_TS_MAX_POINTS, &slope, &level) < 0)
                        continue;
                double per_h = slope * 3600;
                if (!(per_h > leak_rules[i].per_h))
                        continue;
                snprintf(text, sizeof(text), "%+.1f %s per hour", per_h, leak_rules[i].unit);
                /* The memory available's own projection, as the slopes give it: one
                 * time to exhaustion in a report. */
                double h = leak_rules[i].f == HC_CHROMIUM_PROCS ? NAN : host_acc_runs_out_h(a);
                if (!isnan(h) && h > 0)
                        snprintf(text + strlen(text), sizeof(text) - strlen(text),
                                 "; at this rate memory runs out in ~%.1f h", h);
                struct finding *x = findings_note(
                    f, FINDING_LEAK, "host", host_col_name(leak_rules[i].f), 1, a->first_t, text);
                if (x)
                        x->value = per_h;
        }
}

/* True when the comma-separated list holds flag. */
static bool flag_in(const char *list, const char *flag)
{
        size_t n = strlen(flag);
        for (const char *p = list; p && *p; p = strchr(p, ','), p = p ? p + 1 : NULL)
                if (!strncmp(p, flag, n) && (p[n] == ',' || p[n] == '\0'))
                        return true;
        return false;
}

/* The Pi's flags as logged ("NOW:under-voltage", "HAS:throttling occurred"), keyed as
 * events.log names the conditions ("under-voltage", "throttling occurred"). */
static void from_host(const struct host_acc *a, struct findings *f)
{
        findings_add_source(f, "host");
        leaks(a, f);
        if (!host_acc_is_pi(a))
                return;
        findings_add_source(f, "pi");
        for (unsigned i = 0; i < a->nflags; i++) {
                const char *k = a->flags[i];
                const char *colon = strchr(k, ':');
                struct finding *x =
                    findings_get(f, FINDING_PI_THROTTLE, "pi", colon ? colon + 1 : k);
                /* A condition "NOW:" at some row but not in the last one has cleared
                 * (as its events.log line says, when there is one). */
                if (x && !strncmp(k, "NOW:", 4) && !flag_in(a->last_flags, k))
                        x->cleared = true;
        }
}

void report_findings_build(const struct report_data *d, struct findings *f)
{
        findings_init(f);
        if (d->have_host)
                findings_add_source(f, "host");
        if (d->have_events) {
                for (size_t i = 0; i < d->events.n; i++) {
                        const struct event_line *e = events_get(&d->events, i);
                        const char *text = strchr(e->text, ' ');
                        text = text ? text + 1 : e->text;
                        findings_feed_event(f, e->t, text, strlen(text));
                }
        }
        if (d->have_host)
                from_host(&d->host, f);
        for (size_t g = 0; g < d->ngpus; g++)
                from_gpu(&d->gpus[g], f);
        findings_sort(f);
}
