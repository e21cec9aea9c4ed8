/* SPDX-License-Identifier: Apache-2.0 */
/* The plug-in registries: one line per source, detector or sink, in the order they run.
 * Adding a plug-in is its file plus one extern and one array line here. A plug-in is
 * named vigil_source_X, vigil_detector_X or vigil_sink_X, and its runtime .name (in the
 * log) is X with '-' for '_', as in the options and files users see (remote-write,
 * system-info); tests/unit/test_registry.c holds every name to that spelling. */
#include <stddef.h>

#include "daemon/registry.h"

/* clang-format off */

/* Sources: fill the frame. */
extern const struct vigil_source vigil_source_proc_stat;
extern const struct vigil_source vigil_source_proc_loadavg;
extern const struct vigil_source vigil_source_proc_meminfo;
extern const struct vigil_source vigil_source_proc_uptime;
extern const struct vigil_source vigil_source_shm;
extern const struct vigil_source vigil_source_sys_hwmon;
extern const struct vigil_source vigil_source_sys_thermal;
extern const struct vigil_source vigil_source_sys_cpufreq;
extern const struct vigil_source vigil_source_rpi;
extern const struct vigil_source vigil_source_kmsg;
extern const struct vigil_source vigil_source_procs;
extern const struct vigil_source vigil_source_nvml;
extern const struct vigil_source vigil_source_storage;
extern const struct vigil_source vigil_source_sdcard;
extern const struct vigil_source vigil_source_display;
extern const struct vigil_source vigil_source_net;

const struct vigil_source *const vigil_sources[] = {
        &vigil_source_proc_stat,
        &vigil_source_proc_loadavg,
        &vigil_source_proc_meminfo,
        &vigil_source_proc_uptime,
        &vigil_source_shm,
        &vigil_source_sys_hwmon,    /* starts host.temps[] */
        &vigil_source_sys_thermal,  /* appends zones, picks host.temp_c: after sys_hwmon */
        &vigil_source_sys_cpufreq,
        &vigil_source_rpi,          /* Raspberry Pi firmware; absent elsewhere */
        &vigil_source_procs,        /* --watch: a /proc scan per host tick, PSS on its own clock */
        &vigil_source_nvml,         /* NVIDIA GPUs on the GPU clock (sets ctx->nvml) */
        &vigil_source_kmsg,         /* kernel log ring for snapshots (sets ctx->kmsg) */
        &vigil_source_storage,      /* file systems, storage errors: after kmsg (reads its ring) */
        &vigil_source_sdcard,       /* the MMC card: after storage (which clears its part) */
        &vigil_source_display,      /* DRM connectors and the TV over CEC; absent without */
        &vigil_source_net,          /* interfaces, routes, the push's reachability */
        NULL,
};

/* Detectors: read the frame after all sources, raise flags and events. */
extern const struct vigil_detector vigil_detector_rpi_rules;
extern const struct vigil_detector vigil_detector_rpi_incident;
extern const struct vigil_detector vigil_detector_signage_rules;
extern const struct vigil_detector vigil_detector_trend;
extern const struct vigil_detector vigil_detector_gpu_rules;
extern const struct vigil_detector vigil_detector_gpu_events;
extern const struct vigil_detector vigil_detector_kernel_gpu;
extern const struct vigil_detector vigil_detector_gpu_missing;
extern const struct vigil_detector vigil_detector_nvlink;
extern const struct vigil_detector vigil_detector_health;
extern const struct vigil_detector vigil_detector_kernel_host;
extern const struct vigil_detector vigil_detector_watch_live;

const struct vigil_detector *const vigil_detectors[] = {
        &vigil_detector_rpi_rules,    /* Pi thresholds and /dev/shm, every machine */
        &vigil_detector_rpi_incident, /* incidents/ snapshots on the same rules */
        &vigil_detector_signage_rules, /* screens, network, SD card wear */
        &vigil_detector_trend,        /* leak trends; the exit summary */
        &vigil_detector_gpu_rules,    /* the GPU logger's flags and counters */
        &vigil_detector_kernel_gpu,   /* GPU errors of the kernel log: before gpu-events */
        &vigil_detector_gpu_events,   /* NVML events, crash and spike snapshots: after the rules */
        &vigil_detector_gpu_missing,  /* fewer GPUs answering than expected (vigil.state) */
        &vigil_detector_kernel_host,  /* OOM kills, segfaults: before watch-live (its causes) */
        &vigil_detector_watch_live,   /* --watch programs gone, back, restarted */
        &vigil_detector_nvlink,       /* NVLink links and the fabric (slow-cadence values) */
        &vigil_detector_health,       /* the health verdict: after every detector's lines */
        NULL,
};

const struct vigil_detector *const vigil_kmsg_detectors[] = {
        &vigil_detector_kernel_gpu, /* a GPU fallen off the bus, noticed when the line comes */
        NULL,
};

/* Sinks: write the frame out. */
extern const struct vigil_sink vigil_sink_postmortem;
extern const struct vigil_sink vigil_sink_host_csv;
extern const struct vigil_sink vigil_sink_live;
extern const struct vigil_sink vigil_sink_gpu_csv;
extern const struct vigil_sink vigil_sink_gpu_summary;
extern const struct vigil_sink vigil_sink_system_info;
extern const struct vigil_sink vigil_sink_http;
extern const struct vigil_sink vigil_sink_remote_write;
extern const struct vigil_sink vigil_sink_alertmanager;

const struct vigil_sink *const vigil_sinks[] = {
        &vigil_sink_postmortem,   /* vigil.state and the post-mortem: first (before HTTP) */
        &vigil_sink_host_csv,
        &vigil_sink_gpu_csv,      /* gpuN-YYYY-MM-DD.csv */
        &vigil_sink_gpu_summary,  /* summary.log every 5 minutes */
        &vigil_sink_system_info,  /* system-info.txt */
        &vigil_sink_live,
        &vigil_sink_http,         /* /metrics and the dashboard: reads the published frame */
        &vigil_sink_remote_write, /* remote-write queue and push: the /metrics series */
        &vigil_sink_alertmanager,  /* critical and warning findings as alerts, on its own thread */
        NULL,
};

/* clang-format on */
