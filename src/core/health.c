/* SPDX-License-Identifier: Apache-2.0 */
/* The health verdict's model: entries, the rules applied to events.log lines, proofs,
 * escalation and a person's clear. See health.h; the rules are in health_rules.c, the
 * outputs and the state file in health_text.c. */
#include "core/health.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "util/parse.h"
#include "util/hot.h"

void health_init(struct health *h, const char *boot_id, health_xid_action_fn xid_action,
                 health_xid_action_fn sxid_action)
{
        memset(h, 0, offsetof(struct health, work));
        copy_bounded(h->boot_id, sizeof(h->boot_id), boot_id ? boot_id : "",
                     boot_id ? strlen(boot_id) : 0);
        h->xid_action = xid_action;
        h->sxid_action = sxid_action;
}

void health_copy(struct health *dst, const struct health *src)
{
        memcpy(dst, src, offsetof(struct health, work));
        memcpy(dst->work, src->work, src->nwork * sizeof(src->work[0]));
        memcpy(dst->e, src->e, src->n * sizeof(src->e[0]));
}

const char *health_state_name(enum health_state s)
{
        static const char *const names[HEALTH_STATE_COUNT] = {"healthy", "degraded", "unhealthy"};
        return (unsigned)s < HEALTH_STATE_COUNT ? names[s] : "?";
}

static struct health_entry *find(struct health *h, const char *name)
{
        for (size_t i = 0; i < h->n; i++)
                if (!strcmp(h->e[i].name, name))
                        return &h->e[i];
        return NULL;
}

/* The entry of name, added healthy when new; NULL when the table is full. */
static struct health_entry *get(struct health *h, const char *name)
{
        struct health_entry *e = find(h, name);
        if (e)
                return e;
        if (h->n >= HEALTH_MAX) {
                h->dropped++;
                return NULL;
        }
        e = &h->e[h->n++];
        memset(e, 0, sizeof(*e));
        copy_bounded(e->name, sizeof(e->name), name, strlen(name));
        e->since = e->last_error = e->proving_since = e->remedied_t = e->recheck_until = NAN;
        return e;
}

/* "gpu3.memory" for a GPU part of a line with gpu=3, "gpu.memory" without one, the
 * component's own name for the others; false for EC_NONE. */
static bool component_name(enum event_component c, const char *gpu, char *out, size_t cap)
{
        const char *base = event_component_name(c);
        if (c == EC_NONE || c >= EC_COUNT)
                return false;
        if (!strncmp(base, "gpu.", 4) && gpu[0])
                snprintf(out, cap, "gpu%s.%s", gpu, base + 4);
        else
                snprintf(out, cap, "%s", base);
        return true;
}

static bool in_words(const char *words, const char *v)
{
        size_t n = strlen(v);
        for (const char *p = words; *p;) {
                const char *end = strchr(p, ' ');
                size_t len = end ? (size_t)(end - p) : strlen(p);
                if (len == n && !memcmp(p, v, n))
                        return true;
                if (!end)
                        break;
                p = end + 1;
        }
        return false;
}

/* Whether l has key with one of values (exact: values is the one value, whole). */
static bool key_in(const struct event_line *l, const char *key, const char *values, bool exact)
{
        char v[EVENT_VALUE_MAX];
        if (!key)
                return true;
        if (!event_field(l, key, v, sizeof(v)))
                return false;
        return !values || (exact ? !strcmp(values, v) : in_words(values, v));
}

static bool rule_matches(const struct health_rule *r, const struct event_line *l)
{
        return key_in(l, r->key, r->values, r->exact) && key_in(l, r->key2, r->values2, false);
}

static bool reset_class(enum event_action a)
{
        return a == EA_RESET_GPU || a == EA_REBOOT;
}

static void set_healthy(struct health_entry *e, double t)
{
        if (reset_class(e->action))
                e->remedied_t = t;
        e->state = HEALTH_HEALTHY;
        e->action = EA_NONE;
        e->until = HU_LINE;
        e->await_answer = e->await_boot = e->remedy_seen = false;
        e->recheck_until = NAN;
        e->reason[0] = e->evidence[0] = '\0';
        e->since = t;
        e->proving_since = NAN;
}

