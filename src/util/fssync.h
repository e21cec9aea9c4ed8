/* SPDX-License-Identifier: Apache-2.0 */
/* The logs' syncs of one interval issued together: one syncfs(2) of the log directory's
 * file system for every log file on it that got lines since the last sync, instead of
 * one fdatasync(2) per file. Whatever the number of files (a daily CSV per GPU), a sync
 * round costs one call and the same few waits (the data written out, one journal
 * commit, one cache flush), so the loop's wake-ups no longer grow with the GPUs.
 *
 * A syncfs also writes the file system's own metadata in place (sync_blockdev at its
 * end: bitmaps and inode tables the journal would write back later), which on a Pi's
 * SD card is more device writes than one fdatasync (17,920 against 11,520 an hour at a
 * sync a second, bench/RESULTS.md section 35): the round takes syncfs for
 * FSSYNC_MIN_FILES files or more (the host and a GPU, and up), and fdatasyncs a round of
 * one file (a Pi's host log), as before.
 *
 * The loss bound is the fdatasync's: a line written before the round is on the disk
 * when it ends. syncfs(2) gives that only where the file system's own sync commits and
 * flushes (Linux fs/sync.c, sync_filesystem(): the dirty inodes written and waited on,
 * then ->sync_fs(sb, 1), then the block device flushed; ext4_sync_fs() commits the
 * journal and issues the cache flush, XFS forces its log, btrfs commits its
 * transaction, f2fs writes a checkpoint). Elsewhere it falls back to fdatasync per
 * file: a FUSE file system's sync_fs sends nothing to its server unless that is
 * virtiofs (fs/fuse/inode.c, fuse_sync_fs(): fc->sync_fs), so a FUSE file's data
 * would stay in the server's cache; NFS, tmpfs and the rest keep today's calls too.
 * syncfs(2) reports write-back errors since Linux 5.8; a failed round falls back to
 * fdatasync per file, which says the error.
 *
 * What else is dirty on that file system is written too, and the loop waits for it: a
 * training job's checkpoint left in the page cache would be forced out once a sync
 * interval. So by default (FSSYNC_WHOLE_QUIET) a round takes syncfs only while the
 * whole machine holds little unwritten data: /proc/meminfo's Dirty plus Writeback (the
 * kernel's NR_FILE_DIRTY and NR_WRITEBACK, every file system together; fs/proc/meminfo.c)
 * at most FSSYNC_QUIET_MAX_KB, as the caller last told it (fssync_unwritten: the daemon
 * reads it before each periodic round, collect/proc_meminfo.h). Then the syncfs
 * writes at most that much that is not vigil's; otherwise the round fdatasyncs each
 * file, as FSSYNC_WHOLE_NEVER always does. FSSYNC_WHOLE_ALWAYS (--sync-whole-fs, for a
 * log directory on a file system of its own) does not look. Between the look and the
 * syncfs another program can dirty more; syncfs then writes what was dirty when it
 * started (sync_inodes_sb takes the inodes dirtied before it), once.
 *
 *   fssync_begin(s)                         once per sync round
 * A long sync interval on ext4 (data=ordered, barriers: a Pi's root file system) takes
 * light periodic rounds instead (util/fs_commit.h): every interval minus the journal's
 * commit interval and a second's margin (60 s - 5 s - 1 s), each file's data is written and waited for with
 * sync_file_range(2), which forces no journal commit; the journal commits the sizes
 * that make the rows part of their files within its commit interval, as ext4
 * documents, so a row is on the disk within the sync interval all the same. On an SD
 * card that saves the forced commit's writes (about two device writes a sync,
 * bench/RESULTS.md section 38). A light round leaves unsynced set: the next full round
 * (a snapshot, a day's rotation, the stop) still fdatasyncs the file.
 *
 * The kernel writes a log's data out by itself (the flusher writes an inode
 * dirty_expire_centisecs, 30 s by default, after it was dirtied: Documentation/
 * admin-guide/sysctl/vm.rst), so a light round at a fixed cadence mostly writes again a
 * tail block the kernel wrote moments ago, or would have soon. Where cachestat(2) works
 * (util/cachestat.h, Linux 6.5), light rounds are replaced by watch rounds, one each
 * tick before the logs get their lines: a file with lines pending for half its due time
 * is looked at (at most once a second), and when none of its pages is dirty or under
 * write-back the kernel has written every line before the look (a
 * sync_file_range(WAIT_AFTER), which writes nothing, then says whether that write-back
 * failed); only a file still pending at its due time (the light cadence less the
 * longest gap between two watch rounds) gets a sync_file_range of its own. The loss
 * bound is the light round's: a line's data is out within the due time, its size
 * committed within the commit interval after. On an SD card vigil then writes what a
 * program that never syncs writes (bench/RESULTS.md section 40).
 *
 *   fssync_file_wrote(&file)                after each line a log file gets
 *   fssync_begin(s), fssync_begin_periodic(s) or fssync_begin_watch(s, now)
 *   for each log file with lines:
 *     fssync_cover(s, dev, fd, &file)       taken into the round (0), or -1: another
 *       == 0 ? later : fdatasync(fd)        file system, so the caller syncs it now
 *   fssync_end(s)                           one syncfs, or an fdatasync per file taken;
 *                                           each one made durable has unsynced cleared
 */
