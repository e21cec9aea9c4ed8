/* One remote-write request: a batch of queued records turned into a snappy-compressed
 * WriteRequest and POSTed with libcurl, and what came of it. Runs on the sender thread. */
#ifndef VIGIL_SINK_RW_SEND_H
#define VIGIL_SINK_RW_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "sink/rw_config.h"
#include "sink/rw_lib.h"
#include "sink/rw_queue.h"

/* What to do with the batch after a request. */
enum rw_outcome {
        RW_ACCEPTED, /* 2xx: remove it from the queue */
        RW_RETRY,    /* network error, 5xx, 429, 401/403: keep it, back off */
        RW_REJECTED, /* another 4xx, or a batch that cannot be encoded: drop it */
};

struct rw_result {
        enum rw_outcome outcome;
        long http_status;      /* 0 when no response came */
        int curl_code;         /* CURLE_OK when a response came */
        int64_t retry_after_s; /* Retry-After of a 429 or 503; 0 when none */
        char why[320];         /* one line: what failed, for the log */
};

/* A prepared connection: the URL, headers and credentials, reused across requests. */
struct rw_client {
        const struct rw_lib *lib;
        CURL *curl;
        struct curl_slist *headers;
        char url[1024];
        /* Set from another thread to abort the request in flight (at exit). */
        const volatile int *abort_flag;
};

/* Set up c for url with the auth and TLS of cfg (the bearer token and password files
 * are read here). 0, or -errno with one line in err (cap bytes). */
int rw_client_init(struct rw_client *c, const struct rw_lib *lib, const char *url,
                   const struct rw_config *cfg, const volatile int *abort_flag, char *err,
                   size_t cap);

/* Encode the records of b (snappy payloads of /metrics lines) with the extra labels,
 * compress and POST them, waiting at most timeout_ms. Fills *res. */
void rw_client_send(struct rw_client *c, const struct rwq_batch *b, const struct rw_label *labels,
                    size_t nlabels, int64_t timeout_ms, struct rw_result *res);

/* Free what c holds. Accepts a zeroed c. */
void rw_client_fini(struct rw_client *c);

#endif
