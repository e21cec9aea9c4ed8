/* SPDX-License-Identifier: Apache-2.0 */
/* A sysfs object's attribute files kept open. See sysfs_obj.h. */
#include "collect/sysfs_obj.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/attr.h"
#include "util/pfile.h"
#include "util/hot.h"

int sysfs_obj_init(struct sysfs_obj *o, const char *root, const char *dir, const char *const *names,
                   unsigned n)
{
        memset(o, 0, sizeof(*o));
        o->root = root ? root : "";
        o->names = names;
        o->n = n < SYSFS_OBJ_MAX_FILES ? n : SYSFS_OBJ_MAX_FILES;
        for (unsigned i = 0; i < SYSFS_OBJ_MAX_FILES; i++) {
                o->fd[i] = -1;
                o->err[i] = -EBADF;
        }
        size_t len = strlen(dir);
        if (len >= sizeof(o->dir))
                return -ENAMETOOLONG;
        memcpy(o->dir, dir, len + 1);
        return 0;
}

void sysfs_obj_path(const struct sysfs_obj *o, unsigned i, char *out, size_t cap)
{
        char rel[sizeof(o->dir) + 260];
        snprintf(rel, sizeof(rel), "%s/%s", o->dir, i < o->n ? o->names[i] : "?");
        if (path_join(out, cap, o->root, rel) < 0 && cap)
                out[0] = '\0';
}

static int open_one(struct sysfs_obj *o, unsigned i)
{
        char rel[sizeof(o->dir) + 260];
        snprintf(rel, sizeof(rel), "%s/%s", o->dir, o->names[i]);
        int fd = attr_open(o->root, rel);
        o->fd[i] = fd < 0 ? -1 : fd;
        o->err[i] = fd < 0 ? fd : 0;
        return fd;
}

unsigned sysfs_obj_open(struct sysfs_obj *o)
{
        unsigned nopen = 0;
        o->retry = false;
        for (unsigned i = 0; i < o->n; i++) {
                if (o->fd[i] < 0 && open_one(o, i) < 0)
                        o->retry = true;
                nopen += o->fd[i] >= 0;
        }
        return nopen;
}

VIGIL_HOT void sysfs_obj_retry(struct sysfs_obj *o)
{
        if (!o->retry)
                return;
        sysfs_obj_open(o);
        o->retry = false;
}

/* Whether a read's error says the object behind the descriptor went away: kernfs
 * answers ENODEV for a removed node (fs/kernfs/file.c), procfs ESRCH for a task that
 * exited (fs/proc/base.c); ENOENT, ENXIO and ESTALE as vigil's other sysfs readers
 * take them (collect/sys_thermal.c). */
static bool said_gone(int err)
{
        return err == -ENODEV || err == -ENOENT || err == -ENXIO || err == -ESTALE || err == -ESRCH;
}

VIGIL_HOT int sysfs_obj_read(struct sysfs_obj *o, unsigned i, char *buf, size_t cap)
{
        if (i >= o->n)
                return -EINVAL;
        if (o->fd[i] < 0) {
                if (cap)
                        buf[0] = '\0';
                return o->err[i];
        }
        int n = attr_read(o->fd[i], buf, cap);
        if (n >= 0 || !said_gone(n))
                return n;
        close(o->fd[i]);
        int fd = open_one(o, i);
        if (fd < 0) {
                o->gone = true;
                return fd;
        }
        return attr_read(fd, buf, cap);
}

VIGIL_HOT bool sysfs_obj_skip_empty(struct sysfs_obj *o, unsigned i, int n)
{
        unsigned bit = 1u << i, was_empty = o->empty & bit;
        if (n < 0)
                return false;
        o->empty = n == 0 ? o->empty | bit : o->empty & ~bit;
        return n == 0 && !was_empty;
}

void sysfs_obj_close(struct sysfs_obj *o)
{
        for (unsigned i = 0; i < o->n && i < SYSFS_OBJ_MAX_FILES; i++) {
                if (o->fd[i] >= 0)
                        close(o->fd[i]);
                o->fd[i] = -1;
        }
}
