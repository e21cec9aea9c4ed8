/* SPDX-License-Identifier: Apache-2.0 */
/* The sample frame: the latest value of everything vigil measures, one struct owned
 * by the main loop. Sources fill their part; detectors and sinks read it.
 *
 * Validity travels with every value: a numeric field holds NAN when it is missing
 * (not supported, unreadable, not sampled yet). Never write 0 for "unknown".
 * Strings are empty when missing. Use VAL_OK()/VAL_MISSING. */
#ifndef VIGIL_CORE_FRAME_H
#define VIGIL_CORE_FRAME_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gpu_procs.h"

#define VAL_MISSING NAN
#define VAL_OK(x)   (!isnan(x))

#define VIGIL_MAX_CPUS    256
#define VIGIL_MAX_TEMPS   64
#define VIGIL_MAX_WATCHES 16
#define VIGIL_MAX_GPUS    256
#define VIGIL_MAX_FANS    8
/* NVLink links read per GPU: NVML_NVLINK_MAX_LINKS of nvml.h 12.x (18, the most a GPU has
 * through Blackwell; 13.x raises the bound to 36: collect/nvml_api.h). */
#define VIGIL_MAX_NVLINKS 18
#define VIGIL_NAME_LEN    48
#define VIGIL_V3D_QUEUES  8

/* The NVLink error counters of a link (core/nvlink.c names them; collect/nvml_read.c
 * cites each one's field id): the data-link ones of NVLink 1-4 (Pascal to Hopper),
 * then NVLink5's (Blackwell). A GPU answers for one set or the other. */
enum nvlink_counter {
        NVL_CRC_FLIT,
        NVL_CRC_DATA,
        NVL_REPLAY,
        NVL_RECOVERY,
        NVL_RECOVERY_EVENTS,
        NVL_RECOVERY_SUCCESSFUL,
        NVL_RECOVERY_FAILED,
        NVL_SYMBOL,
        NVL_EFFECTIVE,
        NVLINK_COUNTERS
};

/* One temperature sensor: a hwmon temp*_input or a thermal zone. */
struct host_temp {
        char chip[32];   /* hwmon chip `name` ("cpu_thermal", "coretemp") or zone type */
        char sensor[32]; /* "temp1" or the label ("Package id 0"); zone: "thermal_zone0" */
        double celsius;
};

/* The area structs below: each member is one row of its area's table
 * (core/host_values.c, watch_values.c, rpi_values.c, storage_values.c,
 * display_values.c, net_values.c, and
 * core/gpu_values.c for struct gpu_frame), which says what "missing" is for it (frame
 * clearing walks it, core/frame_fields.h) and carries its outputs: host-log columns,
 * /metrics series, history. The members' comments are in the tables. */

/* The host's values: core/host_values.c. */
struct host_frame {
        int64_t sampled_real_ns;
        unsigned ncpu;
        double cpu_total_pct;
        double cpu_pct[VIGIL_MAX_CPUS];
        double load1;
        double load5;
        double load15;
        double mem_total_bytes;
        double mem_avail_bytes;
        double mem_used_bytes;
        double swap_total_bytes;
        double swap_free_bytes;
        double unwritten_bytes;
        double shm_total_bytes;
        double shm_used_bytes;
        double shm_avail_bytes;
        double cpu_max_freq_hz;
        double uptime_s;
        unsigned nfreq;
        double cpu_freq_hz[VIGIL_MAX_CPUS];
        unsigned ntemps;
        struct host_temp temps[VIGIL_MAX_TEMPS];
        double temp_c;
        char governor[24];
};

/* A process watch (--watch NAME=PATTERN): the processes whose cmdline contains PATTERN;
 * core/watch_values.c. */
struct watch_frame {
        char name[32];
        double count;
        double pss_bytes;
        double first_pss_bytes;
        double cpu_pct;
        double threads;
        double oldest_age_s;
};

/* Raspberry Pi firmware values and where each came from: the firmware's text commands
 * through the mailbox (gencmd, what vcgencmd sends), property tags (mailbox), sysfs, or
 * a spawned vcgencmd. */
enum rpi_origin { RPI_SRC_NONE, RPI_SRC_MAILBOX, RPI_SRC_SYSFS, RPI_SRC_VCGENCMD, RPI_SRC_GENCMD };

