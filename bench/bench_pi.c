/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark: CPU per sample of vigil's whole Raspberry Pi monitor path, the work the
 * reference monitor's sample() does, in parts that are summed by the caller:
 *
 *   host_procs   every host-clock source on this machine's real /proc and /sys, with
 *                the reference's two watches (player=run_linux.py, chromium=chromium),
 *                PSS read on every sample as the reference does (and once without)
 *   rpi_mailbox  the Raspberry Pi source on a fixture tree whose ROOT/dev/vcio is a
 *                fake firmware (eight gencmd requests and one property-tag request
 *                per sample), then every host-clock
 *                detector on the combined frame (throttle flags, rules, trend row)
 *   rpi_vcgencmd the same source on a fixture whose mailbox cannot be opened, so every
 *                value comes from a vcgencmd run: CPU includes the children
 *                (getrusage(RUSAGE_CHILDREN)), as the reference's is measured
 *
 * Beside them, what listing /proc alone costs (the floor of the watches' scan).
 * Each part is initialised from the registry as the daemon does. Rounds alternate
 * between the parts; each figure is the median over rounds. Output is one
 * "key value" line per figure (microseconds of CPU per sample), for bench scripts.
 *
 * usage: bench_pi ROUNDS PER_ROUND MAILBOX_ROOT VCGENCMD_ROOT [VCGENCMD_PER_ROUND] */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "collect/procs.h"
#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "daemon/registry.h"
#include "util/clock.h"

#define MAX_ROUNDS 64
#define MAX_PLUG   32

struct part {
        struct vigil_options opt;
        struct vigil_ctx ctx;
        void *src_state[MAX_PLUG];
        bool src_on[MAX_PLUG];
        void *det_state[MAX_PLUG];
        bool det_on[MAX_PLUG];
        unsigned nsrc, ndet;
};

static struct frame frame; /* shared by the parts: one tick's frame */

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
        qsort(v, n, sizeof(double), cmp_double);
        return v[n / 2];
}

static int64_t children_cpu_ns(void)
{
        struct rusage ru;
        if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
                return 0;
        return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
               ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* Initialise the host-clock sources (the rpi source alone, or all but it) and, when
 * detectors is set, every host-clock detector. */
static void part_init(struct part *p, const char *root, bool rpi_only, bool detectors)
{
        options_defaults(&p->opt);
        p->opt.quiet = true;
        snprintf(p->opt.root, sizeof(p->opt.root), "%s", root);
        if (!rpi_only) {
                snprintf(p->opt.watches[0].name, sizeof(p->opt.watches[0].name), "player");
                snprintf(p->opt.watches[0].pattern, sizeof(p->opt.watches[0].pattern),
                         "run_linux.py");
                snprintf(p->opt.watches[1].name, sizeof(p->opt.watches[1].name), "chromium");
                snprintf(p->opt.watches[1].pattern, sizeof(p->opt.watches[1].pattern), "chromium");
                p->opt.nwatches = 2;
        }
        p->ctx.opt = &p->opt;
        p->ctx.frame = &frame;
        pthread_mutex_init(&p->ctx.pub_lock, NULL);
        for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++) {
                const struct vigil_source *s = vigil_sources[i];
                bool is_rpi = !strcmp(s->name, "rpi");
                bool host =
                    (s->clocks & VCLOCK_BIT(VCLOCK_HOST)) && !(s->clocks & VCLOCK_BIT(VCLOCK_GPU));
                p->src_on[i] =
                    host && is_rpi == rpi_only && s->init(&p->ctx, &p->src_state[i]) >= 0;
                p->nsrc += p->src_on[i];
        }
        for (size_t i = 0; detectors && vigil_detectors[i] && i < MAX_PLUG; i++) {
                const struct vigil_detector *d = vigil_detectors[i];
                p->det_on[i] = (d->clocks & VCLOCK_BIT(VCLOCK_HOST)) &&
                               d->init(&p->ctx, &p->det_state[i]) >= 0;
                p->ndet += p->det_on[i];
        }
}

