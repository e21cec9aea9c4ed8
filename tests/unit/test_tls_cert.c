/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the HTTPS certificate's end of validity (web/tls_cert.c) and the
 * warning it gives. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/tls_cert.h"
#include "test_fixtures.h"
#include "util/pfile.h"

/* openssl req -x509 -newkey ec ... -days 1 -subj /CN=t: notAfter as a UTCTime,
 * 261207145958Z (2026-12-07 14:59:58 UTC). */
static const char utc_cert[] = "-----BEGIN CERTIFICATE-----\n"
                               "MIIBbDCCAROgAwIBAgIUSbdaHZb/wlo9vzb044Bzl36t32QwCgYIKoZIzj0EAwIw\n"
                               "DDEKMAgGA1UEAwwBdDAeFw0yNjEyMDYxNDU5NThaFw0yNjEyMDcxNDU5NThaMAwx\n"
                               "CjAIBgNVBAMMAXQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATdYExzAm7fr4KR\n"
                               "eXcnp+hBMCc7Qwis5vi/mk2UioUgDSLVisoXTTAekvxaEQBLvubmR5yXWFK1Acc7\n"
                               "1MAzH02ro1MwUTAdBgNVHQ4EFgQUd77azYu2QX67d+/4S9j2Zpr75fwwHwYDVR0j\n"
                               "BBgwFoAUd77azYu2QX67d+/4S9j2Zpr75fwwDwYDVR0TAQH/BAUwAwEB/zAKBggq\n"
                               "hkjOPQQDAgNHADBEAiAo4t8lQflNks738B+Hpkx+Wv1+bficBu5LGLJ1lQoCIgIg\n"
                               "YiSL+CQiRyldmKcoqFBayTjg8VqANDwz5L973Q8mJoc=\n"
                               "-----END CERTIFICATE-----\n";
#define UTC_CERT_END 1796655598LL

static void test_utc_time(void **state)
{
        (void)state;
        int64_t end = 0;
        assert_int_equal(tls_cert_not_after(utc_cert, strlen(utc_cert), &end), 0);
        assert_int_equal(end, UTC_CERT_END);
}

/* tests/fixtures/tls/cert.pem: valid 100 years, notAfter 21261108183019Z, a
 * GeneralizedTime (RFC 5280 uses it from 2050 on). */
static void test_generalized_time(void **state)
{
        (void)state;
        char path[4096], pem[8192];
        test_repo_path(path, sizeof(path), "tests/fixtures/tls/cert.pem");
        int n = read_file_at(NULL, path, pem, sizeof(pem));
        assert_true(n > 0);
        int64_t end = 0;
        assert_int_equal(tls_cert_not_after(pem, (size_t)n, &end), 0);
        assert_int_equal(end, 4949836219LL);
}

static void test_bad(void **state)
{
        (void)state;
        int64_t end = 0;
        const char *key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
        assert_int_equal(tls_cert_not_after(key, strlen(key), &end), -ENOENT);
        const char *b64 = "-----BEGIN CERTIFICATE-----\nMII*\n-----END CERTIFICATE-----\n";
        assert_int_equal(tls_cert_not_after(b64, strlen(b64), &end), -EINVAL);
        const char *open_end = "-----BEGIN CERTIFICATE-----\nMIIB\n";
        assert_int_equal(tls_cert_not_after(open_end, strlen(open_end), &end), -EINVAL);
        /* Cut after its validity's start: every prefix of the DER is refused. */
        char cut[sizeof(utc_cert)];
        const char *body = strchr(utc_cert, '\n') + 1;
        for (size_t keep = 4; keep < 64; keep += 4) {
                snprintf(cut, sizeof(cut),
                         "-----BEGIN CERTIFICATE-----\n%.*s\n-----END CERTIFICATE-----\n",
                         (int)keep, body);
                assert_int_equal(tls_cert_not_after(cut, strlen(cut), &end), -EINVAL);
        }
        assert_int_equal(end, 0);
}

static void test_warn(void **state)
{
        (void)state;
        assert_int_equal(tls_cert_warn("c.pem", UTC_CERT_END, UTC_CERT_END + 1), TLS_CERT_EXPIRED);
        assert_int_equal(tls_cert_warn("c.pem", UTC_CERT_END, UTC_CERT_END), TLS_CERT_EXPIRED);
        assert_int_equal(tls_cert_warn("c.pem", UTC_CERT_END, UTC_CERT_END - 86400),
                         TLS_CERT_EXPIRING);
        assert_int_equal(
            tls_cert_warn("c.pem", UTC_CERT_END, UTC_CERT_END - TLS_CERT_WARN_DAYS * 86400LL),
            TLS_CERT_OK);
}

/* Said at start, then once a day of the monotonic clock, not at every tick. */
static void test_watch_daily(void **state)
{
        (void)state;
        struct tls_cert_watch w;
        const int64_t day = TLS_CERT_CHECK_NS, t0 = 5000000000LL;
        assert_int_equal(
            tls_cert_watch_start(&w, "c.pem", utc_cert, strlen(utc_cert), t0, UTC_CERT_END + 10),
            0);
        assert_int_equal(w.warnings, 1); /* expired at start */
        for (int64_t t = t0; t < t0 + day; t += day / 100)
                tls_cert_watch_tick(&w, t, UTC_CERT_END + 10 + (t - t0) / 1000000000LL);
        assert_int_equal(w.warnings, 1);
        tls_cert_watch_tick(&w, t0 + day, UTC_CERT_END + 86410);
        assert_int_equal(w.warnings, 2);
        tls_cert_watch_tick(&w, t0 + day + 1, UTC_CERT_END + 86410);
        assert_int_equal(w.warnings, 2);
        tls_cert_watch_tick(&w, t0 + 2 * day, UTC_CERT_END + 2 * 86400);
        assert_int_equal(w.warnings, 3);
        /* A fine certificate: looked at daily, nothing said. */
        assert_int_equal(tls_cert_watch_start(&w, "c.pem", utc_cert, strlen(utc_cert), t0,
                                              UTC_CERT_END - 30 * 86400LL),
                         0);
        tls_cert_watch_tick(&w, t0 + day, UTC_CERT_END - 29 * 86400LL);
        assert_int_equal(w.warnings, 0);
        /* Nothing watched: nothing done. */
        const char *key = "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n";
        assert_int_equal(tls_cert_watch_start(&w, "k.pem", key, strlen(key), t0, 0), -ENOENT);
        tls_cert_watch_tick(&w, t0 + day, UTC_CERT_END + 1);
        assert_int_equal(w.warnings, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_utc_time),    cmocka_unit_test(test_generalized_time),
            cmocka_unit_test(test_bad),         cmocka_unit_test(test_warn),
            cmocka_unit_test(test_watch_daily),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
