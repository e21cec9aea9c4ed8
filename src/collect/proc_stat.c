/* SPDX-License-Identifier: Apache-2.0 */
/* CPU usage from /proc/stat: total and per core, over the last host interval.
 *
 *   cpu0 1393280 32966 572056 13343292 6130 0 17875 0 23933 0
 *
 * The file is opened once and re-read with one pread per sample. It is read once at
 * init (a priming read, as the reference primes psutil) so that the first sample
 * already has a delta. Frame fields: host.ncpu, host.cpu_total_pct, host.cpu_pct[]. */
#include "collect/proc_stat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/vigil.h"
#include "util/attr.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/retry.h"
#include "util/hot.h"

/* cpu lines come first; on a 256-core machine they take about 20 KB. */
#define PROC_STAT_BUF (64 * 1024)

/* Parse the counters after "cpu" or "cpuN" up to the end of the line (c ends there). */
VIGIL_HOT static bool parse_cpu_fields(struct cursor *c, struct proc_stat_cpu *ret)
{
        unsigned k = 0;
        memset(ret->t, 0, sizeof(ret->t));
        for (;;) {
                uint64_t v;
                cur_skip_blank(c);
                if (cur_eof(c))
                        break;
                if (cur_u64(c, &v) < 0)
                        return false;
                if (!cur_eof(c) && *c->p != ' ' && *c->p != '\t')
                        return false;
                if (k < PS_NFIELDS)
                        ret->t[k] = v;
                k++;
        }
        return k >= 4;
}

/* Mark entries [ret->ncpu, upto] invalid and extend ncpu past upto. */
static void extend_ncpu(struct proc_stat *ret, unsigned upto)
{
        while (ret->ncpu <= upto)
                ret->cpu[ret->ncpu++].valid = false;
}

/* One complete line (without its '\n'). Returns false when it is not a cpu line. */
static bool parse_line(const char *s, size_t n, struct proc_stat *ret)
{
        struct cursor c = cur_make(s, n);
        if (!cur_lit(&c, "cpu") || cur_eof(&c))
                return false;
        if (*c.p == ' ') {
                ret->total.valid = parse_cpu_fields(&c, &ret->total);
                return true;
        }
        if (*c.p < '0' || *c.p > '9')
                return false;
        uint64_t id;
        if (cur_u64(&c, &id) < 0 || id >= VIGIL_MAX_CPUS)
                return true;
        extend_ncpu(ret, (unsigned)id);
        ret->cpu[id].valid = parse_cpu_fields(&c, &ret->cpu[id]);
        return true;
}

VIGIL_HOT int proc_stat_parse(const char *s, size_t n, struct proc_stat *ret)
{
        ret->total.valid = false;
        ret->ncpu = 0;
        bool seen_cpu = false;
        const char *p = s, *end = s + n;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl)
                        break; /* a cut last line: ignored */
                bool is_cpu = parse_line(p, (size_t)(nl - p), ret);
                if (!is_cpu && seen_cpu)
                        break;
                seen_cpu |= is_cpu;
                p = nl + 1;
        }
        if (ret->total.valid)
                return 0;
        for (unsigned i = 0; i < ret->ncpu; i++) {
                if (ret->cpu[i].valid)
                        return 0;
        }
        return -EINVAL;
}

VIGIL_HOT double proc_stat_busy_pct(const struct proc_stat_cpu *prev,
                                    const struct proc_stat_cpu *cur)
{
        if (!prev->valid || !cur->valid)
                return VAL_MISSING;
        double all = 0, idle = 0;
        for (unsigned k = 0; k < PS_NFIELDS; k++) {
                bool may_step_back = k == PS_IDLE || k == PS_IOWAIT;
                double d = 0;
                if (cur->t[k] >= prev->t[k])
                        d = (double)(cur->t[k] - prev->t[k]);
                else if (!may_step_back)
                        return VAL_MISSING;
                all += d;
                if (may_step_back)
                        idle += d;
        }
        if (!(all > 0))
                return VAL_MISSING;
        return (all - idle) / all * 100.0;
}

/* The source. */

struct proc_stat_state {
        struct pfile file;
        struct retry_gate reopen;
        unsigned ncpu;            /* the most cores ever seen: the frame's ncpu */
        struct proc_stat *prev;   /* the previous reading (invalid entries: none) */
        struct proc_stat *cur;    /* this reading */
        struct proc_stat bufs[2]; /* prev and cur point here */
};

/* Read and parse into st->cur. On a read error cur holds nothing valid. */
VIGIL_HOT static int read_current(struct proc_stat_state *st)
{
        int n = pfile_read_once(&st->file);
        if (n < 0) {
                st->cur->total.valid = false;
                st->cur->ncpu = 0;
                return n;
        }
        int r = proc_stat_parse(st->file.buf, st->file.len, st->cur);
        if (st->cur->ncpu > st->ncpu)
                st->ncpu = st->cur->ncpu;
        return r;
}

static void swap_readings(struct proc_stat_state *st)
{
        struct proc_stat *t = st->prev;
        st->prev = st->cur;
        st->cur = t;
}

/* Open the file and take the priming reading (into prev). */
static int open_and_prime(struct proc_stat_state *st, const char *root)
{
        int r = pfile_open(&st->file, root, "/proc/stat", PROC_STAT_BUF);
        if (r < 0)
                return r;
        r = read_current(st);
        swap_readings(st);
        return r;
}

static int proc_stat_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct proc_stat_state *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        st->file.fd = -1;
        st->prev = &st->bufs[0];
        st->cur = &st->bufs[1];
        /* Absent or unreadable now: sample() retries, values stay missing. */
        open_and_prime(st, ctx->opt->root);
        *ret_state = st;
        return 0;
}

static void publish(const struct proc_stat_state *st, struct host_frame *h)
{
        h->cpu_total_pct = proc_stat_busy_pct(&st->prev->total, &st->cur->total);
        unsigned n = st->cur->ncpu < st->prev->ncpu ? st->cur->ncpu : st->prev->ncpu;
        for (unsigned i = 0; i < n; i++)
                h->cpu_pct[i] = proc_stat_busy_pct(&st->prev->cpu[i], &st->cur->cpu[i]);
}

VIGIL_HOT static int proc_stat_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct proc_stat_state *st = state;
        struct host_frame *h = &ctx->frame->host;
        int r;

        h->cpu_total_pct = VAL_MISSING;
        for (unsigned i = 0; i < st->ncpu; i++)
                h->cpu_pct[i] = VAL_MISSING;
        if (!pfile_is_open(&st->file)) {
                if (!retry_due(&st->reopen, t->mono_ns, RETRY_INTERVAL_NS))
                        return -ENOENT;
                r = open_and_prime(st, ctx->opt->root);
        } else {
                r = read_current(st);
                publish(st, h);
                swap_readings(st);
        }
        h->ncpu = st->ncpu;
        return r < 0 ? r : 0;
}

static void proc_stat_fini(void *state)
{
        struct proc_stat_state *st = state;
        if (!st)
                return;
        pfile_close(&st->file);
        free(st);
}

const struct vigil_source vigil_source_proc_stat = {
    .name = "proc-stat",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = proc_stat_init,
    .sample = proc_stat_sample,
    .fini = proc_stat_fini,
};
