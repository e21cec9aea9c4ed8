/* SPDX-License-Identifier: Apache-2.0 */
/* The instance lock: DIR/vigil.pid, held with flock(2) for the daemon's lifetime and
 * holding its pid. The kernel drops the lock when the process dies, so a lock left by
 * a killed instance is taken over cleanly. */
#ifndef VIGIL_CORE_LOCK_H
#define VIGIL_CORE_LOCK_H

#include <sys/types.h>

/* Take the lock in dir. Returns the lock fd (keep it open), -EWOULDBLOCK when another
 * live instance holds it (its pid in *ret_owner when readable, else 0), or -errno. */
int lock_acquire(const char *dir, pid_t *ret_owner);
/* Read the pid of the instance holding the lock in dir. 0 or -errno (-ESRCH: none). */
int lock_owner(const char *dir, pid_t *ret_pid);

#endif
