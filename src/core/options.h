/* SPDX-License-Identifier: Apache-2.0 */
/* Options: the command line and the INI config file share one table, so every option
 * has a config key of the same name. The command line wins over the file. */
#ifndef VIGIL_CORE_OPTIONS_H
#define VIGIL_CORE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/frame.h"

struct watch_spec {
        char name[32];     /* [A-Za-z0-9_-]+ */
        char pattern[128]; /* substring of /proc/PID/cmdline (NULs read as spaces), or
                            * "unit:UNIT": the processes of that systemd unit */
};

/* The systemd unit a watch names ("unit:player.service" gives "player.service"), or
 * NULL for a command-line pattern. */
const char *watch_spec_unit(const struct watch_spec *w);

struct vigil_options {
        int64_t interval_ns;      /* host cadence (default 1 s) */
        int64_t gpu_interval_ns;  /* GPU cadence (default 100 ms) */
        int64_t pss_interval_ns;  /* process PSS cadence (default 10 s) */
        int64_t sync_interval_ns; /* logs fdatasync'ed this often: the power-loss bound (1 s) */
        uint64_t count;           /* stop after this many host samples; 0 = no limit */
        int64_t duration_ns;      /* stop after this long; 0 = no limit */
        char log_dir[1024];       /* "" until resolved */
        char csv_path[1024];      /* --csv: the host CSV in this one file; "" = daily files */
        bool sync_whole_fs; /* --sync-whole-fs: one syncfs(2) a round even on a busy machine */
        bool sync_per_file; /* --sync-per-file: never a syncfs(2), a fdatasync a file */
        bool no_log;
        bool quiet;
        bool no_gpu_clock_events; /* --no-gpu-clock-events: listen without nvmlEventTypeClock */
        int live;                 /* -1 auto (stdout is a terminal), 0 off, 1 on */
        char listen[128];         /* "" = no HTTP; "ADDR:PORT" or ":PORT" (loopback) */
        char web_config[1024];    /* TLS / basic-auth file, Prometheus exporter style */
        char remote_write[1024];  /* "" = no push; the receiver's URL */
        char remote_write_config[1024]; /* auth, TLS, labels, cadence (push/rw_config.h) */
        char alertmanager[1024];        /* "" = no alerts pushed; the Alertmanager's URL */
        char alertmanager_config[1024]; /* auth, TLS, resend (push/rw_config.h) */
        char root[1024];                /* prefix for every /proc, /sys and /dev path; "" = / */
        unsigned nwatches;
        struct watch_spec watches[VIGIL_MAX_WATCHES];
        char gpu_list[1024];  /* "all", "none" or "0,2" (every index of VIGIL_MAX_GPUS fits) */
        char nvml_path[1024]; /* "" = libnvidia-ml.so.1 then libnvidia-ml.so */
        char profile[32];     /* "" or "signage" */
        char config_path[1024];
        unsigned retention_days; /* daily files kept (default 14) */
        uint64_t min_disk_mb;    /* pause writing under this much free space (default 500) */
        /* GPU anomaly thresholds (the reference logger's defaults). */
        double spike_threshold_pct;  /* fan %/sample change (15) */
        double inversion_temp_c;     /* TEMP_FAN_INV temperature (85) */
        double inversion_fan_pct;    /* TEMP_FAN_INV fan ceiling (55) */
        double spurious_power_ratio; /* SPUR_THROT below this share of the limit (0.25) */
        double breach_flag_w;        /* PWR+NNW over the limit by more than this (50) */
        double tdp_epsilon_w;        /* TDP change noise floor (5) */
        /* Raspberry Pi thresholds (the reference monitor's defaults). */
        double temp_warn_c;      /* 70 */
        double temp_crit_c;      /* 80 */
        double shm_full_pct;     /* 90 */
        double sd_endurance_tbw; /* the SD card's rated endurance, TB written; 0 = unknown */
        /* Leak trends: the robust slope of watched processes over the last hours. */
        double leak_procs_per_hour;  /* a process count rising faster is a leak (1) */
        double leak_pss_mb_per_hour; /* a PSS rising faster is a leak (10) */
        int verbose;
        int64_t gpu_proc_interval_ns; /* GPU process list cadence (default 10 s) */
        int64_t gpu_slow_interval_ns; /* GPU slow fields' cadence (default 10 s) */
        int64_t gpu_mid_interval_ns;  /* GPU mid-cadence fields' cadence (default 1 s) */
        /* GPUs the machine should have (core/gpu_count.h); GPU_COUNT_AUTO (-1): the count
         * the run state remembers; 0: no check */
        int expected_gpus;
};

/* Defaults, before any file or argument. */
void options_defaults(struct vigil_options *o);

/* Parse argv (argv[0] is the program; subcommands are handled by the caller) and the
 * config file it names. On a bad option or value: writes one line naming it to
 * stderr and returns -EINVAL (the caller exits 2). Returns 1 when --help or
 * --version was printed (the caller exits 0), 0 otherwise. */
int options_parse(struct vigil_options *o, int argc, char **argv);

/* Apply one config key (the option's long name) with its value. Used for the INI
 * file; errors are written to err (cap bytes). 0 or -EINVAL. */
int options_set(struct vigil_options *o, const char *key, const char *value, char *err,
                unsigned cap);

/* Print "vigil: MESSAGE" and a newline to stderr as one line, whatever the message
 * quotes: control bytes (below 0x20, and 0x7f) are written as \xNN and a message over
 * 1 KB is cut with "...". For errors that echo what the user gave. */
void options_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Load an INI file: keys in the top section or [vigil]; [watch] holds NAME = PATTERN.
 * 0, or -errno/-EINVAL with one line written to err. */
int options_load_file(struct vigil_options *o, const char *path, char *err, unsigned cap);

/* The same, from an open stream (not closed here; the caller owns it); name stands for
 * the file in messages. The pure form of the loader: the config fuzzer feeds it memory. */
int options_load_stream(struct vigil_options *o, FILE *fp, const char *name, char *err,
                        unsigned cap);

/* Fill in what depends on the environment: the default log directory
 * (/var/log/vigil as root, else $XDG_STATE_HOME/vigil or ~/.local/state/vigil). */
void options_resolve(struct vigil_options *o);

/* Print --help to stdout. */
void options_usage(const char *prog);

#endif
