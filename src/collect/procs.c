/* SPDX-License-Identifier: Apache-2.0 */
/* Process watches: for each --watch NAME=PATTERN, the processes whose command line
 * contains PATTERN, and their count, CPU %, threads, age and PSS.
 *
 *   /proc/1203/stat: 1203 (chromium) S 1110 1090 1090 0 -1 4194560 2231 0 3 0 5321 812 0 0 20 0 14 0 4000 ...
 *
 * Cost is what matters here, so on each host tick /proc is listed ONCE for all watches,
 * and a process's command line is read only when vigil has not classified it yet: the
 * pid table (procs_table.c) remembers every listed pid, matching or not. A pid is
 * classified again when
 *   - it is new, or was first listed less than PROCS_SETTLE_NS ago (a fork caught
 *     before its exec still shows its parent's command line);
 *   - its /proc/PID inode changed (the kernel makes a new one for a new process, so a
 *     reused pid is seen even when nothing of it is read; an evicted dentry of the
 *     same process also gets one, which costs only this re-read);
 *   - for a matching process, its stat shows a new starttime (pid reuse), its kept
 *     stat fd reads ESRCH (the process it was opened on is gone), or its comm changed
 *     (an exec).
 * Only matching processes have their stat read on each tick, through a kept-open fd
 * for the first PROCS_MAX_FDS of them. PSS runs on its own slower clock.
 *
 * CPU % is psutil's Process.cpu_percent: (utime+stime) delta in seconds over the
 * elapsed time of the ticks, 100 = one core. A process seen for the first time has
 * no baseline and adds 0, as the reference's first reading does; but when no match
 * has a baseline yet (the first tick, or only new processes) the watch's CPU % is
 * missing rather than a made-up 0.
 *
 * count: the matches listed and alive; a zombie is not counted (its command line
 * reads empty, so the reference's scan drops it too), a match whose stat is
 * unreadable or malformed is counted without values. vigil never matches itself
 * (under --root there is no self to skip). Ages count from boot: CLOCK_BOOTTIME,
 * or under --root that tree's proc/uptime, against starttime. */
#include "collect/procs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/procs_table.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/hot.h"

_Static_assert(VIGIL_MAX_WATCHES <= 32, "a watch is one bit of proc_entry.mask");

#define PROCS_STAT_MAX  1024 /* a stat line is ~300 bytes */
#define PROCS_SMAPS_MAX 4096 /* "Pss:" is on the third line */
#define PROCS_SETTLE_NS (1 * NSEC_PER_SEC)

/* One watch's sums over the matching processes of a host tick. */
struct watch_acc {
        unsigned count;    /* live (not zombie) matches */
        unsigned nstat;    /* of which the stat was read */
        bool cpu_measured; /* at least one match had a CPU baseline */
        double cpu_pct;
        double threads;
        uint64_t min_start;       /* oldest starttime, clock ticks */
        struct watch_procs procs; /* the pids, the oldest's pid and comm */
};

/* One watch's sums over the matching processes of a PSS tick. */
struct pss_acc {
        uint64_t kb;
        bool any;        /* a PSS was read */
        bool bad;        /* a PSS could not be read */
        bool first_done; /* the lowest live pid was seen */
        double first_bytes;
};

static uint32_t comm_hash(const char *s)
{
        uint32_t h = 2166136261u; /* FNV-1a */
        for (; *s; s++)
                h = (h ^ (uint8_t)*s) * 16777619u;
        return h;
}

/* Read a whole small file from offset 0 (NUL-terminated). Length or -errno.
 * A read that returns less than asked is the end: procfs makes these files whole in
 * one call (fs/seq_file.c, seq_read_iter, fills the buffer until the records run out;
 * fs/proc/base.c, proc_pid_cmdline_read, loops until the arguments end), so asking
 * again would cost a system call to learn what the short count already says. */
