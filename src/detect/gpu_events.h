/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU event detector: drains the NVML event listener's queue (collect/nvml_events.h)
 * on the GPU clock, writes events.log lines and the event counters /metrics shows, and
 * takes the crash, fan-spike and requested snapshots (detect/gpu_snapshot.h).
 *
 * events.log lines it writes (after the timestamp):
 *   type=NVML_EVENT gpu=0 event=Xid xid=79 meaning="GPU has fallen off the bus" action="reboot ..."
 *     severity=critical nvidia_action=RESTART_BM
 *   type=NVML_EVENT gpu=0 event=GpuRecovery mask=0x8000 data=0 recovery_action=GPU_RESET
 *   type=NVML_EVENT gpu=0 event=ClockBurst count=10 window=1.0s
 *   type=CRASH_SNAPSHOT gpu=0 number=1 file=crashes/crash-20261202-120000.log reason="..."
 *   type=SNAPSHOT_SUPPRESSED gpu=0 kind=crash number=2 cooldown=60s
 *   type=SPIKE_SNAPSHOT gpu=0 number=1 file=spikes/spike-20261202-120000.log
 *   type=CRASH_FOLLOWUP gpu=0 delay=10s file=crashes/crash-20261202-120000-followup-10s.log
 *   type=EVENT_LISTENER state=failed error="event wait failed: Unknown Error; ..."
 *
 * The pure parts (burst summary, event names and lines) are exported for the tests. */
#ifndef VIGIL_DETECT_GPU_EVENTS_H
#define VIGIL_DETECT_GPU_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/nvml_events.h"
#include "core/vigil.h"
#include "util/strbuf.h"

#define CLOCK_BURST_EVENTS    10                     /* Clock events that make a burst ... */
#define CLOCK_BURST_WINDOW_NS (1000 * 1000 * 1000LL) /* ... within this window */

/* Clock-only events of one GPU, summarised as the reference logger does: a window opens
 * at the first event (and at the first one more than 1 s after the window opened); the
 * CLOCK_BURST_EVENTS-th event of a window is a burst, one per window. */
struct clock_burst {
        int64_t start_ns; /* the window's start (CLOCK_MONOTONIC) */
        unsigned count;   /* events in the window */
        bool open;
};

/* Count a Clock event at mono_ns; true when it completes a burst (write one line). */
bool clock_burst_add(struct clock_burst *b, int64_t mono_ns);

/* True for the types that take a crash snapshot: Xid, GPU recovery action, GPU
 * unavailable. */
bool gpu_event_is_critical(unsigned long long type);
/* True for an event that is only a Clock change (summarised as bursts). */
bool gpu_event_is_clock_only(unsigned long long type);

/* The reference's names of e's types, '|'-joined: "Xid(79)", "PState", "Clock",
 * "GpuRecovery", "GpuUnavailable", "SingleBitEcc", "DoubleBitEcc"; "0xNNNN" for a
 * type vigil does not name. */
void gpu_event_names(struct strbuf *out, const struct nvml_event *e);

/* The events.log text of e (one line, no timestamp) for GPU index gpu (not for a
 * Clock-only event: see clock_burst_add). Xid lines carry the catalog's meaning and
 * action. */
void gpu_event_line(struct strbuf *out, unsigned gpu, const struct nvml_event *e);

/* The name of a recovery action (field 230's value): NONE, GPU_RESET, NODE_REBOOT,
 * DRAIN_P2P, DRAIN_AND_RESET, RECOVER_IMEX_DOMAIN; "unknown(N)" for another value. */
void gpu_recovery_action_name(struct strbuf *out, unsigned long long action);
#define XID_RECOVERY_ACTION_CHANGED 154
/* The listener's predicate (nvml_action_wanted_fn): a recovery-action event, a
 * reset/reboot-class Xid, an NVLink-5 Xid (144-150), or Xid 154. */
bool gpu_event_wants_action(unsigned long long type, unsigned long long data);
/* " recovery_action=NAME" from the field the listener read; for a recovery event
 * without it, from eventData with " source=eventData"; nothing otherwise. */
void gpu_event_action(struct strbuf *out, const struct nvml_event *e);

/* The stderr (journal) text of e after "EVENT: <time> ": the reference's names, an
 * Xid's meaning and action, the recovery action:
 *   Xid(79) (Xid 79: GPU has fallen off the bus; action: reboot ...) recovery action NODE_REBOOT */
void gpu_event_story(struct strbuf *out, const struct nvml_event *e);

/* The counter index (enum gpu_event_type) of each type bit of e, into out (at
 * most GPU_EV_COUNT); returns how many. */
unsigned gpu_event_counters(const struct nvml_event *e, unsigned out[]);

extern const struct vigil_detector vigil_detector_gpu_events;

#endif
