/* SPDX-License-Identifier: Apache-2.0 */
/* Source: storage health, on the host clock. For the root file system and the log
 * directory's: free space (statvfs(2)), read-only state, and the time to full at the
 * last hour's rate; and the kernel-log lines that report storage errors (the kernel
 * log ring of collect/kmsg.h, drained by the kmsg source just before). Reads
 *
 *   /dev/mmcblk0p2 / ext4 rw,noatime 0 0        (ROOT/proc/self/mounts)
 *   / 4096 7499904 6021337 5694073               (ROOT/fs.statvfs, the test seam)
 *
 * The test seam: statvfs(2) of a fixture tree reports the file system the tree lives
 * on, so under a root prefix a file ROOT/fs.statvfs, when present at start, gives per
 * mount point "MOUNT f_frsize f_blocks f_bfree f_bavail" instead, re-read every sample.
 * Read-only comes from statvfs's ST_RDONLY, or under the seam from the mounts table.
 *
 * Frame fields: storage.fs[FS_ROOT], storage.fs[FS_LOG], storage.errors[],
 * storage.errors_new, storage.last_error. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "collect/kmsg.h"
#include "collect/shm.h"
#include "collect/storage_parse.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/hot.h"

_Static_assert(STORAGE_KINDS == STORAGE_ERR_COUNT, "frame.h STORAGE_KINDS");

#define MOUNTS_MAX      (64 * 1024)
#define SEAM_MAX        4096
#define MOUNTS_EVERY_NS (60 * NSEC_PER_SEC) /* statvfs gives ro every sample */
#define TREND_STEP_NS   (60 * NSEC_PER_SEC) /* a free-space point a minute */
#define TREND_POINTS    61                  /* an hour of them */
#define TREND_MIN_SPAN  (10 * 60.0)         /* 10 minutes before a time to full */

struct fs_watch {
        char path[PATH_MAX];   /* what statvfs(2) is asked about; "" = not watched */
        char lookup[PATH_MAX]; /* the path looked up in the mounts table */
        double t[TREND_POINTS], avail[TREND_POINTS];
        unsigned n; /* points, oldest first */
        int64_t last_point_ns;
};

struct storage_state {
        struct fs_watch fs[FS_COUNT];
        struct pfile mounts, seam;
        bool use_seam;
        int64_t mounts_read_ns; /* 0 = never */
        struct mount_entry ent[FS_COUNT];
        bool have_ent[FS_COUNT];
        bool first; /* no kernel-log scan yet */
        bool have_seq;
        uint64_t last_seq; /* the newest kernel-log record scanned */
        double errors[STORAGE_ERR_COUNT];
        char last_error[160];
        /* This sample's statvfs(2) answers, per watch: the log directory on the root's
         * mount (the mounts table says so) takes the root's instead of asking again. */
        struct shm_statvfs v[FS_COUNT];
        bool v_ok[FS_COUNT];
        int v_ro[FS_COUNT];
};

static bool has_root(const char *root)
{
        return root && root[0] != '\0' && strcmp(root, "/") != 0;
}

static void init_paths(struct storage_state *s, const struct vigil_ctx *ctx)
{
        const char *root = ctx->opt->root;
        snprintf(s->fs[FS_ROOT].lookup, sizeof(s->fs[FS_ROOT].lookup), "/");
        if (path_join(s->fs[FS_ROOT].path, sizeof(s->fs[FS_ROOT].path), root, "/") < 0)
                s->fs[FS_ROOT].path[0] = '\0';
        /* The log directory's; with --no-log, a --csv file's directory. */
        char csv_dir[PATH_MAX];
        const char *logs = ctx->log_dir;
        if (!logs && ctx->opt->csv_path[0]) {
                snprintf(csv_dir, sizeof(csv_dir), "%s", ctx->opt->csv_path);
                char *slash = strrchr(csv_dir, '/');
                if (slash)
                        *slash = '\0';
                else
                        snprintf(csv_dir, sizeof(csv_dir), ".");
                logs = csv_dir[0] ? csv_dir : "/";
        }
        if (!logs)
                return;
        char real[PATH_MAX];
        const char *dir = realpath(logs, real) ? real : logs;
        if (dir[0] != '/')
                return;
        snprintf(s->fs[FS_LOG].path, sizeof(s->fs[FS_LOG].path), "%s", dir);
        snprintf(s->fs[FS_LOG].lookup, sizeof(s->fs[FS_LOG].lookup), "%s", dir);
}

