/* SPDX-License-Identifier: Apache-2.0 */
/* The report, made on a thread of its own. See http_later.h. */
#include "web/http_later.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "web/http_reply.h"
#include "util/textmap.h"
#include "util/thread.h"

/* What the report's -errno tells the client (http_server.h, http_report_fn); any
 * other error is a 500. */
static const struct {
        int err;
        unsigned status;
        const char *text;
} refusals[] = {
    {-EINVAL, 400, "day must be YYYY-MM-DD\n"},
    {-ENOENT, 404, "nothing recorded that day\n"},
    {-EFBIG, 413, "that day's logs are too large\n"},
    {-ENOSPC, 413, "that day's report page is too large\n"},
};

int http_later_init(struct http_later *l, http_report_fn report, void *arg)
{
        int r = pthread_mutex_init(&l->lock, NULL);
        if (r)
                return -r;
        l->report = report;
        l->arg = arg;
        return 0;
}

static void *make_report(void *arg)
{
        struct http_later *l = arg;
        sb_reset(&l->body);
        l->result = l->report(l->arg, l->no_day ? NULL : l->day, &l->body);
        if (l->result == 0 && l->body.overflow)
                l->result = -ENOSPC;
        if (l->result == 0) {
                struct http_reply rp;
                http_gzip_reply(&l->gz, &l->body, l->accept_encoding, HTTP_HTML_TYPE, &rp);
                l->out = rp.body;
                l->out_len = rp.len;
                l->gzipped = rp.gzip;
        }
        l->ready(l->ready_arg);
        return NULL;
}

bool http_later_start(struct http_later *l, const char *day, const char *accept_encoding)
{
        pthread_mutex_lock(&l->lock);
        bool busy = l->busy;
        l->busy = true;
        pthread_mutex_unlock(&l->lock);
        if (busy)
                return false;
        /* A day longer than the copy is cut, and still no YYYY-MM-DD: the report says
         * 400 to it as to the whole. */
        l->no_day = !day;
        snprintf(l->day, sizeof(l->day), "%s", day ? day : "");
        snprintf(l->accept_encoding, sizeof(l->accept_encoding), "%s",
                 accept_encoding ? accept_encoding : "");
        return true;
}

void http_later_run(struct http_later *l)
{
        if (!l->body_ok)
                l->body_ok = sb_init_heap(&l->body, 16384, HTTP_MAX_BODY) == 0;
        /* Under the lock, so a join never misses the thread (it never takes the lock). */
        pthread_mutex_lock(&l->lock);
        int r = l->body_ok ? vigil_thread_create(&l->thread, make_report, l) : -ENOMEM;
        l->joinable = r == 0;
        pthread_mutex_unlock(&l->lock);
        if (r < 0) { /* no thread: the reply is a 500, ready at once */
                l->result = r;
                l->ready(l->ready_arg);
        }
}

/* Join the report thread if nobody has. */
static void join(struct http_later *l)
{
        pthread_mutex_lock(&l->lock);
        bool mine = l->joinable;
        l->joinable = false;
        pthread_mutex_unlock(&l->lock);
        if (mine)
                pthread_join(l->thread, NULL);
}

void http_later_take(struct http_later *l, struct http_reply *rp)
{
        join(l);
        if (l->result == 0) {
                *rp = (struct http_reply){.status = 200,
                                          .type = HTTP_HTML_TYPE,
                                          .body = l->out,
                                          .len = l->out_len,
                                          .gzip = l->gzipped,
                                          .vary = true};
        } else {
                http_reply_text(rp, 500, "report failed\n");
                for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
                        if (l->result == refusals[i].err)
                                http_reply_text(rp, refusals[i].status, refusals[i].text);
        }
        pthread_mutex_lock(&l->lock);
        l->busy = false;
        pthread_mutex_unlock(&l->lock);
}

void http_later_release(struct http_later *l)
{
        if (l->body_ok)
                sb_free(&l->body);
        l->body_ok = false;
        http_gzip_fini(&l->gz);
        l->out = NULL;
        l->out_len = 0;
        /* The report's reading and rendering ran in the thread's own malloc arena, and
         * its large blocks raised glibc's dynamic mmap threshold (mallopt(3),
         * M_MMAP_THRESHOLD: "the threshold is adjusted upward to the size of the freed
         * chunk"), so what it freed stays mapped. Hand the free pages of every arena back
         * (malloc_trim(3): since glibc 2.8 it releases free memory in all arenas). */
        malloc_trim(0);
        /* And the report's code and tables: used once, they would stay mapped
         * (util/textmap.h). */
        (void)textmap_drop();
}

void http_later_wait(struct http_later *l)
{
        join(l);
}

void http_later_fini(struct http_later *l)
{
        if (!l->report)
                return;
        join(l);
        http_gzip_fini(&l->gz);
        if (l->body_ok)
                sb_free(&l->body);
        pthread_mutex_destroy(&l->lock);
        *l = (struct http_later){0};
}
