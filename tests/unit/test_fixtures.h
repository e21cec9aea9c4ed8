/* SPDX-License-Identifier: Apache-2.0 */
/* Where the unit tests find tests/fixtures/csv: from the repository root (the usual
 * working directory) or from the binary's place in BUILD/tests/. */
#ifndef VIGIL_TESTS_UNIT_TEST_FIXTURES_H
#define VIGIL_TESTS_UNIT_TEST_FIXTURES_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The path of rel (a path from the repository root) into out[0..cap): rel itself from
 * the root, else from the binary's place in BUILD/tests/. */
static inline void test_repo_path(char *out, size_t cap, const char *rel)
{
        snprintf(out, cap, "%s", rel);
        if (access(rel, R_OK) == 0)
                return;
        char exe[PATH_MAX - 64];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n <= 0)
                return;
        exe[n] = '\0';
        for (int up = 0; up < 3; up++) {
                char *slash = strrchr(exe, '/');
                if (!slash)
                        return;
                *slash = '\0';
        }
        snprintf(out, cap, "%s/%s", exe, rel);
}

/* The directory into out[0..cap). */
static inline void test_csv_fixtures(char *out, size_t cap)
{
        test_repo_path(out, cap, "tests/fixtures/csv");
}

#endif
