/* SPDX-License-Identifier: Apache-2.0 */
/* Findings as Alertmanager alerts, and their JSON. See am_alert.h. */
#include "push/am_alert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/parse.h"

void am_alert_name(enum finding_kind kind, char *out, size_t cap)
{
        struct strbuf sb;
        const char *n = kind < FINDING_KIND_COUNT && findings_kinds[kind].name
                            ? findings_kinds[kind].name
                            : "finding";
        bool up = true;
        sb_init_fixed(&sb, out, cap);
        sb_puts(&sb, "Vigil");
        for (; *n; n++) {
                if (*n == '_') {
                        up = true;
                        continue;
                }
                sb_putc(&sb, up && *n >= 'a' && *n <= 'z' ? (char)(*n - 'a' + 'A') : *n);
                up = false;
        }
}

static void add_label(struct am_alert *a, const char *name, const char *value)
{
        for (size_t i = 0; i < a->nlabels; i++)
                if (!strcmp(a->labels[i].name, name))
                        return; /* the first one given wins */
        if (a->nlabels >= AM_MAX_LABELS || !value || !value[0])
                return;
        struct rw_label *l = &a->labels[a->nlabels++];
        copy_bounded(l->name, sizeof(l->name), name, strlen(name));
        copy_bounded(l->value, sizeof(l->value), value, strlen(value));
}

static int label_cmp(const void *pa, const void *pb)
{
        return strcmp(((const struct rw_label *)pa)->name, ((const struct rw_label *)pb)->name);
}

uint64_t am_alert_id(const struct am_alert *a)
{
        uint64_t h = 0xcbf29ce484222325ULL;
        for (size_t i = 0; i < a->nlabels; i++) {
                const char *parts[2] = {a->labels[i].name, a->labels[i].value};
                for (int k = 0; k < 2; k++) {
                        for (const char *p = parts[k]; *p; p++) {
                                h ^= (unsigned char)*p;
                                h *= 0x100000001b3ULL;
                        }
                        h ^= 0xff; /* a byte no label holds: "ab"+"c" is not "a"+"bc" */
                        h *= 0x100000001b3ULL;
                }
        }
        return h;
}

bool am_alert_from_finding(const struct finding *x, const struct rw_label *base, size_t nbase,
                           const char *host, int64_t now_ms, struct am_alert *out)
{
        char name[64];
        struct strbuf sb;
        if (!x->alarm || x->severity > FINDING_WARNING)
                return false;
        memset(out, 0, sizeof(*out));
        am_alert_name(x->kind, name, sizeof(name));
        /* The finding's own labels first: a base label of the same name (an external
         * label "severity") does not change what the alert is. */
        add_label(out, "alertname", name);
        add_label(out, "severity", x->severity == FINDING_CRITICAL ? "critical" : "warning");
        if (!strncmp(x->source, "gpu", 3) && x->source[3] >= '0' && x->source[3] <= '9')
                add_label(out, "gpu", x->source + 3);
        else
                add_label(out, "component", x->source);
        add_label(out, "key", x->key);
        for (size_t i = 0; i < nbase; i++)
                add_label(out, base[i].name, base[i].value);
        qsort(out->labels, out->nlabels, sizeof(out->labels[0]), label_cmp);
        out->id = am_alert_id(out);

        sb_init_fixed(&sb, out->summary, sizeof(out->summary));
        findings_line(x, true, &sb); /* the daemon is running: "still lost" */
        sb_init_fixed(&sb, out->description, sizeof(out->description));
        sb_printf(&sb, "%s on %s (%s)", findings_kinds[x->kind].title, host && host[0] ? host : "?",
                  x->source[0] ? x->source : "host");
        if (x->text[0])
                sb_printf(&sb, ": %s", x->text);
        out->starts_ms =
            isfinite(x->first_t) && x->first_t > 0 ? (int64_t)(x->first_t * 1e3) : now_ms;
        out->ends_ms = 0;
        return true;
}

