/* SPDX-License-Identifier: Apache-2.0 */
/* One remote-write request. See rw_send.h.
 *
 * Headers from the remote-write 1.0 spec (prometheus.io/docs/concepts/remote_write_spec):
 *   Content-Encoding: snappy
 *   Content-Type: application/x-protobuf
 *   X-Prometheus-Remote-Write-Version: 0.1.0
 *   User-Agent: vigil/1.2.0
 * The body is snappy's block format (not the framed stream format), as the spec says. */
#include "push/rw_send.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "push/rw_proto.h"
#include "push/rw_record.h"

#ifndef VIGIL_VERSION
#define VIGIL_VERSION "unknown"
#endif

#define MAX_TEXT   (16u << 20) /* one record, uncompressed */
#define REPLY_KEEP 200         /* bytes of an error reply kept for the log */

/* curl_easy_setopt and _getinfo are also macros in curl's headers (type checks); the
 * parentheses call the pointer instead. */
#define SETOPT(c, o, v)  ((c)->lib->curl_easy_setopt)((c)->curl, o, v)
#define GETINFO(c, i, p) ((c)->lib->curl_easy_getinfo)((c)->curl, i, p)

struct reply {
        char text[REPLY_KEEP + 1];
        size_t len;
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
        struct reply *r = arg;
        size_t len = size * n, room = REPLY_KEEP - r->len;
        size_t take = len < room ? len : room;
        memcpy(r->text + r->len, p, take);
        r->len += take;
        r->text[r->len] = '\0';
        return len;
}

static int add_header(struct rw_client *c, const char *h)
{
        struct curl_slist *l = c->lib->curl_slist_append(c->headers, h);
        if (!l)
                return -ENOMEM;
        c->headers = l;
        return 0;
}

static int auth_setup(struct rw_client *c, const struct rw_config *cfg, char *err, size_t cap)
{
        char secret[512], hdr[600];
        int r;
        if (cfg->bearer_token_file[0]) {
                if ((r = rwconfig_read_secret(cfg->bearer_token_file, secret, sizeof(secret))) <
                    0) {
                        snprintf(err, cap, "bearer_token_file %s: %s", cfg->bearer_token_file,
                                 r == -EINVAL ? "empty" : strerror(-r));
                        return r;
                }
                snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s", secret);
                r = add_header(c, hdr);
                explicit_bzero(secret, sizeof(secret));
                explicit_bzero(hdr, sizeof(hdr));
                return r;
        }
        if (!cfg->username[0])
                return 0;
        const char *pw = cfg->password;
        if (cfg->password_file[0]) {
                if ((r = rwconfig_read_secret(cfg->password_file, secret, sizeof(secret))) < 0) {
                        snprintf(err, cap, "password_file %s: %s", cfg->password_file,
                                 r == -EINVAL ? "empty" : strerror(-r));
                        return r;
                }
                pw = secret;
        }
        /* curl copies both strings. */
        SETOPT(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        SETOPT(c, CURLOPT_USERNAME, cfg->username);
        SETOPT(c, CURLOPT_PASSWORD, pw);
        explicit_bzero(secret, sizeof(secret));
        return 0;
}

/* A request in flight gives up when the daemon stops, while its body is not all sent:
 * the receiver cannot have taken it, and the exit attempt sends it again. Once the
 * body is out the answer is awaited (within the timeout), so an accepted batch is not
 * sent twice. */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
        const struct rw_client *c = arg;
        (void)dltotal;
        (void)dlnow;
        return c->abort_flag && *c->abort_flag && (ultotal == 0 || ulnow < ultotal);
}

static const char *const rw_headers[] = {
    "Content-Encoding: snappy",
    "Content-Type: application/x-protobuf",
    "X-Prometheus-Remote-Write-Version: 0.1.0",
    NULL,
};

const struct rw_client_kind rw_kind_remote_write = {
    .headers = rw_headers,
    .hint_404 = "no remote-write receiver at this URL (a Prometheus needs "
                "--web.enable-remote-write-receiver, and the path /api/v1/write)",
    .config = "the remote-write config",
};

