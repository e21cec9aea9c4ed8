/* A small stand-in for cmocka, so unit tests that need nothing else can be built with a
 * cross compiler and run under qemu-user without the target architecture's libcmocka
 * (scripts/cross-test.sh). It implements the subset of cmocka's API those tests use,
 * with the same output lines; a failed assertion ends the test through longjmp. */
#ifndef VIGIL_TESTS_CROSS_CMOCKA_H
#define VIGIL_TESTS_CROSS_CMOCKA_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*CMUnitTestFunction)(void **state);
typedef int (*CMFixtureFunction)(void **state);

struct CMUnitTest {
        const char *name;
        CMUnitTestFunction test_func;
        CMFixtureFunction setup_func;
        CMFixtureFunction teardown_func;
        void *initial_state;
};

#define cmocka_unit_test(f)                                                                        \
        {                                                                                          \
#f, f, NULL, NULL, NULL                                                            \
        }
#define cmocka_unit_test_setup_teardown(f, setup, teardown)                                        \
        {                                                                                          \
#f, f, setup, teardown, NULL                                                       \
        }

static jmp_buf cmshim_jmp;

__attribute__((unused, noreturn)) static void cmshim_fail(const char *file, int line,
                                                          const char *what)
{
        printf("[  ERROR   ] --- %s\n[   LINE   ] --- %s:%d: error: Failure!\n", what, file, line);
        longjmp(cmshim_jmp, 1);
}

__attribute__((unused)) static void cmshim_int_equal(uintmax_t a, uintmax_t b, int want_equal,
                                                     const char *file, int line)
{
        char msg[96];
        if ((a == b) == (want_equal != 0))
                return;
        snprintf(msg, sizeof(msg), "%#" PRIxMAX " %s %#" PRIxMAX, a, want_equal ? "!=" : "==", b);
        cmshim_fail(file, line, msg);
}

__attribute__((unused)) static void cmshim_string_equal(const char *a, const char *b,
                                                        const char *file, int line)
{
        if (a && b && strcmp(a, b) == 0)
                return;
        printf("[  ERROR   ] --- \"%s\" != \"%s\"\n", a ? a : "(null)", b ? b : "(null)");
        cmshim_fail(file, line, "strings differ");
}

#define assert_true(c)                                                                             \
        do {                                                                                       \
                if (!(c))                                                                          \
                        cmshim_fail(__FILE__, __LINE__, #c);                                       \
        } while (0)
#define assert_false(c)    assert_true(!(c))
#define assert_null(p)     assert_true((p) == NULL)
#define assert_non_null(p) assert_true((p) != NULL)
#define assert_int_equal(a, b)                                                                     \
        cmshim_int_equal((uintmax_t)(a), (uintmax_t)(b), 1, __FILE__, __LINE__)
#define assert_int_not_equal(a, b)                                                                 \
        cmshim_int_equal((uintmax_t)(a), (uintmax_t)(b), 0, __FILE__, __LINE__)
#define assert_string_equal(a, b)    cmshim_string_equal((a), (b), __FILE__, __LINE__)
#define assert_memory_equal(a, b, n) assert_true(memcmp((a), (b), (n)) == 0)

/* Run one test with its fixtures; 0 when it passed. */
__attribute__((unused)) static int cmshim_run_one(const struct CMUnitTest *t)
{
        void *state = t->initial_state;
        printf("[ RUN      ] %s\n", t->name);
        if (t->setup_func && t->setup_func(&state) != 0) {
                printf("[  ERROR   ] %s: setup failed\n[  FAILED  ] %s\n", t->name, t->name);
                return 1;
        }
        volatile int failed = 0;
        if (setjmp(cmshim_jmp) == 0)
                t->test_func(&state);
        else
                failed = 1;
        if (t->teardown_func && t->teardown_func(&state) != 0)
                failed = 1;
        printf(failed ? "[  FAILED  ] %s\n" : "[       OK ] %s\n", t->name);
        return failed;
}

__attribute__((unused)) static int cmshim_run_group(const struct CMUnitTest *tests, size_t n,
                                                    CMFixtureFunction setup,
                                                    CMFixtureFunction teardown)
{
        void *state = NULL;
        size_t failed = 0;
        printf("[==========] Running %zu test(s).\n", n);
        if (setup && setup(&state) != 0) {
                printf("[  FAILED  ] GROUP SETUP\n");
                return 1;
        }
        for (size_t i = 0; i < n; i++)
                failed += (size_t)cmshim_run_one(&tests[i]);
        if (teardown && teardown(&state) != 0) {
                printf("[  FAILED  ] GROUP TEARDOWN\n");
                failed++;
        }
        printf("[==========] %zu test(s) run.\n[  PASSED  ] %zu test(s).\n", n, n - failed);
        if (failed)
                printf("[  FAILED  ] %zu test(s)\n", failed);
        fflush(stdout);
        return failed ? 1 : 0;
}

#define cmocka_run_group_tests(tests, setup, teardown)                                             \
        cmshim_run_group((tests), sizeof(tests) / sizeof((tests)[0]), (setup), (teardown))

#endif