#ifndef VIGIL_UTIL_FSSYNC_H
#define VIGIL_UTIL_FSSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/log.h"

/* A log file's sync state, kept by its writer (fssync_file_wrote after each line) and
 * handed to the rounds (fssync_cover). */
struct fssync_file {
        bool unsynced;      /* lines written since the last fdatasync or syncfs */
        int64_t pending_ns; /* CLOCK_MONOTONIC of the first line since the file's data was
                             * last known written out (a sync, a light round, a look that
                             * found the kernel had written it); 0: none */
        int64_t looked_ns;  /* the last look at its page cache (a watch round) */
};

/* A line was written to the file: unsynced, and pending from now unless it was. */
void fssync_file_wrote(struct fssync_file *f);

/* Files a round takes before it syncs the whole file system instead of each. */
#define FSSYNC_MIN_FILES 2
/* The machine's unwritten data (kB) up to which FSSYNC_WHOLE_QUIET takes syncfs: a few
 * milliseconds of writing on any disk, and more than 256 GPUs' rows of a second. */
#define FSSYNC_QUIET_MAX_KB 4096

/* When a round of FSSYNC_MIN_FILES or more may sync the whole file system. */
enum fssync_whole {
        FSSYNC_WHOLE_NEVER,  /* --sync-per-file: an fdatasync per file, always */
        FSSYNC_WHOLE_QUIET,  /* the default: while the machine has little unwritten data */
        FSSYNC_WHOLE_ALWAYS, /* --sync-whole-fs */
};
/* Files one round can take: a CSV for each of VIGIL_MAX_GPUS (core/frame.h, 256), the
 * host's, events.log; any more are synced by their callers. */
#define FSSYNC_MAX_FILES 260

struct fssync {
        int dirfd;                /* the log directory, held open for syncfs; -1: none */
        dev_t dev;                /* its file system's device */
        bool whole;               /* syncfs gives the loss bound there (fssync_whole_fs) */
        enum fssync_whole when;   /* and when a round takes it */
        long long unwritten_kb;   /* the machine's, as fssync_unwritten said; -1: unknown */
        bool round;               /* between fssync_begin and fssync_end */
        unsigned n;               /* files taken this round */
        int fd[FSSYNC_MAX_FILES]; /* theirs, and their states */
        struct fssync_file *file[FSSYNC_MAX_FILES];
        int err;                  /* -errno of the round's last failed sync, or 0 */
        unsigned long long calls; /* syncfs calls made */
        unsigned long long busy;  /* rounds that fdatasynced each file: the machine busy */
        int64_t commit_ns;        /* the file system's own commit bound (fs_commit.h); 0: none */
        int64_t every_ns;         /* between periodic rounds (fssync_cadence) */
        bool light;               /* periodic rounds write data only (fssync_cadence) */
        bool periodic;            /* this round is a periodic one */
        unsigned long long light_calls; /* sync_file_range calls that wrote data */
        bool watch;                     /* watch rounds replace the periodic ones */
        bool watching;                  /* this round is a watch round */
        int64_t now_ns;                 /* its time (CLOCK_MONOTONIC) */
        int64_t due_ns;                 /* a pending file's data is written by itself by then */
        unsigned long long looks;       /* cachestat calls of watch rounds */
        unsigned long long seen;        /* looks that found the kernel had written the file */
        unsigned long long errors;      /* failed syncs and write-backs */
        struct ratelimit said;          /* failures said once a minute (fssync_none sets it) */
};

