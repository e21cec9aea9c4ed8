/* The logs' syncs of one interval issued together: one syncfs(2) of the log directory's
 * file system for every log file on it that got lines since the last sync, instead of
 * one fdatasync(2) per file. Whatever the number of files (a daily CSV per GPU), a sync
 * round costs one call and the same few waits (the data written out, one journal
 * commit, one cache flush), so the loop's wake-ups no longer grow with the GPUs.
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
 * fdatasync per file, which says the error. What else is dirty on that file system is
 * written too: the price of one call.
 *
 *   fssync_begin(s)                    once per sync round
 *   for each log file with lines:
 *     fssync_cover(s, dev) == 0 ?      the round's syncfs (made at the first) covers it
 *       done : fdatasync(fd)           another file system, or no syncfs here
 *   fssync_end(s)
 */
#ifndef VIGIL_UTIL_FSSYNC_H
#define VIGIL_UTIL_FSSYNC_H

#include <stdbool.h>
#include <sys/types.h>

struct fssync {
        int dirfd;                /* the log directory, held open for syncfs; -1: none */
        dev_t dev;                /* its file system's device */
        bool whole;               /* syncfs gives the loss bound there (fssync_whole_fs) */
        bool round;               /* between fssync_begin and fssync_end */
        bool done;                /* the round's syncfs was made */
        int err;                  /* its -errno, 0 after a success */
        unsigned long long calls; /* syncfs calls made */
};

/* True when syncfs(2) on a file system of this statfs(2) f_type commits and flushes,
 * so it is as durable as an fdatasync of each of its files: ext2/3/4, XFS, btrfs, f2fs
 * (linux/magic.h). */
bool fssync_whole_fs(unsigned long f_type);

/* Set s up for the file system of dir: opened and asked its type here. With any error
 * s is usable and never syncs the whole file system (every file is synced on its
 * own). Returns 0 or -errno. */
int fssync_open(struct fssync *s, const char *dir);
/* A closed s: never covers a file. */
void fssync_none(struct fssync *s);
void fssync_close(struct fssync *s);

/* Start a sync round; accepts NULL (then fssync_cover always says no). */
void fssync_begin(struct fssync *s);
/* A log file on device dev (its st_dev) got lines since its last sync: 0 when the
 * round's syncfs covers it (made now, at the first file that asks), -1 when the caller
 * must fdatasync the file itself (no round, another file system, not one where syncfs
 * is durable, or the syncfs failed). s may be NULL. */
int fssync_cover(struct fssync *s, dev_t dev);
void fssync_end(struct fssync *s);

#endif
