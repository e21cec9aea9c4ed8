/* SPDX-License-Identifier: Apache-2.0 */
/* vigil's log directory is written by root on many machines (the unit runs it as a
 * dynamic user, `make install` users often as root). Two things would let another user
 * turn that into writes anywhere, and vigil refuses both, as logrotate(8) refuses a
 * log directory with "insecure permissions":
 *  - a log directory that every user may write, owned by another user than vigil's:
 *    anyone can put a symbolic link where vigil will create a file or directory;
 *  - a directory of vigil's inside it (crashes/, postmortem/, the remote-write queue)
 *    that is a symbolic link: vigil would create its files wherever it points.
 * (The remote-write queue's directory has been opened with O_NOFOLLOW from the start.) */
#ifndef VIGIL_UTIL_SAFEDIR_H
#define VIGIL_UTIL_SAFEDIR_H

#include <stddef.h>
#include <sys/types.h>

/* Whether dir is a log directory vigil may use: 0; -EPERM, with why in why (cap
 * bytes), when every user may write it and its owner is not this process's effective
 * user; -errno when it cannot be looked at. */
int safedir_check_owner(const char *dir, char *why, size_t cap);

/* Whether parent/name, a directory vigil makes inside its log directory, may be
 * written: 0 when it is a directory or absent; -ELOOP, with why, when it is a symbolic
 * link; -ENOTDIR, with why, when it is something else. */
int safedir_check_sub(const char *parent, const char *name, char *why, size_t cap);

/* mkdir(path, mode) unless it exists, then the same check as safedir_check_sub:
 * 0, -ELOOP (a symbolic link is never followed), -ENOTDIR, or mkdir's -errno. */
int safedir_make(const char *path, mode_t mode);

#endif
