/* SPDX-License-Identifier: Apache-2.0 */
/* lazyfs: a FUSE file system for power-cut tests, after LazyFS (dsrhaslab/lazyfs): file
 * contents written through it stay in its memory until fsync(2)/fdatasync(2) writes
 * them to the backing directory; on command it "loses power" and forgets every byte
 * not synced. Metadata (create, mkdir, rename, unlink) goes to the backing directory at
 * once, as a journaling file system commits it: a file created and never synced comes
 * back empty.
 *
 *   lazyfs BACKING MOUNTPOINT [FUSE options]
 *
 * Commands, by opening a name at the root of the mount (it never exists):
 *   : >MNT/.powercut         forget everything not synced
 *   : >MNT/.powercut-torn    the same, but keep a random prefix of each file's unsynced
 *                            tail (part of it had reached the disk): torn rows
 * Single-threaded (run it with -s): no locks. Bounded by the memory of the test. */
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct vfile {
        char *path; /* in the mount, "/log/host-2026-12-03.csv" */
        char *data; /* the contents as the programs see them */
        size_t size, cap;
        size_t synced; /* bytes known to be on the backing file (a prefix of data) */
        struct vfile *next;
};

static char backing[4096];
static struct vfile *files;
static unsigned long long rng = 88172645463325252ULL;

static unsigned long long xorshift(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static void bpath(char *out, size_t cap, const char *path)
{
        snprintf(out, cap, "%s%s", backing, path);
}

static bool is_cmd(const char *path)
{
        return !strcmp(path, "/.powercut") || !strcmp(path, "/.powercut-torn");
}

static struct vfile *find(const char *path)
{
        for (struct vfile *f = files; f; f = f->next)
                if (!strcmp(f->path, path))
                        return f;
        return NULL;
}

static int reserve(struct vfile *f, size_t n)
{
        if (n <= f->cap)
                return 0;
        size_t cap = f->cap ? f->cap : 4096;
        while (cap < n)
                cap *= 2;
        char *d = realloc(f->data, cap);
        if (!d)
                return -ENOMEM;
        memset(d + f->cap, 0, cap - f->cap);
        f->data = d;
        f->cap = cap;
        return 0;
}

/* The file's contents in memory, read from the backing file the first time. */
static struct vfile *load(const char *path, int *err)
{
        char bp[8192];
        struct stat st;
        struct vfile *f = find(path);
        if (f)
                return f;
        bpath(bp, sizeof(bp), path);
        int fd = open(bp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0) {
                *err = -errno;
                if (fd >= 0)
                        close(fd);
                return NULL;
        }
        f = calloc(1, sizeof(*f));
        if (!f || !(f->path = strdup(path)) || reserve(f, (size_t)st.st_size + 1) < 0) {
                close(fd);
                *err = -ENOMEM;
                return NULL;
        }
        ssize_t n = pread(fd, f->data, (size_t)st.st_size, 0);
        close(fd);
        f->size = f->synced = n > 0 ? (size_t)n : 0;
        f->next = files;
        files = f;
        return f;
}

static void drop(const char *path)
{
        for (struct vfile **p = &files; *p; p = &(*p)->next) {
                if (strcmp((*p)->path, path))
                        continue;
                struct vfile *f = *p;
                *p = f->next;
                free(f->path);
                free(f->data);
                free(f);
                return;
        }
}

/* Write the first n bytes of f to its backing file and make them durable. */
static int persist(struct vfile *f, size_t n)
{
        char bp[8192];
        bpath(bp, sizeof(bp), f->path);
        int fd = open(bp, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = 0;
        if (pwrite(fd, f->data, n, 0) != (ssize_t)n || ftruncate(fd, (off_t)n) < 0 || fsync(fd) < 0)
                r = errno ? -errno : -EIO;
        close(fd);
        return r;
}

/* The power cut: memory is lost; with torn, part of each unsynced tail got out. */
static void power_cut(bool torn)
{
        while (files) {
                struct vfile *f = files;
                if (torn && f->size > f->synced)
                        persist(f, f->synced + (size_t)(xorshift() % (f->size - f->synced + 1)));
                drop(f->path);
        }
}

static void *lz_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
        (void)conn;
        cfg->use_ino = 0;
        cfg->entry_timeout = 0;
        cfg->attr_timeout = 0;
        cfg->negative_timeout = 0;
        cfg->direct_io = 1; /* no page cache in between: every read and write comes here */
        cfg->hard_remove = 1;
        return NULL;
}

/* Unmounted: what is still in memory is gone (nothing written back), and freed. */
static void lz_destroy(void *data)
{
        (void)data;
        while (files)
                drop(files->path);
}

static int lz_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
        char bp[8192];
        (void)fi;
        if (is_cmd(path)) {
                memset(st, 0, sizeof(*st));
                st->st_mode = S_IFREG | 0644;
                st->st_nlink = 1;
                return 0;
        }
        bpath(bp, sizeof(bp), path);
        if (lstat(bp, st) < 0)
                return -errno;
        struct vfile *f = find(path);
        if (f) {
                st->st_size = (off_t)f->size;
                st->st_blocks = (blkcnt_t)((f->size + 511) / 512);
        }
        return 0;
}

static int lz_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
        char bp[8192];
        (void)off, (void)fi, (void)flags;
        bpath(bp, sizeof(bp), path);
        DIR *d = opendir(bp);
        if (!d)
                return -errno;
        struct dirent *e;
        while ((e = readdir(d)))
                filler(buf, e->d_name, NULL, 0, 0);
        closedir(d);
        return 0;
}