/* True when syncfs(2) on a file system of this statfs(2) f_type commits and flushes,
 * so it is as durable as an fdatasync of each of its files: ext2/3/4, XFS, btrfs, f2fs
 * (linux/magic.h). */
bool fssync_whole_fs(unsigned long f_type);

/* Set s up for the file system of dir: opened and asked its type and, on ext4, its
 * commit bound here. With any error s is usable and never syncs the whole file system
 * (every file is synced on its own). The machine's unwritten data starts unknown (a busy
 * machine for FSSYNC_WHOLE_QUIET). Returns 0 or -errno. */
int fssync_open(struct fssync *s, const char *dir, enum fssync_whole when);
/* The machine's unwritten file data in kB (Dirty plus Writeback), or -1 when it could
 * not be read: what the next rounds of FSSYNC_WHOLE_QUIET decide on. s may be NULL. */
void fssync_unwritten(struct fssync *s, long long kb);
/* True when a round of FSSYNC_MIN_FILES or more could take syncfs now if the machine
 * were quiet: the caller need not read the machine's unwritten data otherwise. */
bool fssync_wants_unwritten(const struct fssync *s);
/* A closed s: never takes a file. */
void fssync_none(struct fssync *s);
void fssync_close(struct fssync *s);

/* What a light round leaves to the journal beyond its commit interval: the commit
 * timer's slack (a 5 s timer fires up to a few hundred ms late) and the commit's own
 * writes. */
#define FSSYNC_LIGHT_MARGIN_NS (1000LL * 1000 * 1000)

/* The time between periodic rounds for a loss bound of sync_ns: sync_ns minus the file
 * system's commit interval and FSSYNC_LIGHT_MARGIN_NS when that leaves at least the
 * commit interval (then periodic rounds are light), else sync_ns (full rounds). s may be
 * NULL. */
int64_t fssync_cadence(struct fssync *s, int64_t sync_ns);

/* The longest time between two watch rounds, for the loss bound of a light cadence:
 * once watch rounds can keep it (the cadence at least two seconds over gap_ns, and
 * periodic rounds light), they replace the periodic rounds until a look finds
 * cachestat(2) missing or refused. True when they do. s may be NULL. */
bool fssync_watch_setup(struct fssync *s, int64_t gap_ns);
/* True while watch rounds replace the periodic ones: the caller runs one each tick
 * before its logs get their lines, and no periodic round. */
bool fssync_watching(const struct fssync *s);
/* Start a watch round at now_ns (CLOCK_MONOTONIC). */
void fssync_begin_watch(struct fssync *s, int64_t now_ns);

/* Start a full sync round: every file taken is durable at its end. Accepts NULL (then
 * fssync_cover always says no). */
void fssync_begin(struct fssync *s);
/* Start a periodic round: light when fssync_cadence said so, else full. */
void fssync_begin_periodic(struct fssync *s);
/* A log file (fd, on device dev: its st_dev) got lines since its last sync, as
 * f->unsynced says: 0 when the round takes it (fssync_end syncs it and clears
 * f->unsynced once it is durable; fd and f must stay valid until then), -1 when the
 * caller must fdatasync it itself (no round, another file system, or the round is
 * full). s may be NULL. */
int fssync_cover(struct fssync *s, dev_t dev, int fd, struct fssync_file *f);
/* End the round: a light round writes each file's data (sync_file_range); a watch
 * round looks at the files pending long enough and writes those due; a full one makes
 * one syncfs when it took FSSYNC_MIN_FILES files or more on a file system where that is
 * durable and `when` allows it now, else (or when the syncfs failed) an fdatasync per
 * file. 0, or the -errno of the last failed sync or write-back (its file stays unsynced
 * and pending, for the next round; s->errors counts them). Accepts NULL. */
int fssync_end(struct fssync *s);

#endif
