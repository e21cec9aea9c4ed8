/* The HTTP server on libmicrohttpd. See http_server.h.
 *
 *   GET /metrics HTTP/1.1          ->  200, text/plain; version=0.0.4 (gzip if accepted
 *                                      and the body is large enough to gain from it)
 *   GET / HTTP/1.1                 ->  200, text/html: the dashboard (gzip the same way)
 *
 * Threads: MHD runs one internal polling thread; every callback below runs on it, so
 * the render buffers in struct http_server need no lock. A scrape costs one copy of
 * the published frame, one render into a reused buffer (and a deflate into another)
 * and the copy MHD makes of the body. */
#include "sink/http_server.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sink/basic_auth.h"
#include "sink/mhd_lib.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/strbuf.h"
#include "util/zlib_lib.h"

#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define HTML_CONTENT_TYPE    "text/html; charset=utf-8"
#define TLS_PRIORITIES       "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
#define REALM                "vigil"

struct http_server {
        struct mhd_lib lib;
        struct MHD_Daemon *mhd;
        http_snapshot_fn snapshot;
        http_page_fn page;
        void *arg;
        unsigned port;
        struct web_config web;
        bool auth_on;
        struct basic_auth auth;
        char *tls_cert, *tls_key; /* PEM text, alive as long as mhd */
        /* Render state, server thread only. */
        struct frame frame;
        struct counters extra;
        struct strbuf body;
        struct zlib_lib zlib; /* opened at the first body worth compressing */
        int zlib_state;       /* 0 not tried yet, 1 open, -1 not available: never gzip */
        z_stream z;
        bool z_ready;
        unsigned char *gz;
        size_t gz_cap;
        /* MHD's messages: kept while starting (for the error), then rate-limited. */
        pthread_t starter;
        char start_err[160];
        http_report_fn report;
        struct ratelimit log_rl;
};

static const char index_html[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>vigil</title></head>\n"
    "<body><h1>vigil</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n";

/* ---- pure helpers ---- */

int http_parse_listen(const char *listen, struct sockaddr_storage *ret_addr, socklen_t *ret_len)
{
        const char *colon = strrchr(listen, ':');
        uint64_t port;
        char host[128];
        if (!colon || parse_u64(colon + 1, strlen(colon + 1), &port) < 0 || port > 65535 ||
            colon[1] < '0' || colon[1] > '9')
                return -EINVAL;
        size_t hl = (size_t)(colon - listen);
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC};
        if (hl == 0) {
                snprintf(host, sizeof(host), "127.0.0.1");
                hints.ai_flags = AI_NUMERICHOST;
        } else if (listen[0] == '[') {
                if (hl < 3 || colon[-1] != ']' || hl - 2 >= sizeof(host))
                        return -EINVAL;
                copy_bounded(host, sizeof(host), listen + 1, hl - 2);
                hints.ai_family = AF_INET6;
                hints.ai_flags = AI_NUMERICHOST;
        } else {
                if (hl >= sizeof(host) || memchr(listen, ':', hl) || memchr(listen, ']', hl))
                        return -EINVAL;
                copy_bounded(host, sizeof(host), listen, hl);
        }
        struct addrinfo *res = NULL;
        int r = getaddrinfo(host, NULL, &hints, &res);
        if (r != 0 || !res)
                return r == EAI_NONAME || r == EAI_FAIL || r == EAI_NODATA ? -EADDRNOTAVAIL
                                                                           : -EINVAL;
        memset(ret_addr, 0, sizeof(*ret_addr));
        memcpy(ret_addr, res->ai_addr, res->ai_addrlen);
        *ret_len = res->ai_addrlen;
        if (res->ai_family == AF_INET6)
                ((struct sockaddr_in6 *)ret_addr)->sin6_port = htons((uint16_t)port);
        else
                ((struct sockaddr_in *)ret_addr)->sin_port = htons((uint16_t)port);
        freeaddrinfo(res);
        return 0;
}