/* One V3D queue (Pi 5): rpi_v3d_fields[], core/rpi_values.c. */
struct rpi_v3d_queue {
        char queue[16];
        double busy_ratio;
        double jobs;
};

/* The Pi's values: core/rpi_values.c. */
struct rpi_frame {
        bool present;
        double temp_c;
        double volt_core_v;
        double arm_hz;
        double core_hz;
        double v3d_hz;
        double h264_hz;
        double pixel_hz;
        double arm_max_hz;
        uint64_t throttled;
        bool throttled_valid;
        double undervolt_alarm;
        enum rpi_origin temp_src;
        enum rpi_origin volt_src;
        enum rpi_origin clock_src;
        enum rpi_origin throttle_src;
        enum rpi_origin arm_max_src;
        unsigned nv3d;
        struct rpi_v3d_queue v3d[VIGIL_V3D_QUEUES];
        char model[64];
};

/* A file system vigil watches (collect/storage.c), the root's, the log directory's:
 * fs_fields[], core/storage_values.c. */
struct fs_frame {
        char mount[64];
        char fstype[16];
        char device[64];
        double size_bytes;
        double avail_bytes;
        double readonly;
        double full_in_s;
};

enum { FS_ROOT, FS_LOG, FS_COUNT };
#define STORAGE_KINDS 4 /* enum storage_err (collect/storage_parse.h) */

/* The SD card or eMMC holding the root file system (collect/sdcard.c): sd_fields[],
 * core/storage_values.c. */
struct sd_frame {
        char device[16]; /* "mmcblk0"; "" when no MMC block device */
        char name[16];
        char manfid[12];
        char oemid[12];
        char date[12];
        char serial[16];
        char type[8];
        double life_time_a;
        double life_time_b;
        double pre_eol;
        double written_bytes;
        double write_bytes_per_day;
        double self_written_bytes;
        double self_write_ratio;
        double endurance_s;
};

/* Storage health: file systems, the kernel log's storage error lines and the card;
 * storage_fields[], core/storage_values.c. */
struct storage_frame {
        struct fs_frame fs[FS_COUNT];
        double errors[STORAGE_KINDS];
        double errors_new;
        char last_error[160];
        struct sd_frame sd;
};

#define VIGIL_MAX_CONNECTORS 8
#define VIGIL_MAX_NETIFS     8

/* One DRM connector, /sys/class/drm/cardN-NAME (collect/display.c):
 * display_conn_fields[], core/display_values.c. */
struct display_conn {
        char card[8];
        char name[32];
        double connected;
        double enabled;
        double dpms;
        char monitor[16];
        char serial[16];
        char edid_id[16];
};

/* The screens: display_fields[], core/display_values.c. */
struct display_frame {
        unsigned nconn;
        struct display_conn conn[VIGIL_MAX_CONNECTORS];
        double cec_power;
};

/* One network interface, /sys/class/net/NAME (collect/net.c): net_if_fields[],
 * core/net_values.c. */
struct net_iface {
        char name[16];
        double up;
        double carrier;
        double carrier_changes;
        double wifi_signal_dbm;
        double wifi_quality;
};

/* The network: net_fields[], core/net_values.c. */
struct net_frame {
        unsigned nif;
        struct net_iface ifs[VIGIL_MAX_NETIFS];
        double default_route;
        double push_reachable;
};

/* One GPU, as NVML reports it. Every member is one row of gpu_fields[]
 * (core/gpu_values.c), which says what "missing" is for it (gpu_frame_clear walks it)
 * and carries its outputs: CSV columns, /metrics series, history, report. */
