/* SPDX-License-Identifier: Apache-2.0 */
/* When to write snapshots: the per-kind rate limiter and the crash follow-up
 * schedule. Pure state with explicit times. See snapshot.h. */
#include <stdio.h>
#include <string.h>

#include "detect/snapshot.h"
#include "util/clock.h"
#include "util/hot.h"

#define REPORT_MAX 3

const unsigned snapshot_followup_delays_s[SNAPSHOT_FOLLOWUP_STEPS] = {10, 60, 300};

static const int64_t cooldown_s[SNAPSHOT_KIND_COUNT] = {
    [SNAPSHOT_CRASH] = 60,
    [SNAPSHOT_SPIKE] = 10,
    [SNAPSHOT_INCIDENT] = 60,
};

void snapshot_limiter_init(struct snapshot_limiter *l, enum snapshot_kind kind)
{
        memset(l, 0, sizeof(*l));
        l->cooldown_ns =
            ((unsigned)kind < SNAPSHOT_KIND_COUNT ? cooldown_s[kind] : 60) * NSEC_PER_SEC;
        l->report_max = REPORT_MAX;
}

enum snapshot_verdict snapshot_limiter_check(struct snapshot_limiter *l, int64_t mono_ns)
{
        if (!l->taken || mono_ns - l->last_ns >= l->cooldown_ns) {
                l->taken = true;
                l->last_ns = mono_ns;
                l->suppressed = 0;
                return SNAPSHOT_TAKE;
        }
        l->suppressed++;
        l->suppressed_total++;
        return l->suppressed <= l->report_max ? SNAPSHOT_SUPPRESS_REPORT : SNAPSHOT_SUPPRESS_QUIET;
}

/* "…/crashes/crash-20261202-120000.log" -> "crash-20261202-120000" */
static void base_of(char *out, size_t cap, const char *path)
{
        const char *slash = strrchr(path, '/');
        const char *b = slash ? slash + 1 : path;
        size_t n = strlen(b);
        if (n >= 4 && strcmp(b + n - 4, ".log") == 0)
                n -= 4;
        if (n >= cap)
                n = cap - 1;
        memcpy(out, b, n);
        out[n] = '\0';
}

void snapshot_followups_arm(struct snapshot_followups *f, int tag, int64_t mono_ns,
                            const char *crash_path)
{
        struct snapshot_followup_slot *use = NULL;
        for (size_t i = 0; i < SNAPSHOT_FOLLOWUP_SLOTS; i++) {
                struct snapshot_followup_slot *s = &f->slot[i];
                if (!s->armed) {
                        use = s;
                        break;
                }
                if (!use || s->base_mono_ns < use->base_mono_ns)
                        use = s;
        }
        memset(use, 0, sizeof(*use));
        use->armed = true;
        use->tag = tag;
        use->base_mono_ns = mono_ns;
        base_of(use->base, sizeof(use->base), crash_path);
}

/* Index order of armed slots by crash time, oldest first. */
static size_t order_slots(const struct snapshot_followups *f, size_t idx[])
{
        size_t n = 0;
        for (size_t i = 0; i < SNAPSHOT_FOLLOWUP_SLOTS; i++) {
                if (!f->slot[i].armed)
                        continue;
                size_t j = n++;
                while (j > 0 && f->slot[idx[j - 1]].base_mono_ns > f->slot[i].base_mono_ns) {
                        idx[j] = idx[j - 1];
                        j--;
                }
                idx[j] = i;
        }
        return n;
}

VIGIL_HOT size_t snapshot_followups_due(struct snapshot_followups *f, int64_t mono_now,
                                        struct snapshot_followup_due *out, size_t cap)
{
        size_t idx[SNAPSHOT_FOLLOWUP_SLOTS], got = 0;
        size_t n = order_slots(f, idx);
        for (size_t k = 0; k < n; k++) {
                struct snapshot_followup_slot *s = &f->slot[idx[k]];
                for (unsigned i = 0; i < SNAPSHOT_FOLLOWUP_STEPS && got < cap; i++) {
                        int64_t at =
                            s->base_mono_ns + (int64_t)snapshot_followup_delays_s[i] * NSEC_PER_SEC;
                        if ((s->done & (1u << i)) || mono_now < at)
                                continue;
                        s->done |= 1u << i;
                        struct snapshot_followup_due *d = &out[got++];
                        d->tag = s->tag;
                        d->delay_s = snapshot_followup_delays_s[i];
                        memcpy(d->crash, s->base, sizeof(d->crash));
                        snprintf(d->name, sizeof(d->name), "%s-followup-%us", s->base, d->delay_s);
                }
                if (s->done == (1u << SNAPSHOT_FOLLOWUP_STEPS) - 1)
                        s->armed = false;
        }
        return got;
}

int64_t snapshot_followups_next(const struct snapshot_followups *f)
{
        int64_t next = 0;
        for (size_t k = 0; k < SNAPSHOT_FOLLOWUP_SLOTS; k++) {
                const struct snapshot_followup_slot *s = &f->slot[k];
                if (!s->armed)
                        continue;
                for (unsigned i = 0; i < SNAPSHOT_FOLLOWUP_STEPS; i++) {
                        if (s->done & (1u << i))
                                continue;
                        int64_t at =
                            s->base_mono_ns + (int64_t)snapshot_followup_delays_s[i] * NSEC_PER_SEC;
                        if (next == 0 || at < next)
                                next = at;
                        break;
                }
        }
        return next;
}