VIGIL_HOT static int read_fd(int fd, char *buf, size_t cap, bool *ret_full)
{
        size_t got = 0;
        while (got < cap - 1) {
                size_t want = cap - 1 - got;
                ssize_t n = pread(fd, buf + got, want, (off_t)got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                got += (size_t)n;
                if ((size_t)n < want)
                        break;
        }
        buf[got] = '\0';
        if (ret_full)
                *ret_full = got == cap - 1;
        return (int)got;
}

static int read_pid_file(struct procs_state *s, int32_t pid, const char *name, size_t cap,
                         bool *ret_full)
{
        int fd = procs_open_pid_file(s, pid, name);
        if (fd < 0)
                return fd;
        int n = read_fd(fd, s->buf, cap, ret_full);
        close(fd);
        return n;
}

/* The watches whose pattern the command line of pid contains (0: none or unreadable). */
static uint32_t read_mask(struct procs_state *s, int32_t pid)
{
        bool full;
        s->cmdline_reads++;
        int n = read_pid_file(s, pid, "cmdline", PROCS_CMDLINE_MAX + 1, &full);
        if (n <= 0)
                return 0;
        size_t len = procs_cmdline_normalize(s->buf, (size_t)n, full);
        uint32_t mask = 0, units = 0;
        for (unsigned w = 0; w < s->nwatches; w++) {
                if (watch_spec_unit(&s->opt->watches[w]))
                        units |= 1u << w;
                else if (procs_cmdline_match(s->buf, len, s->opt->watches[w].pattern))
                        mask |= 1u << w;
        }
        /* A unit's processes by their cgroup: read only when a watch names a unit. */
        if (units && (n = read_pid_file(s, pid, "cgroup", PROCS_CMDLINE_MAX + 1, NULL)) > 0)
                for (unsigned w = 0; w < s->nwatches; w++)
                        if ((units & (1u << w)) &&
                            procs_cgroup_in_unit(s->buf, (size_t)n,
                                                 watch_spec_unit(&s->opt->watches[w])))
                                mask |= 1u << w;
        return mask;
}

/* (Re)classify e from its command line; a match gets a measurement slot. */
static void classify(struct procs_state *s, struct proc_entry *e, int64_t now_ns)
{
        uint32_t mask = read_mask(s, e->pid);
        if (now_ns - e->first_seen_ns >= PROCS_SETTLE_NS)
                e->flags &= ~PE_CLASSIFY;
        if (mask && e->slot < 0)
                e->slot = procs_slot_acquire(s, e->pid);
        else if (!mask && e->slot >= 0)
                procs_slot_release(s, e);
        e->mask = mask;
}

/* The process behind e is not the one classified: start over as a new process. */
static void renew(struct procs_state *s, struct proc_entry *e, int64_t now_ns)
{
        if (e->slot >= 0)
                procs_slot_release(s, e);
        e->mask = 0;
        e->first_seen_ns = now_ns;
        e->flags |= PE_CLASSIFY;
        classify(s, e, now_ns);
}

/* Read and parse e's stat: 0, -EINVAL (malformed) or the read's -errno. */
static int read_stat(struct procs_state *s, const struct proc_entry *e, struct proc_stat *st)
{
        const struct proc_slot *sl = &s->slots[e->slot];
        int n;
        if (sl->fd >= 0) {
                /* One pread: procfs makes the stat line whole, and a second read at its
                 * end would only cost a syscall to learn it is the end. */
                n = (int)pread(sl->fd, s->buf, PROCS_STAT_MAX - 1, 0);
                n = n < 0 ? -errno : n;
        } else {
                n = read_pid_file(s, e->pid, "stat", PROCS_STAT_MAX, NULL);
        }
        if (n < 0)
                return n;
        return procs_parse_stat(s->buf, (size_t)n, st) < 0 ? -EINVAL : 0;
}

static bool gone(int r)
{
        return r == -ENOENT || r == -ESRCH;
}

/* CPU % of the slot's process since its last sample (NAN without a baseline), and
 * the new baseline. */
static double slot_cpu(const struct procs_state *s, struct proc_slot *sl,
                       const struct proc_stat *st, int64_t now_ns)
{
        uint64_t ticks = st->utime + st->stime;
        double pct = VAL_MISSING;
        if (sl->have_base && now_ns <= sl->base_ns)
                return VAL_MISSING; /* no time has passed: keep the older baseline */
        if (sl->have_base && ticks >= sl->cpu_ticks) {
                double cpu_s = (double)(ticks - sl->cpu_ticks) / (double)s->clk_tck;
                pct = cpu_s / ((double)(now_ns - sl->base_ns) / 1e9) * 100.0;
        }
        sl->have_base = true;
        sl->cpu_ticks = ticks;
        sl->base_ns = now_ns;
        return pct;
}

static void acc_add(struct procs_state *s, struct watch_acc *acc, const struct proc_entry *e,
                    const struct proc_stat *st, int64_t now_ns)
{
        struct proc_slot *sl = &s->slots[e->slot];
        double cpu = slot_cpu(s, sl, st, now_ns);
        sl->starttime = st->starttime;
        sl->have_start = true;
        for (unsigned w = 0; w < s->nwatches; w++) {
                if (!(e->mask & (1u << w)))
                        continue;
                struct watch_acc *a = &acc[w];
                a->count++;
                a->nstat++;
                a->threads += (double)st->num_threads;
                if (VAL_OK(cpu)) {
                        a->cpu_pct += cpu;
                        a->cpu_measured = true;
                }
                if (st->starttime < a->min_start) {
                        a->min_start = st->starttime;
                        a->procs.leader = e->pid;
                        a->procs.leader_start = st->starttime;
                        copy_bounded(a->procs.leader_comm, sizeof(a->procs.leader_comm), st->comm,
                                     strlen(st->comm));
                }
                if (a->procs.npids < WATCH_PIDS_MAX)
                        a->procs.pids[a->procs.npids++] = e->pid;
        }
}

/* Count pid in the watches of mask without values (unreadable stat, or no slot). */
static void acc_count_only(const struct procs_state *s, struct watch_acc *acc, uint32_t mask,
                           int32_t pid)
{
        for (unsigned w = 0; w < s->nwatches; w++) {
                if (!(mask & (1u << w)))
                        continue;
                acc[w].count++;
                if (acc[w].procs.npids < WATCH_PIDS_MAX)
                        acc[w].procs.pids[acc[w].procs.npids++] = pid;
        }
}

/* Has the pid's process changed since classification (reuse or exit)? */
static bool is_other_process(const struct procs_state *s, const struct proc_entry *e, int r,
                             const struct proc_stat *st)
{
        const struct proc_slot *sl = &s->slots[e->slot];
        if (gone(r))
                return true;
        return r == 0 && sl->have_start && st->starttime != sl->starttime;
}

/* Measure one matching process into the watches it matches. */
static void measure(struct procs_state *s, struct proc_entry *e, int64_t now_ns,
                    struct watch_acc *acc)
{
        struct proc_stat st;
        int r = read_stat(s, e, &st);
        if (is_other_process(s, e, r, &st)) {
                renew(s, e, now_ns);
                if (e->slot < 0) {
                        acc_count_only(s, acc, e->mask, e->pid);
                        return;
                }
                r = read_stat(s, e, &st);
        } else if (r == 0 && s->slots[e->slot].have_comm &&
                   s->slots[e->slot].comm_hash != comm_hash(st.comm)) {
                classify(s, e, now_ns); /* an exec: the command line may have changed */
                if (e->slot < 0) {
                        acc_count_only(s, acc, e->mask, e->pid);
                        return;
                }
        }
        if (gone(r))
                return; /* exited since the listing */
        if (r < 0) {
                acc_count_only(s, acc, e->mask, e->pid); /* present, values unreadable */
                return;
        }
        if (st.state == 'Z' || st.state == 'X')
                return; /* a zombie's command line reads empty: the reference drops it */
        s->slots[e->slot].comm_hash = comm_hash(st.comm);
        s->slots[e->slot].have_comm = true;
        acc_add(s, acc, e, &st, now_ns);
}

/* Seconds since boot, in the clock starttime counts from; NAN when unknown. */
static double boot_seconds(const struct procs_state *s)
{
        if (!s->rooted)
                return (double)now_boot_ns() / 1e9;
        char buf[64];
        if (s->uptime_fd < 0)
                return VAL_MISSING;
        int n = read_fd(s->uptime_fd, buf, sizeof(buf), NULL);
        double up;
        struct cursor c = cur_make(buf, n > 0 ? (size_t)n : 0);
        if (n <= 0 || cur_double(&c, &up) < 0)
                return VAL_MISSING;
        return up;
}

static void watch_missing(struct watch_frame *wf)
{
        wf->count = wf->cpu_pct = wf->threads = wf->oldest_age_s = VAL_MISSING;
        wf->pss_bytes = wf->first_pss_bytes = VAL_MISSING;
}

static void write_host(const struct procs_state *s, struct vigil_ctx *ctx,
                       const struct watch_acc *acc)
{
        double boot_s = boot_seconds(s);
        for (unsigned w = 0; w < s->nwatches; w++) {
                struct watch_frame *wf = &ctx->frame->watches[w];
                const struct watch_acc *a = &acc[w];
                struct watch_procs *wp = &ctx->watch_procs[w];
                *wp = a->procs;
                wp->count = a->count;
                wp->known = !s->table_full;
                if (s->table_full) {
                        watch_missing(wf); /* unlisted pids: no count can be trusted */
                        continue;
                }
                wf->count = a->count;
                if (a->count == 0) {
                        wf->cpu_pct = wf->threads = wf->oldest_age_s = VAL_MISSING;
                        wf->pss_bytes = wf->first_pss_bytes = VAL_MISSING;
                        continue;
                }
                wf->cpu_pct = a->cpu_measured ? a->cpu_pct : VAL_MISSING;
                wf->threads = a->nstat ? a->threads : VAL_MISSING;
                wf->oldest_age_s = VAL_MISSING;
                if (a->nstat && VAL_OK(boot_s)) {
                        double age = boot_s - (double)a->min_start / (double)s->clk_tck;
                        wf->oldest_age_s = age > 0 ? age : 0;
                }
        }
}

VIGIL_HOT static int sample_host(struct procs_state *s, struct vigil_ctx *ctx, int64_t now_ns)
{
        struct watch_acc acc[VIGIL_MAX_WATCHES];
        int r = procs_table_scan(s, now_ns);
        if (r < 0) {
                for (unsigned w = 0; w < s->nwatches; w++) {
                        watch_missing(&ctx->frame->watches[w]);
                        ctx->watch_procs[w].known = false;
                }
                return r;
        }
        s->scanned = true;
        memset(acc, 0, sizeof(acc));
        for (unsigned w = 0; w < s->nwatches; w++)
                acc[w].min_start = UINT64_MAX;
        for (size_t i = 0; i < s->nents; i++) {
                struct proc_entry *e = &s->ents[i];
                if (e->flags & PE_CLASSIFY)
                        classify(s, e, now_ns);
                if (!e->mask)
                        continue;
                if (e->slot < 0)
                        acc_count_only(s, acc, e->mask, e->pid);
                else
                        measure(s, e, now_ns, acc);
        }
        write_host(s, ctx, acc);
        return 0;
}

/* One pread of smaps_rollup: it is one seq_file record, given whole by the first read
 * (fs/seq_file.c, seq_read_iter), and "Pss:" is on its third line; a read at its end
 * would cost one more system call to learn that. Length or -errno. */
static int read_smaps(struct procs_state *s, int fd)
{
        ssize_t n = pread(fd, s->buf, PROCS_SMAPS_MAX - 1, 0);
        return n < 0 ? -errno : (int)n;
}

/* PSS of one process in kB: 0, or -errno (-ENOENT/-ESRCH: it exited).
 *
 * A measured process keeps its smaps_rollup open, as its stat, while fds are left
 * (PROCS_MAX_FDS): the path walk and permission check of an open cost more than the
 * read. The open fd holds the address space it was opened on (fs/proc/task_mmu.c,
 * smaps_rollup_open takes proc_mem_open's mm), and show_smaps_rollup answers -ESRCH
 * once that mm is gone: after an exec, or an exit. So a kept fd that fails or reads
 * nothing is closed and the file opened again, once: a live process is read through
 * its new address space, with the ptrace check done again; an exited one fails. */
static int read_pss(struct procs_state *s, struct proc_entry *e, uint64_t *ret_kb)
{
        struct proc_slot *sl = e->slot >= 0 ? &s->slots[e->slot] : NULL;
        int n = -EBADF;
        if (sl && sl->pss_fd >= 0) {
                n = read_smaps(s, sl->pss_fd);
                if (n <= 0)
                        procs_slot_drop_pss(s, sl);
        }
        if (n <= 0) {
                int fd = procs_open_pid_file(s, e->pid, "smaps_rollup");
                if (fd < 0)
                        return fd;
                n = read_smaps(s, fd);
                if (sl && n > 0 && s->nfds < PROCS_MAX_FDS) {
                        sl->pss_fd = fd;
                        s->nfds++;
                } else {
                        close(fd);
                }
        }
        if (n < 0)
                return n;
        s->buf[n] = '\0';
        int r = procs_parse_pss_kb(s->buf, (size_t)n, ret_kb);
        return r < 0 ? r : 0;
}

static void pss_add(const struct procs_state *s, struct pss_acc *acc, uint32_t mask, int r,
                    uint64_t kb)
{
        for (unsigned w = 0; w < s->nwatches; w++) {
                if (!(mask & (1u << w)))
                        continue;
                struct pss_acc *a = &acc[w];
                if (!a->first_done) {
                        a->first_done = true; /* entries are sorted: the lowest pid */
                        a->first_bytes = r == 0 ? (double)kb * 1024.0 : VAL_MISSING;
                }
                if (r < 0) {
                        a->bad = true;
                } else {
                        a->kb += kb;
                        a->any = true;
                }
        }
}

/* PSS of every match, on its own clock (smaps_rollup walks the page tables: ~1 ms for
 * a 520 MB process). A watch's total is missing when any of its matches' PSS could not
 * be read (no ptrace permission: EACCES), rather than a sum that looks like a drop;
 * first_pss_bytes is the lowest live pid's, the reference's "player". The values stay
 * in the frame until the next PSS tick; a host tick that finds no match clears them. */
VIGIL_HOT static void sample_pss(struct procs_state *s, struct vigil_ctx *ctx)
{
        struct pss_acc acc[VIGIL_MAX_WATCHES];
        unsigned unreadable = 0;
        int first_errno = 0;
        memset(acc, 0, sizeof(acc));
        for (size_t i = 0; i < s->nents; i++) {
                struct proc_entry *e = &s->ents[i];
                uint64_t kb = 0;
                if (!e->mask)
                        continue;
                int r = read_pss(s, e, &kb);
                if (gone(r))
                        continue; /* exited (or a zombie) since the listing */
                if (r < 0 && unreadable++ == 0)
                        first_errno = -r;
                pss_add(s, acc, e->mask, r, kb);
        }
        s->pss_unreadable = unreadable;
        s->pss_errno = first_errno;
        for (unsigned w = 0; w < s->nwatches; w++) {
                struct watch_frame *wf = &ctx->frame->watches[w];
                bool whole = acc[w].any && !acc[w].bad && !s->table_full;
                wf->pss_bytes = whole ? (double)acc[w].kb * 1024.0 : VAL_MISSING;
                wf->first_pss_bytes = acc[w].first_done ? acc[w].first_bytes : VAL_MISSING;
        }
}

VIGIL_HOT static int procs_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct procs_state *s = state;
        /* PSS from the first sample on, as the reference has it in every row: the
         * first read comes with the first host tick, then every --pss-interval. */
        bool pss = (t->due & VCLOCK_BIT(VCLOCK_PSS)) || !s->pss_read;
        int r = 0;
        if ((t->due & VCLOCK_BIT(VCLOCK_HOST)) || (pss && !s->scanned))
                r = sample_host(s, ctx, t->mono_ns);
        if (pss && r == 0) {
                sample_pss(s, ctx);
                s->pss_read = true;
        }
        if (s->pss_unreadable && !s->pss_warned &&
            (s->pss_errno == EACCES || s->pss_errno == EPERM)) {
                /* Said once: the PSS of another user's process needs ptrace rights. */
                vlog(LOG_WARN,
                     "watch: PSS of %u processes not readable (%s): run as root or grant "
                     "CAP_SYS_PTRACE; their watches' PSS is left empty",
                     s->pss_unreadable, strerror(s->pss_errno));
                s->pss_warned = true;
        }
        return r;
}

