/* Where the unit tests find tests/fixtures/csv: from the repository root (the usual
 * working directory) or from the binary's place in BUILD/tests/. */
#ifndef VIGIL_TESTS_UNIT_TEST_FIXTURES_H
#define VIGIL_TESTS_UNIT_TEST_FIXTURES_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The directory into out[0..cap): "" when it cannot be told. */
static inline void test_csv_fixtures(char *out, size_t cap)
{
        if (access("tests/fixtures/csv/host-2026-12-02.csv", R_OK) == 0) {
                snprintf(out, cap, "tests/fixtures/csv");
                return;
        }
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        out[0] = '\0';
        if (n <= 0)
                return;
        exe[n] = '\0';
        for (int up = 0; up < 3; up++) {
                char *slash = strrchr(exe, '/');
                if (!slash)
                        return;
                *slash = '\0';
        }
        snprintf(out, cap, "%s/tests/fixtures/csv", exe);
}

#endif