int rw_client_init(struct rw_client *c, const struct rw_lib *lib, const struct rw_client_kind *kind,
                   const char *url, const struct rw_config *cfg, const volatile int *abort_flag,
                   char *err, size_t cap)
{
        int r = 0;
        memset(c, 0, sizeof(*c));
        c->lib = lib;
        c->kind = kind;
        c->abort_flag = abort_flag;
        snprintf(c->url, sizeof(c->url), "%s", url);
        c->curl = lib->curl_easy_init();
        if (!c->curl) {
                snprintf(err, cap, "libcurl: cannot create a handle");
                return -ENOMEM;
        }
        for (size_t i = 0; kind->headers[i] && r == 0; i++)
                r = add_header(c, kind->headers[i]);
        if (r < 0 || (r = add_header(c, "Expect:")) < 0) {
                snprintf(err, cap, "out of memory");
                return r;
        }
        if ((r = auth_setup(c, cfg, err, cap)) < 0)
                return r;
        SETOPT(c, CURLOPT_URL, c->url);
        SETOPT(c, CURLOPT_PROTOCOLS_STR, "http,https");
        SETOPT(c, CURLOPT_HTTPHEADER, c->headers);
        SETOPT(c, CURLOPT_USERAGENT, "vigil/" VIGIL_VERSION);
        SETOPT(c, CURLOPT_NOSIGNAL, 1L);
        SETOPT(c, CURLOPT_POST, 1L);
        SETOPT(c, CURLOPT_WRITEFUNCTION, on_body);
        SETOPT(c, CURLOPT_XFERINFOFUNCTION, on_progress);
        SETOPT(c, CURLOPT_XFERINFODATA, c);
        SETOPT(c, CURLOPT_NOPROGRESS, 0L);
        if (cfg->ca_file[0])
                SETOPT(c, CURLOPT_CAINFO, cfg->ca_file);
        if (cfg->cert_file[0]) {
                SETOPT(c, CURLOPT_SSLCERT, cfg->cert_file);
                SETOPT(c, CURLOPT_SSLKEY, cfg->key_file);
        }
        if (cfg->insecure_skip_verify) {
                SETOPT(c, CURLOPT_SSL_VERIFYPEER, 0L);
                SETOPT(c, CURLOPT_SSL_VERIFYHOST, 0L);
        }
        return 0;
}

void rw_client_fini(struct rw_client *c)
{
        if (c->curl)
                c->lib->curl_easy_cleanup(c->curl);
        if (c->headers)
                c->lib->curl_slist_free_all(c->headers);
        memset(c, 0, sizeof(*c));
}

/* The WriteRequest of b, snappy-compressed, in *ret_body (malloc'ed). 0 or -errno. */
static int build_body(const struct rw_lib *lib, const struct rwq_batch *b,
                      const struct rw_label *labels, size_t nlabels, char **ret_body,
                      size_t *ret_len)
{
        struct rw_encoder e;
        uint8_t *pb = NULL;
        size_t pblen = 0;
        char *text = NULL;
        int r = rw_enc_init(&e, labels, nlabels);
        if (r < 0)
                return r;
        for (size_t i = 0; i < b->n && r == 0; i++) {
                const struct rwq_record *rec = &b->recs[i];
                size_t tl;
                if (lib->snappy_uncompressed_length((const char *)rec->payload, rec->len, &tl) !=
                        SNAPPY_OK ||
                    tl > MAX_TEXT) {
                        r = -EBADMSG;
                        break;
                }
                char *nt = realloc(text, tl ? tl : 1);
                if (!nt) {
                        r = -ENOMEM;
                        break;
                }
                text = nt;
                if (lib->snappy_uncompress((const char *)rec->payload, rec->len, text, &tl) !=
                    SNAPPY_OK)
                        r = -EBADMSG;
                else
                        r = rw_enc_add_payload(&e, text, tl, rec->ts_ms);
        }
        free(text);
        if (r == 0)
                r = rw_enc_finish(&e, &pb, &pblen);
        rw_enc_free(&e);
        if (r < 0)
                return r;
        size_t cl = lib->snappy_max_compressed_length(pblen);
        char *body = malloc(cl ? cl : 1);
        if (!body || lib->snappy_compress((const char *)pb, pblen, body, &cl) != SNAPPY_OK) {
                free(pb);
                free(body);
                return -ENOMEM;
        }
        free(pb);
        *ret_body = body;
        *ret_len = cl;
        return 0;
}

