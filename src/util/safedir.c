/* SPDX-License-Identifier: Apache-2.0 */
/* Log directories another user cannot redirect. See safedir.h. */
#include "util/safedir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int safedir_check_owner(const char *dir, char *why, size_t cap)
{
        struct stat st;
        if (stat(dir, &st) < 0)
                return -errno;
        if (!(st.st_mode & S_IWOTH) || st.st_uid == geteuid())
                return 0;
        snprintf(why, cap,
                 "log directory %s is writable by every user (mode %04o) and owned by uid %u, "
                 "not by vigil's user (uid %u): any user could plant a link there and make "
                 "vigil write wherever it points (logrotate refuses such a directory too); "
                 "run chmod o-w on it, or choose another --log-dir",
                 dir, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)geteuid());
        return -EPERM;
}

/* The check of path (named name inside parent for the message) by lstat. */
static int check_path(const char *path, const char *parent, const char *name, char *why, size_t cap)
{
        struct stat st;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISDIR(st.st_mode))
                return 0;
        if (S_ISLNK(st.st_mode)) {
                char to[PATH_MAX];
                ssize_t n = readlink(path, to, sizeof(to) - 1);
                to[n < 0 ? 0 : n] = '\0';
                snprintf(why, cap,
                         "%s/%s is a symbolic link (to %s): vigil does not follow links inside "
                         "its log directory, where it may write as root; remove the link (to "
                         "keep these files on another disk, point --log-dir there or mount the "
                         "disk on %s/%s)",
                         parent, name, to, parent, name);
                return -ELOOP;
        }
        snprintf(why, cap, "%s/%s is not a directory; move it away", parent, name);
        return -ENOTDIR;
}

int safedir_check_sub(const char *parent, const char *name, char *why, size_t cap)
{
        char path[PATH_MAX];
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, name) >= sizeof(path))
                return -ENAMETOOLONG;
        return check_path(path, parent, name, why, cap);
}

int safedir_make(const char *path, mode_t mode)
{
        char why[8];
        if (mkdir(path, mode) < 0 && errno != EEXIST)
                return -errno;
        return check_path(path, "", path, why, sizeof(why));
}
