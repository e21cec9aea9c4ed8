/* SPDX-License-Identifier: Apache-2.0 */
/* Waiting for a deadline or a readable descriptor. See fdwait.h. */
#include "util/fdwait.h"

#include <errno.h>
#include <linux/time_types.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/hot.h"

void fdwait_init(struct fdwait *w, int fd)
{
        w->fd = fd;
        w->ep = -1;
        w->gone = fd < 0;
#ifdef SYS_epoll_pwait2
        if (fd < 0)
                return;
        w->ep = epoll_create1(EPOLL_CLOEXEC);
        struct epoll_event ev = {.events = EPOLLIN};
        if (w->ep >= 0 && epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
                close(w->ep); /* a regular file, say: ppoll(2) takes any descriptor */
                w->ep = -1;
        }
#endif
}

bool fdwait_watching(const struct fdwait *w)
{
        return !w->gone;
}

void fdwait_drop(struct fdwait *w)
{
        w->gone = true;
}

void fdwait_close(struct fdwait *w)
{
        if (w->ep >= 0)
                close(w->ep);
        w->ep = -1;
        w->gone = true;
}

/* One epoll wait of left ns: >= 0 as ppoll(2) would return, with *revents; -1 with
 * errno (ENOSYS: no epoll_pwait2 in this kernel). The timespec is the kernel's own
 * (64-bit seconds on every ABI, 32-bit ARM included): glibc's struct timespec there has
 * a 32-bit tv_sec unless _TIME_BITS=64. */
static int epoll_left(struct fdwait *w, int64_t left, short *revents)
{
#ifdef SYS_epoll_pwait2
        struct __kernel_timespec ts = {.tv_sec = left / NSEC_PER_SEC,
                                       .tv_nsec = left % NSEC_PER_SEC};
        struct epoll_event ev = {.events = 0};
        long n = syscall(SYS_epoll_pwait2, w->ep, &ev, 1, &ts, NULL, 0);
        if (n > 0)
                *revents = (short)(((ev.events & EPOLLIN) ? POLLIN : 0) |
                                   ((ev.events & EPOLLERR) ? POLLERR : 0) |
                                   ((ev.events & EPOLLHUP) ? POLLHUP : 0));
        return (int)n;
#else
        (void)w;
        (void)left;
        (void)revents;
        errno = ENOSYS;
        return -1;
#endif
}

VIGIL_HOT enum fdwait_end fdwait_until(struct fdwait *w, int64_t deadline_ns)
{
        if (w->gone) {
                struct timespec ts = {deadline_ns / NSEC_PER_SEC, deadline_ns % NSEC_PER_SEC};
                int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
                return r == EINTR ? FDWAIT_SIGNAL : FDWAIT_PASSED;
        }
        int64_t left = deadline_ns - now_mono_ns();
        if (left <= 0)
                return FDWAIT_PASSED;
        short revents = 0;
        int r = -1;
        if (w->ep >= 0) {
                r = epoll_left(w, left, &revents);
                if (r < 0 && errno == ENOSYS) {
                        close(w->ep); /* a kernel before 5.11: ppoll from now on */
                        w->ep = -1;
                }
        }
        if (w->ep < 0) {
                struct timespec ts = {left / NSEC_PER_SEC, left % NSEC_PER_SEC};
                struct pollfd p = {.fd = w->fd, .events = POLLIN};
                r = ppoll(&p, 1, &ts, NULL);
                revents = p.revents;
        }
        if (r < 0 && errno == EINTR)
                return FDWAIT_SIGNAL;
        if (r < 0) {
                w->gone = true; /* EBADF, ENOMEM: the deadline alone from now on */
                return FDWAIT_PASSED;
        }
        if (r == 0)
                return FDWAIT_DEADLINE;
        if (revents & (POLLIN | POLLERR))
                return FDWAIT_READY;
        w->gone = true; /* POLLNVAL, POLLHUP: back to the deadline alone */
        return FDWAIT_PASSED;
}
