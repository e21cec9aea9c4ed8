/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTPS transport on libmicrohttpd. See http_mhd.h.
 *
 * MHD runs one internal polling thread; every callback below runs on it, so the
 * handler's render buffers need no lock. MHD copies each reply's body.
 *
 * A deferred reply (/report, http_later.h) suspends its connection from the access
 * handler, the report's thread resumes it, and MHD calls the handler again, which
 * queues the reply. libmicrohttpd 0.9.75's <microhttpd.h>: MHD_suspend_connection only
 * from the access handler, with MHD_ALLOW_SUSPEND_RESUME (which brings MHD_USE_ITC so
 * a resume wakes the polling thread); MHD_resume_connection from any thread; and never
 * MHD_stop_daemon while a connection is suspended. */
#include "web/http_mhd.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "web/http_request.h"
#include "web/mhd_lib.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/pfile.h"

/* GnuTLS's priority string (gnutls_priority_init(3), "Priority strings" in the GnuTLS
 * manual 3.7): TLS 1.3 and 1.2 only; in 1.2, only AEAD ciphers (no CBC, so no SHA-1 or
 * SHA-256 MAC suite such as ECDHE-ECDSA-AES128-SHA) with forward-secret ECDHE key
 * exchange, the ciphers of Mozilla's "intermediate" server profile. */
#define TLS_PRIORITIES                                                                             \
        "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"        \
        "+CHACHA20-POLY1305:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA"

struct http_mhd {
        struct mhd_lib lib;
        struct MHD_Daemon *mhd;
        struct http_handler *h;
        char *tls_cert, *tls_key; /* PEM text, alive as long as mhd */
        /* MHD's messages: kept while starting (for the error), then rate-limited. */
        pthread_t starter;
        char start_err[160];
        struct ratelimit log_rl;
        /* The connection suspended for a deferred reply (one at a time), and the marker
         * its con_cls holds while it waits. */
        struct MHD_Connection *waiting;
        char waiting_marker;
};

/* ---- requests ---- */

/* A request that carries a body (GET and HEAD must not). */
static bool has_body(struct http_mhd *m, struct MHD_Connection *c)
{
        const char *cl =
            m->lib.MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        return (cl && strcmp(cl, "0") != 0) ||
               m->lib.MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                  MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/* The Content-Length fields of a request, as MHD_get_connection_values walks them. */
struct lengths {
        const char *first;
        bool conflict;
};

static enum MHD_Result on_length(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
        struct lengths *l = cls;
        (void)kind;
        if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0)
                return MHD_YES;
        if (!l->first)
                l->first = value;
        else if (strcmp(l->first, value) != 0)
                l->conflict = true;
        return MHD_YES;
}

/* Two Content-Length fields that disagree (RFC 9112 6.3: a request the server must
 * answer 400, since a proxy in front may have framed the body by the other one). MHD
 * 0.9.75 takes the first and keeps the rest; the plain transport refuses it in
 * http_request.c, and so does this one. */
static bool lengths_conflict(struct http_mhd *m, struct MHD_Connection *c)
{
        struct lengths l = {0};
        m->lib.MHD_get_connection_values(c, MHD_HEADER_KIND, on_length, &l);
        return l.conflict;
}

/* Queue rp on c. */
static enum MHD_Result queue_reply(struct http_mhd *m, struct MHD_Connection *c,
                                   const struct http_reply *rp)
{
        struct MHD_Response *r = m->lib.MHD_create_response_from_buffer(rp->len, (void *)rp->body,
                                                                        MHD_RESPMEM_MUST_COPY);
        if (!r)
                return MHD_NO;
        m->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rp->type);
        m->lib.MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        if (rp->vary)
                m->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
        if (rp->gzip)
                m->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
        if (rp->allow)
                m->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        if (rp->retry_after)
                m->lib.MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
        enum MHD_Result ret = rp->www_auth
                                  ? m->lib.MHD_queue_basic_auth_fail_response(c, HTTP_REALM, r)
                                  : m->lib.MHD_queue_response(c, rp->status, r);
        m->lib.MHD_destroy_response(r);
        return ret;
}

