/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the HTTP server (web/http_server.c) over real loopback sockets: the
 * /metrics response and its headers, gzip, HEAD, refused methods and paths, oversized
 * and half-sent requests, connection limits, basic auth, TLS set-up, signal masks, and
 * /report made off the server's thread. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

#include "web/http_accept.h"
#include "web/http_gzip.h"
#include "web/http_server.h"
#include "metrics/metrics.h"
#include "util/strbuf.h"

#define HASH_SECRET "$2y$04$.Qxt8yuSV/wxOU0vEMzyfOJ5nmV.nzTand17tx1Iw852NHdE5LsQG"

static struct frame fr;
static struct counters ex;
static int snap_result;
static unsigned snap_calls;

/* The published data the server sees. */
static int snapshot(void *arg, struct frame *f, struct counters *x)
{
        (void)arg;
        snap_calls++;
        if (snap_result & HTTP_SNAP_FRAME)
                *f = fr;
        if (snap_result & HTTP_SNAP_EXTRA)
                *x = ex;
        return snap_result;
}

static void build_data(void)
{
        frame_clear(&fr);
        fr.host.ncpu = 1;
        fr.host.cpu_total_pct = 12.5;
        fr.host.cpu_pct[0] = 12.5;
        fr.host.load1 = 0.25;
        fr.ngpus = 1;
        fr.gpus[0].present = true;
        fr.gpus[0].ok = true;
        snprintf(fr.gpus[0].uuid, sizeof(fr.gpus[0].uuid), "GPU-1234");
        fr.gpus[0].power_w = 99.5;
        fr.self.samples[0] = 3;
        counters_clear(&ex);
        counters_add_xid(&ex, 0, 79);
        snap_result = HTTP_SNAP_FRAME | HTTP_SNAP_EXTRA;
}

static char *expected_body(const struct frame *f, const struct counters *x)
{
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 4096, 1 << 20), 0);
        assert_int_equal(metrics_render(&sb, f, x), 0);
        return sb.buf;
}

/* The page at / when a renderer is configured: the frame's CPU and pad_bytes of 'x'. */
static size_t page_pad;
static int page_result;

static int page(void *arg, struct strbuf *out, const struct frame *f)
{
        (void)arg;
        sb_printf(out, "<html>cpu=%.1f ", f->host.cpu_total_pct);
        for (size_t i = 0; i < page_pad; i++)
                sb_putc(out, 'x');
        sb_puts(out, "</html>");
        return page_result;
}

static struct http_server *start_page(void)
{
        struct http_server_config cfg = {
            .listen = "127.0.0.1:0", .snapshot = snapshot, .page = page, .arg = NULL};
        struct http_server *s = NULL;
        char err[256] = "";
        if (http_server_start(&cfg, &s, err, sizeof(err)) < 0)
                fail_msg("start: %s", err);
        return s;
}

/* /health: a verdict, or health_result when it is an error. */
static unsigned health_calls;
static int health_result;
static int health(void *arg, struct strbuf *out)
{
        (void)arg;
        health_calls++;
        if (health_result)
                return health_result;
        sb_puts(out, "{\"state\": \"healthy\"}\n");
        return 0;
}

static struct http_server *start(const struct web_config *web)
{
        struct http_server_config cfg = {.listen = "127.0.0.1:0",
                                         .web = web,
                                         .snapshot = snapshot,
                                         .health = health,
                                         .arg = NULL};
        struct http_server *s = NULL;
        char err[256] = "";
        int r = http_server_start(&cfg, &s, err, sizeof(err));
        if (r < 0)
                fail_msg("start: %d %s", r, err);
        assert_true(http_server_port(s) > 0);
        return s;
}

/* A TCP connection to 127.0.0.1:port from the address src; 5 s receive timeout. */
static int connect_from(const char *src, unsigned port)
{
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        struct timeval tv = {.tv_sec = 5};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        struct sockaddr_in a = {.sin_family = AF_INET};
        inet_pton(AF_INET, src, &a.sin_addr);
        assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
        a.sin_port = htons((uint16_t)port);
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
        return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
        while (n) {
                ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
                if (w <= 0)
                        return; /* the server may close early: the caller reads the reply */
                p += w;
                n -= (size_t)w;
        }
}

