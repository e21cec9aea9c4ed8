/* SPDX-License-Identifier: Apache-2.0 */
/* Absolute-deadline scheduling. See sched.h. */
#include "daemon/sched.h"

#include <string.h>

#include "util/hot.h"

void sched_init(struct sched *s, int64_t origin_ns)
{
        memset(s, 0, sizeof(*s));
        s->origin_ns = origin_ns;
}

void sched_enable(struct sched *s, enum vigil_clock c, int64_t interval_ns)
{
        s->c[c].enabled = interval_ns > 0;
        s->c[c].interval_ns = interval_ns;
        s->c[c].k = 1;
        s->c[c].missed = 0;
}

static int64_t deadline(const struct sched *s, const struct sched_clock *c)
{
        return s->origin_ns + (int64_t)c->k * c->interval_ns;
}

VIGIL_HOT int64_t sched_next(const struct sched *s)
{
        int64_t next = INT64_MAX;
        for (unsigned i = 0; i < VCLOCK_COUNT; i++) {
                if (s->c[i].enabled && deadline(s, &s->c[i]) < next)
                        next = deadline(s, &s->c[i]);
        }
        return next;
}

/* 2^(k/4) for k = 0..3: the steps between buckets. */
static const double quarter_pow2[4] = {1.0, 1.1892071150027211, 1.4142135623730951,
                                       1.6817928305074290};

/* The upper bound of bucket b, in ns: 1 us * 2^(b/4). Computed without libm (log2 and
 * pow would map its 0.5 MB for this alone). */
double sched_bucket_bound_ns(unsigned b)
{
        return 1000.0 * (double)(1ULL << (b / 4)) * quarter_pow2[b % 4];
}

/* The first bucket whose bound is at least ns, found from the octave: with q = (ns - 1) /
 * 1000 (integer) and o = floor(log2 q), bucket 4o's bound 1000 * 2^o <= 1000 q < ns, and
 * bucket 4(o + 1)'s 1000 * 2^(o+1) > 1000 (q + 1) > ns - 1, so at least ns: the answer is
 * one of 4o + 1 .. 4o + 4, at most four comparisons instead of a walk from bucket 0. */
VIGIL_HOT unsigned sched_lateness_bucket(int64_t ns)
{
        unsigned b = 0;
        if (ns > 1000) {
                uint64_t q = (uint64_t)(ns - 1) / 1000;
                b = 4u * (unsigned)(63 - __builtin_clzll(q));
        }
        while (b < SCHED_LATENESS_BUCKETS - 1 && sched_bucket_bound_ns(b) < (double)ns)
                b++;
        return b < SCHED_LATENESS_BUCKETS ? b : SCHED_LATENESS_BUCKETS - 1;
}

VIGIL_HOT unsigned sched_due(struct sched *s, int64_t now_ns)
{
        unsigned due = 0;
        int64_t worst = -1;
        for (unsigned i = 0; i < VCLOCK_COUNT; i++) {
                struct sched_clock *c = &s->c[i];
                if (!c->enabled || now_ns < deadline(s, c))
                        continue;
                /* The latest deadline at or before now is the one sampled now. */
                uint64_t m = (uint64_t)((now_ns - s->origin_ns) / c->interval_ns);
                c->missed += m - c->k;
                int64_t late = now_ns - (s->origin_ns + (int64_t)m * c->interval_ns);
                if (late > worst)
                        worst = late;
                c->k = m + 1;
                due |= VCLOCK_BIT(i);
        }
        if (due) {
                s->lateness[sched_lateness_bucket(worst)]++;
                s->nlateness++;
        }
        return due;
}

VIGIL_HOT uint64_t sched_missed(const struct sched *s)
{
        uint64_t n = 0;
        for (unsigned i = 0; i < VCLOCK_COUNT; i++)
                n += s->c[i].missed;
        return n;
}

int64_t sched_lateness_quantile(const struct sched *s, double q)
{
        if (s->nlateness == 0)
                return -1;
        double x = q * (double)s->nlateness; /* the rank wanted, rounded up */
        uint64_t want = x > 0 ? (uint64_t)x : 0;
        if ((double)want < x)
                want++;
        if (want == 0)
                want = 1;
        uint64_t seen = 0;
        for (unsigned b = 0; b < SCHED_LATENESS_BUCKETS; b++) {
                seen += s->lateness[b];
                if (seen >= want)
                        return (int64_t)sched_bucket_bound_ns(b);
        }
        return -1;
}