/* The report's thread: the deferred reply is ready; MHD calls on_request again. */
static void on_ready(void *arg)
{
        struct http_mhd *m = arg;
        m->lib.MHD_resume_connection(m->waiting);
}

static enum MHD_Result respond(struct http_mhd *m, struct MHD_Connection *c, const char *url,
                               const char *method, void **con_cls)
{
        char *password = NULL;
        char *user =
            m->h->auth_on ? m->lib.MHD_basic_auth_get_username_password(c, &password) : NULL;
        const union MHD_ConnectionInfo *ci =
            m->lib.MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        struct http_request rq = {
            .method = method,
            .path = url,
            .day = m->lib.MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "day"),
            .accept_encoding = m->lib.MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                                  MHD_HTTP_HEADER_ACCEPT_ENCODING),
            .user = user,
            .password = password,
            .peer = ci ? ci->client_addr : NULL,
            .has_body = has_body(m, c),
        };
        struct http_reply rp;
        http_handle(m->h, &rq, &rp);
        if (password) {
                explicit_bzero(password, strlen(password));
                m->lib.MHD_free(password);
        }
        if (user)
                m->lib.MHD_free(user);
        if (rp.deferred) {
                m->waiting = c;
                *con_cls = &m->waiting_marker;
                m->lib.MHD_suspend_connection(c);
                http_handler_run(m->h);
                return MHD_YES;
        }
        return queue_reply(m, c, &rp);
}

/* MHD calls this once when the headers are in and again when the (empty) body is.
 * A reply queued at the first call makes MHD close the connection afterwards, so a
 * well-formed GET or HEAD is answered at the second call and the connection stays
 * open for the next scrape; anything refused is answered at once. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
        struct http_mhd *m = cls;
        (void)version;
        (void)upload_data;
        if (*con_cls == &m->waiting_marker) { /* resumed: the deferred reply is ready */
                struct http_reply rp;
                http_handler_take(m->h, &rp);
                *con_cls = m;
                m->waiting = NULL;
                *upload_data_size = 0;
                enum MHD_Result q = queue_reply(m, c, &rp); /* MHD_RESPMEM_MUST_COPY */
                http_handler_release(m->h);
                return q;
        }
        if (!*con_cls && lengths_conflict(m, c)) {
                struct http_reply rp;
                http_reply_text(&rp, 400, "two Content-Length fields that disagree\n");
                *con_cls = m;
                *upload_data_size = 0;
                return queue_reply(m, c, &rp);
        }
        bool plain =
            (!strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD)) &&
            !has_body(m, c);
        if (!*con_cls && plain) {
                *con_cls = m;
                return MHD_YES;
        }
        *upload_data_size = 0;
        return respond(m, c, url, method, con_cls);
}

