/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark: CPU per GPU sample of vigil, in two scopes, initialised from the registry
 * as the daemon does (with --nvml LIBRARY, the simulator in the benchmarks):
 *
 *   source  the NVML source alone (the calls and filling the frame): to compare with
 *           the bare call loop of bench/nvml_floor.c
 *   whole   every GPU-clock source, detector and sink: the NVML source, the GPU rules
 *           (the reference logger's flags and counters) and the GPU CSV row written
 *           with one write(2) (log files under LOG_DIR): the reference logger's
 *           per-sample work
 *
 * and in between, the source and the detectors (so the detectors' and the sinks' shares
 * are differences of medians). Beside them, the floor of the CSV writes: one write(2)
 * of a row-sized buffer per GPU and nothing else. Rounds alternate between the scopes;
 * each figure is the median over rounds, in ns of CPU (CLOCK_PROCESS_CPUTIME_ID) per
 * sample of all GPUs.
 *
 * Then the source against the floor in this same process: rounds of the floor's calls
 * (bench/nvml_calls.h, through the library vigil loaded, on the same GPUs) alternate
 * with rounds of the source; the ratio is the median of each pair's ratio. One
 * process and one library mapping for both removes what differs between two processes
 * (where the library and its state land in memory), which moves bench/nvml_floor's
 * figure by up to 2x from run to run on a shared VM. Prints "key value" lines.
 *
 * usage: bench_gpu LIBRARY SAMPLES_PER_ROUND ROUNDS LOG_DIR
 * (VIGIL_NVML_SCENARIO names the simulator's scenario.) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "daemon/registry.h"
#include "metrics/metrics.h"
#include "util/clock.h"

#include "nvml_calls.h"

#define MAX_ROUNDS 64
#define MAX_PLUG   32

static struct frame frame;
static struct vigil_options opt;
static struct vigil_ctx ctx;
static struct counters extra; /* the daemon always has these counters */
static void *src_state[MAX_PLUG], *det_state[MAX_PLUG], *sink_state[MAX_PLUG];
static bool src_on[MAX_PLUG], det_on[MAX_PLUG], sink_on[MAX_PLUG];

static bool on_gpu_clock(unsigned clocks)
{
        return clocks & VCLOCK_BIT(VCLOCK_GPU);
}

static int setup(const char *lib, const char *log_dir)
{
        options_defaults(&opt);
        opt.quiet = true;
        snprintf(opt.nvml_path, sizeof(opt.nvml_path), "%s", lib);
        snprintf(opt.log_dir, sizeof(opt.log_dir), "%s", log_dir);
        frame_clear(&frame);
        ctx.opt = &opt;
        ctx.frame = &frame;
        ctx.log_dir = log_dir;
        counters_clear(&extra);
        ctx.extra = &extra;
        pthread_mutex_init(&ctx.pub_lock, NULL);
        for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++)
                src_on[i] = on_gpu_clock(vigil_sources[i]->clocks) &&
                            vigil_sources[i]->init(&ctx, &src_state[i]) >= 0;
        if (frame.ngpus == 0)
                return -1;
        for (size_t i = 0; vigil_detectors[i] && i < MAX_PLUG; i++)
                det_on[i] = on_gpu_clock(vigil_detectors[i]->clocks) &&
                            vigil_detectors[i]->init(&ctx, &det_state[i]) >= 0;
        for (size_t i = 0; vigil_sinks[i] && i < MAX_PLUG; i++)
                sink_on[i] = on_gpu_clock(vigil_sinks[i]->clocks) &&
                             vigil_sinks[i]->init(&ctx, &sink_state[i]) >= 0;
        return 0;
}

/* level 0: the sources; 1: and the detectors; 2: and the sinks. */
static void one_sample(struct tick *t, int level)
{
        /* The daemon reads the clocks once per tick whatever runs: not the source's
         * cost, and not the floor's either. */
        if (level > 0) {
                t->mono_ns = now_mono_ns();
                t->real_ns = now_real_ns();
        }
        for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++)
                if (src_on[i])
                        vigil_sources[i]->sample(src_state[i], &ctx, t);
        for (size_t i = 0; level >= 1 && vigil_detectors[i] && i < MAX_PLUG; i++)
                if (det_on[i])
                        vigil_detectors[i]->feed(det_state[i], &ctx, t);
        for (size_t i = 0; level >= 2 && vigil_sinks[i] && i < MAX_PLUG; i++)
                if (sink_on[i])
                        vigil_sinks[i]->write(sink_state[i], &ctx, t);
        t->seq[VCLOCK_GPU]++;
}

static double timed(struct tick *t, unsigned n, int level)
{
        int64_t c0 = cpu_time_ns();
        for (unsigned k = 0; k < n; k++)
                one_sample(t, level);
        return (double)(cpu_time_ns() - c0) / n;
}

/* The floor of writing the rows: one write(2) per GPU of a row-sized buffer to a file
 * in the same directory. CPU ns per sample of all GPUs. */
