/* SPDX-License-Identifier: Apache-2.0 */
/* Counters that outlive a sample and are not part of the GPU rules' statistics (struct
 * gpu_stats in core/frame.h): Xids and NVML events by type, host rules, snapshots held
 * back, how earlier runs ended, the remote-write push. Owned by the main loop like the
 * frame and published with it; /metrics (metrics/metrics.c) renders them, the exit summary
 * and `vigil status` (core/run_findings.c) read them. Each count is kept here or in
 * struct gpu_stats, never in both. */
#ifndef VIGIL_CORE_COUNTERS_H
#define VIGIL_CORE_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/frame.h"

#define COUNTERS_MAX_XIDS  64 /* distinct Xid codes counted per GPU */
#define COUNTERS_MAX_RULES 16 /* host rules reported */
#define COUNTERS_NAME_LEN  32 /* rule names, NUL included */

/* The NVML event types vigil listens for, as counted in gpu_counters.events[]. */
enum gpu_event_type {
        GPU_EV_SINGLE_BIT_ECC,
        GPU_EV_DOUBLE_BIT_ECC,
        GPU_EV_PSTATE,
        GPU_EV_XID,
        GPU_EV_CLOCK,
        GPU_EV_GPU_UNAVAILABLE,
        GPU_EV_GPU_RECOVERY_ACTION,
        GPU_EV_COUNT
};

/* Counters of one GPU (same slot as frame->gpus[]). Filled by the main loop. */
struct gpu_counters {
        unsigned nxids; /* used entries of xids[] */
        struct {
                uint32_t xid;
                uint64_t count;
        } xids[COUNTERS_MAX_XIDS];
        uint64_t xids_other;           /* Xids whose code found no free entry */
        uint64_t events[GPU_EV_COUNT]; /* NVML events received, by enum gpu_event_type */
};

/* One host rule (the Raspberry Pi monitor's temperature warning, throttling, /dev/shm
 * full, ...): vigil_rule_active{rule} and vigil_rule_fired_total{rule}. */
struct counter_rule {
        char name[COUNTERS_NAME_LEN]; /* snake_case: "temp_warn", "shm_full" */
        bool active;                  /* the condition holds now */
        uint64_t fired;               /* times it became active */
};

/* The remote-write push (push/remote_write.c), copied in by the main loop each tick. */
struct push_counters {
        bool on;                 /* --remote-write given: the families below are shown */
        uint64_t queue_bytes;    /* the on-disk queue */
        uint64_t queue_samples;  /* samples waiting in it */
        double oldest_age_s;     /* age of the oldest waiting sample; NAN when none */
        uint64_t sent;           /* samples the receiver accepted */
        uint64_t retried;        /* samples of batches sent again after a failure */
        uint64_t dropped_full;   /* samples dropped oldest first past the queue bound */
        uint64_t dropped_write;  /* samples not queued: the queue could not be written */
        uint64_t dropped_reject; /* samples the receiver refused for good (4xx) */
        uint64_t dropped_damage; /* samples lost to damage of the queue on disk */
        uint64_t queue_repairs;  /* damage of the queue on disk skipped, cut or set aside */
        uint64_t failed;         /* requests that failed (network, 5xx, 429, 4xx) */
        double last_success_s;   /* seconds since the epoch of the last accepted push; NAN */
};

/* The alerts pushed to an Alertmanager (push/alertmanager.c), copied in by the main
 * loop each tick. */
struct alert_counters {
        bool on;          /* --alertmanager given: the families below are shown */
        uint64_t sent;    /* alerts in requests the Alertmanager accepted */
        uint64_t errors;  /* requests that failed (network, HTTP 4xx and 5xx) */
        uint64_t pending; /* alerts whose last state is not yet delivered */
};

/* GPU errors read from the kernel log (detect/kernel_gpu.c), per PCI device the lines
 * name: vigil_gpu_kernel_errors_total{kind}. The kinds are collect/gpu_klog.h's
 * enum klog_kind, in its order. */
#define COUNTERS_KLOG_KINDS   9
#define COUNTERS_MAX_KLOG_DEV 32
struct klog_dev_counters {
        char pci[16]; /* "0000:01:00.0"; "" for lines that name no address */
        int slot;     /* the GPU slot whose device (or link) it is; -1: no GPU's */
        uint64_t count[COUNTERS_KLOG_KINDS];
};

/* Kernel-log records skipped: vigil_kernel_log_records_skipped_total{reason}. */
enum klog_skip { KLOG_SKIP_MALFORMED, KLOG_SKIP_OVERWRITTEN, KLOG_SKIP_OVERSIZE, KLOG_SKIP_COUNT };

/* Which machine this is, read once at start by the daemon: vigil_machine_info. "" for
 * what is unknown; the family is left out when both ids are. */
struct machine_ident {
        char machine_id[33];   /* /etc/machine-id (push/rw_identity.h) */
        char hardware_id[64];  /* the hardware's own (collect/hw_identity.h) */
        char hardware_src[24]; /* where it came from: "rpi_serial", "dmi_product_uuid", ... */
};

/* The health verdict per component (core/health.h), copied in by the health detector
 * (detect/health_watch.c) at each change: vigil_health_state{component}. */
#define COUNTERS_MAX_HEALTH (VIGIL_MAX_GPUS * 8 + 32) /* each GPU and its 7 parts, the rest */
struct health_series {
        char component[24]; /* "gpu3", "gpu3.memory", "host.storage" */
        uint8_t state;      /* enum health_state: 0 healthy, 1 degraded, 2 unhealthy */
};

