/* SPDX-License-Identifier: Apache-2.0 */
/* What `vigil report` gathered, shared by the text and HTML outputs. */
#ifndef VIGIL_REPORT_REPORT_DATA_H
#define VIGIL_REPORT_REPORT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/findings.h"
#include "report/events.h"
#include "report/gpu_acc.h"
#include "core/host_acc.h"
#include "core/watch_acc.h"
#include "util/strbuf.h"

enum report_kind { REPORT_HOST, REPORT_GPU };

struct report_file {
        const char *path; /* as given (argv) */
        enum report_kind kind;
        char group[32];   /* "host", "gpu0" */
        double first_t;   /* time of its first row; INFINITY when it has none */
        uint64_t rows;    /* rows summarised */
        uint64_t skipped; /* damaged rows dropped */
        uint64_t torn;    /* unterminated last line dropped */
        int error;        /* -errno while reading it, 0 */
};

struct report_data {
        FILE *err;                 /* where problems with files are reported */
        struct report_file *files; /* the readable files, in the order summarised */
        size_t nfiles;
        bool have_host;
        struct host_acc host;
        struct watch_acc watches; /* the watches' own columns of the host logs */
        struct gpu_acc *gpus;
        size_t ngpus;
        struct event_list events;
        bool have_events;
        double t0, t1;            /* the period covered */
        struct findings findings; /* what happened (report_findings.h) */
};

/* The whole HTML page for d into out. */
void report_html_build(const struct report_data *d, struct strbuf *out);
/* Build the page and write it to path (through a temporary file and rename).
 * 0 or -errno. */
int report_html_write(const struct report_data *d, const char *path);
/* The text of the files and events sections (after the summaries). */
void report_text_files(const struct report_data *d, const char *group, struct strbuf *out);
void report_text_events(const struct report_data *d, struct strbuf *out);

#endif
