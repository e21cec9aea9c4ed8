/* SPDX-License-Identifier: Apache-2.0 */
/* One remote-write request: a batch of queued records turned into a snappy-compressed
 * WriteRequest and POSTed with libcurl, and what came of it. Runs on the sender thread. */
#ifndef VIGIL_PUSH_RW_SEND_H
#define VIGIL_PUSH_RW_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "push/rw_config.h"
#include "push/rw_lib.h"
#include "push/rw_queue.h"

/* What to do with the batch after a request. */
enum rw_outcome {
        RW_ACCEPTED, /* 2xx: remove it from the queue */
        RW_RETRY,    /* network error, 5xx, 429, 401/403/404: keep it, back off */
        RW_REJECTED, /* another 4xx, or a batch that cannot be encoded: drop it */
};

struct rw_result {
        enum rw_outcome outcome;
        long http_status;      /* 0 when no response came */
        int curl_code;         /* CURLE_OK when a response came */
        int64_t retry_after_s; /* Retry-After of a 429 or 5xx; 0 when none */
        char why[320];         /* one line: what failed, for the log */
};

/* The last failure a sender said, so a run of the same one is said once. */
struct rw_said {
        long http_status;
        int curl_code;
};

/* Whether res is a failure to say: the first of a run (failures, the sender's count of
 * failed attempts in a row, is 1) or one unlike the last said; it becomes the last said. */
bool rw_failure_news(struct rw_said *said, const struct rw_result *res, unsigned failures);

/* What differs between the users of a client: the request headers and what an
 * answer that says "wrong place" or "wrong credentials" tells the user to check. */
struct rw_client_kind {
        const char *const *headers; /* "Name: value" lines, NULL-terminated */
        const char *hint_404;       /* after "HTTP 404: " */
        const char *config;         /* the config named in a 401/403 ("the remote-write config") */
};

/* Remote-write 1.0's headers and hints. */
extern const struct rw_client_kind rw_kind_remote_write;

/* A prepared connection: the URL, headers and credentials, reused across requests. */
struct rw_client {
        const struct rw_client_kind *kind;
        const struct rw_lib *lib;
        CURL *curl;
        struct curl_slist *headers;
        char url[1024];
        /* Set from another thread to abort the request in flight (at exit). */
        const volatile int *abort_flag;
};

/* Set up c for url with the headers of kind and the auth and TLS of cfg (the bearer
 * token and password files are read here). 0, or -errno with one line in err (cap
 * bytes). */
int rw_client_init(struct rw_client *c, const struct rw_lib *lib, const struct rw_client_kind *kind,
                   const char *url, const struct rw_config *cfg, const volatile int *abort_flag,
                   char *err, size_t cap);

/* POST body[0..len) and wait at most timeout_ms; fills *res (a 2xx accepted; a network
 * error, 5xx, 429, 401, 403 and 404 retried; another answer rejected, with the start of
 * its reply in res->why). */
void rw_client_post(struct rw_client *c, const char *body, size_t len, int64_t timeout_ms,
                    struct rw_result *res);

/* One request body: a batch encoded once and POSTed as the same bytes on every retry,
 * as Prometheus's own sender does (storage/remote/queue_manager.go,
 * sendWriteRequestWithBackoff: the attempt closure stores the same buffer again). */
struct rw_body {
        char *buf; /* snappy-compressed WriteRequest, malloc'ed; NULL until encoded */
        size_t len;
};

/* Encode the records of b (snappy payloads: sample records, push/rw_record.h) with the extra labels
 * into *body, unless body already holds them (a retry: the same bytes go again), and
 * POST it, waiting at most timeout_ms. Fills *res. *body stays the caller's
 * (rw_body_free). */
void rw_client_send(struct rw_client *c, const struct rwq_batch *b, const struct rw_label *labels,
                    size_t nlabels, struct rw_body *body, int64_t timeout_ms,
                    struct rw_result *res);

/* Free the encoded body and clear it. Accepts a cleared one. */
void rw_body_free(struct rw_body *body);

/* Free what c holds. Accepts a zeroed c. */
void rw_client_fini(struct rw_client *c);

#endif
