/* The findings of `vigil report`. See report_findings.h. */
#include "report/report_findings.h"

#include <math.h>
#include <string.h>

static void from_gpu(const struct report_gpu_acc *a, struct findings *f)
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

/* The Pi's flags as logged ("NOW:under-voltage", "HAS:throttling occurred"), keyed as
 * events.log names the conditions ("under-voltage", "throttling occurred"). */
static void from_host(const struct report_host_acc *a, struct findings *f)
{
        findings_add_source(f, "host");
        if (!report_host_acc_is_pi(a))
                return;
        findings_add_source(f, "pi");
        for (unsigned i = 0; i < a->nflags; i++) {
                const char *k = a->flags[i];
                const char *colon = strchr(k, ':');
                findings_get(f, FINDING_PI_THROTTLE, "pi", colon ? colon + 1 : k);
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