static int storage_init(struct vigil_ctx *ctx, void **ret_state)
{
        const char *root = ctx->opt->root;
        struct storage_state *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->mounts.fd = s->seam.fd = -1;
        init_paths(s, ctx);
        if (pfile_open(&s->mounts, root, "/proc/self/mounts", MOUNTS_MAX) < 0)
                (void)pfile_open(&s->mounts, root, "/proc/mounts", MOUNTS_MAX);
        if (has_root(root))
                s->use_seam = pfile_open(&s->seam, root, "/fs.statvfs", SEAM_MAX) == 0;
        s->first = true;
        *ret_state = s;
        return 0;
}

/* The seam's line for mount point m: 0 or -errno. */
static int seam_read(struct storage_state *s, const char *m, struct shm_statvfs *ret)
{
        int n = pfile_read(&s->seam);
        if (n < 0)
                return n;
        struct cursor c = cur_make(s->seam.buf, (size_t)n);
        while (!cur_eof(&c)) {
                const char *l, *w;
                size_t ll, wl;
                cur_line(&c, &l, &ll);
                struct cursor lc = cur_make(l, ll);
                if (cur_word(&lc, &w, &wl) < 0 || wl != strlen(m) || memcmp(w, m, wl) != 0)
                        continue;
                return shm_parse_override(lc.p, (size_t)(lc.end - lc.p), ret);
        }
        return -ENOENT;
}

static void read_mounts(struct storage_state *s, int64_t now_ns)
{
        bool due =
            s->use_seam || s->mounts_read_ns == 0 || now_ns - s->mounts_read_ns >= MOUNTS_EVERY_NS;
        if (!due || !pfile_is_open(&s->mounts))
                return;
        s->mounts_read_ns = now_ns;
        int n = pfile_read(&s->mounts);
        for (unsigned i = 0; i < FS_COUNT; i++)
                s->have_ent[i] =
                    n > 0 && s->fs[i].lookup[0] &&
                    storage_mount_find(s->mounts.buf, (size_t)n, s->fs[i].lookup, &s->ent[i]) == 0;
}

static void add_point(struct fs_watch *w, int64_t now_ns, double avail)
{
        if (w->n && now_ns - w->last_point_ns < TREND_STEP_NS)
                return;
        if (w->n == TREND_POINTS) {
                memmove(w->t, w->t + 1, (TREND_POINTS - 1) * sizeof(w->t[0]));
                memmove(w->avail, w->avail + 1, (TREND_POINTS - 1) * sizeof(w->avail[0]));
                w->n--;
        }
        w->t[w->n] = (double)now_ns / 1e9;
        w->avail[w->n++] = avail;
        w->last_point_ns = now_ns;
}

/* statvfs(2) of watch i into s->v[i] and s->v_ro[i]; false when it failed. The log
 * directory on the root file system's mount point takes the root's answer (only
 * without a root prefix: under one the mounts table is the tree's, not the paths'). */