/* The resolved action of rule r for line l. */
static enum event_action rule_action(const struct health *h, const struct health_rule *r,
                                     const struct event_kind_desc *d, const struct event_line *l)
{
        enum event_action a = r->no_action ? EA_NONE : (r->action ? r->action : d->action);
        if (a != EA_FROM_EVENT)
                return a;
        char v[EVENT_VALUE_MAX];
        uint64_t code;
        bool sxid = event_field(l, "sxid", v, sizeof(v));
        health_xid_action_fn fn = sxid ? h->sxid_action : h->xid_action;
        if ((!sxid && !event_field(l, "xid", v, sizeof(v))) || parse_u64(v, strlen(v), &code) < 0 ||
            code > 0xffffffffu || !fn)
                return EA_INSPECT_HARDWARE;
        return fn((unsigned)code);
}

/* A GPU_PROCESSES line: the GPU's workloads now ("" when its processes name none). */
static void note_workloads(struct health *h, const struct event_line *l)
{
        char g[12], w[HEALTH_WORK_LEN];
        uint64_t gpu;
        if (!event_field(l, "gpu", g, sizeof(g)) || parse_u64(g, strlen(g), &gpu) < 0)
                return;
        event_field(l, "workloads", w, sizeof(w));
        unsigned k = 0;
        while (k < h->nwork && h->work[k].gpu != gpu)
                k++;
        if (k == h->nwork) {
                if (!w[0] || k == HEALTH_WORK_GPUS)
                        return;
                h->nwork++;
                h->work[k].gpu = (unsigned)gpu;
        }
        memcpy(h->work[k].text, w, sizeof(w));
}

/* The workloads last seen on the GPU of component name ("gpuN..."), or NULL. */
static const char *workloads_of(const struct health *h, const char *name)
{
        uint64_t gpu;
        size_t n = strspn(name + 3, "0123456789");
        if (strncmp(name, "gpu", 3) || n == 0 || parse_u64(name + 3, n, &gpu) < 0)
                return NULL;
        for (unsigned k = 0; k < h->nwork; k++)
                if (h->work[k].gpu == gpu && h->work[k].text[0])
                        return h->work[k].text;
        return NULL;
}

static void note_error(struct health *h, struct health_entry *e, const struct health_rule *r,
                       enum health_state st, enum event_action a, const struct event_kind_desc *d,
                       const struct event_line *l, double t)
{
        /* Back after its remedy: a reset/reboot failure within the window of the last
         * one's recovery, or on a component whose reboot or answer came meanwhile. */
        bool back = reset_class(a) &&
                    ((e->state == HEALTH_HEALTHY && !isnan(e->remedied_t) &&
                      t - e->remedied_t <= HEALTH_ESCALATE_S) ||
                     (e->state != HEALTH_HEALTHY && e->remedy_seen && reset_class(e->action)));
        bool was_healthy = e->state == HEALTH_HEALTHY;
        if (back) {
                e->recurrences++;
                a = EA_INSPECT_HARDWARE;
                st = HEALTH_UNHEALTHY;
        }
        if (was_healthy || st > e->state || back) {
                e->since = t;
                struct strbuf sb;
                sb_init_fixed(&sb, e->reason, sizeof(e->reason));
                if (!event_sentence(d, l, &sb))
                        sb_put(&sb, l->s, l->n);
                if (back)
                        sb_printf(&sb, " (back within %d h of the last recovery)",
                                  HEALTH_ESCALATE_S / 3600);
                const char *work = workloads_of(h, e->name);
                if (work)
                        sb_printf(&sb, " (workloads %s)", work);
                e->state = st;
        }
        if (a > e->action)
                e->action = a;
        enum health_until u = back ? HU_PERSON : r->until;
        if (was_healthy || u > e->until)
                e->until = u;
        char file[EVENT_VALUE_MAX];
        if (event_field(l, "file", file, sizeof(file)) ||
            event_field(l, "snapshot", file, sizeof(file)))
                copy_bounded(e->evidence, sizeof(e->evidence), file, strlen(file));
        e->last_error = t;
        e->recheck_until = NAN;
        copy_bounded(e->boot_id, sizeof(e->boot_id), h->boot_id, strlen(h->boot_id));
        e->await_answer = e->await_answer || r->await_answer;
        e->await_boot = e->action == EA_REBOOT;
        e->remedy_seen = false;
        e->proving_since = e->await_answer || e->await_boot ? NAN : t;
        h->gen++;
}

