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
