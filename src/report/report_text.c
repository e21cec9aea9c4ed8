/* SPDX-License-Identifier: Apache-2.0 */
/* The text of a report's files and events sections, which both the text report
 * (report.c) and the HTML page's plain-text parts (html.c) write. See report_data.h. */
#include <string.h>

#include "report/report_data.h"

void report_text_files(const struct report_data *d, const char *group, struct strbuf *out)
{
        sb_puts(out, "\n  Files:\n");
        for (size_t i = 0; i < d->nfiles; i++) {
                const struct report_file *f = &d->files[i];
                if (strcmp(f->group, group) != 0)
                        continue;
                sb_printf(out, "    %s: %llu rows", f->path, (unsigned long long)f->rows);
                if (f->skipped)
                        sb_printf(out, ", %llu damaged row%s skipped",
                                  (unsigned long long)f->skipped, f->skipped == 1 ? "" : "s");
                if (f->torn)
                        sb_puts(out, ", torn last line dropped");
                if (f->error)
                        sb_printf(out, ", read error: %s", strerror(-f->error));
                sb_putc(out, '\n');
        }
}

void report_text_events(const struct report_data *d, struct strbuf *out)
{
        if (!d->have_events)
                return;
        const struct event_list *l = &d->events;
        sb_printf(out, "\n  Events (events.log) in this period: %llu\n",
                  (unsigned long long)l->in_range);
        if (l->ntypes == 0)
                return;
        sb_puts(out, "    ");
        for (unsigned i = 0; i < l->ntypes; i++)
                sb_printf(out, "%s%s %llu", i ? ", " : "", l->type_name[i],
                          (unsigned long long)l->type_count[i]);
        if (l->other)
                sb_printf(out, ", other %llu", (unsigned long long)l->other);
        sb_putc(out, '\n');
}