bool http_accepts_gzip(const char *h)
{
        const char *p = h;
        while (p && *p) {
                while (*p == ' ' || *p == '\t' || *p == ',')
                        p++;
                const char *tok = p;
                while (*p && !strchr(",; \t", *p))
                        p++;
                size_t tl = (size_t)(p - tok);
                bool gz = (tl == 4 && !strncasecmp(tok, "gzip", 4)) ||
                          (tl == 6 && !strncasecmp(tok, "x-gzip", 6));
                bool q_zero = false;
                while (*p && *p != ',') {
                        if (*p != ';') {
                                p++;
                                continue;
                        }
                        for (p++; *p == ' ' || *p == '\t'; p++)
                                ;
                        if ((*p == 'q' || *p == 'Q') && p[1] == '=') {
                                q_zero = true;
                                for (p += 2; (*p >= '0' && *p <= '9') || *p == '.'; p++)
                                        q_zero &= *p == '0' || *p == '.';
                        }
                }
                if (gz && !q_zero)
                        return true;
        }
        return false;
}

/* ---- responses ---- */

static enum MHD_Result queue(struct http_server *s, struct MHD_Connection *c, unsigned status,
                             struct MHD_Response *r)
{
        if (!r)
                return MHD_NO;
        s->lib.MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        enum MHD_Result ret = s->lib.MHD_queue_response(c, status, r);
        s->lib.MHD_destroy_response(r);
        return ret;
}

static struct MHD_Response *text_response(struct http_server *s, const char *text, const char *type)
{
        struct MHD_Response *r = s->lib.MHD_create_response_from_buffer(strlen(text), (void *)text,
                                                                        MHD_RESPMEM_PERSISTENT);
        if (r)
                s->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
        return r;
}

static enum MHD_Result reply_text(struct http_server *s, struct MHD_Connection *c, unsigned status,
                                  const char *text)
{
        return queue(s, c, status, text_response(s, text, "text/plain; charset=utf-8"));
}

static enum MHD_Result reply_not_allowed(struct http_server *s, struct MHD_Connection *c)
{
        struct MHD_Response *r =
            text_response(s, "method not allowed\n", "text/plain; charset=utf-8");
        if (r)
                s->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        return queue(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
}

/* zlib, opened at the first body worth compressing. False when it cannot be: the
 * bodies then go out uncompressed, which every client accepts. */
static bool have_zlib(struct http_server *s)
{
        char why[256];
        if (s->zlib_state == 0) {
                s->zlib_state = zlib_lib_open(&s->zlib, why, sizeof(why)) == 0 ? 1 : -1;
                if (s->zlib_state < 0)
                        vlog(LOG_WARN, "http: no gzip: %s", why);
        }
        return s->zlib_state > 0;
}

/* Compress in[0..n) into s->gz as a gzip member; the stream's state is reused. */
static int gzip_body(struct http_server *s, const char *in, size_t n, size_t *ret_len)
{
        if (!have_zlib(s))
                return -ENOENT;
        if (!s->z_ready) {
                /* A 4 KiB window: ~32 KiB of state, and metric lines repeat nearby. */
                if (zlib_deflate_init2(&s->zlib, &s->z, 1, 16 + 12, 5, Z_DEFAULT_STRATEGY) != Z_OK)
                        return -ENOMEM;
                s->z_ready = true;
        } else if (s->zlib.deflateReset(&s->z) != Z_OK) {
                return -EIO;
        }
        size_t bound = s->zlib.deflateBound(&s->z, (uLong)n);
        if (bound > s->gz_cap) {
                unsigned char *nb = realloc(s->gz, bound);
                if (!nb)
                        return -ENOMEM;
                s->gz = nb;
                s->gz_cap = bound;
        }
        s->z.next_in = (const Bytef *)in;
        s->z.avail_in = (uInt)n;
        s->z.next_out = s->gz;
        s->z.avail_out = (uInt)bound;
        if (s->zlib.deflate(&s->z, Z_FINISH) != Z_STREAM_END)
                return -EIO;
        *ret_len = bound - s->z.avail_out;
        return 0;
}

/* Send s->body as type, gzipped when the client accepts it and it is worth it. */
static enum MHD_Result send_body(struct http_server *s, struct MHD_Connection *c, const char *type)
{
        const char *ae =
            s->lib.MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
        const void *data = s->body.buf;
        size_t len = s->body.len, zlen;
        bool gz = s->body.len >= HTTP_GZIP_MIN_BYTES && http_accepts_gzip(ae) &&
                  gzip_body(s, s->body.buf, s->body.len, &zlen) == 0;
        if (gz) {
                data = s->gz;
                len = zlen;
        }
        struct MHD_Response *r =
            s->lib.MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);
        if (!r)
                return MHD_NO;
        s->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
        s->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
        if (gz)
                s->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
        return queue(s, c, MHD_HTTP_OK, r);
}

