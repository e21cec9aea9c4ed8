/* SPDX-License-Identifier: Apache-2.0 */
/* `vigil report [--html OUT] CSV...`: the summary of recorded days. */
#ifndef VIGIL_REPORT_REPORT_H
#define VIGIL_REPORT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "util/strbuf.h"

/* Run the report subcommand. argv[0] is the subcommand's name ("report"); the options
 * and CSV paths follow. Host logs (host-*.csv) and GPU logs (gpuN-*.csv, plain or
 * gzip) may be mixed; several days of one kind are summarised together in time order,
 * each GPU on its own. The text goes to stdout; with --html OUT, a self-contained
 * HTML page with charts is written to OUT as well. events.log (and events.log.1)
 * beside the CSVs is read for the events of the covered period.
 * Returns the exit status: 0 when at least one file was summarised (a line on stderr
 * names each file that could not be read or is not a vigil log), 2 for a usage error
 * or when no file could be read, 1 when the HTML could not be written. */
int report_main(int argc, char **argv);

/* The HTML report of the files at paths[0..n) into out (bounded by out's own limit),
 * as `vigil report --html` writes it; messages about files go to err. 0, -ENOENT (no
 * readable log among them), -ENOMEM, or -ENOSPC (the page outgrew out). */
int report_html_of(const char *const *paths, size_t n, struct strbuf *out, FILE *err);

/* report_main() with its text and messages sent to out and err. */
int report_run(int argc, char **argv, FILE *out, FILE *err);

#endif
