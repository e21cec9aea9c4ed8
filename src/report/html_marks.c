/* SPDX-License-Identifier: Apache-2.0 */
/* Marks on the HTML report's charts. See html_marks.h. */
#include "report/html_marks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xml.h"

#define MAX_TYPES 6 /* kinds named per counted marker */

/* "under-voltage" for "NOW:under-voltage" items of a comma-joined flags cell. */
size_t html_pi_bands(const struct host_acc *a, struct svg_band *out, char (*lab)[HTML_BAND_LABEL],
                     size_t cap)
{
        size_t n = 0;
        for (size_t i = 0; a->changes && i < a->nchanges && n < cap; i++) {
                const struct host_flag_change *c = &a->changes[i];
                double t1 = i + 1 < a->nchanges ? a->changes[i + 1].t : a->last_t;
                for (const char *p = strstr(c->flags, "NOW:"); p && n < cap;
                     p = strstr(p + 4, "NOW:")) {
                        const char *end = strchr(p, ',');
                        size_t len = end ? (size_t)(end - p - 4) : strlen(p + 4);
                        snprintf(lab[n], HTML_BAND_LABEL, "Pi: %.*s", (int)len, p + 4);
                        bool uv = !strncmp(p + 4, "under-voltage", 13);
                        out[n] = (struct svg_band){.x0 = c->t,
                                                   .x1 = t1,
                                                   .label = lab[n],
                                                   .color = uv ? "#d62728" : "#ff7f0e"};
                        n++;
                }
        }
        return n;
}

struct slot {
        unsigned count, ntypes;
        double t;
        char type[MAX_TYPES][24];
        unsigned type_count[MAX_TYPES];
};

/* Count each '|'-joined flag of text by its kind (text before '(' or digits after +). */
static void count_kinds(struct slot *s, const char *text)
{
        for (const char *p = text; *p;) {
                const char *bar = strchr(p, '|');
                size_t n = bar ? (size_t)(bar - p) : strlen(p), k = 0;
                while (k < n && p[k] != '(' && p[k] != ':' && !(k && p[k - 1] == '+'))
                        k++;
                char kind[24];
                snprintf(kind, sizeof(kind), "%.*s", (int)k, p);
                unsigned i = 0;
                while (i < s->ntypes && strcmp(s->type[i], kind) != 0)
                        i++;
                if (i == s->ntypes && i < MAX_TYPES) {
                        memcpy(s->type[i], kind, sizeof(kind));
                        s->type_count[s->ntypes++] = 0;
                }
                if (i < s->ntypes)
                        s->type_count[i]++;
                s->count++;
                if (!bar)
                        break;
                p = bar + 1;
        }
}

size_t html_counted_marks(const struct gpu_acc *a, double x0, double x1, struct svg_marker *out,
                          char (*lab)[HTML_MARK_LABEL])
{
        struct slot *slots = calloc(HTML_MARK_SLOTS, sizeof(*slots));
        if (!slots)
                return 0;
        double w = (x1 - x0) / HTML_MARK_SLOTS;
        for (size_t i = 0; a->marks && i < a->nmarks; i++) {
                double t = a->marks[i].t;
                long k = w > 0 ? (long)floor((t - x0) / w) : 0;
                if (k < 0 || !(t <= x1))
                        continue;
                if (k >= HTML_MARK_SLOTS)
                        k = HTML_MARK_SLOTS - 1;
                if (!slots[k].count)
                        slots[k].t = t;
                count_kinds(&slots[k], a->marks[i].text);
        }
        size_t n = 0;
        for (size_t k = 0; k < HTML_MARK_SLOTS; k++) {
                const struct slot *s = &slots[k];
                if (!s->count)
                        continue;
                struct strbuf sb;
                sb_init_fixed(&sb, lab[n], HTML_MARK_LABEL);
                sb_printf(&sb, "%u anomaly flag%s:", s->count, s->count == 1 ? "" : "s");
                for (unsigned i = 0; i < s->ntypes; i++)
                        sb_printf(&sb, "%s %s x%u", i ? "," : "", s->type[i], s->type_count[i]);
                out[n] = (struct svg_marker){.x = s->t, .label = lab[n], .color = "#9467bd"};
                n++;
        }
        free(slots);
        return n;
}

static void swatch(struct strbuf *out, const char *color, const char *label, bool line)
{
        sb_printf(out, "<span class=\"sw\" style=\"background:%s;%s\"></span>", color,
                  line ? "width:3px" : "opacity:.35");
        sb_xml_puts(out, label);
        sb_putc(out, ' ');
}

void html_legend(struct strbuf *out, const struct svg_band *b, size_t nb,
                 const struct svg_marker *m, size_t nm)
{
        static const struct {
                const char *color, *label;
        } kinds[] = {{"#9467bd", "anomaly flags (hover: how many of which)"},
                     {"#ff7f0e", "events.log line"},
                     {NULL, "Pi throttle flags changed"}};
        if (!nb && !nm)
                return;
        sb_puts(out, "<div class=\"legend\">");
        for (size_t i = 0; i < nb; i++) {
                bool seen = false;
                for (size_t k = 0; k < i && !seen; k++)
                        seen = !strcmp(b[k].label, b[i].label);
                if (!seen)
                        swatch(out, b[i].color ? b[i].color : "#999999", b[i].label, false);
        }
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
                bool used = false;
                for (size_t i = 0; i < nm && !used; i++)
                        used = kinds[k].color ? m[i].color && !strcmp(m[i].color, kinds[k].color)
                                              : !m[i].color;
                if (used)
                        swatch(out, kinds[k].color ? kinds[k].color : "#d62728", kinds[k].label,
                               true);
        }
        sb_puts(out, "</div>");
}
