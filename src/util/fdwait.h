/* SPDX-License-Identifier: Apache-2.0 */
/* Sleep until an absolute CLOCK_MONOTONIC deadline or until one descriptor is readable,
 * whichever comes first: the daemon's wait for its next tick beside the kernel log.
 *
 * Through epoll: the descriptor is registered once, so a wait whose descriptor stays
 * quiet calls no poll method at all (fs/eventpoll.c, ep_poll: an empty ready list is
 * slept on directly; a wake-up of the descriptor's wait queue puts it on the list,
 * ep_poll_callback). ppoll(2) instead calls the device's poll method, adds and removes
 * a wait-queue entry and takes the descriptor's reference at every wait (fs/select.c,
 * do_sys_poll), which for /dev/kmsg also reads the printk ring's descriptors
 * (kernel/printk/printk.c, devkmsg_poll). The timeout is a timespec (epoll_pwait2(2),
 * Linux 5.11), so deadlines keep their nanoseconds; a kernel without it (ENOSYS) is
 * waited on with ppoll(2) from then on, as before. Level-triggered: a descriptor that
 * stays readable is reported at every wait until it is drained. */
#ifndef VIGIL_UTIL_FDWAIT_H
#define VIGIL_UTIL_FDWAIT_H

#include <stdbool.h>
#include <stdint.h>

struct fdwait {
        int fd;    /* the descriptor waited on; -1: none (the deadline alone) */
        int ep;    /* the epoll instance; -1: ppoll(2) */
        bool gone; /* the descriptor hung up or is invalid: not waited on any more */
};

/* What ended a wait. */
enum fdwait_end {
        FDWAIT_DEADLINE, /* the deadline came; a descriptor watched had nothing to read */
        FDWAIT_PASSED,   /* the deadline had passed, or the descriptor is not watched (any
                          * more): nothing is known of it */
        FDWAIT_READY,    /* fd is readable, or has an error to read (POLLERR) */
        FDWAIT_SIGNAL,   /* a signal handler ran */
};

/* Set w up to wait on fd (-1: deadlines only). An epoll instance that cannot be made or
 * does not take fd leaves w on ppoll(2); nothing fails. fd stays the caller's. */
void fdwait_init(struct fdwait *w, int fd);

/* Sleep until deadline_ns (CLOCK_MONOTONIC) or until w's descriptor is readable. A
 * deadline already past returns FDWAIT_PASSED without looking at the descriptor (a
 * flood of input never holds a deadline back). A descriptor that hangs up or is closed
 * is dropped (fdwait_watching turns false; FDWAIT_PASSED) and the wait goes on with the
 * deadline alone from the next call, which returns FDWAIT_PASSED when it comes. */
enum fdwait_end fdwait_until(struct fdwait *w, int64_t deadline_ns);

/* Whether w still waits on its descriptor. */
bool fdwait_watching(const struct fdwait *w);

/* Stop waiting on the descriptor (the caller found it unreadable). */
void fdwait_drop(struct fdwait *w);

/* Free w's epoll instance; w waits on nothing afterwards. */
void fdwait_close(struct fdwait *w);

#endif
