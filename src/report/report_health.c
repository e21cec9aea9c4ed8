/* SPDX-License-Identifier: Apache-2.0 */
/* The health verdict in `vigil report`. See report_health.h. */
#include "report/report_health.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/health.h"

void report_health_text(const char *dir, FILE *err, struct strbuf *out)
{
        struct health *h = malloc(sizeof(*h));
        if (!h)
                return;
        health_init(h, "", NULL, NULL);
        int r = health_load(dir, h);
        if (r == 0)
                health_say_text(h, (double)time(NULL), "", out);
        else if (r != -ENOENT)
                fprintf(err, "vigil report: cannot read %s/%s: %s\n", dir, HEALTH_FILE,
                        r == -EINVAL ? "not a health state file" : strerror(-r));
        free(h);
}