/* MHD is done with a request. One whose deferred reply was never taken (the client went
 * away while it waited, and MHD closed the connection on resuming it without calling
 * on_request again) gives the reply back here, or no report could be made after it. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
        struct http_mhd *m = cls;
        (void)c;
        (void)toe;
        if (*con_cls != &m->waiting_marker)
                return;
        struct http_reply rp;
        http_handler_take(m->h, &rp);
        http_handler_release(m->h);
        *con_cls = m;
        m->waiting = NULL;
}

__attribute__((format(printf, 2, 0))) static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
        struct http_mhd *m = cls;
        char msg[sizeof(m->start_err)];
        vsnprintf(msg, sizeof(msg), fmt, ap);
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
                msg[--n] = '\0';
        if (pthread_equal(pthread_self(), m->starter))
                memcpy(m->start_err, msg, n + 1);
        else if (ratelimit_ok(&m->log_rl, now_mono_ns(), NULL))
                vlog(LOG_DEBUG, "http: %s", msg);
}

/* MHD's unescaper for the URL and its arguments (http_unescape). */
static size_t unescape(void *cls, struct MHD_Connection *c, char *str)
{
        (void)cls;
        (void)c;
        return http_unescape(str);
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

static struct MHD_Daemon *start_mhd(struct http_mhd *m, const struct sockaddr_storage *addr)
{
        struct MHD_OptionItem ops[] = {
            {MHD_OPTION_SOCK_ADDR, 0, (void *)addr},
            {MHD_OPTION_CONNECTION_LIMIT, HTTP_MAX_CONNECTIONS, NULL},
            {MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTP_MAX_PER_IP, NULL},
            {MHD_OPTION_CONNECTION_TIMEOUT, HTTP_IDLE_TIMEOUT_S, NULL},
            {MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_CONNECTION_MEMORY, NULL},
            {MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL},
            {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)unescape, NULL},
            {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, m},
            {MHD_OPTION_HTTPS_MEM_CERT, 0, m->tls_cert},
            {MHD_OPTION_HTTPS_MEM_KEY, 0, m->tls_key},
            {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)TLS_PRIORITIES},
            {MHD_OPTION_END, 0, NULL},
        };
        unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
                         MHD_USE_TLS | MHD_ALLOW_SUSPEND_RESUME;
        if (addr->ss_family == AF_INET6)
                flags |= MHD_USE_IPv6;
        /* MHD's thread inherits this mask: it must never take the daemon's signals. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        m->starter = pthread_self();
        struct MHD_Daemon *d =
            m->lib.MHD_start_daemon(flags, 0, NULL, NULL, on_request, m, MHD_OPTION_EXTERNAL_LOGGER,
                                    on_mhd_log, m, MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
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

int http_mhd_start(struct http_handler *h, const struct sockaddr_storage *addr, socklen_t len,
                   const char *listen, const char *soname, struct http_mhd **ret,
                   unsigned *ret_port, char *err, size_t cap)
{
        struct http_mhd *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->h = h;
        m->log_rl.interval_ns = 10 * NSEC_PER_SEC;
        int r = mhd_lib_open(&m->lib, soname, err, cap);
        if (r < 0)
                goto out_free;
        if (m->lib.MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
                snprintf(err, cap, "TLS requested but libmicrohttpd was built without it");
                r = -ENOTSUP;
                goto out_free;
        }
        http_handler_on_ready(h, on_ready, m);
        if ((r = read_pem(h->web.cert_file, &m->tls_cert, err, cap)) < 0 ||
            (r = read_pem(h->web.key_file, &m->tls_key, err, cap)) < 0)
                goto out_free;
        m->mhd = start_mhd(m, addr);
        if (!m->mhd) {
                int b = probe_bind(addr, len);
                r = b < 0 ? b : -EADDRNOTAVAIL;
                /* MHD's own message names "port 0" (it was given a sockaddr): say why
                 * the address itself could not be bound when a plain bind says so. */
                snprintf(err, cap, "cannot listen on %s: %s", listen,
                         b < 0             ? strerror(-b)
                         : m->start_err[0] ? m->start_err
                                           : "libmicrohttpd failed to start");
                goto out_free;
        }
        const union MHD_DaemonInfo *info =
            m->lib.MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_BIND_PORT);
        *ret_port = info ? info->port : 0;
        *ret = m;
        return 0;
out_free:
        http_mhd_stop(m);
        return r;
}

void http_mhd_stop(struct http_mhd *m)
{
        if (!m)
                return;
        /* The report's thread resumes its connection before it ends: none is left
         * suspended when the daemon stops. */
        http_handler_wait(m->h);
        if (m->mhd)
                m->lib.MHD_stop_daemon(m->mhd);
        free(m->tls_cert);
        if (m->tls_key) {
                explicit_bzero(m->tls_key, strlen(m->tls_key));
                free(m->tls_key);
        }
        mhd_lib_close(&m->lib);
        free(m);
}