void am_rfc3339(struct strbuf *out, int64_t ms)
{
        time_t s = (time_t)(ms / 1000);
        struct tm tm;
        char buf[40];
        if (ms < 0 || !gmtime_r(&s, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
                snprintf(buf, sizeof(buf), "1970-01-01T00:00:00");
        sb_printf(out, "%s.%03dZ", buf, (int)(ms % 1000 + (ms < 0 ? 1000 : 0)) % 1000);
}

/* The runbook of x's kind of finding, found by its alertname (the store keeps labels,
 * not the kind), or NULL. */
static const char *runbook_of(const struct am_alert *x)
{
        const char *alertname = NULL;
        for (size_t i = 0; i < x->nlabels && !alertname; i++)
                if (!strcmp(x->labels[i].name, "alertname"))
                        alertname = x->labels[i].value;
        if (!alertname)
                return NULL;
        for (int k = 0; k < FINDING_KIND_COUNT; k++) {
                char name[64];
                am_alert_name((enum finding_kind)k, name, sizeof(name));
                if (!strcmp(name, alertname))
                        return findings_kinds[k].runbook;
        }
        return NULL;
}
/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not one
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
        unsigned char c = s[0];
        if (c < 0x80)
                return 1;
        size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
        for (size_t i = 1; i < n; i++)
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
        if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
            (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
                return 0;
        return n;
}

void am_json_string(struct strbuf *out, const char *s)
{
        const unsigned char *p = (const unsigned char *)s;
        sb_putc(out, '"');
        while (*p) {
                unsigned char c = *p;
                if (c == '"' || c == '\\') {
                        sb_putc(out, '\\');
                        sb_putc(out, (char)c);
                        p++;
                } else if (c < 0x20 || c == 0x7f) {
                        const char *esc = c == '\n'   ? "\\n"
                                          : c == '\t' ? "\\t"
                                          : c == '\r' ? "\\r"
                                                      : NULL;
                        if (esc)
                                sb_puts(out, esc);
                        else
                                sb_printf(out, "\\u%04x", c);
                        p++;
                } else {
                        size_t n = utf8_len(p);
                        if (n == 0) {
                                sb_puts(out, "\\ufffd");
                                p++;
                        } else {
                                sb_put(out, (const char *)p, n);
                                p += n;
                        }
                }
        }
        sb_putc(out, '"');
}

static void json_map(struct strbuf *out, const char *const *keys, const char *const *vals, size_t n)
{
        bool first = true;
        sb_putc(out, '{');
        for (size_t i = 0; i < n; i++) {
                if (!vals[i] || !vals[i][0])
                        continue;
                if (!first)
                        sb_putc(out, ',');
                first = false;
                am_json_string(out, keys[i]);
                sb_putc(out, ':');
                am_json_string(out, vals[i]);
        }
        sb_putc(out, '}');
}

void am_json_encode(const struct am_alert *a, size_t n, int64_t now_ms, int64_t valid_ms,
                    struct strbuf *out)
{
        sb_putc(out, '[');
        for (size_t i = 0; i < n; i++) {
                const struct am_alert *x = &a[i];
                const char *keys[AM_MAX_LABELS], *vals[AM_MAX_LABELS];
                for (size_t k = 0; k < x->nlabels && k < AM_MAX_LABELS; k++) {
                        keys[k] = x->labels[k].name;
                        vals[k] = x->labels[k].value;
                }
                if (i)
                        sb_putc(out, ',');
                sb_puts(out, "{\"labels\":");
                json_map(out, keys, vals, x->nlabels);
                const char *akeys[] = {"summary", "description", "runbook"};
                const char *avals[] = {x->summary, x->description, runbook_of(x)};
                sb_puts(out, ",\"annotations\":");
                json_map(out, akeys, avals, avals[2] ? 3 : 2);
                sb_puts(out, ",\"startsAt\":\"");
                am_rfc3339(out, x->starts_ms);
                sb_puts(out, "\",\"endsAt\":\"");
                am_rfc3339(out, x->ends_ms ? x->ends_ms : now_ms + valid_ms);
                sb_puts(out, "\"}");
        }
        sb_putc(out, ']');
}
