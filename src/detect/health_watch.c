/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's health verdict: start, the detector, a person's clear. See
 * health_watch.h. */
#include "detect/health_watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/counters.h"
#include "core/eventlog.h"
#include "core/runstate.h"
#include "detect/sxid_catalog.h"
#include "detect/xid_catalog.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/hot.h"

/* An SXid's action: its class in the Fabric Manager guide; a code it lacks asks for a
 * look at the hardware. */
static enum event_action sxid_action(unsigned code)
{
        const struct sxid_info *x = sxid_lookup(code);
        return x ? sxid_class_event_action(x->cls) : EA_INSPECT_HARDWARE;
}

int health_watch_load(struct health *h, const char *root, const char *dir)
{
        char boot[40];
        runstate_boot_id(root, boot, sizeof(boot));
        health_init(h, boot, xid_event_action, sxid_action);
        return dir ? health_load(dir, h) : -ENOENT;
}

void health_watch_start(struct vigil_ctx *ctx)
{
        ctx->health = malloc(sizeof(*ctx->health));
        ctx->published_health = malloc(sizeof(*ctx->published_health));
        if (!ctx->health || !ctx->published_health) {
                health_watch_free(ctx);
                return;
        }
        int r = health_watch_load(ctx->health, ctx->opt->root, ctx->log_dir);
        if (r < 0 && r != -ENOENT)
                vlog(LOG_WARN, "cannot read %s/%s: %s; the health verdict starts over",
                     ctx->log_dir, HEALTH_FILE, strerror(-r));
        health_recheck(ctx->health, (double)now_real_ns() / 1e9);
        ctx->health->gen++;
        health_copy(ctx->published_health, ctx->health);
        ctx->published_health->gen = 0;
}

void health_watch_free(struct vigil_ctx *ctx)
{
        free(ctx->health);
        free(ctx->published_health);
        ctx->health = ctx->published_health = NULL;
}

void health_watch_tap(void *arg, int64_t real_ns, const char *text, size_t len)
{
        health_feed_event(arg, (double)real_ns / 1e9, text, len);
}

VIGIL_HOT void health_watch_announce(struct health *h, struct eventlog *el, double now)
{
        const struct health_entry *e;
        enum health_state from;
        while ((e = health_next_change(h, &from))) {
                char reason[HEALTH_REASON_LEN];
                copy_bounded(reason, sizeof(reason), e->reason, strlen(e->reason));
                for (char *p = reason; *p; p++)
                        if (*p == '"')
                                *p = '\'';
                eventlog_event(el, (int64_t)(now * 1e9), EV_HEALTH,
                               "component=%s state=%s from=%s action=\"%s\" reason=\"%s\"%s%s",
                               e->name, health_state_name(e->state), health_state_name(from),
                               event_action_text(e->action), reason,
                               e->evidence[0] ? " evidence=" : "", e->evidence);
        }
}

int health_watch_clear(struct health *h, struct eventlog *el, const char *component,
                       const char *reason, double now)
{
        char why[160];
        copy_bounded(why, sizeof(why), reason, strlen(reason));
        for (char *p = why; *p; p++)
                if (*p == '"' || (unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = *p == '"' ? '\'' : ' ';
        /* The states before: the entries keep their places, new ones are appended. */
        enum health_state before[HEALTH_MAX];
        size_t nbefore = h->n;
        for (size_t i = 0; i < nbefore; i++)
                before[i] = h->e[i].state;
        if (el)
                eventlog_event(el, (int64_t)(now * 1e9), EV_HEALTH_CLEARED,
                               "component=%s reason=\"%s\"", component, why);
        else
                health_clear(h, component, now);
        int n = 0;
        for (size_t i = 0; i < h->n && i < nbefore; i++)
                n += before[i] != HEALTH_HEALTHY && h->e[i].state == HEALTH_HEALTHY;
        health_watch_announce(h, el, now);
        return n;
}

struct hw {
        uint64_t saved_gen; /* the model's gen at the last save */
        uint64_t copied_gen;
};

static int hw_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->health)
                return -ENODEV;
        struct hw *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        *ret_state = s;
        return 0;
}

/* A clear asked for with `vigil health clear` while this daemon runs. */
VIGIL_HOT static void take_request(struct vigil_ctx *ctx, double now)
{
        char buf[256];
        if (!ctx->log_dir)
                return;
        int n = read_line_at(ctx->log_dir, "/" HEALTH_CLEAR_REQUEST, buf, sizeof(buf));
        if (n < 0)
                return;
        char path[1200];
        snprintf(path, sizeof(path), "%s/%s", ctx->log_dir, HEALTH_CLEAR_REQUEST);
        unlink(path);
        char *tab = strchr(buf, '\t');
        const char *reason = tab ? tab + 1 : "";
        if (tab)
                *tab = '\0';
        if (!health_name_ok(buf)) {
                vlog(LOG_WARN, "health clear: '%.40s' is not a component", buf);
                return;
        }
        int cleared = health_watch_clear(ctx->health, ctx->events, buf, reason, now);
        vlog(LOG_INFO, "health clear %s (%s): %d cleared", buf, reason, cleared);
}

static void copy_series(void *arg, const struct health_row *r)
{
        struct counters *x = arg;
        if (x->nhealth >= COUNTERS_MAX_HEALTH)
                return;
        struct health_series *s = &x->health[x->nhealth++];
        copy_bounded(s->component, sizeof(s->component), r->name, strlen(r->name));
        s->state = (uint8_t)r->state;
}

VIGIL_HOT static void hw_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct hw *s = state;
        struct health *h = ctx->health;
        double now = (double)t->real_ns / 1e9;
        unsigned ngpus = 0;
        for (unsigned i = 0; i < ctx->frame->ngpus && i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &ctx->frame->gpus[i];
                if (!g->present)
                        continue;
                if (g->index + 1 > ngpus)
                        ngpus = g->index + 1;
                if (g->ok)
                        health_gpu_answers(h, g->index, now);
        }
        if (h->ngpus != ngpus || h->pi != ctx->frame->rpi.present) {
                h->ngpus = ngpus;
                h->pi = ctx->frame->rpi.present;
                h->gen++;
        }
        take_request(ctx, now);
        health_tick(h, now);
        health_watch_announce(h, ctx->events, now);
        if (s->copied_gen != h->gen) {
                ctx->extra->nhealth = 0;
                health_walk(h, copy_series, ctx->extra);
                s->copied_gen = h->gen;
        }
        if (ctx->log_dir && s->saved_gen != h->gen) {
                int r = health_save(ctx->log_dir, h);
                if (r < 0 && s->saved_gen != (uint64_t)-1)
                        vlog(LOG_WARN, "cannot write %s/%s: %s", ctx->log_dir, HEALTH_FILE,
                             strerror(-r));
                s->saved_gen = r < 0 ? (uint64_t)-1 : h->gen;
        }
}

static void hw_fini(void *state)
{
        free(state);
}

const struct vigil_detector vigil_detector_health = {
    .name = "health",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = hw_init,
    .feed = hw_feed,
    .fini = hw_fini,
};
