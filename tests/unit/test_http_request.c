/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the plain transport's request-head parser (web/http_request.c): the
 * request line, header fields, keep-alive, bodies, the path and day= argument,
 * Basic credentials, and every refusal with its status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "web/http_request.h"

static char buf[8192];
static struct http_parsed req;
static size_t used;

/* Parse text with a buffer of cap bytes (0: sizeof(buf)). */
static int parse_cap(const char *text, size_t cap)
{
        size_t n = strlen(text);
        assert_true(n < sizeof(buf));
        memcpy(buf, text, n + 1);
        used = 0;
        return http_request_parse(buf, n, cap ? cap : sizeof(buf), &req, &used);
}

static int parse(const char *text)
{
        return parse_cap(text, 0);
}

static void test_get(void **state)
{
        (void)state;
        const char *t = "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding:  gzip, br \r\n\r\n";
        assert_int_equal(parse(t), 1);
        assert_int_equal(used, strlen(t));
        assert_string_equal(req.rq.method, "GET");
        assert_string_equal(req.rq.path, "/metrics");
        assert_null(req.rq.day);
        assert_string_equal(req.rq.accept_encoding, "gzip, br");
        assert_null(req.rq.user);
        assert_false(req.rq.has_body);
        assert_true(req.keep_alive);
        /* A bare LF ends lines too; header names are case-insensitive. */
        assert_int_equal(parse("HEAD / HTTP/1.1\nhOsT: x\nconnection: Close\n\n"), 1);
        assert_string_equal(req.rq.method, "HEAD");
        assert_false(req.keep_alive);
}

static void test_keep_alive(void **state)
{
        (void)state;
        assert_int_equal(parse("GET / HTTP/1.0\r\n\r\n"), 1);
        assert_false(req.keep_alive);
        assert_true(req.http10);
        assert_int_equal(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), 1);
        assert_true(req.keep_alive);
        assert_int_equal(parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\n\r\n"),
                         1);
        assert_false(req.keep_alive);
}

/* Pipelined requests: one head at a time, the next one's bytes untouched. */
static void test_pipelined(void **state)
{
        (void)state;
        const char *a = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
        char t[256];
        snprintf(t, sizeof(t), "%sGET /b HTTP/1.1\r\nHo", a);
        assert_int_equal(parse(t), 1);
        assert_int_equal(used, strlen(a));
        assert_string_equal(req.rq.path, "/a");
        assert_memory_equal(buf + used, "GET /b HTTP/1.1\r\nHo", 19);
}

static void test_incomplete(void **state)
{
        (void)state;
        assert_int_equal(parse(""), 0);
        assert_int_equal(parse("GE"), 0);
        assert_int_equal(parse("GET /metr"), 0);
        assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n"), 0);
        assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r"), 0);
}

static void test_target(void **state)
{
        (void)state;
        assert_int_equal(parse("GET /report?x=1&day=2026-12-02&day=2000-01-01 HTTP/1.1\r\n"
                               "Host: x\r\n\r\n"),
                         1);
        assert_string_equal(req.rq.path, "/report");
        assert_string_equal(req.rq.day, "2026-12-02");
        assert_int_equal(parse("GET /metric%73?d%61y=2026%2D12%2D01 HTTP/1.1\r\nHost: x\r\n\r\n"),
                         1);
        assert_string_equal(req.rq.path, "/metrics");
        assert_string_equal(req.rq.day, "2026-12-01");
        /* %00 and malformed escapes stay as written. */
        assert_int_equal(parse("GET /metrics%00 HTTP/1.1\r\nHost: x\r\n\r\n"), 1);
        assert_string_equal(req.rq.path, "/metrics%00");
        assert_int_equal(parse("GET /%zz%4 HTTP/1.1\r\nHost: x\r\n\r\n"), 1);
        assert_string_equal(req.rq.path, "/%zz%4");
        /* A day without a value is no day. */
        assert_int_equal(parse("GET /report?day HTTP/1.1\r\nHost: x\r\n\r\n"), 1);
        assert_null(req.rq.day);
}

