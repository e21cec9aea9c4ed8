/* The plug-in registries: one line per source, detector or sink, in the order they run.
 * Adding a plug-in is its file plus one extern and one array line here. */
#include <stddef.h>

#include "core/vigil.h"

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
extern const struct vigil_source source_kmsg;
extern const struct vigil_source vigil_source_procs;
extern const struct vigil_source source_nvml;
extern const struct vigil_source source_storage;

const struct vigil_source *const vigil_sources[] = {
        &vigil_source_proc_stat,
        &vigil_source_proc_loadavg,
        &vigil_source_proc_meminfo,
        &vigil_source_proc_uptime,
        &vigil_source_shm,
        &vigil_source_sys_hwmon,   /* starts host.temps[] */
        &vigil_source_sys_thermal, /* appends zones, picks host.temp_c: after sys_hwmon */
        &vigil_source_sys_cpufreq,
        &vigil_source_rpi,         /* Raspberry Pi firmware; absent elsewhere */
        &vigil_source_procs,       /* --watch: one /proc scan per host tick, PSS on its own clock */
        &source_nvml,              /* NVIDIA GPUs on the GPU clock (sets ctx->nvml) */
        &source_kmsg,              /* kernel log ring for snapshots (sets ctx->kmsg) */
        &source_storage,           /* file systems, storage errors: after kmsg (reads its ring) */
        NULL,
};

/* Detectors: read the frame after all sources, raise flags and events. */
extern const struct vigil_detector vigil_detector_rpi;
extern const struct vigil_detector vigil_detector_rpi_incident;
extern const struct vigil_detector vigil_detector_trend;
extern const struct vigil_detector detector_gpu_rules;
extern const struct vigil_detector detector_gpu_events;

const struct vigil_detector *const vigil_detectors[] = {
        &vigil_detector_rpi,       /* Pi thresholds and /dev/shm, every machine */
        &vigil_detector_rpi_incident, /* incidents/ snapshots on the same rules */
        &vigil_detector_trend,     /* leak trends; the exit summary */
        &detector_gpu_rules,       /* the GPU logger's flags and counters */
        &detector_gpu_events,      /* NVML events, crash and spike snapshots: after the rules */
        NULL,
};

/* Sinks: write the frame out. */
extern const struct vigil_sink sink_host_csv;
extern const struct vigil_sink sink_live;
extern const struct vigil_sink sink_gpu_csv;
extern const struct vigil_sink sink_gpu_summary;
extern const struct vigil_sink sink_sysinfo;
extern const struct vigil_sink sink_http;

const struct vigil_sink *const vigil_sinks[] = {
        &sink_host_csv,
        &sink_gpu_csv,             /* gpuN-YYYY-MM-DD.csv */
        &sink_gpu_summary,         /* summary.log every 5 minutes */
        &sink_sysinfo,             /* system-info.txt */
        &sink_live,
        &sink_http,                /* /metrics and the dashboard: reads the published frame */
        NULL,
};

/* clang-format on */
