/* Daemon messages. See log.h. */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static enum log_level max_level = LOG_INFO;

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
        /* One write per line, so lines from the event thread never interleave. */
        ssize_t w = write(STDERR_FILENO, line, len);
        (void)w;
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
