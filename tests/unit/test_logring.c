/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the variable-length record ring (util/logring.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/logring.h"

/* Record number seq: n bytes of a pattern derived from seq. */
static void fill(unsigned char *p, size_t n, uint32_t seq)
{
        for (size_t i = 0; i < n; i++)
                p[i] = (unsigned char)(seq * 31 + i);
}

static void check(const unsigned char *p, size_t n, uint32_t seq)
{
        for (size_t i = 0; i < n; i++)
                assert_int_equal(p[i], (unsigned char)(seq * 31 + i));
}

/* Record i must be record number seq of n bytes. */
static void expect(const struct logring *r, size_t i, uint32_t seq, size_t n)
{
        size_t len = 0;
        const unsigned char *p = logring_get(r, i, &len);
        assert_non_null(p);
        assert_int_equal(len, n);
        check(p, len, seq);
}

static void test_init_bounds(void **state)
{
        (void)state;
        struct logring r;
        assert_int_equal(logring_init(&r, 100, 0), -EINVAL);
        assert_int_equal(logring_init(&r, 1, 4), 0);
        assert_int_equal(r.size, 64);
        assert_int_equal(logring_memory_bytes(&r), 64 + 4 * 8);
        assert_null(logring_push(&r, 65)); /* never fits */
        assert_non_null(logring_push(&r, 64));
        assert_int_equal(logring_count(&r), 1);
        assert_null(logring_get(&r, 1, NULL));
        logring_fini(&r);
        logring_fini(&r);
        assert_int_equal(logring_memory_bytes(&r), 0);
        assert_null(logring_push(&r, 1));
}

static void test_count_bound(void **state)
{
        (void)state;
        struct logring r;
        size_t len;
        assert_int_equal(logring_init(&r, 4096, 3), 0);
        for (uint32_t i = 0; i < 10; i++) {
                unsigned char *p = logring_push(&r, 10);
                assert_non_null(p);
                assert_int_equal((uintptr_t)p % 8, 0);
                fill(p, 10, i);
        }
        assert_int_equal(logring_count(&r), 3);
        for (uint32_t i = 0; i < 3; i++) {
                const unsigned char *p = logring_get(&r, i, &len);
                assert_int_equal(len, 10);
                check(p, len, 7 + i);
        }
        assert_int_equal(r.dropped, 7);
        logring_fini(&r);
}

static void test_byte_bound(void **state)
{
        (void)state;
        struct logring r;
        assert_int_equal(logring_init(&r, 256, 100), 0);
        /* 100-byte records take 104: two fit, a third wraps over the oldest. */
        for (uint32_t i = 0; i < 3; i++)
                fill(logring_push(&r, 100), 100, i);
        assert_int_equal(logring_count(&r), 2);
        expect(&r, 0, 1, 100);
        expect(&r, 1, 2, 100);
        /* Records are written in order: the next one goes after record 2 (at 104),
         * over record 1; the tail past 208 waits for the next wrap. */
        fill(logring_push(&r, 8), 8, 3);
        assert_int_equal(logring_count(&r), 2);
        expect(&r, 0, 2, 100);
        expect(&r, 1, 3, 8);
        /* A record as large as the arena empties it. */
        fill(logring_push(&r, 256), 256, 4);
        assert_int_equal(logring_count(&r), 1);
        expect(&r, 0, 4, 256);
        logring_fini(&r);
}

/* Random sizes against a model: the ring always holds the newest records, intact and
 * in order, and never less than the newest one. */
static void test_random_sizes(void **state)
{
        (void)state;
        struct logring r;
        size_t sizes[20000];
        unsigned seed = 12345;
        assert_int_equal(logring_init(&r, 2000, 40), 0);
        for (uint32_t i = 0; i < 20000; i++) {
                seed = seed * 1103515245 + 12345;
                sizes[i] = 1 + (seed >> 16) % 600;
                unsigned char *p = logring_push(&r, sizes[i]);
                assert_non_null(p);
                fill(p, sizes[i], i);
                size_t n = logring_count(&r), bytes = 0;
                assert_true(n >= 1 && n <= 40);
                for (size_t k = 0; k < n; k++) {
                        size_t len;
                        uint32_t seq = i - (uint32_t)(n - 1 - k);
                        const unsigned char *q = logring_get(&r, k, &len);
                        assert_int_equal(len, sizes[seq]);
                        check(q, len, seq);
                        bytes += (len + 7) & ~(size_t)7;
                }
                assert_true(bytes <= 2000);
        }
        assert_int_equal(r.dropped + logring_count(&r), 20000);
        logring_fini(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_init_bounds),
            cmocka_unit_test(test_count_bound),
            cmocka_unit_test(test_byte_bound),
            cmocka_unit_test(test_random_sizes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