/* Read until EOF (or timeout or cap); returns the bytes read, NUL-terminated. */
static size_t read_all(int fd, char *buf, size_t cap)
{
        size_t n = 0;
        while (n + 1 < cap) {
                ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
                if (r <= 0)
                        break;
                n += (size_t)r;
        }
        buf[n] = '\0';
        return n;
}

struct reply {
        char raw[262144];
        size_t len;
        unsigned status;
        const char *body;
        size_t body_len;
};

static void request_from(const char *src, unsigned port, const char *req, struct reply *rep)
{
        int fd = connect_from(src, port);
        send_all(fd, req, strlen(req));
        rep->len = read_all(fd, rep->raw, sizeof(rep->raw));
        close(fd);
        rep->status = 0;
        rep->body = NULL;
        rep->body_len = 0;
        if (rep->len >= 12 && !strncmp(rep->raw, "HTTP/1.1 ", 9))
                rep->status = (unsigned)strtoul(rep->raw + 9, NULL, 10);
        char *end = strstr(rep->raw, "\r\n\r\n");
        if (end) {
                rep->body = end + 4;
                rep->body_len = rep->len - (size_t)(rep->body - rep->raw);
        }
}

static void request(unsigned port, const char *req, struct reply *rep)
{
        request_from("127.0.0.1", port, req, rep);
}

/* The value of header name (case-insensitive) in the reply, or NULL. */
static const char *header(const struct reply *rep, const char *name, char *out, size_t cap)
{
        size_t nl = strlen(name);
        const char *end = rep->body ? rep->body : rep->raw + rep->len;
        for (const char *p = strstr(rep->raw, "\r\n"); p && p + 2 < end;
             p = strstr(p + 2, "\r\n")) {
                if (!strncasecmp(p + 2, name, nl) && p[2 + nl] == ':') {
                        const char *v = p + 2 + nl + 1;
                        while (*v == ' ')
                                v++;
                        size_t vl = strcspn(v, "\r");
                        snprintf(out, cap, "%.*s", (int)vl, v);
                        return out;
                }
        }
        return NULL;
}

static struct reply rep;

static void test_listen_parse(void **state)
{
        (void)state;
        struct sockaddr_storage a;
        socklen_t len;
        char txt[64];
        assert_int_equal(http_parse_listen(":9100", &a, &len), 0);
        assert_int_equal(a.ss_family, AF_INET);
        struct sockaddr_in *v4 = (struct sockaddr_in *)&a;
        assert_int_equal(ntohs(v4->sin_port), 9100);
        assert_string_equal(inet_ntop(AF_INET, &v4->sin_addr, txt, sizeof(txt)), "127.0.0.1");
        assert_int_equal(http_parse_listen("0.0.0.0:80", &a, &len), 0);
        assert_string_equal(inet_ntop(AF_INET, &v4->sin_addr, txt, sizeof(txt)), "0.0.0.0");
        assert_int_equal(http_parse_listen("[::1]:9464", &a, &len), 0);
        assert_int_equal(a.ss_family, AF_INET6);
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a;
        assert_int_equal(ntohs(v6->sin6_port), 9464);
        assert_string_equal(inet_ntop(AF_INET6, &v6->sin6_addr, txt, sizeof(txt)), "::1");
        assert_int_equal(len, sizeof(struct sockaddr_in6));
        assert_int_equal(http_parse_listen("localhost:1", &a, &len), 0);
        static const char *const bad[] = {
            "9100", "[::1:9100", "::1:9100", "host:",     "host:x", ":70000",
            "[]:1", ":-1",       ":+80",     "[::1]x:80", "a]:80",  "1.2.3.4: 80"};
        for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                if (http_parse_listen(bad[i], &a, &len) != -EINVAL)
                        fail_msg("accepted '%s'", bad[i]);
        }
        assert_int_equal(http_parse_listen("no-such-host.invalid:80", &a, &len), -EADDRNOTAVAIL);
}

static void test_accepts_gzip(void **state)
{
        (void)state;
        assert_true(http_accepts_gzip("gzip"));
        assert_true(http_accepts_gzip("GZIP"));
        assert_true(http_accepts_gzip("deflate, gzip;q=0.5"));
        assert_true(http_accepts_gzip("x-gzip"));
        assert_true(http_accepts_gzip("gzip, deflate, br"));
        assert_true(http_accepts_gzip("br;q=1.0, gzip ; q=0.001"));
        assert_false(http_accepts_gzip("gzip;q=0"));
        assert_false(http_accepts_gzip("gzip; q=0.000"));
        assert_false(http_accepts_gzip("gzipx"));
        assert_false(http_accepts_gzip("br, deflate"));
        assert_false(http_accepts_gzip("identity;q=1, *;q=0"));
        assert_false(http_accepts_gzip(""));
        assert_false(http_accepts_gzip(NULL));
}

