/* SPDX-License-Identifier: Apache-2.0 */
/* Daemon messages. See log.h. */
#include "util/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOLD_MAX (64u * 1024u)

static enum log_level max_level = LOG_INFO;

/* The held lines (log_hold()): lock-protected, since the event thread logs too. */
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static bool holding;
static char *held;
static size_t held_len;
static unsigned long held_dropped;

static void put_line(const char *line, size_t len)
{
        pthread_mutex_lock(&hold_lock);
        if (holding) {
                if (!held)
                        held = malloc(HOLD_MAX);
                if (held && held_len + len <= HOLD_MAX) {
                        memcpy(held + held_len, line, len);
                        held_len += len;
                } else {
                        held_dropped++;
                }
                pthread_mutex_unlock(&hold_lock);
                return;
        }
        pthread_mutex_unlock(&hold_lock);
        /* One write per line, so lines from the event thread never interleave. */
        ssize_t w = write(STDERR_FILENO, line, len);
        (void)w;
}

void log_hold(void)
{
        pthread_mutex_lock(&hold_lock);
        holding = true;
        pthread_mutex_unlock(&hold_lock);
}

void log_release(void)
{
        pthread_mutex_lock(&hold_lock);
        for (size_t off = 0; off < held_len;) {
                ssize_t w = write(STDERR_FILENO, held + off, held_len - off);
                if (w <= 0)
                        break;
                off += (size_t)w;
        }
        if (held_dropped) {
                char line[160];
                int n = snprintf(line, sizeof(line),
                                 "vigil: %lu more messages while the live view was shown were "
                                 "not kept (events.log has the events)\n",
                                 held_dropped);
                ssize_t w = write(STDERR_FILENO, line, (size_t)n);
                (void)w;
        }
        free(held);
        held = NULL;
        held_len = 0;
        held_dropped = 0;
        holding = false;
        pthread_mutex_unlock(&hold_lock);
}

void log_set_level(enum log_level lvl)
{
        max_level = lvl;
}

void vlog(enum log_level lvl, const char *fmt, ...)
{
        char line[1024];
        if (lvl > max_level)
                return;
        static const char *const prefix[] = {"error: ", "warning: ", "", ""};
        int n = snprintf(line, sizeof(line), "vigil: %s", prefix[lvl]);
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
        va_end(ap);
        size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
        if (len > sizeof(line) - 2)
                len = sizeof(line) - 2;
        line[len++] = '\n';
        put_line(line, len);
}

bool ratelimit_ok(struct ratelimit *rl, int64_t mono_ns, unsigned *ret_suppressed)
{
        if (rl->last_ns != 0 && mono_ns - rl->last_ns < rl->interval_ns) {
                rl->suppressed++;
                return false;
        }
        if (ret_suppressed)
                *ret_suppressed = rl->suppressed;
        rl->suppressed = 0;
        rl->last_ns = mono_ns;
        return true;
}