static bool fs_statvfs(struct storage_state *s, unsigned i)
{
        s->v_ok[i] = false;
        if (i == FS_LOG && s->v_ok[FS_ROOT] && s->have_ent[FS_ROOT] && s->have_ent[FS_LOG] &&
            strcmp(s->fs[FS_ROOT].path, "/") == 0 &&
            strcmp(s->ent[FS_ROOT].mount, s->ent[FS_LOG].mount) == 0) {
                s->v[i] = s->v[FS_ROOT];
                s->v_ro[i] = s->v_ro[FS_ROOT];
                return s->v_ok[i] = true;
        }
        struct statvfs sv;
        if (statvfs(s->fs[i].path, &sv) < 0)
                return false;
        s->v[i] = (struct shm_statvfs){sv.f_frsize, sv.f_blocks, sv.f_bfree, sv.f_bavail};
        s->v_ro[i] = (sv.f_flag & ST_RDONLY) ? 1 : 0;
        return s->v_ok[i] = true;
}

static void sample_fs(struct storage_state *s, unsigned i, int64_t now_ns, struct fs_frame *out)
{
        struct fs_watch *w = &s->fs[i];
        if (!w->path[0])
                return;
        if (s->have_ent[i]) {
                const struct mount_entry *e = &s->ent[i];
                snprintf(out->mount, sizeof(out->mount), "%s", e->mount);
                snprintf(out->fstype, sizeof(out->fstype), "%s", e->fstype);
                snprintf(out->device, sizeof(out->device), "%s", e->device);
                out->readonly = e->readonly;
        }
        struct shm_statvfs v;
        if (s->use_seam) {
                if (!s->have_ent[i] || seam_read(s, s->ent[i].mount, &v) < 0)
                        return;
        } else {
                if (!fs_statvfs(s, i))
                        return;
                v = s->v[i];
                out->readonly = s->v_ro[i];
        }
        out->size_bytes = (double)v.blocks * (double)v.frsize;
        if (v.bavail <= v.blocks)
                out->avail_bytes = (double)v.bavail * (double)v.frsize;
        if (!VAL_OK(out->avail_bytes))
                return;
        add_point(w, now_ns, out->avail_bytes);
        out->full_in_s = storage_full_in_s(w->t, w->avail, w->n, TREND_MIN_SPAN);
}

/* The kernel-log records since the last scan: count those reporting storage errors. */
VIGIL_HOT static void scan_kmsg(struct storage_state *s, struct vigil_ctx *ctx,
                                struct storage_frame *out)
{
        struct kmsg *k = ctx->kmsg;
        if (!k || kmsg_error(k))
                return; /* unreadable: the counts stay missing */
        double fresh = 0;
        size_t i = s->have_seq ? kmsg_index_after(k, s->last_seq) : 0;
        struct kmsg_record rec;
        for (; kmsg_get(k, i, &rec); i++) {
                s->last_seq = rec.seq;
                s->have_seq = true;
                int kind = storage_classify(rec.prio, rec.text);
                if (kind < 0)
                        continue;
                s->errors[kind]++;
                fresh++;
                copy_bounded(s->last_error, sizeof(s->last_error), rec.text, rec.len);
        }
        for (unsigned e = 0; e < STORAGE_ERR_COUNT; e++)
                out->errors[e] = s->errors[e];
        /* The lines already there at start are counted, not new. */
        out->errors_new = s->first ? 0 : fresh;
        s->first = false;
        snprintf(out->last_error, sizeof(out->last_error), "%s", s->last_error);
}

VIGIL_HOT static int storage_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct storage_state *s = state;
        struct storage_frame *out = &ctx->frame->storage;
        storage_frame_clear(out);
        read_mounts(s, t->mono_ns);
        memset(s->v_ok, 0, sizeof(s->v_ok));
        for (unsigned i = 0; i < FS_COUNT; i++)
                sample_fs(s, i, t->mono_ns, &out->fs[i]);
        scan_kmsg(s, ctx, out);
        return 0;
}

static void storage_fini(void *state)
{
        struct storage_state *s = state;
        if (!s)
                return;
        pfile_close(&s->mounts);
        pfile_close(&s->seam);
        free(s);
}

const struct vigil_source vigil_source_storage = {
    .name = "storage",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = storage_init,
    .sample = storage_sample,
    .fini = storage_fini,
};