/* A copy of the last published data in s->frame and s->extra; HTTP_SNAP_* bits. */
static int take_snapshot(struct http_server *s)
{
        int have = s->snapshot(s->arg, &s->frame, &s->extra);
        if (!(have & HTTP_SNAP_FRAME))
                frame_clear(&s->frame);
        return have;
}

static enum MHD_Result serve_metrics(struct http_server *s, struct MHD_Connection *c)
{
        int have = take_snapshot(s);
        sb_reset(&s->body);
        if (metrics_render(&s->body, &s->frame, (have & HTTP_SNAP_EXTRA) ? &s->extra : NULL) < 0)
                return reply_text(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "metrics too large\n");
        return send_body(s, c, METRICS_CONTENT_TYPE);
}

static enum MHD_Result serve_page(struct http_server *s, struct MHD_Connection *c)
{
        if (!s->page)
                return queue(s, c, MHD_HTTP_OK, text_response(s, index_html, HTML_CONTENT_TYPE));
        take_snapshot(s);
        sb_reset(&s->body);
        if (s->page(s->arg, &s->body, &s->frame) < 0 || s->body.overflow)
                return reply_text(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "page too large\n");
        return send_body(s, c, HTML_CONTENT_TYPE);
}

static enum MHD_Result serve_report(struct http_server *s, struct MHD_Connection *c)
{
        if (!s->report)
                return reply_text(s, c, MHD_HTTP_NOT_FOUND, "not found\n");
        const char *day = s->lib.MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "day");
        sb_reset(&s->body);
        int r = s->report(s->arg, day, &s->body);
        if (r == -EINVAL)
                return reply_text(s, c, MHD_HTTP_BAD_REQUEST, "day must be YYYY-MM-DD\n");
        if (r == -ENOENT)
                return reply_text(s, c, MHD_HTTP_NOT_FOUND, "nothing recorded that day\n");
        if (r == -EFBIG)
                return reply_text(s, c, MHD_HTTP_CONTENT_TOO_LARGE,
                                  "that day's logs are too large\n");
        if (r < 0 || s->body.overflow)
                return reply_text(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "report failed\n");
        return send_body(s, c, HTML_CONTENT_TYPE);
}

/* AUTH_OK, or the reply to a request without valid credentials has been queued. */
static enum MHD_Result check_auth(struct http_server *s, struct MHD_Connection *c, bool *ret_ok)
{
        char *password = NULL;
        char *user = s->lib.MHD_basic_auth_get_username_password(c, &password);
        enum auth_result a = basic_auth_check(&s->auth, user, password, now_mono_ns());
        if (password) {
                explicit_bzero(password, strlen(password));
                s->lib.MHD_free(password);
        }
        if (user)
                s->lib.MHD_free(user);
        *ret_ok = a == AUTH_OK;
        if (a == AUTH_OK)
                return MHD_YES;
        if (a == AUTH_BUSY) {
                struct MHD_Response *r =
                    text_response(s, "too many attempts\n", "text/plain; charset=utf-8");
                if (r)
                        s->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
                return queue(s, c, MHD_HTTP_TOO_MANY_REQUESTS, r);
        }
        struct MHD_Response *r = text_response(s, "unauthorized\n", "text/plain; charset=utf-8");
        if (!r)
                return MHD_NO;
        enum MHD_Result ret = s->lib.MHD_queue_basic_auth_fail_response(c, REALM, r);
        s->lib.MHD_destroy_response(r);
        return ret;
}