/* A GPU answers again: its waiting entries start their proof at t. */
VIGIL_HOT static void answers(struct health *h, const char *gpu, double t)
{
        char prefix[HEALTH_NAME_LEN];
        snprintf(prefix, sizeof(prefix), "gpu%s.", gpu);
        for (size_t i = 0; i < h->n; i++) {
                struct health_entry *e = &h->e[i];
                if (e->state == HEALTH_HEALTHY || !e->await_answer ||
                    strncmp(e->name, prefix, strlen(prefix)))
                        continue;
                e->await_answer = false;
                e->remedy_seen = true;
                if (!e->await_boot)
                        e->proving_since = t;
                h->gen++;
        }
}

VIGIL_HOT void health_gpu_answers(struct health *h, unsigned gpu, double t)
{
        char g[12];
        snprintf(g, sizeof(g), "%u", gpu);
        answers(h, g, t);
}

/* The crash snapshot of a GPU's open states: the evidence of those set around it. */
static void evidence(struct health *h, const char *gpu, const struct event_line *l, double t)
{
        char prefix[HEALTH_NAME_LEN], file[EVENT_VALUE_MAX];
        if (!event_field(l, "file", file, sizeof(file)) || !file[0])
                return;
        snprintf(prefix, sizeof(prefix), "gpu%s.", gpu);
        for (size_t i = 0; i < h->n; i++) {
                struct health_entry *e = &h->e[i];
                if (e->state != HEALTH_HEALTHY && !strncmp(e->name, prefix, strlen(prefix)) &&
                    t - e->last_error <= 300) {
                        copy_bounded(e->evidence, sizeof(e->evidence), file, strlen(file));
                        h->gen++;
                }
        }
}

static void apply(struct health *h, const struct health_rule *r, const struct event_kind_desc *d,
                  const struct event_line *l, double t)
{
        char gpu[12], name[HEALTH_NAME_LEN];
        event_field(l, "gpu", gpu, sizeof(gpu));
        if (r->effect == HR_PERSON) {
                char comp[HEALTH_NAME_LEN + 8];
                if (event_field(l, "component", comp, sizeof(comp)))
                        health_clear(h, comp, t);
                return;
        }
        if (r->effect == HR_ANSWERS) {
                if (gpu[0])
                        answers(h, gpu, t);
                return;
        }
        if (r->effect == HR_EVIDENCE) {
                if (gpu[0])
                        evidence(h, gpu, l, t);
                return;
        }
        if (!component_name(r->component ? r->component : d->component, gpu, name, sizeof(name)))
                return;
        if (r->effect == HR_CLEAR) {
                struct health_entry *e = find(h, name);
                if (e && e->state != HEALTH_HEALTHY && e->until == HU_LINE) {
                        set_healthy(e, t);
                        h->gen++;
                }
                return;
        }
        enum event_action a = rule_action(h, r, d, l);
        enum health_state st = r->state;
        if (r->state_by_action) {
                if (a == EA_NONE)
                        return;
                st = a == EA_RESTART_WORKLOAD ? HEALTH_DEGRADED : HEALTH_UNHEALTHY;
        }
        struct health_entry *e = get(h, name);
        if (e)
                note_error(h, e, r, st, a, d, l, t);
}

