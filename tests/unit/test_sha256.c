/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: SHA-256 (util/sha256.c) on the FIPS 180-4 examples and a long input fed
 * in uneven pieces; the constant-time comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "util/sha256.h"

static void hex(const unsigned char *d, char out[65])
{
        for (unsigned i = 0; i < SHA256_DIGEST_LEN; i++)
                snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void check(const char *msg, size_t n, size_t piece, const char *want)
{
        struct sha256 s;
        unsigned char d[SHA256_DIGEST_LEN];
        char got[65];
        sha256_init(&s);
        for (size_t i = 0; i < n; i += piece)
                sha256_update(&s, msg + i, n - i < piece ? n - i : piece);
        sha256_final(&s, d);
        hex(d, got);
        assert_string_equal(got, want);
}

static void test_vectors(void **state)
{
        (void)state;
        check("", 0, 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        check("abc", 3, 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        check(two, strlen(two), 7,
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        char a[1000];
        memset(a, 'a', sizeof(a));
        for (size_t piece = 1; piece <= 130; piece += 43)
                check(a, sizeof(a), piece,
                      "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
        /* 55, 56 and 64 bytes: the padding edge cases. */
        check(a, 55, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
        check(a, 56, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
        check(a, 64, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

static void test_ct_equal(void **state)
{
        (void)state;
        assert_true(ct_equal("abcd", "abcd", 4));
        assert_false(ct_equal("abcd", "abce", 4));
        assert_false(ct_equal("xbcd", "abcd", 4));
        assert_true(ct_equal("a", "b", 0));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_vectors),
            cmocka_unit_test(test_ct_equal),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