static void test_bodies(void **state)
{
        (void)state;
        assert_int_equal(parse("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"), 1);
        assert_false(req.rq.has_body);
        assert_int_equal(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"), 1);
        assert_true(req.rq.has_body);
        assert_string_equal(req.rq.method, "POST");
        assert_int_equal(parse("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"),
                         1);
        assert_true(req.rq.has_body);
        assert_int_equal(
            parse("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"),
            1);
}

static void test_credentials(void **state)
{
        (void)state;
        /* prometheus:secret */
        assert_int_equal(parse("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: basic "
                               "cHJvbWV0aGV1czpzZWNyZXQ=\r\n\r\n"),
                         1);
        assert_string_equal(req.rq.user, "prometheus");
        assert_string_equal(req.rq.password, "secret");
        /* "a:" and ":b": empty password, empty user; "a:b:c": the password holds ':'. */
        assert_int_equal(parse("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTo=\r\n\r\n"),
                         1);
        assert_string_equal(req.rq.user, "a");
        assert_string_equal(req.rq.password, "");
        assert_int_equal(parse("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic OmI=\r\n\r\n"),
                         1);
        assert_string_equal(req.rq.user, "");
        assert_string_equal(req.rq.password, "b");
        assert_int_equal(
            parse("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTpiOmM=\r\n\r\n"), 1);
        assert_string_equal(req.rq.password, "b:c");
        /* Malformed: no credentials, not a refusal (the handler answers 401). */
        static const char *bad[] = {
            "Basic",       "Basic !!!!", "Basic YWJj",                    /* "abc": no colon */
            "Basic YTpi=", "Basic Y=pi", "Bearer YTpi", "Basic YQBiOmM=", /* a NUL */
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char t[256];
                snprintf(t, sizeof(t), "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n\r\n",
                         bad[i]);
                assert_int_equal(parse(t), 1);
                if (req.rq.user)
                        fail_msg("%s: user '%s'", bad[i], req.rq.user);
        }
}

static void test_refusals(void **state)
{
        (void)state;
        static const struct {
                const char *text;
                int status;
        } cases[] = {
            {"\r\n\r\n", 400},
            {"GARBAGE\r\n\r\n", 400},
            {"GET\r\n\r\n", 400},
            {"GET /metrics\r\n\r\n", 400},
            {"GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1 \r\nHost: x\r\n\r\n", 400},
            {"GET metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400},
            {"GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400},
            {"GET http://evil/metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400},
            {"GET /a\tb HTTP/1.1\r\nHost: x\r\n\r\n", 400},
            {"G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
            {"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n", 505},
            {"GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", 505},
            {"GET /metrics HTTP/1.10\r\nHost: x\r\n\r\n", 400},
            {"GET /metrics http/1.1\r\nHost: x\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nX: a\x01\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", 400},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
             400},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1234567890123456789\r\n\r\n",
             400},
            {"\x16\x03\x01\x02\x00\x01", 400}, /* a TLS ClientHello */
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int st = parse(cases[i].text);
                if (st != cases[i].status)
                        fail_msg("case %zu: %d, want %d", i, st, cases[i].status);
        }
        /* A wrong request line is refused before its head is complete. */
        assert_int_equal(parse("GET /metrics HTTP/9.9\r\nHost: x"), 505);
        assert_int_equal(parse("GET metrics"), 400);
}

/* A head the buffer cannot hold: 414 for a request line, 431 for the fields. */
static void test_too_large(void **state)
{
        (void)state;
        char t[512];
        snprintf(t, sizeof(t), "GET /%0200d", 0);
        assert_int_equal(parse_cap(t, strlen(t)), 414);
        assert_int_equal(parse_cap(t, strlen(t) + 1), 0);
        memset(t, 'A', 100);
        t[100] = '\0';
        assert_int_equal(parse_cap(t, 100), 400); /* a method that never ends */
        snprintf(t, sizeof(t), "GET / HTTP/1.1\r\nHost: x\r\nX: %0200d\r\n", 0);
        assert_int_equal(parse_cap(t, strlen(t)), 431);
        assert_int_equal(parse_cap(t, strlen(t) + 1), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_get),         cmocka_unit_test(test_keep_alive),
            cmocka_unit_test(test_pipelined),   cmocka_unit_test(test_incomplete),
            cmocka_unit_test(test_target),      cmocka_unit_test(test_bodies),
            cmocka_unit_test(test_credentials), cmocka_unit_test(test_refusals),
            cmocka_unit_test(test_too_large),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
