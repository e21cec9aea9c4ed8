/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's ctx->move_loop, as unit tests of the stall guard (core/stall_guard.h)
 * stand it in: the guard thread records that it moved the loop, and ends. */
#ifndef VIGIL_TESTS_LOOP_MOVE_H
#define VIGIL_TESTS_LOOP_MOVE_H

#include <pthread.h>
#include <stdbool.h>

#include "core/vigil.h"

static struct {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool moved;
} loop_move = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static inline void loop_move_reset(void)
{
        pthread_mutex_lock(&loop_move.lock);
        loop_move.moved = false;
        pthread_mutex_unlock(&loop_move.lock);
}

/* Set as ctx->move_loop: says so and ends the guard thread. */
static inline void loop_move_fn(struct vigil_ctx *ctx)
{
        (void)ctx;
        pthread_mutex_lock(&loop_move.lock);
        loop_move.moved = true;
        pthread_cond_broadcast(&loop_move.cond);
        pthread_mutex_unlock(&loop_move.lock);
        pthread_exit(NULL);
}

/* Block until the guard has moved the loop. */
static inline void loop_move_wait(void)
{
        pthread_mutex_lock(&loop_move.lock);
        while (!loop_move.moved)
                pthread_cond_wait(&loop_move.cond, &loop_move.lock);
        pthread_mutex_unlock(&loop_move.lock);
}

#endif
