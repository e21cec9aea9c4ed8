/* The GPU event detector's pure parts: Clock bursts, event names, events.log lines and
 * counter indexes. See gpu_events.h. */
#include <stdio.h>

#include "collect/nvml_api.h"
#include "detect/gpu_events.h"
#include "detect/xid_catalog.h"
#include "sink/metrics.h"

/* One row per event type vigil names, in the reference's name order. */
struct event_type_def {
        unsigned long long bit;
        const char *name; /* the reference's (Xid adds its code) */
        enum metrics_event_type counter;
};

static const struct event_type_def event_types[] = {
    {NVML_EVENT_PSTATE, "PState", METRICS_EV_PSTATE},
    {NVML_EVENT_XID_CRITICAL_ERROR, "Xid", METRICS_EV_XID},
    {NVML_EVENT_GPU_RECOVERY_ACTION, "GpuRecovery", METRICS_EV_GPU_RECOVERY_ACTION},
    {NVML_EVENT_GPU_UNAVAILABLE_ERROR, "GpuUnavailable", METRICS_EV_GPU_UNAVAILABLE},
    {NVML_EVENT_SINGLE_BIT_ECC, "SingleBitEcc", METRICS_EV_SINGLE_BIT_ECC},
    {NVML_EVENT_DOUBLE_BIT_ECC, "DoubleBitEcc", METRICS_EV_DOUBLE_BIT_ECC},
    {NVML_EVENT_CLOCK, "Clock", METRICS_EV_CLOCK},
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

static const char *recovery_name(unsigned long long action)
{
        static const char *const names[] = {"NONE", "GPU_RESET", "NODE_REBOOT", "DRAIN_P2P",
                                            "DRAIN_AND_RESET"};
        return action < sizeof(names) / sizeof(names[0]) ? names[action] : "UNKNOWN";
}

void gpu_event_line(struct strbuf *out, unsigned gpu, const struct nvml_event *e)
{
        sb_printf(out, "type=NVML_EVENT gpu=%u event=", gpu);
        gpu_event_names(out, e);
        sb_printf(out, " mask=0x%04llx data=%llu", e->type, e->data);
        if (e->type & NVML_EVENT_XID_CRITICAL_ERROR) {
                const struct xid_info *x =
                    e->data <= 0xffffffffULL ? xid_lookup((unsigned)e->data) : NULL;
                sb_printf(out, " xid=%llu", e->data);
                if (x)
                        sb_printf(out, " class=%s meaning=\"%s\" action=\"%s\"",
                                  xid_class_name(x->cls), x->meaning, x->action);
                else
                        sb_puts(out, " meaning=\"not in vigil's catalog\"");
        }
        if (e->type & NVML_EVENT_GPU_RECOVERY_ACTION)
                sb_printf(out, " recovery_action=%s", recovery_name(e->data));
}

unsigned gpu_event_counters(const struct nvml_event *e, unsigned out[])
{
        unsigned n = 0;
        for (size_t i = 0; i < NTYPES; i++)
                if (e->type & event_types[i].bit)
                        out[n++] = event_types[i].counter;
        return n;
}
