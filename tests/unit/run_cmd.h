/* SPDX-License-Identifier: Apache-2.0 */
/* A shell command for a unit test's fixture work (copying trees, changing files): it
 * must succeed. Include after cmocka.h. */
#ifndef VIGIL_TESTS_RUN_CMD_H
#define VIGIL_TESTS_RUN_CMD_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static inline void run_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run the command built from fmt (at most 4 kB) with system(3); assert it exits 0. */
static inline void run_cmd(const char *fmt, ...)
{
        char cmd[4096];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        assert_true(n > 0 && (size_t)n < sizeof(cmd));
        assert_int_equal(system(cmd), 0);
}

#endif
