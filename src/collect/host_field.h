/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the host sources: reading one number field followed by a
 * delimiter, and the kept-open file of a one-file source with its reopen gate. */
#ifndef VIGIL_COLLECT_HOST_FIELD_H
#define VIGIL_COLLECT_HOST_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/parse.h"
#include "util/pfile.h"
#include "util/retry.h"

/* Parse a number >= 0 at the cursor (after blanks) that is followed by a blank or a
 * newline: a number cut by the end of the buffer is not taken. 0 or -EINVAL. */
int host_field_double(struct cursor *c, double *ret);

/* A single kept-open file, reopened at most every RETRY_INTERVAL_NS while absent. */
struct host_file {
        struct pfile f;
        struct retry_gate reopen;
        const char *path; /* absolute, under the root; static storage */
        size_t cap;       /* read bound */
};

/* Open root+path now (failure is not an error: host_file_read retries).
 * Returns 0, or -ENOMEM. */
int host_file_init(struct host_file *hf, const char *root, const char *path, size_t cap);
/* Re-read the file (reopening it first when it was absent and the gate allows).
 * Returns the length, or -errno; the content is hf->f.buf[0..len). */
int host_file_read(struct host_file *hf, const char *root, int64_t mono_ns);
void host_file_close(struct host_file *hf);

#endif
