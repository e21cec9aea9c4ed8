/* SPDX-License-Identifier: Apache-2.0 */
/* Threads that never take the daemon's signals. */
#ifndef VIGIL_UTIL_THREAD_H
#define VIGIL_UTIL_THREAD_H

#include <pthread.h>

/* pthread_create with every signal blocked in the new thread, so signals reach only the
 * loop thread (and the one a handler passes them to). 0 or -errno; *ret as
 * pthread_create sets it. */
int vigil_thread_create(pthread_t *ret, void *(*fn)(void *), void *arg);

#endif
