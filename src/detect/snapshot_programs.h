/* SPDX-License-Identifier: Apache-2.0 */
/* The external programs of a GPU crash snapshot (the reference's `lspci -vvs BUSID` and
 * `timeout 5 nvidia-smi`), run in a worker thread so the main loop never waits for
 * them: on a GPU that fell off the bus nvidia-smi can hang for its whole time limit.
 *
 * The crash snapshot itself is written at once by the main loop and names the file
 * the programs go to: crashes/<crash>-programs.log (a snapshot of its own: hidden
 * temporary file, fsync, rename). Each program runs without a shell
 * (util/spawn.h), at most SNAPSHOT_PROGRAM_TIMEOUT_NS, its output capped at
 * SPAWN_DEFAULT_MAX_OUTPUT. One worker at a time: while one runs, a new crash
 * snapshot goes without program output (its Programs section says so). */
#ifndef VIGIL_DETECT_SNAPSHOT_PROGRAMS_H
#define VIGIL_DETECT_SNAPSHOT_PROGRAMS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "detect/snapshot.h"

#define SNAPSHOT_PROGRAM_TIMEOUT_NS (5LL * 1000000000LL)
#define SNAPSHOT_PROGRAMS_SUFFIX    "-programs"

struct snapshot_programs {
        pthread_mutex_t lock;
        pthread_t thread;
        bool running; /* a worker was started and not yet joined */
        bool done;    /* the worker finished (under lock) */
        int result;   /* its snapshot_commit result (under lock) */
        int64_t timeout_ns;
        char log_dir[1024];
        char name[SNAPSHOT_NAME_MAX]; /* crash-...-programs */
        char bus_id[32];              /* for lspci: "0000:01:00.0" */
        char title_line[160];         /* "GPU: NAME (BUS)" */
        char path[1300];              /* the file written (under lock) */
        pid_t unreaped[2];            /* children that outlived SIGKILL, reaped later */
};

/* Set up (no thread yet). */
void snapshot_programs_init(struct snapshot_programs *p);

/* Start the worker for the crash snapshot named crash_base ("crash-20261202-120000"),
 * GPU gpu_name at NVML bus id bus_id, writing under log_dir. A finished worker is
 * joined first. 0; -EBUSY while the previous worker still runs; -ENAMETOOLONG;
 * another -errno when the thread could not start. */
int snapshot_programs_start(struct snapshot_programs *p, const char *log_dir,
                            const char *crash_base, const char *gpu_name, const char *bus_id);

/* The file name the worker for crash_base writes ("crash-...-programs.log"). */
void snapshot_programs_file_name(char *out, size_t cap, const char *crash_base);

/* When a worker has finished: join it, return true with its result (0 or -errno) and
 * the file written (ret_path, cap bytes). Never blocks. */
bool snapshot_programs_poll(struct snapshot_programs *p, int *ret_result, char *ret_path,
                            size_t cap);

/* Wait for a running worker (at most two program time limits) and release
 * everything. */
void snapshot_programs_fini(struct snapshot_programs *p);

#endif
