/* SPDX-License-Identifier: Apache-2.0 */
/* CPU frequency scaling (see sys_cpufreq.h).
 *
 *   /sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq  600000
 *   /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor  ondemand
 *   /sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq  1500000
 *
 * Files are kept open and re-read with one pread per sample. */
#include "collect/sys_cpufreq.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/sysfs_scan.h"
#include "core/vigil.h"
#include "util/attr.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/retry.h"
#include "util/hot.h"

#define CPU_DIR "/sys/devices/system/cpu"

int cpufreq_parse_khz(const char *s, size_t n, double *ret_hz)
{
        uint64_t khz;
        int r = parse_u64(s, n, &khz);
        if (r < 0)
                return r;
        *ret_hz = (double)khz * 1000.0;
        return 0;
}

/* One cpufreq policy directory, read once per sample for all its cores. */
struct cpufreq_policy {
        int fd; /* scaling_cur_freq, -1 when it could not be opened */
        dev_t dev;
        ino_t ino;
};

struct cpufreq_state {
        unsigned ncpu;                   /* highest cpuN with cpufreq + 1 */
        short policy_of[VIGIL_MAX_CPUS]; /* index in policy[], -1: none */
        unsigned npolicy;
        struct cpufreq_policy policy[VIGIL_MAX_CPUS];
        int gov_fd, max_fd; /* cpu0's, -1 when absent */
        bool rescan;
        struct retry_gate gate;
};

static void close_fd(int *fd)
{
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

static void cpufreq_close_all(struct cpufreq_state *st)
{
        for (unsigned i = 0; i < st->npolicy; i++)
                close_fd(&st->policy[i].fd);
        close_fd(&st->gov_fd);
        close_fd(&st->max_fd);
        st->npolicy = 0;
        st->ncpu = 0;
}

/* The policy of cpuN's cpufreq directory (dir under the root): an existing one with the
 * same inode (a shared policy), or a new one. -1 when the CPU has no cpufreq. */
static int cpufreq_policy_of(struct cpufreq_state *st, const char *root, const char *dir)
{
        char full[4096], file[192];
        struct stat sb;
        if (path_join(full, sizeof(full), root, dir) < 0 || stat(full, &sb) < 0)
                return -1;
        for (unsigned p = 0; p < st->npolicy; p++) {
                if (st->policy[p].dev == sb.st_dev && st->policy[p].ino == sb.st_ino)
                        return (int)p;
        }
        struct cpufreq_policy *pol = &st->policy[st->npolicy];
        snprintf(file, sizeof(file), "%s/scaling_cur_freq", dir);
        pol->fd = attr_open(root, file);
        if (pol->fd < 0)
                pol->fd = -1;
        pol->dev = sb.st_dev;
        pol->ino = sb.st_ino;
        return (int)st->npolicy++;
}

static void cpufreq_scan(struct cpufreq_state *st, const char *root)
{
        unsigned idx[VIGIL_MAX_CPUS];
        cpufreq_close_all(st);
        st->rescan = false;
        int n = sysfs_scan_indices(root, CPU_DIR, "cpu", "", idx, VIGIL_MAX_CPUS);
        for (unsigned i = 0; i < VIGIL_MAX_CPUS; i++)
                st->policy_of[i] = -1;
        for (int i = 0; i < n; i++) {
                char dir[128];
                if (idx[i] >= VIGIL_MAX_CPUS)
                        break;
                snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u/cpufreq", idx[i]);
                st->policy_of[idx[i]] = (short)cpufreq_policy_of(st, root, dir);
                if (st->policy_of[idx[i]] >= 0)
                        st->ncpu = idx[i] + 1;
        }
        st->gov_fd = attr_open(root, CPU_DIR "/cpu0/cpufreq/scaling_governor");
        st->max_fd = attr_open(root, CPU_DIR "/cpu0/cpufreq/scaling_max_freq");
        if (st->gov_fd < 0)
                st->gov_fd = -1;
        if (st->max_fd < 0)
                st->max_fd = -1;
        if (st->npolicy == 0)
                st->rescan = true;
}

static int cpufreq_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct cpufreq_state *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        st->gov_fd = st->max_fd = -1;
        cpufreq_scan(st, ctx->opt->root);
        *ret_state = st;
        return 0;
}

/* Read one kHz file into Hz; notes a device that went away. */
VIGIL_HOT static double read_khz(struct cpufreq_state *st, int fd)
{
        char buf[32];
        double hz = VAL_MISSING;
        int r = attr_read(fd, buf, sizeof(buf));
        if (r >= 0)
                cpufreq_parse_khz(buf, (size_t)r, &hz);
        else if (r == -ENODEV || r == -ENOENT || r == -ENXIO)
                st->rescan = true;
        return hz;
}

/* A governor's name is one word ("schedutil"); anything else (binary, several lines)
 * is not one, and is left missing rather than copied into a CSV cell or a label. */
static bool governor_word(const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
                        return false;
        return true;
}

static void read_governor(int fd, char *out, size_t cap)
{
        char buf[64];
        int r = attr_read(fd, buf, sizeof(buf));
        size_t n = r > 0 ? attr_trim_len(buf, (size_t)r) : 0;
        if (!governor_word(buf, n))
                n = 0;
        copy_bounded(out, cap, buf, n);
}

VIGIL_HOT static int cpufreq_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct cpufreq_state *st = state;
        struct host_frame *h = &ctx->frame->host;
        double hz[VIGIL_MAX_CPUS];

        if (st->rescan && retry_due(&st->gate, t->mono_ns, RETRY_INTERVAL_NS))
                cpufreq_scan(st, ctx->opt->root);
        for (unsigned p = 0; p < st->npolicy; p++)
                hz[p] = read_khz(st, st->policy[p].fd);
        for (unsigned i = 0; i < st->ncpu; i++)
                h->cpu_freq_hz[i] = st->policy_of[i] >= 0 ? hz[st->policy_of[i]] : VAL_MISSING;
        h->nfreq = st->ncpu;
        read_governor(st->gov_fd, h->governor, sizeof(h->governor));
        h->cpu_max_freq_hz = read_khz(st, st->max_fd);
        return 0;
}

static void cpufreq_fini(void *state)
{
        struct cpufreq_state *st = state;
        if (!st)
                return;
        cpufreq_close_all(st);
        free(st);
}

const struct vigil_source vigil_source_sys_cpufreq = {
    .name = "sys-cpufreq",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = cpufreq_init,
    .sample = cpufreq_sample,
    .fini = cpufreq_fini,
};
