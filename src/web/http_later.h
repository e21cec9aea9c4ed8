/* SPDX-License-Identifier: Apache-2.0 */
/* GET /report?day= made off the transport's thread. Reading a day's logs takes seconds
 * (about 3 s of a core per GB; a day of 8 GPUs at 0.1 s is about 1.1 GB, http.c), and
 * a scrape that waits that long is a scrape Prometheus times out. So the handler hands
 * the request here and the transport parks the connection: a thread of its own, started
 * for the one report and joined when its reply is taken, makes the page while the
 * transport goes on answering /metrics. One report at a time; another asked meanwhile
 * is answered 503 with Retry-After.
 *
 *   transport thread                    report thread
 *   http_later_start(day, gzip?)        (the request copied; 503 when busy)
 *   (connection parked)
 *   http_later_run  ------------------> report(day) into body, gzip
 *   (other connections served)          ready(ready_arg)   (the transport's wake-up)
 *   http_later_take(&reply)  <--------  joined here
 */
#ifndef VIGIL_WEB_HTTP_LATER_H
#define VIGIL_WEB_HTTP_LATER_H

#include <pthread.h>
#include <stdbool.h>

#include "web/http_gzip.h"
#include "web/http_server.h"
#include "util/strbuf.h"

struct http_reply;

/* Called on the report thread, last thing, when the reply is ready to take. */
typedef void (*http_ready_fn)(void *arg);

struct http_later {
        http_report_fn report; /* the configuration's; NULL: no reports */
        void *arg;
        http_ready_fn ready; /* the transport's; set before the first start */
        void *ready_arg;
        pthread_mutex_t lock;
        bool busy;     /* a report is being made, or made and not yet taken */
        bool joinable; /* its thread is not joined yet */
        pthread_t thread;
        /* The request, copied (its strings live in the transport's buffers). */
        char day[32];
        bool no_day;
        char accept_encoding[256];
        /* The report thread's: the page, its gzip, the report's result (0 or its
         * -errno: http_later_take turns it into the reply) and, for 0, the body to
         * send (in body or gz) and whether it is gzipped. */
        struct strbuf body;
        bool body_ok; /* body was set up */
        struct http_gzip gz;
        int result;
        const void *out;
        size_t out_len;
        bool gzipped;
};

/* Set l up for report (and its arg). 0 or -errno. */
int http_later_init(struct http_later *l, http_report_fn report, void *arg);

/* Take the request for the report of day (NULL: none given) from a client that sent
 * accept_encoding (NULL: none): the strings are copied. True when taken: the transport
 * parks the connection, then calls http_later_run. False when one is being made
 * already: the caller answers 503. Transport thread. */
bool http_later_start(struct http_later *l, const char *day, const char *accept_encoding);

/* Give back the page of the reply taken (its body, its gzip and the stream), the
 * free memory the report left in the allocator and the report's code and read-only
 * data pages (textmap_drop), once the transport has copied the reply: the daemon's
 * memory returns to where it was before the report. The next report sets them up
 * again. Transport thread. */
void http_later_release(struct http_later *l);

/* Make the report taken by http_later_start on its thread; ready is called when its
 * reply can be taken (at once, from here, when no thread could be made: a 500). Called
 * once the connection is parked, so ready never comes before it is. Transport thread. */
void http_later_run(struct http_later *l);

/* The reply of the report that called ready, into *rp; its body lives in l until the
 * next start. Joins the report thread. Transport thread, after ready. */
void http_later_take(struct http_later *l, struct http_reply *rp);

/* Wait until no report is being made (a transport stopping: ready may still be called
 * until this returns). Any thread. */
void http_later_wait(struct http_later *l);

/* Wait as http_later_wait, then give back what l holds. Accepts a zeroed l. */
void http_later_fini(struct http_later *l);

#endif