void health_feed_event(struct health *h, double t, const char *text, size_t len)
{
        struct event_line l = {.s = text, .n = len};
        const struct event_kind_desc *d = event_kind_of(&l);
        if (!d)
                return;
        if (d == event_kind(EV_GPU_PROCESSES)) {
                note_workloads(h, &l);
                return;
        }
        for (size_t i = 0; i < health_rules_count; i++) {
                const struct health_rule *r = &health_rules[i];
                if (event_kind(r->kind) != d || !rule_matches(r, &l))
                        continue;
                apply(h, r, d, &l, t);
                return;
        }
}

void health_recheck(struct health *h, double now)
{
        for (size_t i = 0; i < h->n; i++)
                if (h->e[i].state != HEALTH_HEALTHY && h->e[i].until == HU_LINE)
                        h->e[i].recheck_until = now + HEALTH_RECHECK_S;
}

VIGIL_HOT void health_tick(struct health *h, double now)
{
        for (size_t i = 0; i < h->n; i++) {
                struct health_entry *e = &h->e[i];
                if (e->state != HEALTH_HEALTHY && !isnan(e->recheck_until) &&
                    now >= e->recheck_until) {
                        set_healthy(e, now);
                        h->gen++;
                        continue;
                }
                if (e->state == HEALTH_HEALTHY || e->until != HU_PROVEN)
                        continue;
                /* A later boot is the reboot it asked for (and answers for a lost GPU:
                 * the driver starts over). */
                if ((e->await_boot || e->await_answer) && h->boot_id[0] && e->boot_id[0] &&
                    strcmp(h->boot_id, e->boot_id)) {
                        e->await_boot = e->await_answer = false;
                        e->remedy_seen = true;
                        e->proving_since = now;
                        h->gen++;
                }
                if (e->await_boot || e->await_answer || isnan(e->proving_since) ||
                    now - e->proving_since < HEALTH_PROVE_S)
                        continue;
                set_healthy(e, now);
                h->gen++;
        }
}

bool health_name_ok(const char *name)
{
        if (!strcmp(name, "all"))
                return true;
        size_t n = strlen(name);
        if (n == 0 || n >= HEALTH_NAME_LEN)
                return false;
        if (!strncmp(name, "gpu", 3)) {
                const char *p = name + 3;
                while (*p >= '0' && *p <= '9')
                        p++;
                if (*p == '\0')
                        return p > name + 3;
                name = p[0] == '.' ? p + 1 : "";
                for (int c = EC_GPU_MEMORY; c <= EC_GPU_DRIVER; c++)
                        if (!strcmp(event_component_name((enum event_component)c) + 4, name))
                                return true;
                return false;
        }
        for (int c = EC_HOST_MEMORY; c < EC_COUNT; c++)
                if (!strcmp(event_component_name((enum event_component)c), name))
                        return true;
        return false;
}

int health_clear(struct health *h, const char *name, double t)
{
        size_t n = strlen(name);
        int cleared = 0;
        for (size_t i = 0; i < h->n; i++) {
                struct health_entry *e = &h->e[i];
                bool match = !strcmp(name, "all") || !strcmp(e->name, name) ||
                             (!strncmp(e->name, name, n) && e->name[n] == '.');
                if (!match || e->state == HEALTH_HEALTHY)
                        continue;
                /* A person's clear is a remedy: a failure back within the window
                 * escalates; an escalated one starts its count over. */
                if (e->action == EA_INSPECT_HARDWARE && e->recurrences)
                        e->remedied_t = NAN;
                set_healthy(e, t);
                cleared++;
                h->gen++;
        }
        return cleared;
}

VIGIL_HOT const struct health_entry *health_next_change(struct health *h,
                                                        enum health_state *ret_from)
{
        for (size_t i = 0; i < h->n; i++) {
                struct health_entry *e = &h->e[i];
                if (e->announced == e->state && e->announced_action == e->action)
                        continue;
                *ret_from = e->announced;
                e->announced = e->state;
                e->announced_action = e->action;
                h->gen++;
                return e;
        }
        return NULL;
}

enum health_state health_overall(const struct health *h)
{
        enum health_state s = HEALTH_HEALTHY;
        for (size_t i = 0; i < h->n; i++)
                if (h->e[i].state > s)
                        s = h->e[i].state;
        return s;
}