static int lz_open(const char *path, struct fuse_file_info *fi)
{
        int err = 0;
        if (is_cmd(path)) {
                power_cut(!strcmp(path, "/.powercut-torn"));
                return 0;
        }
        struct vfile *f = load(path, &err);
        if (!f)
                return err;
        if (fi->flags & O_TRUNC)
                f->size = 0;
        fi->direct_io = 1;
        return 0;
}

static int lz_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
        char bp[8192];
        if (is_cmd(path))
                return lz_open(path, fi);
        bpath(bp, sizeof(bp), path);
        int fd = open(bp, O_WRONLY | O_CREAT | O_CLOEXEC, mode);
        if (fd < 0)
                return -errno;
        close(fd);
        return lz_open(path, fi);
}

static int lz_read(const char *path, char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
        int err = 0;
        (void)fi;
        struct vfile *f = path ? load(path, &err) : NULL;
        if (!f)
                return path ? err : -EIO;
        if ((size_t)off >= f->size)
                return 0;
        if (n > f->size - (size_t)off)
                n = f->size - (size_t)off;
        memcpy(buf, f->data + off, n);
        return (int)n;
}

static int lz_write(const char *path, const char *buf, size_t n, off_t off,
                    struct fuse_file_info *fi)
{
        int err = 0;
        if (path && is_cmd(path))
                return (int)n;
        struct vfile *f = path ? load(path, &err) : NULL;
        if (!f)
                return path ? err : -EIO;
        if (fi->flags & O_APPEND)
                off = (off_t)f->size;
        if (reserve(f, (size_t)off + n) < 0)
                return -ENOMEM;
        memcpy(f->data + off, buf, n);
        if ((size_t)off + n > f->size)
                f->size = (size_t)off + n;
        if ((size_t)off < f->synced)
                f->synced = (size_t)off; /* rewritten in place: not durable any more */
        return (int)n;
}

static int lz_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
        int err = 0;
        (void)fi;
        if (is_cmd(path))
                return 0;
        struct vfile *f = load(path, &err);
        if (!f)
                return err;
        if (reserve(f, (size_t)size + 1) < 0)
                return -ENOMEM;
        if ((size_t)size > f->size)
                memset(f->data + f->size, 0, (size_t)size - f->size);
        f->size = (size_t)size;
        if (f->synced > f->size)
                f->synced = f->size;
        return 0;
}

static int lz_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
        (void)datasync, (void)fi;
        struct vfile *f = path ? find(path) : NULL;
        if (!f)
                return 0;
        int r = persist(f, f->size);
        if (r == 0)
                f->synced = f->size;
        return r;
}

static int lz_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
        (void)path, (void)datasync, (void)fi;
        return 0; /* metadata is durable at once */
}

static int lz_unlink(const char *path)
{
        char bp[8192];
        bpath(bp, sizeof(bp), path);
        if (unlink(bp) < 0)
                return -errno;
        drop(path);
        return 0;
}

static int lz_rename(const char *from, const char *to, unsigned int flags)
{
        char a[8192], b[8192];
        if (flags)
                return -EINVAL;
        bpath(a, sizeof(a), from);
        bpath(b, sizeof(b), to);
        if (rename(a, b) < 0)
                return -errno;
        drop(to);
        struct vfile *f = find(from);
        if (f) {
                char *p = strdup(to);
                if (!p)
                        return -ENOMEM;
                free(f->path);
                f->path = p;
        }
        return 0;
}

static int lz_mkdir(const char *path, mode_t mode)
{
        char bp[8192];
        bpath(bp, sizeof(bp), path);
        return mkdir(bp, mode) < 0 ? -errno : 0;
}

static int lz_rmdir(const char *path)
{
        char bp[8192];
        bpath(bp, sizeof(bp), path);
        return rmdir(bp) < 0 ? -errno : 0;
}

static int lz_statfs(const char *path, struct statvfs *st)
{
        char bp[8192];
        bpath(bp, sizeof(bp), path);
        return statvfs(bp, st) < 0 ? -errno : 0;
}

static int lz_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
        char bp[8192];
        (void)fi;
        if (is_cmd(path))
                return 0;
        bpath(bp, sizeof(bp), path);
        return utimensat(AT_FDCWD, bp, tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int lz_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
        char bp[8192];
        (void)fi;
        bpath(bp, sizeof(bp), path);
        return chmod(bp, mode) < 0 ? -errno : 0;
}

static int lz_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
        char bp[8192];
        (void)fi;
        bpath(bp, sizeof(bp), path);
        return lchown(bp, uid, gid) < 0 ? -errno : 0;
}

static const struct fuse_operations ops = {
    .init = lz_init,
    .destroy = lz_destroy,
    .getattr = lz_getattr,
    .readdir = lz_readdir,
    .open = lz_open,
    .create = lz_create,
    .read = lz_read,
    .write = lz_write,
    .truncate = lz_truncate,
    .fsync = lz_fsync,
    .fsyncdir = lz_fsyncdir,
    .unlink = lz_unlink,
    .rename = lz_rename,
    .mkdir = lz_mkdir,
    .rmdir = lz_rmdir,
    .statfs = lz_statfs,
    .utimens = lz_utimens,
    .chmod = lz_chmod,
    .chown = lz_chown,
};

int main(int argc, char **argv)
{
        if (argc < 3 || !realpath(argv[1], backing)) {
                fprintf(stderr, "usage: lazyfs BACKING MOUNTPOINT [FUSE options]\n");
                return 2;
        }
        rng ^= (unsigned long long)getpid() << 20 ^ (unsigned long long)time(NULL);
        /* FUSE sees: lazyfs MOUNTPOINT [options] */
        argv[1] = argv[0];
        return fuse_main(argc - 1, argv + 1, &ops, NULL);
}
