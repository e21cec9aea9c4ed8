/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: code mappings advised MADV_RANDOM (util/textmap.c), read back from
 * /proc/self/smaps: every executable file mapping carries the "rr" flag (proc(5),
 * VmFlags: "rr - random read advise provided"), and the code still runs after its
 * pages were dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/textmap.h"

/* Executable file mappings in /proc/self/smaps, and how many carry "rr". */
static void count_code(int *ret_code, int *ret_random)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        assert_non_null(f);
        char line[512];
        bool code = false;
        *ret_code = *ret_random = 0;
        while (fgets(line, sizeof(line), f)) {
                /* A mapping's line, "start-end perms offset dev inode [path]", starts with
                 * a lowercase hex digit; its fields' lines ("Rss:", "VmFlags:") do not. */
                const char *sp = strchr(line, ' ');
                bool mapping = strchr("0123456789abcdef", line[0]) && sp &&
                               memchr(line, '-', (size_t)(sp - line));
                if (mapping) {
                        code = !strncmp(sp + 1, "r-xp", 4) && strchr(line, '/');
                        *ret_code += code;
                } else if (code && !strncmp(line, "VmFlags:", 8)) {
                        *ret_random += strstr(line, " rr") != NULL;
                }
        }
        fclose(f);
}

static void test_code_advised_random(void **state)
{
        (void)state;
        int code, random;
        count_code(&code, &random);
        assert_true(code > 0);
        assert_int_equal(random, 0); /* nothing advised yet */
        int n = textmap_random();
        assert_int_equal(n, code);
        count_code(&code, &random);
        assert_int_equal(random, code);
        /* The dropped code pages come back from the page cache: libc still runs. */
        char buf[32];
        snprintf(buf, sizeof(buf), "%d", 42);
        assert_string_equal(buf, "42");
}

/* A code mapping with a page of its own (as a library relocated in its text would
 * have) is advised but its pages are kept: the change stays. */
static void test_own_pages_kept(void **state)
{
        (void)state;
        char path[] = "/tmp/vigil-textmap-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        char page[4096];
        memset(page, 'f', sizeof(page));
        assert_int_equal(write(fd, page, sizeof(page)), (ssize_t)sizeof(page));
        char *p = mmap(NULL, sizeof(page), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
        assert_true(p != MAP_FAILED);
        close(fd);
        unlink(path);
        assert_int_equal(mprotect(p, sizeof(page), PROT_READ | PROT_WRITE), 0);
        p[0] = 'm'; /* the process's own copy of the page */
        assert_int_equal(mprotect(p, sizeof(page), PROT_READ | PROT_EXEC), 0);
        assert_true(textmap_random() > 0);
        assert_int_equal(p[0], 'm');
        munmap(p, sizeof(page));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_code_advised_random),
            cmocka_unit_test(test_own_pages_kept),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
