/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: directories of the log directory that another user could redirect
 * (util/safedir.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safedir.h"

static char top[64];

static int setup(void **state)
{
        (void)state;
        snprintf(top, sizeof(top), "/tmp/vigil-safedir.XXXXXX");
        return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
        return system(cmd) == 0 ? 0 : -1;
}

static void path(char *out, size_t cap, const char *name)
{
        snprintf(out, cap, "%s/%s", top, name);
}

/* A directory made after start (a crash snapshot's, the post-mortem's): made, reused,
 * never followed when it is a link, refused when it is a file. */
static void test_make(void **state)
{
        (void)state;
        char d[128], other[128], link[128], file[128];
        path(d, sizeof(d), "crashes");
        assert_int_equal(safedir_make(d, 0750), 0);
        assert_int_equal(safedir_make(d, 0750), 0);
        path(other, sizeof(other), "other");
        assert_int_equal(mkdir(other, 0755), 0);
        path(link, sizeof(link), "postmortem");
        assert_int_equal(symlink(other, link), 0);
        assert_int_equal(safedir_make(link, 0750), -ELOOP);
        path(file, sizeof(file), "spikes");
        FILE *f = fopen(file, "w");
        assert_non_null(f);
        fclose(f);
        assert_int_equal(safedir_make(file, 0750), -ENOTDIR);
}

static void test_check_sub(void **state)
{
        (void)state;
        char why[512] = "", target[128], link[128];
        assert_int_equal(safedir_check_sub(top, "absent", why, sizeof(why)), 0);
        path(target, sizeof(target), "there");
        assert_int_equal(mkdir(target, 0755), 0);
        assert_int_equal(safedir_check_sub(top, "there", why, sizeof(why)), 0);
        path(link, sizeof(link), "crashes");
        assert_int_equal(symlink(target, link), 0);
        assert_int_equal(safedir_check_sub(top, "crashes", why, sizeof(why)), -ELOOP);
        assert_non_null(strstr(why, "crashes is a symbolic link (to "));
        assert_non_null(strstr(why, target));
}

static void test_owner(void **state)
{
        (void)state;
        char why[512] = "", d[128];
        path(d, sizeof(d), "logs");
        assert_int_equal(mkdir(d, 0755), 0);
        assert_int_equal(chmod(d, 0777), 0);
        assert_int_equal(safedir_check_owner(d, why, sizeof(why)), 0); /* our own */
        if (geteuid() != 0) {
                skip();
                return;
        }
        assert_int_equal(chown(d, 65534, 65534), 0);
        assert_int_equal(safedir_check_owner(d, why, sizeof(why)), -EPERM);
        assert_non_null(strstr(why, "writable by every user (mode 0777) and owned by uid 65534"));
        assert_int_equal(chmod(d, 0755), 0); /* not writable by all: another user's is fine */
        assert_int_equal(safedir_check_owner(d, why, sizeof(why)), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_make, setup, teardown),
            cmocka_unit_test_setup_teardown(test_check_sub, setup, teardown),
            cmocka_unit_test_setup_teardown(test_owner, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
