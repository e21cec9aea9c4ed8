/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's own messages: one line each on stderr ("vigil: ..."), which journald
 * captures under systemd. Parsers and collectors never log; the daemon decides. */
#ifndef VIGIL_UTIL_LOG_H
#define VIGIL_UTIL_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Messages above this level are dropped (default LOG_INFO). */
void log_set_level(enum log_level lvl);
void vlog(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Hold the messages (any thread) instead of writing them: while a full-screen view
 * owns the terminal that stderr is, a line written there would be drawn over the screen
 * (and one longer than the width wraps, or scrolls it at the bottom-right corner). At
 * most 64 KiB of lines are kept; those past it are counted. */
void log_hold(void);
/* Write the held lines (one line says how many were not kept) and stop holding. */
void log_release(void);

/* A rate limiter: at most one message per interval; the rest are counted. */
struct ratelimit {
        int64_t interval_ns;
        int64_t last_ns; /* 0: never */
        unsigned suppressed;
};

/* True when a message may be printed now (mono_ns from now_mono_ns()). On true,
 * *ret_suppressed (if given) gets how many were dropped since the last one. */
bool ratelimit_ok(struct ratelimit *rl, int64_t mono_ns, unsigned *ret_suppressed);

#endif
