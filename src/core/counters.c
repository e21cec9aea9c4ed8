/* SPDX-License-Identifier: Apache-2.0 */
/* Updating the counters kept outside the frame. See counters.h. Each update is a short
 * linear search over a bounded table: tables are small and updates are rare (an Xid, a
 * rule transition), except the events, which index. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/counters.h"

void counters_clear(struct counters *x)
{
        memset(x, 0, sizeof(*x));
}

/* counters_copy: the per-GPU counters come first, everything else after them. */
_Static_assert(offsetof(struct counters, gpus) == 0, "gpus first in struct counters");

void counters_copy(struct counters *dst, const struct counters *src, unsigned ngpus)
{
        size_t n = ngpus < VIGIL_MAX_GPUS ? ngpus : VIGIL_MAX_GPUS;
        size_t h = src->nhealth < COUNTERS_MAX_HEALTH ? src->nhealth : COUNTERS_MAX_HEALTH;
        size_t tail = offsetof(struct counters, nrules);
        size_t health = offsetof(struct counters, health);
        size_t after = health + sizeof(src->health);
        memcpy(dst->gpus, src->gpus, n * sizeof(src->gpus[0]));
        memcpy((char *)dst + tail, (const char *)src + tail, health - tail);
        memcpy(dst->health, src->health, h * sizeof(src->health[0]));
        memcpy((char *)dst + after, (const char *)src + after, sizeof(*src) - after);
}

const char *const klog_skip_names[KLOG_SKIP_COUNT] = {"malformed", "overwritten", "oversize"};

int counters_add_klog(struct counters *x, const char *pci, int slot, unsigned kind)
{
        if (kind > COUNTERS_KLOG_KINDS)
                return -EINVAL;
        struct klog_dev_counters *d = NULL;
        for (unsigned i = 0; i < x->nklog && i < COUNTERS_MAX_KLOG_DEV && !d; i++)
                if (!strcmp(x->klog[i].pci, pci) && x->klog[i].slot == slot)
                        d = &x->klog[i];
        if (!d && x->nklog < COUNTERS_MAX_KLOG_DEV) {
                d = &x->klog[x->nklog++];
                memset(d, 0, sizeof(*d));
                snprintf(d->pci, sizeof(d->pci), "%s", pci);
                d->slot = slot;
        }
        if (kind == COUNTERS_KLOG_KINDS)
                return 0;
        if (d)
                d->count[kind]++;
        else
                x->klog_other[kind]++;
        return 0;
}

int counters_add_xid(struct counters *x, unsigned gpu, uint32_t xid)
{
        if (gpu >= VIGIL_MAX_GPUS)
                return -EINVAL;
        struct gpu_counters *g = &x->gpus[gpu];
        for (unsigned i = 0; i < g->nxids && i < COUNTERS_MAX_XIDS; i++) {
                if (g->xids[i].xid == xid) {
                        g->xids[i].count++;
                        return 0;
                }
        }
        if (g->nxids >= COUNTERS_MAX_XIDS) {
                g->xids_other++;
                return 0;
        }
        g->xids[g->nxids].xid = xid;
        g->xids[g->nxids].count = 1;
        g->nxids++;
        return 0;
}

const char *const gpu_anomaly_names[GPU_ANOM_COUNT] = {
    [GPU_ANOM_TDP_CHANGE] = "tdp_change",       [GPU_ANOM_FAN_SPIKE] = "fan_spike",
    [GPU_ANOM_FAN_INVERSION] = "fan_inversion", [GPU_ANOM_SPURIOUS_THROTTLE] = "spurious_throttle",
    [GPU_ANOM_POWER_BREACH] = "power_breach",   [GPU_ANOM_OVER_MAX_TEMP] = "over_max_temperature",
};

const char *const gpu_event_type_names[GPU_EV_COUNT] = {
    [GPU_EV_SINGLE_BIT_ECC] = "single_bit_ecc",
    [GPU_EV_DOUBLE_BIT_ECC] = "double_bit_ecc",
    [GPU_EV_PSTATE] = "pstate",
    [GPU_EV_XID] = "xid",
    [GPU_EV_CLOCK] = "clock",
    [GPU_EV_GPU_UNAVAILABLE] = "gpu_unavailable",
    [GPU_EV_GPU_RECOVERY_ACTION] = "gpu_recovery_action",
};

int counters_add_event(struct counters *x, unsigned gpu, enum gpu_event_type type)
{
        if (gpu >= VIGIL_MAX_GPUS || (unsigned)type >= GPU_EV_COUNT)
                return -EINVAL;
        x->gpus[gpu].events[type]++;
        return 0;
}

/* A label-friendly name: 1 to COUNTERS_NAME_LEN-1 bytes. */
static bool name_ok(const char *name)
{
        size_t n = name ? strnlen(name, COUNTERS_NAME_LEN) : 0;
        return n > 0 && n < COUNTERS_NAME_LEN;
}

int counters_set_rule(struct counters *x, const char *name, bool active)
{
        if (!name_ok(name))
                return -EINVAL;
        unsigned i;
        for (i = 0; i < x->nrules && i < COUNTERS_MAX_RULES; i++) {
                if (!strcmp(x->rules[i].name, name))
                        break;
        }
        if (i == x->nrules) {
                if (x->nrules >= COUNTERS_MAX_RULES)
                        return -ENOSPC;
                memset(&x->rules[i], 0, sizeof(x->rules[i]));
                memcpy(x->rules[i].name, name, strlen(name) + 1);
                x->nrules++;
        }
        struct counter_rule *r = &x->rules[i];
        if (active && !r->active)
                r->fired++;
        r->active = active;
        return 0;
}