/* A request that carries a body (GET and HEAD must not). */
static bool has_body(struct http_server *s, struct MHD_Connection *c)
{
        const char *cl =
            s->lib.MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        return (cl && strcmp(cl, "0") != 0) ||
               s->lib.MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                  MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

static enum MHD_Result respond(struct http_server *s, struct MHD_Connection *c, const char *url,
                               const char *method)
{
        if (s->auth_on) {
                bool ok;
                enum MHD_Result r = check_auth(s, c, &ok);
                if (!ok)
                        return r;
        }
        bool head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
        if (!head && strcmp(method, MHD_HTTP_METHOD_GET) != 0)
                return reply_not_allowed(s, c);
        if (has_body(s, c))
                return reply_text(s, c, MHD_HTTP_BAD_REQUEST, "request body not allowed\n");
        if (!strcmp(url, "/metrics"))
                return serve_metrics(s, c);
        if (!strcmp(url, "/"))
                return serve_page(s, c);
        if (!strcmp(url, "/report"))
                return serve_report(s, c);
        return reply_text(s, c, MHD_HTTP_NOT_FOUND, "not found\n");
}

/* MHD calls this once when the headers are in and again when the (empty) body is.
 * A reply queued at the first call makes MHD close the connection afterwards, so a
 * well-formed GET or HEAD is answered at the second call and the connection stays
 * open for the next scrape; anything refused is answered at once. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
        struct http_server *s = cls;
        (void)version;
        (void)upload_data;
        bool plain =
            (!strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD)) &&
            !has_body(s, c);
        if (!*con_cls && plain) {
                *con_cls = s;
                return MHD_YES;
        }
        *upload_data_size = 0;
        return respond(s, c, url, method);
}

__attribute__((format(printf, 2, 0))) static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
        struct http_server *s = cls;
        char msg[sizeof(s->start_err)];
        vsnprintf(msg, sizeof(msg), fmt, ap);
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
                msg[--n] = '\0';
        if (pthread_equal(pthread_self(), s->starter))
                memcpy(s->start_err, msg, n + 1);
        else if (ratelimit_ok(&s->log_rl, now_mono_ns(), NULL))
                vlog(LOG_DEBUG, "http: %s", msg);
}

/* ---- start and stop ---- */

static int read_pem(const char *path, char **ret, char *err, size_t cap)
{
        char *buf = malloc(HTTP_MAX_PEM + 1);
        if (!buf)
                return -ENOMEM;
        int n = read_file_at(NULL, path, buf, HTTP_MAX_PEM + 1);
        if (n < 0 || n >= HTTP_MAX_PEM) {
                snprintf(err, cap, "%s: %s", path, n < 0 ? strerror(-n) : "file too large");
                free(buf);
                return n < 0 ? n : -EFBIG;
        }
        *ret = buf;
        return 0;
}

static int setup_security(struct http_server *s, const struct web_config *web, char *err,
                          size_t cap)
{
        int r;
        if (web)
                s->web = *web;
        if (s->web.nusers) {
                if ((r = basic_auth_init(&s->auth, &s->web)) < 0) {
                        snprintf(err, cap, "basic auth %s",
                                 r == -ENOENT ? "needs libcrypt (Debian package libcrypt1)"
                                              : strerror(-r));
                        return r;
                }
                s->auth_on = true;
        }
        if (!s->web.tls)
                return 0;
        if (s->lib.MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
                snprintf(err, cap, "TLS requested but libmicrohttpd was built without it");
                return -ENOTSUP;
        }
        if ((r = read_pem(s->web.cert_file, &s->tls_cert, err, cap)) < 0)
                return r;
        return read_pem(s->web.key_file, &s->tls_key, err, cap);
}

/* MHD's unescaper for the URL and its arguments: %HH decoded in place, except %00 and
 * malformed escapes, which stay as written, so "/metrics%00" is a path of its own (404)
 * and not "/metrics" cut at the NUL. Returns the length left. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *str)
{
        (void)cls;
        (void)c;
        char *w = str;
        for (const char *r = str; *r; r++) {
                int hi = r[0] == '%' ? parse_hex_digit(r[1]) : -1;
                int lo = hi >= 0 ? parse_hex_digit(r[2]) : -1;
                if (lo >= 0 && (hi | lo) != 0) {
                        *w++ = (char)(hi << 4 | lo);
                        r += 2;
                } else {
                        *w++ = *r;
                }
        }
        *w = '\0';
        return (size_t)(w - str);
}

static struct MHD_Daemon *start_mhd(struct http_server *s, const struct sockaddr_storage *addr)
{
        struct MHD_OptionItem ops[] = {
            {MHD_OPTION_SOCK_ADDR, 0, (void *)addr},
            {MHD_OPTION_CONNECTION_LIMIT, HTTP_MAX_CONNECTIONS, NULL},
            {MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTP_MAX_PER_IP, NULL},
            {MHD_OPTION_CONNECTION_TIMEOUT, HTTP_IDLE_TIMEOUT_S, NULL},
            {MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_CONNECTION_MEMORY, NULL},
            {MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL},
            {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)unescape, NULL},
            {MHD_OPTION_END, 0, NULL}, /* the TLS options go here */
            {MHD_OPTION_END, 0, NULL},
            {MHD_OPTION_END, 0, NULL},
            {MHD_OPTION_END, 0, NULL},
        };
        unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
        if (addr->ss_family == AF_INET6)
                flags |= MHD_USE_IPv6;
        if (s->web.tls) {
                flags |= MHD_USE_TLS;
                ops[7] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, s->tls_cert};
                ops[8] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, s->tls_key};
                ops[9] =
                    (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)TLS_PRIORITIES};
        }
        /* MHD's thread inherits this mask: it must never take the daemon's signals. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        s->starter = pthread_self();
        struct MHD_Daemon *d =
            s->lib.MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER,
                                    on_mhd_log, s, MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return d;
}

/* Bind a throw-away socket to addr: 0, or the -errno a bind gives (-EADDRINUSE). */
static int probe_bind(const struct sockaddr_storage *addr, socklen_t len)
{
        int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return 0;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        int r = bind(fd, (const struct sockaddr *)addr, len) < 0 ? -errno : 0;
        close(fd);
        return r;
}

