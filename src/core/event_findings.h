/* SPDX-License-Identifier: Apache-2.0 */
/* The finding handlers the rows of core/event_kinds.c name, one per kind of
 * events.log line (defined in core/findings_events.c, the signage player's in
 * core/findings_signage.c). Each is an event_finding_fn:
 * what a line of its kind adds to the findings f, from the line l, its source src
 * ("gpu0", or "host") and its time t (Unix seconds). Internal to core/event_kinds.c
 * and core/findings_events.c. */
#ifndef VIGIL_CORE_EVENT_FINDINGS_H
#define VIGIL_CORE_EVENT_FINDINGS_H

#include "core/event_kinds.h"

#define EVENT_FINDING(name_)                                                                       \
        void name_(struct findings *f, const struct event_line *l, const char *src, double t)

EVENT_FINDING(event_finding_none); /* the sentinel of a kind that makes no finding */
EVENT_FINDING(evf_nvml_event);
EVENT_FINDING(evf_nvml_failed);
EVENT_FINDING(evf_gpu_recovered);
EVENT_FINDING(evf_temp_over_max);
EVENT_FINDING(evf_gpu_memory);
EVENT_FINDING(evf_pcie_link);
EVENT_FINDING(evf_nvlink);
EVENT_FINDING(evf_fabric);
EVENT_FINDING(evf_crash_snapshot);
EVENT_FINDING(evf_spike_snapshot);
EVENT_FINDING(evf_snapshot);
EVENT_FINDING(evf_anomaly);
EVENT_FINDING(evf_tdp_change);
EVENT_FINDING(evf_enforced_limit_change);
EVENT_FINDING(evf_rpi_throttle);
EVENT_FINDING(evf_rpi_throttle_history);
EVENT_FINDING(evf_rpi_temp);
EVENT_FINDING(evf_incident);
EVENT_FINDING(evf_trend);
EVENT_FINDING(evf_shm);
EVENT_FINDING(evf_disk_low);
EVENT_FINDING(evf_disk_resumed);
EVENT_FINDING(evf_write_resumed);
EVENT_FINDING(evf_storage);
EVENT_FINDING(evf_storage_errors);
EVENT_FINDING(evf_storage_fill);
EVENT_FINDING(evf_gpu_count);
EVENT_FINDING(evf_kernel_gpu);
EVENT_FINDING(evf_postmortem);
EVENT_FINDING(evf_event_listener);
EVENT_FINDING(evf_oom_kill);
EVENT_FINDING(evf_process_fault);
EVENT_FINDING(evf_watch);
EVENT_FINDING(evf_display);
EVENT_FINDING(evf_display_dpms);
EVENT_FINDING(evf_display_monitor);
EVENT_FINDING(evf_display_cec);
EVENT_FINDING(evf_network);
EVENT_FINDING(evf_sd_wear);

#endif
