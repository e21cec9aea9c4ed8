/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: read-only file mappings' pages dropped (util/textmap.c), read back from
 * /proc/self/smaps: every executable file mapping carries the "rr" flag (proc(5),
 * VmFlags: "rr - random read advise provided") and the code still runs after its pages
 * were dropped; a read-only data mapping's pages leave the resident set and read the
 * same after; a mapping with a page of its own keeps it. */
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

/* Whether line is a mapping's line of smaps, "start-end perms offset dev inode [path]":
 * it starts with a lowercase hex digit, its fields' lines ("Rss:", "VmFlags:") do not. */
static const char *mapping_perms(const char *line)
{
        const char *sp = strchr(line, ' ');
        bool mapping =
            strchr("0123456789abcdef", line[0]) && sp && memchr(line, '-', (size_t)(sp - line));
        return mapping ? sp + 1 : NULL;
}

/* Executable file mappings in /proc/self/smaps, and how many carry "rr". */
static void count_code(int *ret_code, int *ret_random)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        assert_non_null(f);
        char line[512];
        bool code = false;
        *ret_code = *ret_random = 0;
        while (fgets(line, sizeof(line), f)) {
                const char *perms = mapping_perms(line);
                if (perms) {
                        code = !strncmp(perms, "r-xp", 4) && strchr(line, '/');
                        *ret_code += code;
                } else if (code && !strncmp(line, "VmFlags:", 8)) {
                        *ret_random += strstr(line, " rr") != NULL;
                }
        }
        fclose(f);
}

/* Resident kB of the mapping that starts at p (smaps' Rss:); -1 when there is none. */
static long mapping_rss_kb(const void *p)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        assert_non_null(f);
        char line[512];
        bool ours = false;
        long kb = -1;
        while (fgets(line, sizeof(line), f)) {
                if (mapping_perms(line)) {
                        ours = strtoull(line, NULL, 16) == (uintptr_t)p;
                } else if (ours && sscanf(line, "Rss: %ld", &kb) == 1) {
                        break;
                }
        }
        fclose(f);
        return kb;
}

/* A file of n bytes of c, mapped with prot (private); the file is unlinked. */
static char *map_file(size_t n, char c, int prot)
{
        char path[] = "/tmp/vigil-textmap-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        char *buf = malloc(n);
        assert_non_null(buf);
        memset(buf, c, n);
        assert_int_equal(write(fd, buf, n), (ssize_t)n);
        free(buf);
        char *p = mmap(NULL, n, prot, MAP_PRIVATE, fd, 0);
        assert_true(p != MAP_FAILED);
        close(fd);
        unlink(path);
        return p;
}

static void test_code_advised_random(void **state)
{
        (void)state;
        int code, random;
        count_code(&code, &random);
        assert_true(code > 0);
        assert_int_equal(random, 0); /* nothing advised yet */
        int n = textmap_drop();
        assert_true(n >= code); /* the code, and the read-only data without own pages */
        count_code(&code, &random);
        assert_int_equal(random, code);
        /* The dropped code pages come back from the page cache: libc still runs. */
        char buf[32];
        snprintf(buf, sizeof(buf), "%d", 42);
        assert_string_equal(buf, "42");
}

/* A read-only data mapping read through is resident; dropped, it is not, and reads the
 * same after. */
static void test_read_only_data_dropped(void **state)
{
        (void)state;
        const size_t n = 64 * 1024;
        const char *p = map_file(n, 'd', PROT_READ);
        unsigned sum = 0;
        for (size_t i = 0; i < n; i += 4096)
                sum += (unsigned char)p[i];
        assert_int_equal(sum, 'd' * (n / 4096));
        assert_int_equal(mapping_rss_kb(p), 64);
        assert_true(textmap_drop() > 0);
        assert_int_equal(mapping_rss_kb(p), 0);
        assert_int_equal(p[n - 1], 'd');
        munmap((void *)p, n);
}

/* A mapping with a page of its own (as a library relocated in its text would have) is
 * advised but its pages are kept: the change stays; likewise read-only data. */
static void test_own_pages_kept(void **state)
{
        (void)state;
        const int prots[] = {PROT_READ | PROT_EXEC, PROT_READ};
        for (size_t i = 0; i < 2; i++) {
                char *p = map_file(4096, 'f', prots[i]);
                assert_int_equal(mprotect(p, 4096, PROT_READ | PROT_WRITE), 0);
                p[0] = 'm'; /* the process's own copy of the page */
                assert_int_equal(mprotect(p, 4096, prots[i]), 0);
                assert_true(textmap_drop() > 0);
                assert_int_equal(p[0], 'm');
                munmap(p, 4096);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_code_advised_random),
            cmocka_unit_test(test_read_only_data_dropped),
            cmocka_unit_test(test_own_pages_kept),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
