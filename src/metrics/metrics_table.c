/* SPDX-License-Identifier: Apache-2.0 */
/* The walk of an area's table of fields into /metrics families. See metrics_render.h.
 * Code rows go through r->codes, so the files that render code families (metrics.c,
 * metrics_signage.c, metrics_storage.c) call this one and it calls none of them. */
#include <string.h>

#include "core/fields.h"
#include "core/metric_defs.h"
#include "metrics/metrics_render.h"

static double field_at(const void *obj, size_t off)
{
        double v;
        memcpy(&v, (const char *)obj + off, sizeof(v));
        return v;
}

/* A row that starts a family: a code row, or a series row with a name. */
static bool starts_family(const struct metric_def *m)
{
        return m->row == MR_CODE || (m->row == MR_SERIES && m->name);
}

void metrics_render_table(struct render *r, const struct frame *f, const struct field_desc *t,
                          size_t n, const void *objs, size_t stride, unsigned count,
                          const char *const *bases)
{
        const struct field_desc *end = t + n;
        for (const struct field_desc *d = t; d < end; d++) {
                const struct metric_def *m = &d->metric;
                if (!starts_family(m)) {
                        if (m->row != MR_NONE)
                                r->broken = true; /* a series before any family */
                        continue;
                }
                metrics_family(r, m->name, m->type, m->help);
                if (m->row == MR_CODE) {
                        if (m->code > MC_NONE && m->code < MC_COUNT && r->codes &&
                            r->codes[m->code])
                                r->codes[m->code](r, f, bases);
                        else
                                r->broken = true;
                        continue;
                }
                const struct field_desc *fam_end = d + 1;
                while (fam_end < end && !starts_family(&fam_end->metric))
                        fam_end++;
                for (unsigned i = 0; i < count; i++) {
                        const char *obj = (const char *)objs + i * stride;
                        if (bases && !bases[i])
                                continue;
                        for (const struct field_desc *k = d; k < fam_end; k++)
                                if (k->metric.row == MR_SERIES)
                                        metrics_sample(r, bases ? bases[i] : NULL, k->metric.key,
                                                       k->metric.val,
                                                       field_at(obj, k->off) * k->metric.scale);
                }
                d = fam_end - 1;
        }
}
