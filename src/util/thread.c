/* SPDX-License-Identifier: Apache-2.0 */
/* Threads that never take the daemon's signals. See thread.h. */
#include "util/thread.h"

#include <signal.h>

int vigil_thread_create(pthread_t *ret, void *(*fn)(void *), void *arg)
{
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int r = pthread_create(ret, NULL, fn, arg);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return -r;
}