static void test_metrics_get_head(void **state)
{
        (void)state;
        char v[128];
        build_data();
        struct http_server *s = start(NULL);
        unsigned port = http_server_port(s);
        char *want = expected_body(&fr, &ex);

        request(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 200);
        assert_string_equal(header(&rep, "Content-Type", v, sizeof(v)),
                            "text/plain; version=0.0.4; charset=utf-8");
        assert_null(header(&rep, "Content-Encoding", v, sizeof(v)));
        assert_int_equal(rep.body_len, strlen(want));
        assert_string_equal(rep.body, want);
        assert_non_null(strstr(rep.body, "vigil_gpu_xid_errors_total{gpu=\"0\",uuid=\"GPU-1234\","
                                         "xid=\"79\"} 1\n"));

        request(port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 200);
        snprintf(v, sizeof(v), "%zu", strlen(want));
        char cl[32];
        assert_string_equal(header(&rep, "Content-Length", cl, sizeof(cl)), v);
        assert_int_equal(rep.body_len, 0);

        /* HTTP/1.0 and a query string. */
        request(port, "GET /metrics?name[]=x HTTP/1.0\r\n\r\n", &rep);
        assert_int_equal(rep.status, 200);
        assert_string_equal(rep.body, want);
        free(want);

        /* Nothing published yet: an empty frame, no extra counters. */
        snap_result = HTTP_SNAP_NONE;
        frame_clear(&fr);
        want = expected_body(&fr, NULL);
        build_data();
        snap_result = HTTP_SNAP_NONE;
        request(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 200);
        assert_string_equal(rep.body, want);
        free(want);
        http_server_stop(s);
}

