/* Updating the counters /metrics shows beside the frame. See metrics.h. Each update is
 * a short linear search over a bounded table: tables are small and updates are rare
 * (an Xid, an anomaly, a rule transition), except the reason seconds, which index. */
#include <errno.h>
#include <string.h>

#include "sink/metrics.h"

void metrics_extra_clear(struct metrics_extra *x)
{
        memset(x, 0, sizeof(*x));
}

int metrics_extra_add_xid(struct metrics_extra *x, unsigned gpu, uint32_t xid)
{
        if (gpu >= VIGIL_MAX_GPUS)
                return -EINVAL;
        struct metrics_gpu_extra *g = &x->gpus[gpu];
        for (unsigned i = 0; i < g->nxids && i < METRICS_MAX_XIDS; i++) {
                if (g->xids[i].xid == xid) {
                        g->xids[i].count++;
                        return 0;
                }
        }
        if (g->nxids >= METRICS_MAX_XIDS) {
                g->xids_other++;
                return 0;
        }
        g->xids[g->nxids].xid = xid;
        g->xids[g->nxids].count = 1;
        g->nxids++;
        return 0;
}

const char *const metrics_event_names[METRICS_NEVENT_TYPES] = {
    [METRICS_EV_SINGLE_BIT_ECC] = "single_bit_ecc",
    [METRICS_EV_DOUBLE_BIT_ECC] = "double_bit_ecc",
    [METRICS_EV_PSTATE] = "pstate",
    [METRICS_EV_XID] = "xid",
    [METRICS_EV_CLOCK] = "clock",
    [METRICS_EV_GPU_UNAVAILABLE] = "gpu_unavailable",
    [METRICS_EV_GPU_RECOVERY_ACTION] = "gpu_recovery_action",
};

int metrics_extra_add_event(struct metrics_extra *x, unsigned gpu, enum metrics_event_type type)
{
        if (gpu >= VIGIL_MAX_GPUS || (unsigned)type >= METRICS_NEVENT_TYPES)
                return -EINVAL;
        x->gpus[gpu].events[type]++;
        return 0;
}

/* A label-friendly name: 1 to METRICS_NAME_LEN-1 bytes. */
static bool name_ok(const char *name)
{
        size_t n = name ? strnlen(name, METRICS_NAME_LEN) : 0;
        return n > 0 && n < METRICS_NAME_LEN;
}

int metrics_extra_add_anomaly(struct metrics_extra *x, unsigned gpu, const char *type)
{
        if (gpu >= VIGIL_MAX_GPUS || !name_ok(type))
                return -EINVAL;
        struct metrics_gpu_extra *g = &x->gpus[gpu];
        for (unsigned i = 0; i < g->nanomalies && i < METRICS_MAX_ANOMALY_TYPES; i++) {
                if (!strcmp(g->anomalies[i].type, type)) {
                        g->anomalies[i].count++;
                        return 0;
                }
        }
        if (g->nanomalies >= METRICS_MAX_ANOMALY_TYPES)
                return -ENOSPC;
        memcpy(g->anomalies[g->nanomalies].type, type, strlen(type) + 1);
        g->anomalies[g->nanomalies].count = 1;
        g->nanomalies++;
        return 0;
}

int metrics_extra_add_reason_seconds(struct metrics_extra *x, unsigned gpu, uint64_t mask,
                                     double seconds)
{
        if (gpu >= VIGIL_MAX_GPUS)
                return -EINVAL;
        if (!(seconds > 0))
                return 0;
        for (unsigned b = 0; b < METRICS_NREASONS; b++) {
                if (mask & (1ull << b))
                        x->gpus[gpu].reason_seconds[b] += seconds;
        }
        return 0;
}

int metrics_extra_set_rule(struct metrics_extra *x, const char *name, bool active)
{
        if (!name_ok(name))
                return -EINVAL;
        unsigned i;
        for (i = 0; i < x->nrules && i < METRICS_MAX_RULES; i++) {
                if (!strcmp(x->rules[i].name, name))
                        break;
        }
        if (i == x->nrules) {
                if (x->nrules >= METRICS_MAX_RULES)
                        return -ENOSPC;
                memset(&x->rules[i], 0, sizeof(x->rules[i]));
                memcpy(x->rules[i].name, name, strlen(name) + 1);
                x->nrules++;
        }
        struct metrics_rule *r = &x->rules[i];
        if (active && !r->active)
                r->fired++;
        r->active = active;
        return 0;
}
