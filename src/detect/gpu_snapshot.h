/* SPDX-License-Identifier: Apache-2.0 */
/* The content of GPU snapshots (the reference logger's _write_crash_snapshot and
 * _write_spike_snapshot), built from what the main loop already holds: the frame and
 * counters, the flight recorder, the kernel log ring and files under --root. Nothing
 * here runs an external program or waits on the GPU: the programs (lspci, nvidia-smi)
 * run in a worker thread (detect/snapshot_programs.h) and go into a file of their own.
 * Main thread only. */
#ifndef VIGIL_DETECT_GPU_SNAPSHOT_H
#define VIGIL_DETECT_GPU_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "core/ring.h"
#include "core/vigil.h"
#include "detect/snapshot.h"

#define GPU_SNAPSHOT_RING_TITLE "Flight recorder (last 5 minutes, every sample)"
#define GPU_SNAPSHOT_SPIKE_ROWS 50          /* "Last 50 telemetry readings", as the reference */
#define GPU_SNAPSHOT_PROC_BYTES (64 * 1024) /* read of one /proc file, at most */

/* What one snapshot is about. */
struct gpu_snapshot_in {
        struct vigil_ctx *ctx;
        unsigned slot;               /* frame->gpus[slot] */
        const struct gpu_ring *ring; /* the GPU's flight recorder; may be NULL */
        const char *error;           /* the header's Error: line; NULL: none */
        const char *extra_lines;     /* more header lines ("Key: value\n"); NULL: none */
        uint64_t event_number;       /* crash or spike number */
        int64_t real_ns;             /* the snapshot's time (file name, Time: line) */
};

/* The header fields of in (title, GPU, uptime, samples, peaks, counters). The strings
 * point into in and ctx->frame: use h before they change. */
void gpu_snapshot_header(const struct gpu_snapshot_in *in, const char *title,
                         struct snapshot_header *h);

/* crashes/crash-*.log: header "GPU CRASH DETECTED", the flight recorder, the GPU's
 * processes (evidence_gpu_procs), the kernel
 * log (GPU lines, the last 200, AER), the GPU's PCIe state, the NVIDIA kernel modules
 * (/proc/modules), memory (/proc/meminfo) and load (/proc/loadavg, /proc/uptime), and
 * programs_note (where the program output goes; NULL: none) in a "Programs" section.
 * ret_path as in snapshot_commit. 0 or -errno. */
int gpu_snapshot_crash(const struct gpu_snapshot_in *in, const char *programs_note, char *ret_path,
                       size_t cap);

/* spikes/spike-*.log: header "FAN SPIKE DETECTED", the current state (the newest
 * recorded sample, one "column: value" line each), the last 50 samples, thermal
 * thresholds, and each fan's control policy, target and speed. 0 or -errno. */
int gpu_snapshot_spike(const struct gpu_snapshot_in *in, char *ret_path, size_t cap);

/* Append the lines of ROOT/path (root "" or NULL: /) that contain match (NULL: every
 * line), reading at most GPU_SNAPSHOT_PROC_BYTES; "(not readable: ...)" when it cannot
 * be read, "(none)" when no line matched. */
void gpu_snapshot_proc_lines(struct snapshot *s, const char *root, const char *path,
                             const char *match);

#endif