static bool root_is_set(const char *root)
{
        for (; *root; root++)
                if (*root != '/')
                        return true;
        return false;
}

static int open_proc(struct procs_state *s, const char *root)
{
        char path[4096];
        int r = path_join(path, sizeof(path), root, "/proc");
        if (r < 0)
                return r;
        s->proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (s->proc_fd < 0)
                return -errno;
        s->rooted = root_is_set(root);
        s->self_pid = s->rooted ? 0 : (int32_t)getpid();
        if (s->rooted)
                s->uptime_fd = openat(s->proc_fd, "uptime", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        return procs_table_open(s);
}

static void procs_fini(void *state)
{
        struct procs_state *s = state;
        if (!s)
                return;
        procs_table_close(s);
        if (s->uptime_fd >= 0)
                close(s->uptime_fd);
        if (s->proc_fd >= 0)
                close(s->proc_fd);
        free(s);
}

static int procs_init(struct vigil_ctx *ctx, void **ret_state)
{
        const struct vigil_options *opt = ctx->opt;
        ctx->frame->nwatches = 0;
        if (opt->nwatches == 0)
                return -ENODEV;
        long tck = sysconf(_SC_CLK_TCK);
        if (tck <= 0)
                return -EINVAL;
        struct procs_state *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->opt = opt;
        s->clk_tck = tck;
        s->proc_fd = s->uptime_fd = -1;
        s->free_slot = -1;
        s->nwatches = opt->nwatches < VIGIL_MAX_WATCHES ? opt->nwatches : VIGIL_MAX_WATCHES;
        int r = open_proc(s, opt->root);
        if (r < 0) {
                procs_fini(s);
                return r;
        }
        ctx->frame->nwatches = s->nwatches;
        for (unsigned w = 0; w < s->nwatches; w++) {
                struct watch_frame *wf = &ctx->frame->watches[w];
                snprintf(wf->name, sizeof(wf->name), "%s", opt->watches[w].name);
                watch_frame_clear(wf);
        }
        *ret_state = s;
        return 0;
}

uint64_t procs_cmdline_reads(const struct procs_state *s)
{
        return s->cmdline_reads;
}

unsigned procs_pss_unreadable(const struct procs_state *s, int *ret_errno)
{
        if (ret_errno)
                *ret_errno = s->pss_errno;
        return s->pss_unreadable;
}

const struct vigil_source vigil_source_procs = {
    .name = "procs",
    .clocks = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_PSS),
    .init = procs_init,
    .sample = procs_sample,
    .fini = procs_fini,
};