struct gpu_frame {
        /* Bookkeeping and identity. */
        bool present;                  /* the slot is in use */
        bool ok;                       /* the last sample succeeded (false: every call failed) */
        char error[96];                /* why the last sample failed */
        bool sampled;                  /* sampled on this GPU tick (false while a failing GPU is
                                        * backed off); meaningful on ticks where VCLOCK_GPU is due */
        unsigned consecutive_failures; /* failed samples in a row, the last one included */
        uint64_t crash_seq;            /* +1 at the first failed sample of each streak */
        unsigned index;                /* NVML index */
        char name[96];
        char uuid[96];
        char pci_bus_id[32];
        int64_t sampled_real_ns;
        /* The sample. */
        double pstate; /* 0..15 */
        double temp_c;
        double temp_max_c;      /* GPU_MAX threshold */
        double shutdown_temp_c; /* static thresholds, read at (re)init */
        double slowdown_temp_c;
        double power_w;
        double power_limit_w; /* management limit */
        double enforced_limit_w;
        double energy_j; /* total since driver load */
        double gpu_clock_mhz;
        double mem_clock_mhz;
        double sm_clock_mhz;
        double video_clock_mhz;
        double util_gpu_pct;
        double util_mem_pct;
        double vram_used_bytes;     /* NVML v1 `used`: reserved memory included (the reference) */
        double vram_reserved_bytes; /* reserved by the driver (v2 only; missing with v1) */
        double vram_total_bytes;
        double pcie_gen;
        double pcie_width;
        double pcie_max_gen; /* the most the device and its slot allow (read at start) */
        double pcie_max_width;
        double pcie_replay;
        double ecc_corrected; /* volatile totals */
        double ecc_uncorrected;
        double remapped_correctable;
        double remapped_uncorrectable;
        double remap_pending;
        double remap_failure;
        double ecc_corrected_agg; /* aggregate (lifetime of the device) totals */
        double ecc_uncorrected_agg;
        double ecc_mode;         /* 1 enabled, 0 disabled */
        double ecc_mode_pending; /* the mode after the next reset */
        double retired_sbe;      /* pages retired: multiple single-bit errors */
        double retired_dbe;      /* pages retired: a double-bit error */
        double retired_pending;  /* 1: a page waits for a reset to be retired */
        double persistence_mode; /* 1 enabled */
        uint64_t throttle_mask;  /* clock-event reasons bitmask; a 64-bit mask never travels in
                                 * a double */
        bool throttle_valid;
        bool recovery_valid;      /* recovery_action read (at start, then every 60 s) */
        unsigned recovery_action; /* NVML_GPU_RECOVERY_ACTION_*: 0 none, 1 reset, ... */
        unsigned nfans;
        double fan_speed_pct[VIGIL_MAX_FANS]; /* fan columns: fanK_speed_pct, fanK_target_pct,
                                               * interleaved per fan */
        double fan_target_pct[VIGIL_MAX_FANS];
        double s0_temp; /* thermal sensor 0 */
        double s0_target;
        double s0_controller;
        char flags[256]; /* anomaly flags of this sample, '|'-joined */
        /* NVLink and the fabric, on the slow cadence (collect/nvml_read.c). A GPU without
         * NVLink has nvlinks 0 and every value missing. */
        unsigned nvlinks;                    /* links 0..nvlinks-1 may exist (identity) */
        double nvlink_up[VIGIL_MAX_NVLINKS]; /* 1 active, 0 inactive, missing: no link */
        double nvlink_errors[VIGIL_MAX_NVLINKS][NVLINK_COUNTERS]; /* enum nvlink_counter */
        double nvlink_links_up;    /* links active, of those that answered */
        double nvlink_error_sum;   /* every counter of every link, summed */
        double fabric_state;       /* NVML_GPU_FABRIC_STATE_*: 1 not started,
                                                * 2 in progress, 3 completed */
        double fabric_status;      /* the probe's nvmlReturn_t once completed */
        double fabric_clique;      /* cliqueId */
        double fabric_health_mask; /* healthMask (v3 only) */
};

/* Anomaly kinds counted per GPU (by detect/gpu_rules.c; names in gpu_anomaly_names[],
 * core/counters.c). */
enum gpu_anomaly {
        GPU_ANOM_TDP_CHANGE,
        GPU_ANOM_FAN_SPIKE,
        GPU_ANOM_FAN_INVERSION,
        GPU_ANOM_SPURIOUS_THROTTLE,
        GPU_ANOM_POWER_BREACH,  /* every sample over the limit, flagged PWR+ or not */
        GPU_ANOM_OVER_MAX_TEMP, /* every sample above the GPU's own GPU_MAX threshold */
        GPU_ANOM_COUNT
};
#define GPU_THROTTLE_BITS 10 /* clock-event reason bits 0x1 .. 0x200 */

/* Per-GPU counters since start, kept by the GPU rules (the main loop's thread). The
 * period_* fields count since the last summary.log line, which resets them. */
