/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU event detector's pure parts: Clock bursts, event names, events.log lines and
 * counter indexes. See gpu_events.h. */
#include <stdio.h>

#include "collect/nvml_api.h"
#include "detect/gpu_events.h"
#include "detect/xid_catalog.h"
#include "core/counters.h"
#include "core/event_kinds.h"

/* One row per event type vigil names, in the reference's name order. */
struct event_type_def {
        unsigned long long bit;
        const char *name; /* the reference's (Xid adds its code) */
        enum gpu_event_type counter;
};

static const struct event_type_def event_types[] = {
    {NVML_EVENT_PSTATE, "PState", GPU_EV_PSTATE},
    {NVML_EVENT_XID_CRITICAL_ERROR, "Xid", GPU_EV_XID},
    {NVML_EVENT_GPU_RECOVERY_ACTION, "GpuRecovery", GPU_EV_GPU_RECOVERY_ACTION},
    {NVML_EVENT_GPU_UNAVAILABLE_ERROR, "GpuUnavailable", GPU_EV_GPU_UNAVAILABLE},
    {NVML_EVENT_SINGLE_BIT_ECC, "SingleBitEcc", GPU_EV_SINGLE_BIT_ECC},
    {NVML_EVENT_DOUBLE_BIT_ECC, "DoubleBitEcc", GPU_EV_DOUBLE_BIT_ECC},
    {NVML_EVENT_CLOCK, "Clock", GPU_EV_CLOCK},
};

#define NTYPES (sizeof(event_types) / sizeof(event_types[0]))

bool clock_burst_add(struct clock_burst *b, int64_t mono_ns)
{
        if (!b->open || mono_ns - b->start_ns > CLOCK_BURST_WINDOW_NS) {
                b->open = true;
                b->start_ns = mono_ns;
                b->count = 0;
        }
        b->count++;
        return b->count == CLOCK_BURST_EVENTS;
}

bool gpu_event_is_critical(unsigned long long type)
{
        return (type & (NVML_EVENT_XID_CRITICAL_ERROR | NVML_EVENT_GPU_RECOVERY_ACTION |
                        NVML_EVENT_GPU_UNAVAILABLE_ERROR)) != 0;
}

bool gpu_event_is_clock_only(unsigned long long type)
{
        return type == NVML_EVENT_CLOCK;
}

void gpu_event_names(struct strbuf *out, const struct nvml_event *e)
{
        unsigned long long rest = e->type;
        bool first = true;
        for (size_t i = 0; i < NTYPES; i++) {
                if (!(e->type & event_types[i].bit))
                        continue;
                rest &= ~event_types[i].bit;
                if (!first)
                        sb_putc(out, '|');
                first = false;
                if (event_types[i].bit == NVML_EVENT_XID_CRITICAL_ERROR)
                        sb_printf(out, "Xid(%llu)", e->data);
                else
                        sb_puts(out, event_types[i].name);
        }
        if (rest || first)
                sb_printf(out, "%s0x%04llx", first ? "" : "|", rest);
}

void gpu_recovery_action_name(struct strbuf *out, unsigned long long action)
{
        /* nvmlDeviceGpuRecoveryAction_t (nvml_api.h): every value NVIDIA defines. */
        static const char *const names[] = {
            [NVML_GPU_RECOVERY_ACTION_NONE] = "NONE",
            [NVML_GPU_RECOVERY_ACTION_GPU_RESET] = "GPU_RESET",
            [NVML_GPU_RECOVERY_ACTION_NODE_REBOOT] = "NODE_REBOOT",
            [NVML_GPU_RECOVERY_ACTION_DRAIN_P2P] = "DRAIN_P2P",
            [NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET] = "DRAIN_AND_RESET",
            [NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN] = "RECOVER_IMEX_DOMAIN",
        };
        if (action < sizeof(names) / sizeof(names[0]))
                sb_puts(out, names[action]);
        else
                sb_printf(out, "unknown(%llu)", action);
}

bool gpu_event_wants_action(unsigned long long type, unsigned long long data)
{
        if (type & NVML_EVENT_GPU_RECOVERY_ACTION)
                return true;
        if (!(type & NVML_EVENT_XID_CRITICAL_ERROR) || data > 0xffffffffULL)
                return false;
        /* The reset/reboot class, 154 ("GPU recovery action changed"), and the NVLink-5
         * errors, whose fatal ones (by NVIDIA's decode table) change the recovery action. */
        const struct xid_info *x = xid_lookup((unsigned)data);
        return xid_needs_reset((unsigned)data) || data == XID_RECOVERY_ACTION_CHANGED ||
               (x && x->bucket == XID_BUCKET_WORKFLOW_NVLINK5_ERR);
}

void gpu_event_action(struct strbuf *out, const struct nvml_event *e)
{
        if (e->action_read) {
                sb_puts(out, " recovery_action=");
                gpu_recovery_action_name(out, e->action);
        } else if (e->type & NVML_EVENT_GPU_RECOVERY_ACTION) {
                /* No field 230 (an older driver): the event's data, as a fallback. */
                sb_puts(out, " recovery_action=");
                gpu_recovery_action_name(out, e->data);
                sb_puts(out, " source=eventData");
        }
}

void gpu_event_line(struct strbuf *out, unsigned gpu, const struct nvml_event *e)
{
        event_begin(out, EV_NVML_EVENT);
        sb_printf(out, " gpu=%u event=", gpu);
        gpu_event_names(out, e);
        sb_printf(out, " mask=0x%04llx data=%llu", e->type, e->data);
        if (e->type & NVML_EVENT_XID_CRITICAL_ERROR) {
                const struct xid_info *x =
                    e->data <= 0xffffffffULL ? xid_lookup((unsigned)e->data) : NULL;
                sb_printf(out, " xid=%llu", e->data);
                if (x)
                        sb_printf(out,
                                  " class=%s meaning=\"%s\" action=\"%s\" severity=%s "
                                  "nvidia_action=%s",
                                  xid_class_name(x->cls), x->meaning, x->action,
                                  xid_severity_name(xid_class_severity(x->cls)),
                                  xid_bucket_name(x->bucket));
                else
                        sb_puts(out, " meaning=\"" XID_NOT_IN_CATALOG "\"");
        }
        gpu_event_action(out, e);
}

void gpu_event_story(struct strbuf *out, const struct nvml_event *e)
{
        gpu_event_names(out, e);
        if (e->type & NVML_EVENT_XID_CRITICAL_ERROR) {
                const struct xid_info *x =
                    e->data <= 0xffffffffULL ? xid_lookup((unsigned)e->data) : NULL;
                if (x)
                        sb_printf(out, " (Xid %llu: %s; action: %s)", e->data, x->meaning,
                                  x->action);
                else
                        sb_printf(out, " (Xid %llu: " XID_NOT_IN_CATALOG ")", e->data);
        }
        if (e->action_read || (e->type & NVML_EVENT_GPU_RECOVERY_ACTION)) {
                sb_puts(out, " recovery action ");
                gpu_recovery_action_name(out, e->action_read ? e->action : e->data);
        }
}

unsigned gpu_event_counters(const struct nvml_event *e, unsigned out[])
{
        unsigned n = 0;
        for (size_t i = 0; i < NTYPES; i++)
                if (e->type & event_types[i].bit)
                        out[n++] = event_types[i].counter;
        return n;
}