int http_server_start(const struct http_server_config *cfg, struct http_server **ret, char *err,
                      size_t cap)
{
        struct sockaddr_storage addr;
        socklen_t alen;
        int r = http_parse_listen(cfg->listen, &addr, &alen);
        if (r < 0) {
                snprintf(err, cap, "cannot listen on '%s': %s", cfg->listen,
                         r == -EINVAL ? "expected ADDR:PORT, [IPV6]:PORT or :PORT"
                                      : "no such address");
                return r;
        }
        struct http_server *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->snapshot = cfg->snapshot;
        s->page = cfg->page;
        s->report = cfg->report;
        s->arg = cfg->arg;
        s->log_rl.interval_ns = 10 * NSEC_PER_SEC;
        if ((r = mhd_lib_open(&s->lib, cfg->mhd_library, err, cap)) < 0)
                goto out_free;
        if ((r = setup_security(s, cfg->web, err, cap)) < 0)
                goto out_free;
        if ((r = sb_init_heap(&s->body, 16384, HTTP_MAX_BODY)) < 0)
                goto out_free;
        s->mhd = start_mhd(s, &addr);
        if (!s->mhd) {
                int b = probe_bind(&addr, alen);
                r = b < 0 ? b : -EADDRNOTAVAIL;
                /* MHD's own message names "port 0" (it was given a sockaddr): say why
                 * the address itself could not be bound when a plain bind says so. */
                snprintf(err, cap, "cannot listen on %s: %s", cfg->listen,
                         b < 0             ? strerror(-b)
                         : s->start_err[0] ? s->start_err
                                           : "libmicrohttpd failed to start");
                goto out_free;
        }
        const union MHD_DaemonInfo *info =
            s->lib.MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
        s->port = info ? info->port : 0;
        *ret = s;
        return 0;
out_free:
        http_server_stop(s);
        return r;
}

unsigned http_server_port(const struct http_server *s)
{
        return s->port;
}

void http_server_stop(struct http_server *s)
{
        if (!s)
                return;
        if (s->mhd)
                s->lib.MHD_stop_daemon(s->mhd);
        if (s->z_ready)
                s->zlib.deflateEnd(&s->z);
        zlib_lib_close(&s->zlib);
        free(s->gz);
        sb_free(&s->body);
        free(s->tls_cert);
        if (s->tls_key) {
                explicit_bzero(s->tls_key, strlen(s->tls_key));
                free(s->tls_key);
        }
        basic_auth_fini(&s->auth);
        mhd_lib_close(&s->lib);
        free(s);
}
