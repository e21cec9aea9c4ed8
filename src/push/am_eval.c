/* SPDX-License-Identifier: Apache-2.0 */
/* When a finding is a firing alert. See am_eval.h. */
#include "push/am_eval.h"

#include <math.h>
#include <string.h>

static struct am_track *track_of(struct am_eval *e, const struct finding *x, bool *ret_new)
{
        *ret_new = false;
        for (size_t i = 0; i < e->n; i++) {
                struct am_track *t = &e->t[i];
                if (t->kind == x->kind && !strcmp(t->source, x->source) && !strcmp(t->key, x->key))
                        return t;
        }
        if (e->n >= AM_EVAL_MAX)
                return NULL;
        struct am_track *t = &e->t[e->n++];
        memset(t, 0, sizeof(*t));
        t->kind = x->kind;
        memcpy(t->source, x->source, sizeof(t->source));
        memcpy(t->key, x->key, sizeof(t->key));
        *ret_new = true;
        return t;
}

bool am_eval_fires(struct am_eval *e, const struct finding *x, int64_t mono_ms)
{
        bool fresh;
        struct am_track *t = track_of(e, x, &fresh);
        if (!t)
                return false;
        bool open = isfinite(x->open_t);
        bool same_t = (isnan(t->last_t) && isnan(x->last_t)) || t->last_t == x->last_t;
        if (t->open && !open)
                t->change_ms = 0; /* closed: resolved now, not kept firing */
        else if (fresh || t->count != x->count || !same_t || x->value > t->value)
                t->change_ms = mono_ms;
        t->open = open;
        t->count = x->count;
        t->last_t = x->last_t;
        t->value = x->value;
        return open || (t->change_ms && mono_ms - t->change_ms < e->keep_ms);
}
