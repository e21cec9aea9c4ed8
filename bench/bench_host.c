/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark: CPU per host sample, vigil's sources against the bare-read floor.
 *
 * vigil: every source on the host clock, initialised from the registry exactly as the
 * daemon does, sampled N times. Floor: the same files (found by listing the file
 * descriptors the sources keep open) re-read with one pread each, plus statvfs of
 * /dev/shm, and nothing else. Rounds alternate between the two so machine noise hits
 * both; the ratio reported is the median of the per-round ratios.
 *
 * usage: bench_host [ROUNDS [SAMPLES_PER_ROUND [ROOT]]] */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "daemon/registry.h"
#include "util/clock.h"

#define MAX_FILES 1024

struct floor_set {
        int fd[MAX_FILES];
        unsigned n;
        char shm[1100];
};

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* The files the sources hold open: every fd of this process pointing into /proc or /sys. */
static void collect_floor(struct floor_set *fs, const char *root)
{
        char link[300], target[4096];
        DIR *d = opendir("/proc/self/fd");
        struct dirent *e;
        fs->n = 0;
        while (d && (e = readdir(d)) && fs->n < MAX_FILES) {
                if (e->d_name[0] == '.')
                        continue;
                snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
                ssize_t n = readlink(link, target, sizeof(target) - 1);
                if (n <= 0)
                        continue;
                target[n] = '\0';
                if (strstr(target, "/proc/self/fd") ||
                    !(strstr(target, "/proc/") || strstr(target, "/sys/")))
                        continue;
                int fd = open(target, O_RDONLY | O_CLOEXEC);
                if (fd >= 0)
                        fs->fd[fs->n++] = fd;
        }
        if (d)
                closedir(d);
        snprintf(fs->shm, sizeof(fs->shm), "%s/dev/shm", root[0] ? root : "");
}

static void floor_sample(const struct floor_set *fs, char *buf, size_t cap)
{
        struct statvfs sv;
        for (unsigned i = 0; i < fs->n; i++) {
                ssize_t r = pread(fs->fd[i], buf, cap, 0);
                (void)r;
        }
        statvfs(fs->shm, &sv);
}

int main(int argc, char **argv)
{
        unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 10;
        unsigned per = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2000;
        const char *root = argc > 3 ? argv[3] : "";
        static struct frame frame;
        static char buf[65536];
        struct vigil_options opt;
        struct vigil_ctx ctx;
        void *state[32];
        bool on[32];
        unsigned nsrc = 0;

        options_defaults(&opt);
        snprintf(opt.root, sizeof(opt.root), "%s", root);
        memset(&ctx, 0, sizeof(ctx));
        frame_clear(&frame);
        ctx.opt = &opt;
        ctx.frame = &frame;
        for (size_t i = 0; vigil_sources[i]; i++) {
                const struct vigil_source *s = vigil_sources[i];
                on[i] = (s->clocks & VCLOCK_BIT(VCLOCK_HOST)) &&
                        !(s->clocks & VCLOCK_BIT(VCLOCK_GPU)) && s->init(&ctx, &state[i]) >= 0;
                nsrc += on[i];
        }
        struct floor_set fs;
        collect_floor(&fs, root);

        double ratios[256], vig_ns[256], flo_ns[256];
        struct tick t;
        memset(&t, 0, sizeof(t));
        t.due = VCLOCK_BIT(VCLOCK_HOST);
        if (rounds > 256)
                rounds = 256;
        for (unsigned r = 0; r < rounds; r++) {
                int64_t c0 = cpu_time_ns();
                for (unsigned k = 0; k < per; k++) {
                        t.mono_ns = now_mono_ns();
                        t.real_ns = now_real_ns();
                        host_frame_clear(&frame.host);
                        for (size_t i = 0; vigil_sources[i]; i++)
                                if (on[i])
                                        vigil_sources[i]->sample(state[i], &ctx, &t);
                }
                int64_t c1 = cpu_time_ns();
                for (unsigned k = 0; k < per; k++)
                        floor_sample(&fs, buf, sizeof(buf));
                int64_t c2 = cpu_time_ns();
                vig_ns[r] = (double)(c1 - c0) / per;
                flo_ns[r] = (double)(c2 - c1) / per;
                ratios[r] = vig_ns[r] / flo_ns[r];
        }
        qsort(ratios, rounds, sizeof(double), cmp_double);
        qsort(vig_ns, rounds, sizeof(double), cmp_double);
        qsort(flo_ns, rounds, sizeof(double), cmp_double);
        printf("host sample: %u sources, %u files + statvfs(/dev/shm)\n", nsrc, fs.n);
        printf("  vigil  %.2f us CPU per sample (median of %u rounds x %u)\n",
               vig_ns[rounds / 2] / 1e3, rounds, per);
        printf("  floor  %.2f us CPU per sample (kept fds + pread, same files)\n",
               flo_ns[rounds / 2] / 1e3);
        printf("  ratio  %.2fx (target <= 1.5x)\n", ratios[rounds / 2]);
        for (size_t i = 0; vigil_sources[i]; i++)
                if (on[i] && vigil_sources[i]->fini)
                        vigil_sources[i]->fini(state[i]);
        return 0;
}
