/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark floor for the whole daemon: a bare program that wakes at the same absolute
 * deadlines as vigil, makes the same NVML calls, re-reads the same /proc and /sys files,
 * writes rows of the same sizes with one write(2) each, fdatasyncs each file that got
 * rows once a second (vigil's default sync cadence), and does nothing else: no rules,
 * no events, no guard, no formatting of real values.
 *
 * usage: daemon_floor LIBRARY SECONDS GPU_MS HOST_MS OUTDIR GPU_ROW_BYTES HOST_ROW_BYTES
 *                     [FILE | statfs:PATH ...]
 * FLOOR_SYNC_MS in the environment sets the sync cadence (default 1000: vigil's default;
 * 60000 for its signage profile). LIBRARY "-" runs without GPUs. FILEs are the host files
 * to re-read with one pread each per host deadline (bench/70-daemon.sh passes the ones
 * vigil held open); each statfs:PATH is one statvfs(2) of PATH per host deadline (the file
 * systems whose usage vigil's host row carries: /dev/shm and the root, collect/shm.c and
 * collect/storage.c).
 * VIGIL_NVML_SCENARIO names the simulator's scenario. Prints "key value" lines: gpus,
 * gpu_samples, host_samples, calls. CPU time and context switches are measured by the
 * caller (getrusage of the child), the same way as for vigil. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "collect/nvml_api.h"
#include "util/clock.h"

#include "nvml_calls.h"

#define MAX_GPUS  16
#define MAX_FILES 512
#define ROW_MAX   8192

struct floor {
        struct fns f;
        nvmlDevice_t h[MAX_GPUS];
        unsigned nfans[MAX_GPUS], ngpus;
        int gpu_fd[MAX_GPUS], host_fd;
        int in_fd[MAX_FILES];
        unsigned nin;
        const char *fs[MAX_FILES]; /* the statfs:PATH arguments */
        unsigned nfs;
        bool dirty[MAX_GPUS + 1];
        char row[ROW_MAX];
        char buf[65536]; /* what the host files read into */
        size_t gpu_row, host_row;
        unsigned long gpu_samples, host_samples, calls;
};

static int open_out(const char *dir, const char *name)
{
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static int load_gpus(struct floor *fl, const char *libpath)
{
        void *lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
        unsigned n = 0;
        if (!lib || load(lib, &fl->f) || fl->f.init() != NVML_SUCCESS ||
            fl->f.count(&n) != NVML_SUCCESS) {
                fprintf(stderr, "daemon_floor: cannot use %s\n", libpath);
                return -1;
        }
        for (unsigned i = 0; i < n && i < MAX_GPUS; i++) {
                if (fl->f.handle(i, &fl->h[i]) != NVML_SUCCESS)
                        return -1;
                fl->nfans[i] = 0;
                fl->f.num_fans(fl->h[i], &fl->nfans[i]);
                fl->ngpus++;
        }
        return 0;
}

/* A row of len bytes: the wall time, then filler, then a newline. */
static size_t make_row(char *row, size_t len)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int n = snprintf(row, ROW_MAX, "%lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
        if (len >= ROW_MAX)
                len = ROW_MAX - 1;
        for (size_t i = (size_t)n; i + 1 < len; i++)
                row[i] = ',';
        row[len - 1] = '\n';
        return len;
}

static void gpu_tick(struct floor *fl)
{
        for (unsigned i = 0; i < fl->ngpus; i++) {
                fl->calls += sample_gpu(&fl->f, fl->h[i], fl->nfans[i]);
                size_t len = make_row(fl->row, fl->gpu_row);
                (void)!write(fl->gpu_fd[i], fl->row, len);
                fl->dirty[i] = true;
        }
        fl->gpu_samples++;
}

/* The mid-cadence calls (--gpu-mid-interval, 1 s: the power management limit and the
 * video clock), made at the host deadline, also 1 s. */
static void gpu_mid(struct floor *fl)
{
        unsigned u;
        for (unsigned i = 0; i < fl->ngpus; i++) {
                fl->f.limit(fl->h[i], &u);
                fl->f.clock(fl->h[i], NVML_CLOCK_VIDEO, &u);
                fl->calls += 2;
        }
}

static void host_tick(struct floor *fl)
{
        gpu_mid(fl);
        for (unsigned i = 0; i < fl->nin; i++)
                (void)!pread(fl->in_fd[i], fl->buf, sizeof(fl->buf), 0);
        for (unsigned i = 0; i < fl->nfs; i++) {
                struct statvfs sv;
                (void)statvfs(fl->fs[i], &sv);
        }
        size_t len = make_row(fl->row, fl->host_row);
        (void)!write(fl->host_fd, fl->row, len);
        fl->dirty[MAX_GPUS] = true;
        fl->host_samples++;
}

static void sync_dirty(struct floor *fl)
{
        for (unsigned i = 0; i < fl->ngpus; i++)
                if (fl->dirty[i]) {
                        fdatasync(fl->gpu_fd[i]);
                        fl->dirty[i] = false;
                }
        if (fl->dirty[MAX_GPUS]) {
                fdatasync(fl->host_fd);
                fl->dirty[MAX_GPUS] = false;
        }
}

static void sleep_until(int64_t t)
{
        struct timespec ts = {.tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

int main(int argc, char **argv)
{
        static struct floor fl;
        if (argc < 8) {
                fprintf(stderr, "usage: daemon_floor LIBRARY SECONDS GPU_MS HOST_MS OUTDIR "
                                "GPU_ROW_BYTES HOST_ROW_BYTES [FILE...]\n");
                return 2;
        }
        double secs = strtod(argv[2], NULL);
        int64_t gpu_ns = (int64_t)(strtod(argv[3], NULL) * NSEC_PER_MSEC);
        int64_t host_ns = (int64_t)(strtod(argv[4], NULL) * NSEC_PER_MSEC);
        fl.gpu_row = strtoul(argv[6], NULL, 10);
        fl.host_row = strtoul(argv[7], NULL, 10);
        if (secs <= 0 || gpu_ns <= 0 || host_ns <= 0 || fl.gpu_row < 24 || fl.host_row < 24)
                return 2;
        if (strcmp(argv[1], "-") && load_gpus(&fl, argv[1]))
                return 1;
        for (int i = 8; i < argc && fl.nin < MAX_FILES && fl.nfs < MAX_FILES; i++) {
                if (!strncmp(argv[i], "statfs:", 7)) {
                        fl.fs[fl.nfs++] = argv[i] + 7;
                        continue;
                }
                int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
                if (fd >= 0)
                        fl.in_fd[fl.nin++] = fd;
        }
        for (unsigned i = 0; i < fl.ngpus; i++) {
                char name[32];
                snprintf(name, sizeof(name), "gpu%u.csv", i);
                fl.gpu_fd[i] = open_out(argv[5], name);
        }
        fl.host_fd = open_out(argv[5], "host.csv");
        const char *sync_ms = getenv("FLOOR_SYNC_MS");
        int64_t sync_ns = sync_ms ? (int64_t)(strtod(sync_ms, NULL) * NSEC_PER_MSEC) : 0;
        if (sync_ns <= 0)
                sync_ns = NSEC_PER_SEC;
        int64_t t0 = now_mono_ns(), end = t0 + (int64_t)(secs * NSEC_PER_SEC);
        int64_t next_gpu = t0, next_host = t0, next_sync = t0 + sync_ns;
        for (;;) {
                int64_t next = fl.ngpus ? (next_gpu < next_host ? next_gpu : next_host) : next_host;
                if (next >= end)
                        break;
                sleep_until(next);
                if (fl.ngpus && next_gpu <= next) {
                        gpu_tick(&fl);
                        next_gpu += gpu_ns;
                }
                if (next_host <= next) {
                        host_tick(&fl);
                        next_host += host_ns;
                }
                if (next >= next_sync) {
                        sync_dirty(&fl);
                        while (next_sync <= next)
                                next_sync += sync_ns;
                }
        }
        sync_dirty(&fl);
        printf("gpus %u\ngpu_samples %lu\nhost_samples %lu\ncalls %lu\n", fl.ngpus, fl.gpu_samples,
               fl.host_samples, fl.calls);
        return 0;
}