/* Everything counted that the frame does not hold. Plain arrays with bounds, so the
 * main loop can update it in place and the HTTP thread copy it under one lock. */
struct counters {
        struct gpu_counters gpus[VIGIL_MAX_GPUS];
        unsigned nrules;
        struct counter_rule rules[COUNTERS_MAX_RULES];
        uint64_t snapshots_suppressed;    /* snapshots the cooldowns held back */
        uint64_t event_listener_restarts; /* NVML event set rebuilt after a failure */
        /* How earlier runs on this log directory ended (core/runstate.h), set at start;
         * no sample unless runs_known. previous_end: enum runstate_end. */
        bool runs_known;
        int previous_end;
        uint64_t unclean_ends[3]; /* killed, reboot, unknown */
        /* The GPU count check (core/gpu_count.h), set by detect/gpu_missing.c; no
         * sample unless gpus_known (an expectation: a machine that has had GPUs). */
        bool gpus_known;
        unsigned gpus_expected;  /* GPUs the machine should have */
        unsigned gpus_answering; /* GPUs answering now */
        struct push_counters push;
        struct alert_counters alerts;
        unsigned nklog; /* used entries of klog[] */
        struct klog_dev_counters klog[COUNTERS_MAX_KLOG_DEV];
        uint64_t klog_other[COUNTERS_KLOG_KINDS]; /* devices that found no free entry */
        bool klog_on;                             /* the kernel log is scanned */
        uint64_t klog_skipped[KLOG_SKIP_COUNT];
        struct machine_ident ident;
        unsigned nhealth; /* used entries of health[]; 0: no verdict kept */
        struct health_series health[COUNTERS_MAX_HEALTH];
        /* Processes the OOM killer ended, from the kernel-log scan (detect/kernel_host.c),
         * by victim: the watch's slot, or VIGIL_MAX_WATCHES for any other process;
         * vigil_oom_kills_total{victim}, shown while oom_on. oom_kernel: /proc/vmstat's
         * oom_kill, the kernel's own count since boot (when oom_kernel_known). */
        bool oom_on;
        uint64_t oom_kills[VIGIL_MAX_WATCHES + 1];
        bool oom_kernel_known;
        uint64_t oom_kernel;
        /* Restarts of each watch's program (detect/watch_live.c): a new oldest pid, or
         * back after none ran; vigil_watch_restarts_total{watch}. */
        uint64_t watch_restarts[VIGIL_MAX_WATCHES];
        /* Why the previous run ended, as this start's post-mortem decided it: enum
         * pm_cause (report/pm_cause.h) + 1; 0 when no post-mortem was written (a clean
         * or first start): vigil_last_end{cause}. */
        int last_end_cause;
        /* The systemd unit of each watch that names one (--watch NAME=unit:UNIT), as
         * detect/watch_live.c last read it: vigil_unit_restarts_total{watch,unit} and
         * vigil_unit_failed{watch,unit}, shown once known. */
        struct unit_counters {
                bool known;
                char unit[64];
                int64_t nrestarts; /* NRestarts; -1 when systemd does not count them */
                bool failed;       /* ActiveState=failed */
        } units[VIGIL_MAX_WATCHES];
};

/* The label values of enum klog_skip: "malformed", "overwritten", "oversize". */
extern const char *const klog_skip_names[KLOG_SKIP_COUNT];

/* The names of the event types, as label values ("single_bit_ecc", "double_bit_ecc",
 * "pstate", "xid", "clock", "gpu_unavailable", "gpu_recovery_action"). */
extern const char *const gpu_event_type_names[GPU_EV_COUNT];

/* The names of the anomaly kinds counted in gpu_stats.anomalies[] (enum gpu_anomaly),
 * for logs and /metrics labels: "tdp_change", "fan_spike", "fan_inversion",
 * "spurious_throttle", "power_breach". */
extern const char *const gpu_anomaly_names[GPU_ANOM_COUNT];

/* Clear all counters and rules. */
void counters_clear(struct counters *x);

/* Copy src to dst but for the per-GPU counters of slots from ngpus on and the health
 * entries from src->nhealth on, left as they are in dst (no slot past the GPU count is
 * ever counted: counters_add_xid and counters_add_event are called for the slots of
 * present GPUs only; no reader looks past nhealth). The pages of what is not copied
 * stay untouched in a calloc'd dst. */
void counters_copy(struct counters *dst, const struct counters *src, unsigned ngpus);

/* Count one Xid on GPU slot gpu. Codes past COUNTERS_MAX_XIDS distinct ones go to
 * xids_other. 0, or -EINVAL for a bad slot. */
int counters_add_xid(struct counters *x, unsigned gpu, uint32_t xid);

/* Count one NVML event of type on GPU slot gpu. -EINVAL for a bad slot or type. */
int counters_add_event(struct counters *x, unsigned gpu, enum gpu_event_type type);

/* Count one kernel-log error of kind (< COUNTERS_KLOG_KINDS) on the device pci ("" for
 * none) of GPU slot (-1: no GPU's); kind COUNTERS_KLOG_KINDS adds the device's entry
 * (its kinds shown as 0) and counts nothing. Devices past COUNTERS_MAX_KLOG_DEV go to
 * klog_other. 0, or -EINVAL for a bad kind. */
int counters_add_klog(struct counters *x, const char *pci, int slot, unsigned kind);

/* Set the state of a host rule, adding it on first use; a transition to active
 * counts as fired. -ENOSPC when the table is full, -EINVAL for a bad name. */
int counters_set_rule(struct counters *x, const char *name, bool active);

#endif