static double write_floor(const char *dir, unsigned ngpus, unsigned n)
{
        char path[4200], row[160];
        memset(row, '7', sizeof(row) - 1);
        row[sizeof(row) - 1] = '\n';
        snprintf(path, sizeof(path), "%s/write-floor.tmp", dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
        if (fd < 0)
                return -1;
        int64_t c0 = cpu_time_ns();
        for (unsigned k = 0; k < n; k++)
                for (unsigned g = 0; g < ngpus; g++)
                        if (write(fd, row, sizeof(row)) < 0)
                                break;
        double ns = (double)(cpu_time_ns() - c0) / n;
        close(fd);
        unlink(path);
        return ns;
}

/* The floor's calls for every GPU vigil samples, through the library it loaded:
 * CPU ns per sample of all GPUs over n samples; -1 when the library cannot be used. */
static double floor_inproc(const char *path, unsigned n)
{
        static struct fns f;
        static nvmlDevice_t h[VIGIL_MAX_GPUS];
        static bool ready;
        if (!ready) {
                void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* vigil's mapping */
                if (!lib || load(lib, &f) < 0)
                        return -1;
                for (unsigned g = 0; g < frame.ngpus; g++)
                        if (f.handle(frame.gpus[g].index, &h[g]) != NVML_SUCCESS)
                                return -1;
                ready = true;
        }
        int64_t c0 = cpu_time_ns();
        for (unsigned k = 0; k < n; k++)
                for (unsigned g = 0; g < frame.ngpus; g++)
                        sample_gpu(&f, h[g], frame.gpus[g].nfans);
        return (double)(cpu_time_ns() - c0) / n;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static void print_names(const char *key, const bool *on, size_t n, const char *(*name)(size_t))
{
        printf("%s", key);
        for (size_t i = 0; i < n; i++)
                if (on[i])
                        printf(" %s", name(i));
        printf("\n");
}

static const char *src_name(size_t i)
{
        return vigil_sources[i]->name;
}

static const char *det_name(size_t i)
{
        return vigil_detectors[i]->name;
}

static const char *sink_name(size_t i)
{
        return vigil_sinks[i]->name;
}

static size_t count(const void *const *arr)
{
        size_t n = 0;
        while (arr[n] && n < MAX_PLUG)
                n++;
        return n;
}

int main(int argc, char **argv)
{
        if (argc < 5) {
                fprintf(stderr, "usage: bench_gpu LIBRARY SAMPLES_PER_ROUND ROUNDS LOG_DIR\n");
                return 2;
        }
        unsigned per = (unsigned)strtoul(argv[2], NULL, 10);
        unsigned rounds = (unsigned)strtoul(argv[3], NULL, 10);
        double src[MAX_ROUNDS], det[MAX_ROUNDS], whole[MAX_ROUNDS];
        struct tick t;
        if (per == 0 || rounds == 0)
                return 2;
        if (rounds > MAX_ROUNDS)
                rounds = MAX_ROUNDS;
        if (setup(argv[1], argv[4]) < 0) {
                fprintf(stderr, "bench_gpu: no GPU from %s\n", argv[1]);
                return 1;
        }
        memset(&t, 0, sizeof(t));
        t.due = VCLOCK_BIT(VCLOCK_GPU);
        for (unsigned k = 0; k < 10; k++) /* opens the CSV files, primes the rules */
                one_sample(&t, 2);
        for (unsigned r = 0; r < rounds; r++) {
                src[r] = timed(&t, per, 0);
                det[r] = timed(&t, per, 1);
                whole[r] = timed(&t, per, 2);
        }
        double fl[MAX_ROUNDS], vs[MAX_ROUNDS], ratio[MAX_ROUNDS];
        bool inproc = true;
        for (unsigned r = 0; r < rounds && inproc; r++) {
                fl[r] = floor_inproc(argv[1], per);
                vs[r] = timed(&t, per, 0);
                inproc = fl[r] > 0;
                ratio[r] = inproc ? vs[r] / fl[r] : 0;
        }
        qsort(src, rounds, sizeof(double), cmp_double);
        qsort(det, rounds, sizeof(double), cmp_double);
        qsort(whole, rounds, sizeof(double), cmp_double);
        printf("gpus %u\n", frame.ngpus);
        print_names("sources", src_on, count((const void *const *)vigil_sources), src_name);
        print_names("detectors", det_on, count((const void *const *)vigil_detectors), det_name);
        print_names("sinks", sink_on, count((const void *const *)vigil_sinks), sink_name);
        printf("source_sample_ns %.0f\n", src[rounds / 2]);
        printf("source_sample_ns_range %.0f-%.0f\n", src[0], src[rounds - 1]);
        printf("detect_sample_ns %.0f\n", det[rounds / 2]);
        printf("whole_sample_ns %.0f\n", whole[rounds / 2]);
        printf("whole_sample_ns_range %.0f-%.0f\n", whole[0], whole[rounds - 1]);
        printf("write_floor_ns %.0f\n", write_floor(argv[4], frame.ngpus, per));
        if (inproc) {
                qsort(fl, rounds, sizeof(double), cmp_double);
                qsort(vs, rounds, sizeof(double), cmp_double);
                qsort(ratio, rounds, sizeof(double), cmp_double);
                printf("inproc_floor_ns %.0f\n", fl[rounds / 2]);
                printf("inproc_source_ns %.0f\n", vs[rounds / 2]);
                printf("inproc_ratio %.3f\n", ratio[rounds / 2]);
                printf("inproc_ratio_range %.3f-%.3f\n", ratio[0], ratio[rounds - 1]);
        }
        printf("gpu0 temp_c=%.0f power_w=%.2f fans=%u flags=%s\n", frame.gpus[0].temp_c,
               frame.gpus[0].power_w, frame.gpus[0].nfans, frame.gpus[0].flags);
        for (size_t i = 0; vigil_sinks[i] && i < MAX_PLUG; i++)
                if (sink_on[i] && vigil_sinks[i]->fini)
                        vigil_sinks[i]->fini(sink_state[i], &ctx);
        for (size_t i = 0; vigil_detectors[i] && i < MAX_PLUG; i++)
                if (det_on[i] && vigil_detectors[i]->fini)
                        vigil_detectors[i]->fini(det_state[i]);
        for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++)
                if (src_on[i] && vigil_sources[i]->fini)
                        vigil_sources[i]->fini(src_state[i]);
        return 0;
}