static void part_sample(struct part *p, unsigned due)
{
        struct tick t;
        memset(&t, 0, sizeof(t));
        t.due = due;
        t.mono_ns = now_mono_ns();
        t.real_ns = now_real_ns();
        for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++)
                if (p->src_on[i])
                        vigil_sources[i]->sample(p->src_state[i], &p->ctx, &t);
        for (size_t i = 0; vigil_detectors[i] && i < MAX_PLUG; i++)
                if (p->det_on[i])
                        vigil_detectors[i]->feed(p->det_state[i], &p->ctx, &t);
}

static void part_fini(struct part *p)
{
        for (size_t i = 0; vigil_detectors[i] && i < MAX_PLUG; i++)
                if (p->det_on[i] && vigil_detectors[i]->fini)
                        vigil_detectors[i]->fini(p->det_state[i]);
        for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++)
                if (p->src_on[i] && vigil_sources[i]->fini)
                        vigil_sources[i]->fini(p->src_state[i]);
}

static void print_rpi(const char *path, const struct rpi_frame *r)
{
        static const char *const origin[] = {"none", "mailbox", "sysfs", "vcgencmd"};
        printf(
            "rpi_%s_values temp_c=%.3f(%s) volt_v=%.4f(%s) arm_mhz=%.1f(%s) throttled=%.0f(%s)\n",
            path, r->temp_c, origin[r->temp_src], r->volt_core_v, origin[r->volt_src],
            r->arm_hz / 1e6, origin[r->clock_src], r->throttled_valid ? (double)r->throttled : NAN,
            origin[r->throttle_src]);
}

/* What reading the CPU clock costs (a system call for a process clock). */
static double timer_cost_ns(void)
{
        int64_t c0 = cpu_time_ns();
        for (unsigned k = 0; k < 10000; k++)
                cpu_time_ns();
        return (double)(cpu_time_ns() - c0) / 10000;
}

/* Where the host part's time goes: each source timed on its own (a separate pass, so
 * the timer calls do not weigh on the headline figures), less one clock read each. */
static void print_breakdown(struct part *p, unsigned due, unsigned n)
{
        int64_t ns[MAX_PLUG] = {0};
        double timer = timer_cost_ns();
        struct tick t;
        memset(&t, 0, sizeof(t));
        t.due = due;
        for (unsigned k = 0; k < n; k++) {
                t.mono_ns = now_mono_ns();
                t.real_ns = now_real_ns();
                for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++) {
                        if (!p->src_on[i])
                                continue;
                        int64_t c0 = cpu_time_ns();
                        vigil_sources[i]->sample(p->src_state[i], &p->ctx, &t);
                        ns[i] += cpu_time_ns() - c0;
                }
        }
        printf("host_breakdown_us");
        for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++)
                if (p->src_on[i])
                        printf(" %s=%.1f", vigil_sources[i]->name,
                               fmax((double)ns[i] / n - timer, 0.0) / 1e3);
        printf("\n");
}

/* The watches' count of command lines read so far. */
static uint64_t cmdline_reads(const struct part *p)
{
        for (size_t i = 0; vigil_sources[i] && i < MAX_PLUG; i++)
                if (p->src_on[i] && !strcmp(vigil_sources[i]->name, "procs"))
                        return procs_cmdline_reads(p->src_state[i]);
        return 0;
}

/* What listing /proc alone costs (rewinddir + readdir of every entry): the part of the
 * watches' work no implementation can skip. CPU ns per listing. */
static double proc_listing(DIR *d, unsigned n)
{
        volatile unsigned entries = 0;
        int64_t c0 = cpu_time_ns();
        for (unsigned k = 0; k < n; k++) {
                rewinddir(d);
                while (readdir(d))
                        entries++;
        }
        return (double)(cpu_time_ns() - c0) / n;
}

/* CPU ns per sample of n samples of p (children included when asked). */
static double timed(struct part *p, unsigned due, unsigned n, bool children)
{
        int64_t c0 = cpu_time_ns(), k0 = children ? children_cpu_ns() : 0;
        for (unsigned k = 0; k < n; k++)
                part_sample(p, due);
        int64_t c1 = cpu_time_ns(), k1 = children ? children_cpu_ns() : 0;
        return (double)((c1 - c0) + (k1 - k0)) / n;
}