static void classify(struct rw_client *c, CURLcode cc, const char *errbuf, struct reply *rep,
                     struct rw_result *res)
{
        curl_off_t ra = 0;
        res->curl_code = (int)cc;
        if (cc != CURLE_OK) {
                res->outcome = RW_RETRY;
                /* The error buffer says more ("Failed to connect to ... port 9090"). */
                snprintf(res->why, sizeof(res->why), "%s",
                         errbuf[0] ? errbuf : c->lib->curl_easy_strerror(cc));
                return;
        }
        GETINFO(c, CURLINFO_RESPONSE_CODE, &res->http_status);
        long s = res->http_status;
        if (s >= 200 && s < 300) {
                res->outcome = RW_ACCEPTED;
                return;
        }
        for (size_t i = 0; i < rep->len; i++)
                if ((unsigned char)rep->text[i] < 0x20 || rep->text[i] == 0x7f)
                        rep->text[i] = ' ';
        /* Retry-After on any answer that is retried, as Prometheus's client does
         * (storage/remote/client.go, Store: a 5xx, or a 429, is a RecoverableError
         * carrying retryAfterDuration of the header). curl reads both forms, seconds
         * and an HTTP date. */
        if (s == 429 || s >= 500) {
                if (GETINFO(c, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
                        res->retry_after_s = (int64_t)ra;
        }
        if (s == 401 || s == 403) {
                /* The credentials are wrong, not the data: keep it for when they are fixed. */
                res->outcome = RW_RETRY;
                snprintf(res->why, sizeof(res->why),
                         "HTTP %ld: the receiver refused the credentials (check basic_auth or "
                         "bearer_token_file in %s)",
                         s, c->kind->config);
                return;
        }
        if (s == 404) {
                /* The URL is wrong (or the receiver is off), not the data: keep it and
                 * back off until the URL is fixed, saying so once. */
                res->outcome = RW_RETRY;
                snprintf(res->why, sizeof(res->why), "HTTP 404: %s", c->kind->hint_404);
                return;
        }
        res->outcome = s == 429 || s >= 500 || s < 200 ? RW_RETRY : RW_REJECTED;
        snprintf(res->why, sizeof(res->why), "HTTP %ld%s%.*s", s, rep->len ? ": " : "",
                 (int)rep->len, rep->text);
}

void rw_body_free(struct rw_body *body)
{
        free(body->buf);
        body->buf = NULL;
        body->len = 0;
}

void rw_client_post(struct rw_client *c, const char *body, size_t len, int64_t timeout_ms,
                    struct rw_result *res)
{
        char errbuf[CURL_ERROR_SIZE];
        struct reply rep = {.len = 0};
        memset(res, 0, sizeof(*res));
        errbuf[0] = '\0';
        SETOPT(c, CURLOPT_ERRORBUFFER, errbuf);
        SETOPT(c, CURLOPT_POSTFIELDS, body);
        SETOPT(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        SETOPT(c, CURLOPT_WRITEDATA, &rep);
        SETOPT(c, CURLOPT_TIMEOUT_MS, (long)(timeout_ms > 0 ? timeout_ms : 1));
        SETOPT(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout_ms > 0 ? timeout_ms : 1));
        CURLcode cc = c->lib->curl_easy_perform(c->curl);
        classify(c, cc, errbuf, &rep, res);
        SETOPT(c, CURLOPT_ERRORBUFFER, (char *)NULL);
        SETOPT(c, CURLOPT_POSTFIELDS, (char *)NULL);
}

void rw_client_send(struct rw_client *c, const struct rwq_batch *b, const struct rw_label *labels,
                    size_t nlabels, struct rw_body *body, int64_t timeout_ms, struct rw_result *res)
{
        if (!body->buf) {
                int r = build_body(c->lib, b, labels, nlabels, &body->buf, &body->len);
                if (r < 0) {
                        /* Bytes that do not decode will not decode later either. */
                        memset(res, 0, sizeof(*res));
                        res->outcome = r == -ENOMEM ? RW_RETRY : RW_REJECTED;
                        snprintf(res->why, sizeof(res->why), "cannot encode the batch: %s",
                                 strerror(-r));
                        return;
                }
        }
        rw_client_post(c, body->buf, body->len, timeout_ms, res);
}

bool rw_failure_news(struct rw_said *said, const struct rw_result *res, unsigned failures)
{
        if (failures > 1 && res->http_status == said->http_status &&
            res->curl_code == said->curl_code)
                return false;
        said->http_status = res->http_status;
        said->curl_code = res->curl_code;
        return true;
}