struct gpu_stats {
        uint64_t samples;        /* answered samples */
        uint64_t failed_samples; /* samples the GPU did not answer (NVML failures) */
        uint64_t crashes;        /* failure streaks started, plus critical events */
        uint64_t anomalies[GPU_ANOM_COUNT];
        uint64_t period_samples, period_failed_samples, period_crashes;
        uint64_t period_anomalies[GPU_ANOM_COUNT];
        double peak_temp_c, peak_power_w; /* NAN before the first reading */
        double enforced_limit_w; /* the last enforced power limit read (mid cadence); NAN: none */
        double throttle_seconds[GPU_THROTTLE_BITS]; /* time each reason bit was set */
};

/* vigil's own health, for /metrics and status. Owned by the main loop. */
struct self_frame {
        uint64_t samples[4];      /* per clock: enum vigil_clock */
        double sample_seconds[4]; /* duration of the last sample per clock */
        uint64_t missed_deadlines;
        uint64_t write_errors;
        uint64_t sync_errors; /* failed syncs and write-backs of the logs (util/fssync.h) */
        uint64_t events_dropped;
        uint64_t snapshots;
        int64_t started_real_ns;
        int64_t started_mono_ns;
};

struct frame {
        struct host_frame host;
        unsigned nwatches;
        struct watch_frame watches[VIGIL_MAX_WATCHES];
        struct rpi_frame rpi;
        struct storage_frame storage;
        struct display_frame display;
        struct net_frame net;
        unsigned ngpus;
        struct gpu_frame gpus[VIGIL_MAX_GPUS];
        struct gpu_stats gpu_stats[VIGIL_MAX_GPUS]; /* slot i: gpus[i] */
        struct self_frame self;
        /* Bumped at every change of gpu_procs[]: the lists (half the frame) are copied to
         * the published frame only when it moved, not at every tick. */
        uint64_t gpu_procs_gen;
        /* slot i: gpus[i]'s last process list (core/gpu_procs.h). Kept last: see
         * FRAME_PUBLISH_BYTES. */
        struct gpu_proc_list gpu_procs[VIGIL_MAX_GPUS];
};

/* The part of a frame copied at every publish: all but the process lists, which go
 * only when gpu_procs_gen changed. */
#define FRAME_PUBLISH_BYTES offsetof(struct frame, gpu_procs)

/* Copy src to dst: every byte but the three per-GPU arrays (gpus, gpu_stats and, with
 * procs, gpu_procs), and of those the slots of src's GPUs (below src->ngpus); dst's
 * slots from src->ngpus to dst->ngpus (the GPUs it had) are zeroed. Slots no GPU uses
 * are never touched, so with VIGIL_MAX_GPUS slots a copy costs what the GPUs present
 * need; two frames whose unused slots are zero (frame_init) stay equal. Without procs,
 * dst's process lists are left as they are. */
void frame_copy_live(struct frame *dst, const struct frame *src, bool procs);

/* Set every value of a frame in zero-filled memory (calloc) to missing but its GPU
 * slots, which stay zero (present false) until the source that finds a GPU clears its
 * slot (gpu_frame_clear): the pages of the slots no GPU uses are never touched. */
void frame_init(struct frame *f);

/* Make f a frame of no GPUs with every value missing (frame_init's), zeroing only the
 * slots of the GPUs it had (below f->ngpus): what a reader holds before anything was
 * published, without touching the pages of the unused slots (frame_clear would fault
 * in all of a frame's 1.9 MB). */
void frame_empty(struct frame *f);

/* Set every value of the frame to missing. */
void frame_clear(struct frame *f);
void host_frame_clear(struct host_frame *h);
void gpu_frame_clear(struct gpu_frame *g);
/* Copy the GPU's identity (present, index, name, uuid, bus id, fan count): what
 * gpu_frame_clear keeps. */
void gpu_frame_copy_identity(struct gpu_frame *dst, const struct gpu_frame *src);
void rpi_frame_clear(struct rpi_frame *r);
void watch_frame_clear(struct watch_frame *w);
void storage_frame_clear(struct storage_frame *s);
void display_frame_clear(struct display_frame *d);
void net_frame_clear(struct net_frame *n);

#endif