static void test_metrics_gzip(void **state)
{
        (void)state;
        char v[128];
        build_data();
        struct http_server *s = start(NULL);
        /* A small body is sent as it is, gzip or not. */
        char *want = expected_body(&fr, &ex);
        assert_true(strlen(want) < HTTP_GZIP_MIN_BYTES);
        request(http_server_port(s),
                "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n"
                "Connection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 200);
        assert_null(header(&rep, "Content-Encoding", v, sizeof(v)));
        assert_string_equal(rep.body, want);
        free(want);

        /* 256 cores: large enough to compress. */
        fr.host.ncpu = fr.host.nfreq = 256;
        for (unsigned i = 0; i < 256; i++) {
                fr.host.cpu_pct[i] = 100.0 * i / 256;
                fr.host.cpu_freq_hz[i] = 1.2e9 + 1e6 * i;
        }
        want = expected_body(&fr, &ex);
        assert_true(strlen(want) >= HTTP_GZIP_MIN_BYTES);
        for (unsigned round = 0; round < 2; round++) { /* the second reuses the stream */
                request(http_server_port(s),
                        "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: deflate, gzip\r\n"
                        "Connection: close\r\n\r\n",
                        &rep);
                assert_int_equal(rep.status, 200);
                assert_string_equal(header(&rep, "Content-Encoding", v, sizeof(v)), "gzip");
                assert_string_equal(header(&rep, "Vary", v, sizeof(v)), "Accept-Encoding");
                assert_true(rep.body_len > 0 && rep.body_len < strlen(want));
                static char plain[262144];
                z_stream z = {0};
                assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
                z.next_in = (Bytef *)rep.body;
                z.avail_in = (uInt)rep.body_len;
                z.next_out = (Bytef *)plain;
                z.avail_out = sizeof(plain) - 1;
                assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
                plain[z.total_out] = '\0';
                inflateEnd(&z);
                assert_string_equal(plain, want);
        }
        request(http_server_port(s),
                "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0\r\n"
                "Connection: close\r\n\r\n",
                &rep);
        assert_null(header(&rep, "Content-Encoding", v, sizeof(v)));
        assert_string_equal(rep.body, want);
        free(want);
        http_server_stop(s);
}

static void test_refusals(void **state)
{
        (void)state;
        char v[128];
        build_data();
        struct http_server *s = start(NULL);
        unsigned port = http_server_port(s);
        unsigned calls = snap_calls;

        request(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", &rep);
        assert_int_equal(rep.status, 405);
        assert_string_equal(header(&rep, "Allow", v, sizeof(v)), "GET, HEAD");
        request(port, "DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 405);
        request(port, "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 404);
        request(port, "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 404);
        request(port, "GET /metrics/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 404);
        request(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 200);
        assert_string_equal(header(&rep, "Content-Type", v, sizeof(v)), "text/html; charset=utf-8");
        assert_non_null(strstr(rep.body, "<a href=\"/metrics\">"));
        /* Garbage is not HTTP: no 200. */
        request(port, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", &rep);
        assert_true(rep.status != 200);
        assert_int_equal(snap_calls, calls); /* none of these rendered metrics */

        /* 40 KiB of headers: refused (431) or dropped, never served. */
        size_t n = 48 * 1024;
        char *big = malloc(n);
        assert_non_null(big);
        int len = snprintf(big, n, "GET /metrics HTTP/1.1\r\nHost: x\r\n");
        for (unsigned i = 0; i < 400; i++)
                len += snprintf(big + len, n - (size_t)len, "X-Pad-%03u: %090u\r\n", i, i);
        snprintf(big + len, n - (size_t)len, "\r\n");
        request(port, big, &rep);
        free(big);
        assert_true(rep.status == 0 || rep.status == 431 || rep.status == 413 || rep.status == 400);
        assert_int_equal(snap_calls, calls);
        /* ... and the server still answers. */
        request(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 200);
        http_server_stop(s);
}

/* Idle and half-sent connections from one address neither block nor starve a client
 * at another address. */
static void test_connection_limits(void **state)
{
        (void)state;
        build_data();
        struct http_server *s = start(NULL);
        unsigned port = http_server_port(s);
        int fds[40];
        for (unsigned i = 0; i < 40; i++) {
                fds[i] = connect_from("127.0.0.1", port);
                if (i % 2)
                        send_all(fds[i], "GET /metrics HTTP/1.1\r\nHo", 25);
        }
        request_from("127.0.0.2", port,
                     "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 200);
        /* Past the per-address limit, connections from 127.0.0.1 are closed at once. */
        char c;
        for (unsigned i = 16; i < 40; i++) {
                errno = 0;
                ssize_t r = recv(fds[i], &c, 1, 0);
                if (!(r == 0 || (r < 0 && errno == ECONNRESET)))
                        fail_msg("connection %u: recv %zd, %s", i, r, strerror(errno));
        }
        for (unsigned i = 0; i < 40; i++)
                close(fds[i]);
        http_server_stop(s);
}

/* Read one response (headers and Content-Length bytes of body) from a kept-open
 * connection; returns its status, 0 when the connection closed first. */
static unsigned read_one(int fd, char *buf, size_t cap)
{
        size_t n = 0;
        for (;;) {
                char *end = strstr(buf, "\r\n\r\n");
                if (n && end) {
                        const char *cl = strstr(buf, "Content-Length: ");
                        size_t want =
                            (size_t)(end + 4 - buf) + (cl ? strtoul(cl + 16, NULL, 10) : 0);
                        if (n >= want)
                                return (unsigned)strtoul(buf + 9, NULL, 10);
                }
                ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
                if (r <= 0)
                        return 0;
                n += (size_t)r;
                buf[n] = '\0';
        }
}

/* Prometheus keeps its connection open between scrapes. */
static void test_keep_alive(void **state)
{
        (void)state;
        char v[64];
        build_data();
        struct http_server *s = start(NULL);
        int fd = connect_from("127.0.0.1", http_server_port(s));
        for (unsigned i = 0; i < 3; i++) {
                const char *req =
                    "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n";
                send_all(fd, req, strlen(req));
                memset(rep.raw, 0, 16);
                assert_int_equal(read_one(fd, rep.raw, sizeof(rep.raw)), 200);
                rep.len = strlen(rep.raw);
                rep.body = strstr(rep.raw, "\r\n\r\n") + 4;
                assert_null(header(&rep, "Connection", v, sizeof(v)));
        }
        close(fd);
        http_server_stop(s);
}

static void test_basic_auth(void **state)
{
        (void)state;
        char v[128];
        build_data();
        struct web_config web = {.nusers = 1};
        snprintf(web.users[0].name, sizeof(web.users[0].name), "prometheus");
        snprintf(web.users[0].hash, sizeof(web.users[0].hash), "%s", HASH_SECRET);
        struct http_server *s = start(&web);
        unsigned port = http_server_port(s);
        unsigned calls = snap_calls;

        request(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 401);
        assert_string_equal(header(&rep, "WWW-Authenticate", v, sizeof(v)),
                            "Basic realm=\"vigil\"");
        /* prometheus:wrong */
        request(
            port,
            "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic cHJvbWV0aGV1czp3cm9uZw==\r\n"
            "Connection: close\r\n\r\n",
            &rep);
        assert_int_equal(rep.status, 401);
        /* nobody:secret */
        request(port,
                "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic bm9ib2R5OnNlY3JldA==\r\n"
                "Connection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 401);
        /* Even a refused method or an unknown path asks for credentials first. */
        request(port, "POST /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 401);
        assert_int_equal(snap_calls, calls);
        /* prometheus:secret, twice (the second from the digest cache). */
        for (unsigned i = 0; i < 2; i++) {
                request(port,
                        "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic "
                        "cHJvbWV0aGV1czpzZWNyZXQ=\r\nConnection: close\r\n\r\n",
                        &rep);
                assert_int_equal(rep.status, 200);
        }
        assert_int_equal(snap_calls, calls + 2);
        /* /health: the same credentials as /metrics. */
        unsigned hc = health_calls;
        request(port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 401);
        assert_int_equal(health_calls, hc);
        request(port,
                "GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Basic "
                "cHJvbWV0aGV1czpzZWNyZXQ=\r\nConnection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 200);
        assert_string_equal(header(&rep, "Content-Type", v, sizeof(v)), "application/json");
        assert_string_equal(rep.body, "{\"state\": \"healthy\"}\n");
        /* No verdict kept: 404; a failure: 500. */
        health_result = -ENOENT;
        request(port,
                "GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Basic "
                "cHJvbWV0aGV1czpzZWNyZXQ=\r\nConnection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 404);
        health_result = -ENOMEM;
        request(port,
                "GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Basic "
                "cHJvbWV0aGV1czpzZWNyZXQ=\r\nConnection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 500);
        health_result = 0;
        http_server_stop(s);
}

static void test_tls_setup(void **state)
{
        (void)state;
        char err[256];
        build_data();
        struct web_config web = {.tls = true};
        snprintf(web.cert_file, sizeof(web.cert_file), "tests/fixtures/tls/cert.pem");
        snprintf(web.key_file, sizeof(web.key_file), "tests/fixtures/tls/key.pem");
        if (access(web.cert_file, R_OK) != 0)
                skip(); /* not run from the top directory */
        struct http_server *s = start(&web);
        /* Plain HTTP to the TLS port gets no HTTP answer. */
        request(http_server_port(s),
                "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 0);
        http_server_stop(s);

        snprintf(web.key_file, sizeof(web.key_file), "tests/fixtures/tls/missing.pem");
        struct http_server_config cfg = {
            .listen = "127.0.0.1:0", .web = &web, .snapshot = snapshot};
        assert_int_equal(http_server_start(&cfg, &s, err, sizeof(err)), -ENOENT);
        assert_string_equal(err, "tests/fixtures/tls/missing.pem: No such file or directory");
        /* A key that is not a key. */
        snprintf(web.key_file, sizeof(web.key_file), "tests/fixtures/tls/README");
        assert_int_equal(http_server_start(&cfg, &s, err, sizeof(err)), -EADDRNOTAVAIL);
        assert_int_equal(strncmp(err, "cannot listen on 127.0.0.1:0: ", 30), 0);
}

static void test_start_errors(void **state)
{
        (void)state;
        char err[256], addr[64];
        struct http_server *s = start(NULL), *s2 = NULL;
        snprintf(addr, sizeof(addr), "127.0.0.1:%u", http_server_port(s));
        struct http_server_config cfg = {.listen = addr, .snapshot = snapshot};
        assert_true(http_server_start(&cfg, &s2, err, sizeof(err)) < 0);
        assert_null(s2);
        char want[128];
        snprintf(want, sizeof(want), "cannot listen on %s: ", addr);
        assert_int_equal(strncmp(err, want, strlen(want)), 0);
        assert_true(strlen(err) > strlen(want));
        /* The address in use says so, not libmicrohttpd's "port 0". */
        assert_string_equal(err + strlen(want), "Address already in use");
        http_server_stop(s);
        cfg.listen = "nonsense";
        assert_int_equal(http_server_start(&cfg, &s2, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "cannot listen on 'nonsense': expected ADDR:PORT, [IPV6]:PORT or "
                                 ":PORT");
        http_server_stop(NULL);
        /* Plain HTTP needs no libmicrohttpd: a run without TLS starts without it. */
        cfg.listen = "127.0.0.1:0";
        cfg.mhd_library = "libmicrohttpd-vigil-test-missing.so.12";
        assert_int_equal(http_server_start(&cfg, &s2, err, sizeof(err)), 0);
        http_server_stop(s2);
        s2 = NULL;
        /* TLS opens it at start: without it, one line naming the package. */
        struct web_config web = {.tls = true};
        snprintf(web.cert_file, sizeof(web.cert_file), "tests/fixtures/tls/cert.pem");
        snprintf(web.key_file, sizeof(web.key_file), "tests/fixtures/tls/key.pem");
        cfg.web = &web;
        assert_int_equal(http_server_start(&cfg, &s2, err, sizeof(err)), -ENOENT);
        assert_null(s2);
        const char *need = "--listen needs libmicrohttpd (Debian package libmicrohttpd12): ";
        assert_int_equal(strncmp(err, need, strlen(need)), 0);
        assert_non_null(strstr(err, "libmicrohttpd-vigil-test-missing.so.12"));
}

/* The server's threads block the daemon's signals; the caller's mask is unchanged. */
static void test_signal_mask(void **state)
{
        (void)state;
        static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGCHLD, SIGPIPE};
        sigset_t before, after;
        pthread_sigmask(SIG_SETMASK, NULL, &before);
        struct http_server *s = start(NULL);
        pthread_sigmask(SIG_SETMASK, NULL, &after);
        for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
                assert_int_equal(sigismember(&before, sigs[i]), sigismember(&after, sigs[i]));
        DIR *d = opendir("/proc/self/task");
        assert_non_null(d);
        unsigned others = 0;
        long self = syscall(SYS_gettid);
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
                if (e->d_name[0] == '.' || strtol(e->d_name, NULL, 10) == self)
                        continue;
                char path[300], buf[4096];
                snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
                FILE *fp = fopen(path, "r");
                if (!fp)
                        continue;
                size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
                fclose(fp);
                buf[n] = '\0';
                const char *blk = strstr(buf, "SigBlk:");
                assert_non_null(blk);
                unsigned long long mask = strtoull(blk + 7, NULL, 16);
                for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
                        assert_true(mask & (1ull << (sigs[i] - 1)));
                others++;
        }
        closedir(d);
        assert_true(others >= 1);
        http_server_stop(s);
}

/* GET / with a page renderer: the snapshot's frame, HTML, gzip when large, 500 when the
 * renderer fails. */
static void test_page(void **state)
{
        (void)state;
        char v[128];
        build_data();
        struct http_server *s = start_page();
        unsigned calls = snap_calls;
        page_pad = 10;
        page_result = 0;
        request(http_server_port(s), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 200);
        assert_string_equal(header(&rep, "Content-Type", v, sizeof(v)), "text/html; charset=utf-8");
        assert_string_equal(rep.body, "<html>cpu=12.5 xxxxxxxxxx</html>");
        assert_int_equal(snap_calls, calls + 1);
        /* Nothing published yet: the renderer gets a cleared frame. */
        snap_result = HTTP_SNAP_NONE;
        request(http_server_port(s), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                &rep);
        assert_string_equal(rep.body, "<html>cpu=nan xxxxxxxxxx</html>");
        page_pad = 3 * HTTP_GZIP_MIN_BYTES;
        request(http_server_port(s),
                "GET / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 200);
        assert_string_equal(header(&rep, "Content-Encoding", v, sizeof(v)), "gzip");
        assert_true(rep.body_len < 1000);
        page_result = -ENOSPC;
        request(http_server_port(s), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 500);
        assert_string_equal(rep.body, "page too large\n");
        http_server_stop(s);
}

/* Two requests in one write are answered in order on the kept connection; a reply
 * larger than the socket takes at once reaches a client that reads it slowly, whole. */
static void test_pipelined_and_slow_reader(void **state)
{
        (void)state;
        static char buf[HTTP_MAX_BODY + 4096];
        build_data();
        page_pad = HTTP_MAX_BODY - 64; /* more than the socket buffers hold */
        page_result = 0;
        struct http_server *s = start_page();
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int small = 2048;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
        struct timeval tv = {.tv_sec = 5};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)http_server_port(s))};
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
        const char *two = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                          "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n";
        send_all(fd, two, strlen(two));
        usleep(300000); /* the server fills what the socket takes, and waits */
        size_t n = 0;
        buf[0] = '\0';
        while (n + 1 < sizeof(buf) && !strstr(buf + (n > 64 ? n - 64 : 0), "\r\n\r\nnot found\n")) {
                ssize_t r = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
                if (r <= 0)
                        fail_msg("read %zu bytes, then %zd", n, r);
                n += (size_t)r;
                buf[n] = '\0';
        }
        assert_int_equal(strncmp(buf, "HTTP/1.1 200 ", 13), 0);
        const char *body = strstr(buf, "\r\n\r\n") + 4;
        const char *start = "<html>cpu=12.5 ";
        assert_memory_equal(body, start, strlen(start));
        body += strlen(start);
        for (size_t i = 0; i < page_pad; i++)
                if (body[i] != 'x')
                        fail_msg("byte %zu of the padding: 0x%02x", i, (unsigned char)body[i]);
        body += page_pad;
        assert_memory_equal(body, "</html>", 7);
        assert_int_equal(strncmp(body + 7, "HTTP/1.1 404 ", 13), 0);
        /* HTTP/1.0 with keep-alive: the reply says it is kept. */
        page_pad = 1;
        const char *ka = "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
        send_all(fd, ka, strlen(ka));
        memset(buf, 0, 4096);
        assert_int_equal(read_one(fd, buf, 4096), 200);
        assert_non_null(strstr(buf, "\r\nConnection: keep-alive\r\n"));
        /* HTTP/1.0 without keep-alive: the reply says the connection closes, and it does. */
        const char *old = "GET / HTTP/1.0\r\n\r\n";
        send_all(fd, old, strlen(old));
        memset(buf, 0, 4096);
        assert_int_equal(read_one(fd, buf, 4096), 200);
        assert_non_null(strstr(buf, "\r\nConnection: close\r\n"));
        char c;
        assert_true(recv(fd, &c, 1, 0) <= 0);
        close(fd);
        /* Another HTTP version: 505, then closed. */
        request(http_server_port(s), "GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", &rep);
        assert_int_equal(rep.status, 505);
        http_server_stop(s);
}

/* The report renderer of these tests: waits for a byte on report_gate (the test lets it
 * finish), then writes the day; -EINVAL for "bad". report_entered counts its calls. */
static int report_gate[2] = {-1, -1};
static volatile int report_entered;

static int report(void *arg, const char *day, struct strbuf *out)
{
        (void)arg;
        char b;
        __atomic_add_fetch(&report_entered, 1, __ATOMIC_SEQ_CST);
        if (read(report_gate[0], &b, 1) != 1)
                return -EIO;
        if (!day || !strcmp(day, "bad"))
                return -EINVAL;
        sb_printf(out, "<html>day=%s</html>", day);
        return 0;
}

static void let_report_finish(void)
{
        assert_int_equal(write(report_gate[1], "x", 1), 1);
}

/* Wait (5 s at most) until the renderer has been called n times in all. */
static void wait_entered(int n)
{
        for (int i = 0; i < 500 && __atomic_load_n(&report_entered, __ATOMIC_SEQ_CST) < n; i++)
                usleep(10000);
        assert_int_equal(__atomic_load_n(&report_entered, __ATOMIC_SEQ_CST), n);
}

static int connect_send(unsigned port, const char *req)
{
        int fd = connect_from("127.0.0.1", port);
        send_all(fd, req, strlen(req));
        return fd;
}

/* /report is made on a thread of its own: while it is being made /metrics is answered
 * (the renderer here waits for the test, so a report made on the server's thread would
 * leave the scrape unanswered); a second report meanwhile is 503 with Retry-After; the
 * first's reply then arrives whole, and a request pipelined behind it after it. */
static void test_report_off_thread(void **state)
{
        (void)state;
        char v[64], buf[8192] = "";
        build_data();
        assert_int_equal(pipe(report_gate), 0);
        report_entered = 0;
        struct http_server_config cfg = {
            .listen = "127.0.0.1:0", .snapshot = snapshot, .report = report, .arg = NULL};
        struct http_server *s = NULL;
        char err[256] = "";
        assert_int_equal(http_server_start(&cfg, &s, err, sizeof(err)), 0);
        unsigned port = http_server_port(s);

        int a = connect_send(port, "GET /report?day=2026-12-05 HTTP/1.1\r\nHost: x\r\n"
                                   "Connection: close\r\n\r\n");
        wait_entered(1);
        request(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 200);
        assert_non_null(strstr(rep.body, "vigil_gpu_power_watts"));
        request(port, "GET /report?day=2026-12-04 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                &rep);
        assert_int_equal(rep.status, 503);
        assert_string_equal(header(&rep, "Retry-After", v, sizeof(v)), "1");
        let_report_finish();
        read_all(a, buf, sizeof(buf));
        close(a);
        assert_int_equal(strncmp(buf, "HTTP/1.1 200 ", 13), 0);
        assert_non_null(strstr(buf, "\r\nContent-Type: text/html; charset=utf-8\r\n"));
        assert_non_null(strstr(buf, "\r\nConnection: close\r\n"));
        assert_non_null(strstr(buf, "\r\n\r\n<html>day=2026-12-05</html>"));

        /* The next report is made (the first's reply was taken); a bad day is 400. */
        let_report_finish();
        request(port, "GET /report?day=bad HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
        assert_int_equal(rep.status, 400);
        assert_string_equal(rep.body, "day must be YYYY-MM-DD\n");

        /* HEAD: the headers only; then a request pipelined behind a report. */
        let_report_finish();
        int b = connect_send(port, "HEAD /report?day=2026-12-03 HTTP/1.1\r\nHost: x\r\n\r\n"
                                   "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        size_t n = read_all(b, buf, sizeof(buf));
        close(b);
        assert_true(n > 0);
        assert_int_equal(strncmp(buf, "HTTP/1.1 200 ", 13), 0);
        assert_non_null(strstr(buf, "\r\nContent-Length: 27\r\n"));
        char *second = strstr(buf, "\r\n\r\n");
        assert_non_null(second);
        assert_int_equal(strncmp(second + 4, "HTTP/1.1 404 ", 13), 0);

        /* A client that goes away while its report is made: the reply is dropped and
         * the next report is made. */
        int c = connect_send(port, "GET /report?day=2026-12-02 HTTP/1.1\r\nHost: x\r\n\r\n");
        wait_entered(4);
        close(c);
        let_report_finish();
        let_report_finish();
        /* 503 until the server has taken the dropped reply, as Retry-After says. */
        for (int i = 0; i < 500; i++) {
                request(
                    port,
                    "GET /report?day=2026-12-01 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    &rep);
                if (rep.status != 503)
                        break;
                usleep(10000);
        }
        assert_int_equal(rep.status, 200);
        assert_string_equal(rep.body, "<html>day=2026-12-01</html>");

        /* Stopping while a report is being made waits for it. */
        int d = connect_send(port, "GET /report?day=2026-11-30 HTTP/1.1\r\nHost: x\r\n\r\n");
        wait_entered(6);
        let_report_finish();
        http_server_stop(s);
        close(d);
        close(report_gate[0]);
        close(report_gate[1]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_listen_parse),
            cmocka_unit_test(test_accepts_gzip),
            cmocka_unit_test(test_metrics_get_head),
            cmocka_unit_test(test_metrics_gzip),
            cmocka_unit_test(test_refusals),
            cmocka_unit_test(test_connection_limits),
            cmocka_unit_test(test_keep_alive),
            cmocka_unit_test(test_basic_auth),
            cmocka_unit_test(test_tls_setup),
            cmocka_unit_test(test_start_errors),
            cmocka_unit_test(test_signal_mask),
            cmocka_unit_test(test_page),
            cmocka_unit_test(test_pipelined_and_slow_reader),
            cmocka_unit_test(test_report_off_thread),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