int main(int argc, char **argv)
{
        if (argc < 5) {
                fprintf(stderr, "usage: bench_pi ROUNDS PER_ROUND MAILBOX_ROOT VCGENCMD_ROOT "
                                "[VCGENCMD_PER_ROUND]\n");
                return 2;
        }
        unsigned rounds = (unsigned)strtoul(argv[1], NULL, 10);
        unsigned per = (unsigned)strtoul(argv[2], NULL, 10);
        unsigned vper = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 20;
        static struct part host, mbox, vc;
        double hp[MAX_ROUNDS], hn[MAX_ROUNDS], mb[MAX_ROUNDS], vg[MAX_ROUNDS], ls[MAX_ROUNDS];
        DIR *proc = opendir("/proc");
        const unsigned host_pss = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_PSS);
        const unsigned host_only = VCLOCK_BIT(VCLOCK_HOST);

        if (rounds == 0 || per == 0 || vper == 0 || !proc)
                return 2;
        if (rounds > MAX_ROUNDS)
                rounds = MAX_ROUNDS;
        frame_clear(&frame);
        part_init(&host, "", false, false);
        part_init(&mbox, argv[3], true, true);
        part_init(&vc, argv[4], true, false);
        if (mbox.nsrc != 1 || vc.nsrc != 1) {
                fprintf(stderr, "bench_pi: the Raspberry Pi source did not start on %s / %s\n",
                        argv[3], argv[4]);
                return 1;
        }
        /* Warm up: the first scans classify every process, the first sample primes
         * the CPU counters. The watches classify a process again on every scan during
         * its first second (a fork caught before its exec), so the measured samples,
         * which follow each other far faster than the daemon's, start after that
         * second: what remains is the machine's own process churn. */
        for (unsigned k = 0; k < 3; k++) {
                part_sample(&host, host_pss);
                part_sample(&mbox, host_only);
        }
        struct timespec settle = {1, 100000000};
        nanosleep(&settle, NULL);
        uint64_t reads0 = cmdline_reads(&host);
        for (unsigned r = 0; r < rounds; r++) {
                hp[r] = timed(&host, host_pss, per, false);
                hn[r] = timed(&host, host_only, per, false);
                mb[r] = timed(&mbox, host_only, per, false);
                ls[r] = proc_listing(proc, per);
        }
        print_breakdown(&host, host_pss, per);
        printf("procs_cmdline_reads_per_sample %.3f\n",
               (double)(cmdline_reads(&host) - reads0) / (2.0 * rounds * per + per));
        /* Last: its children would be new processes to the watches' scans. */
        part_sample(&vc, host_only);
        for (unsigned r = 0; r < rounds; r++)
                vg[r] = timed(&vc, host_only, vper, true);
        printf("sources_host %u\n", host.nsrc);
        printf("detectors %u\n", mbox.ndet);
        for (unsigned w = 0; w < frame.nwatches; w++)
                printf("watch_%s_count %.0f\n", frame.watches[w].name, frame.watches[w].count);
        printf("host_procs_pss_us %.2f\n", median(hp, rounds) / 1e3);
        printf("host_procs_nopss_us %.2f\n", median(hn, rounds) / 1e3);
        printf("proc_listing_us %.2f\n", median(ls, rounds) / 1e3);
        printf("rpi_mailbox_us %.2f\n", median(mb, rounds) / 1e3);
        printf("rpi_vcgencmd_us %.2f\n", median(vg, rounds) / 1e3);
        /* What each path read, so a run that silently read nothing shows. */
        part_sample(&mbox, host_only);
        print_rpi("mailbox", &frame.rpi);
        part_sample(&vc, host_only);
        print_rpi("vcgencmd", &frame.rpi);
        part_fini(&vc);
        part_fini(&mbox);
        part_fini(&host);
        closedir(proc);
        return 0;
}
