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
#include <stdint.h>

#include "core/gpu_procs.h"

#define VAL_MISSING NAN
#define VAL_OK(x)   (!isnan(x))

#define VIGIL_MAX_CPUS    256
#define VIGIL_MAX_TEMPS   64
#define VIGIL_MAX_WATCHES 16
#define VIGIL_MAX_GPUS    16
#define VIGIL_MAX_FANS    8
#define VIGIL_NAME_LEN    48
#define VIGIL_V3D_QUEUES  8

/* One temperature sensor: a hwmon temp*_input or a thermal zone. */
struct host_temp {
        char chip[32];   /* hwmon chip `name` ("cpu_thermal", "coretemp") or zone type */
        char sensor[32]; /* "temp1" or the label ("Package id 0"); zone: "thermal_zone0" */
        double celsius;
};

struct host_frame {
        int64_t sampled_real_ns; /* wall time of the host sample */
        unsigned ncpu;           /* cores seen in /proc/stat (cpuN lines) */
        double cpu_total_pct;    /* 0..100 over the last interval */
        double cpu_pct[VIGIL_MAX_CPUS];
        double load1, load5, load15;
        double uptime_s;                                         /* system uptime */
        double mem_total_bytes, mem_avail_bytes, mem_used_bytes; /* used = total - available */
        double swap_total_bytes, swap_free_bytes;
        double shm_total_bytes, shm_used_bytes, shm_avail_bytes; /* statvfs(/dev/shm) */
        unsigned ntemps;
        struct host_temp temps[VIGIL_MAX_TEMPS];
        double temp_c;     /* the main CPU/SoC temperature, from temps[] */
        char governor[24]; /* cpu0 scaling_governor */
        unsigned nfreq;
        double cpu_freq_hz[VIGIL_MAX_CPUS]; /* scaling_cur_freq (the kernel's request) */
        double cpu_max_freq_hz;             /* cpu0 scaling_max_freq */
};

/* A process watch (--watch NAME=PATTERN): the processes whose cmdline contains PATTERN. */
struct watch_frame {
        char name[32];
        double count;           /* matching processes */
        double pss_bytes;       /* total PSS, from the slower PSS cadence */
        double cpu_pct;         /* sum over matches since the previous sample (100 = one core) */
        double threads;         /* total threads */
        double oldest_age_s;    /* age of the oldest match */
        double first_pss_bytes; /* PSS of the lowest-pid match (the reference's "player") */
};

/* Raspberry Pi firmware values and where each came from: the firmware's text commands
 * through the mailbox (gencmd, what vcgencmd sends), property tags (mailbox), sysfs, or
 * a spawned vcgencmd. */
enum rpi_origin { RPI_SRC_NONE, RPI_SRC_MAILBOX, RPI_SRC_SYSFS, RPI_SRC_VCGENCMD, RPI_SRC_GENCMD };

struct rpi_frame {
        bool present; /* this is a Raspberry Pi and the source runs */
        double temp_c;
        double volt_core_v;
        double arm_hz, core_hz, v3d_hz, h264_hz, pixel_hz; /* measured clocks */
        double arm_max_hz;                                 /* configured ARM maximum (firmware) */
        uint64_t throttled;     /* the get_throttled word (32 bits), when throttled_valid */
        bool throttled_valid;   /* a whole word was read (an integer, never a double) */
        double undervolt_alarm; /* rpi_volt in0_lcrit_alarm (0/1), NAN if missing */
        enum rpi_origin temp_src, volt_src, clock_src, throttle_src;
        enum rpi_origin arm_max_src; /* property tag or cpufreq's cpuinfo_max_freq */
        unsigned nv3d;               /* V3D gpu_stats queues (Pi 5) */
        struct {
                char queue[16];
                double busy_ratio; /* share of the last interval the queue ran */
                double jobs;
        } v3d[VIGIL_V3D_QUEUES];
        char model[64]; /* /proc/device-tree/model */
};

/* A file system vigil watches (collect/storage.c): the root's, the log directory's. */
struct fs_frame {
        char mount[64];     /* its mount point in the mounts table; "" unknown */
        char fstype[16];    /* "ext4", "f2fs" */
        char device[64];    /* "/dev/mmcblk0p2" */
        double size_bytes;  /* statvfs f_blocks x f_frsize */
        double avail_bytes; /* f_bavail x f_frsize: what a non-root writer may still use */
        double readonly;    /* 1 mounted read-only, 0 read-write */
        double full_in_s;   /* time to full at the last hour's rate; NAN when not filling */
};

enum { FS_ROOT, FS_LOG, FS_COUNT };
#define STORAGE_KINDS 4 /* enum storage_err (collect/storage_parse.h) */

/* Storage health: file systems and the kernel log's storage error lines. */
struct storage_frame {
        struct fs_frame fs[FS_COUNT];
        double errors[STORAGE_KINDS]; /* lines seen since boot (as far as the ring held) */
        double errors_new;            /* of which in this sample (0 in the first) */
        char last_error[160];         /* the newest such line's text */
};

/* One GPU, as NVML reports it: its members, their comments and what "missing" is for
 * each are in core/gpu_fields.def (the table gpu_frame_clear walks). */
struct gpu_frame {
#define GPU_FIELD(type, member, dims, kind)    type member dims;
#define GPU_FIELD_V(type, member, dims, valid) type member dims;
#include "core/gpu_fields.def"
#undef GPU_FIELD
#undef GPU_FIELD_V
};

/* Anomaly kinds counted per GPU (detect/gpu_rules.c; names in gpu_anomaly_names[]). */
enum gpu_anomaly {
        GPU_ANOM_TDP_CHANGE,
        GPU_ANOM_FAN_SPIKE,
        GPU_ANOM_FAN_INVERSION,
        GPU_ANOM_SPURIOUS_THROTTLE,
        GPU_ANOM_POWER_BREACH, /* every sample over the limit, flagged PWR+ or not */
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
        double peak_temp_c, peak_power_w;           /* NAN before the first reading */
        double throttle_seconds[GPU_THROTTLE_BITS]; /* time each reason bit was set */
};

/* vigil's own health, for /metrics and status. Owned by the main loop. */
struct self_frame {
        uint64_t samples[4];      /* per clock: enum vigil_clock */
        double sample_seconds[4]; /* duration of the last sample per clock */
        uint64_t missed_deadlines;
        uint64_t write_errors;
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
        unsigned ngpus;
        struct gpu_frame gpus[VIGIL_MAX_GPUS];
        struct gpu_stats gpu_stats[VIGIL_MAX_GPUS]; /* slot i: gpus[i] */
        /* slot i: gpus[i]'s last process list (core/gpu_procs.h) */
        struct gpu_proc_list gpu_procs[VIGIL_MAX_GPUS];
        struct self_frame self;
};

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

#endif
