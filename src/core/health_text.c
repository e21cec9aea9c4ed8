/* SPDX-License-Identifier: Apache-2.0 */
/* The health verdict's outputs (the table, the JSON, the one line) and its state file.
 * See health.h. */
#include "core/health.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/fmt.h"
#include "util/parse.h"
#include "util/pfile.h"

/* ---- the listed components ---- */

struct walk {
        const struct health *h;
        void (*fn)(void *arg, const struct health_row *r);
        void *arg;
        bool done[HEALTH_MAX];
};

static const struct health_entry *entry(struct walk *w, const char *name)
{
        for (size_t i = 0; i < w->h->n; i++)
                if (!strcmp(w->h->e[i].name, name)) {
                        w->done[i] = true;
                        return &w->h->e[i];
                }
        return NULL;
}

static void emit(struct walk *w, const char *name, const struct health_entry *e)
{
        struct health_row r = {.state = e ? e->state : HEALTH_HEALTHY,
                               .action = e ? e->action : EA_NONE,
                               .e = e && e->state != HEALTH_HEALTHY ? e : NULL};
        copy_bounded(r.name, sizeof(r.name), name, strlen(name));
        w->fn(w->arg, &r);
}

/* GPU g's verdict (the worst of its parts, the gravest action of those) and its parts. */
static void walk_gpu(struct walk *w, unsigned g)
{
        struct health_row all = {.state = HEALTH_HEALTHY, .action = EA_NONE};
        const struct health_entry *parts[EC_GPU_DRIVER + 1] = {0};
        char name[HEALTH_NAME_LEN];
        for (int c = EC_GPU_MEMORY; c <= EC_GPU_DRIVER; c++) {
                snprintf(name, sizeof(name), "gpu%u.%s", g,
                         event_component_name((enum event_component)c) + 4);
                const struct health_entry *e = parts[c] = entry(w, name);
                if (!e || e->state == HEALTH_HEALTHY)
                        continue;
                if (e->state > all.state || (e->state == all.state && e->action > all.action)) {
                        all.state = e->state;
                        all.action = e->action;
                        all.e = e;
                }
        }
        snprintf(all.name, sizeof(all.name), "gpu%u", g);
        w->fn(w->arg, &all);
        for (int c = EC_GPU_MEMORY; c <= EC_GPU_DRIVER; c++) {
                snprintf(name, sizeof(name), "gpu%u.%s", g,
                         event_component_name((enum event_component)c) + 4);
                emit(w, name, parts[c]);
        }
}

void health_walk(const struct health *h, void (*fn)(void *arg, const struct health_row *r),
                 void *arg)
{
        struct walk *w = calloc(1, sizeof(*w));
        if (!w)
                return;
        w->h = h;
        w->fn = fn;
        w->arg = arg;
        unsigned ngpus = h->ngpus < HEALTH_MAX_GPUS ? h->ngpus : HEALTH_MAX_GPUS;
        for (unsigned g = 0; g < ngpus; g++)
                walk_gpu(w, g);
        for (int c = EC_HOST_MEMORY; c < EC_COUNT; c++) {
                const char *name = event_component_name((enum event_component)c);
                if (c >= EC_PI_POWER && !h->pi)
                        break;
                emit(w, name, entry(w, name));
        }
        /* The rest: gpu.PART, GPUs no longer watched, Pi parts off a Pi. */
        for (size_t i = 0; i < h->n; i++)
                if (!w->done[i])
                        emit(w, h->e[i].name, &h->e[i]);
        free(w);
}

/* ---- the table ---- */

static void time_text(double t, char *out, size_t cap)
{
        if (isnan(t))
                snprintf(out, cap, "-");
        else
                fmt_time_utc_iso(out, cap, llround(t * 1e3) * 1000000); /* the file's ms */
}

static void table_row(void *arg, const struct health_row *r)
{
        struct strbuf *out = arg;
        /* A healthy GPU part is left out of the table (the JSON lists it). */
        if (!r->e && !strncmp(r->name, "gpu", 3) && strchr(r->name, '.'))
                return;
        char since[40];
        time_text(r->e ? r->e->since : NAN, since, sizeof(since));
        sb_printf(out, "%-14s %-9s %-20s %-24s %s", r->name, health_state_name(r->state),
                  event_action_text(r->action), r->e ? since : "-", r->e ? r->e->reason : "");
        if (r->e && r->e->evidence[0])
                sb_printf(out, " [evidence: %s]", r->e->evidence);
        while (out->len && out->buf[out->len - 1] == ' ')
                out->buf[--out->len] = '\0'; /* a healthy row has no reason */
        sb_putc(out, '\n');
}

void health_table(const struct health *h, struct strbuf *out)
{
        sb_printf(out, "%-14s %-9s %-20s %-24s %s\n", "COMPONENT", "STATE", "ACTION", "SINCE",
                  "REASON");
        health_walk(h, table_row, out);
}

/* ---- JSON ---- */

static void json_str(struct strbuf *out, const char *s)
{
        sb_putc(out, '"');
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                if (*p == '"' || *p == '\\')
                        sb_printf(out, "\\%c", *p);
                else if (*p < 0x20)
                        sb_printf(out, "\\u%04x", *p);
                else
                        sb_putc(out, (char)*p);
        }
        sb_putc(out, '"');
}

struct json_walk {
        struct strbuf *out;
        bool first;
};

static void json_row(void *arg, const struct health_row *r)
{
        struct json_walk *j = arg;
        char since[40];
        sb_puts(j->out, j->first ? "\n" : ",\n");
        j->first = false;
        sb_puts(j->out, "    {\"component\": ");
        json_str(j->out, r->name);
        sb_printf(j->out, ", \"state\": \"%s\", \"action\": \"%s\"", health_state_name(r->state),
                  event_action_text(r->action));
        if (r->e) {
                time_text(r->e->since, since, sizeof(since));
                sb_puts(j->out, ", \"since\": ");
                json_str(j->out, since);
                sb_puts(j->out, ", \"reason\": ");
                json_str(j->out, r->e->reason);
                sb_puts(j->out, ", \"evidence\": ");
                json_str(j->out, r->e->evidence);
                static const char *const clears[] = {
                    [HU_LINE] = "line", [HU_PROVEN] = "proof", [HU_PERSON] = "person"};
                sb_printf(j->out, ", \"clears\": \"%s\", \"recurrences\": %u", clears[r->e->until],
                          r->e->recurrences);
        }
        sb_putc(j->out, '}');
}

void health_json(const struct health *h, struct strbuf *out)
{
        struct json_walk j = {.out = out, .first = true};
        sb_printf(out, "{\n  \"state\": \"%s\",\n  \"components\": [",
                  health_state_name(health_overall(h)));
        health_walk(h, json_row, &j);
        sb_puts(out, "\n  ]\n}\n");
}

/* ---- the one line ---- */

struct line_walk {
        struct health_row worst;
        unsigned others;
};

static void line_row(void *arg, const struct health_row *r)
{
        struct line_walk *l = arg;
        /* Parts only: a GPU's own row repeats its worst part. */
        if (!r->e || !strchr(r->name, '.'))
                return;
        if (l->worst.e)
                l->others++;
        if (!l->worst.e || r->state > l->worst.state ||
            (r->state == l->worst.state && r->action > l->worst.action))
                l->worst = *r;
}

void health_line(const struct health *h, struct strbuf *out)
{
        struct line_walk l = {0};
        health_walk(h, line_row, &l);
        if (!l.worst.e) {
                sb_puts(out, "healthy");
                return;
        }
        sb_printf(out, "%s: %s: %s: %s", health_state_name(health_overall(h)), l.worst.name,
                  event_action_text(l.worst.action), l.worst.e->reason);
        if (l.others)
                sb_printf(out, " (+%u more)", l.others);
}

/* ---- the lines a person reads ---- */

struct say_walk {
        enum health_state want;
        enum event_action action;
        double now;
        void (*fn)(void *arg, enum health_state s, const char *line);
        void *arg;
        size_t n;
};

static void say_row(void *arg, const struct health_row *r)
{
        struct say_walk *w = arg;
        if (!r->e || r->state != w->want || r->action != w->action || !strchr(r->name, '.'))
                return;
        char line[HEALTH_NAME_LEN + HEALTH_REASON_LEN + 128], since[40] = "-";
        time_t t = isnan(r->e->since) ? 0 : (time_t)r->e->since;
        time_t now = isnan(w->now) ? 0 : (time_t)w->now;
        struct tm tm, today;
        if (t && localtime_r(&t, &tm)) {
                bool same_day = now && localtime_r(&now, &today) && today.tm_year == tm.tm_year &&
                                today.tm_yday == tm.tm_yday;
                strftime(since, sizeof(since), same_day ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
        }
        snprintf(line, sizeof(line), "%s %s: %s; since %s; %s", health_state_name(r->state),
                 r->name, event_action_text(r->action), since, r->e->reason);
        w->fn(w->arg, r->state, line);
        w->n++;
}

size_t health_say(const struct health *h, double now,
                  void (*fn)(void *arg, enum health_state s, const char *line), void *arg)
{
        struct say_walk w = {.now = now, .fn = fn, .arg = arg};
        for (int s = HEALTH_UNHEALTHY; s > HEALTH_HEALTHY; s--)
                for (int a = EA_FROM_EVENT - 1; a >= EA_NONE; a--) {
                        w.want = (enum health_state)s;
                        w.action = (enum event_action)a;
                        health_walk(h, say_row, &w);
                }
        if (!w.n)
                fn(arg, HEALTH_HEALTHY, "healthy: every component");
        return w.n;
}

struct say_text {
        const char *indent;
        struct strbuf *out;
};

static void say_text_line(void *arg, enum health_state s, const char *line)
{
        struct say_text *t = arg;
        if (s == HEALTH_HEALTHY)
                sb_printf(t->out, "%sHealth: %s\n", t->indent, line);
        else
                sb_printf(t->out, "%s  %s\n", t->indent, line);
}

size_t health_say_text(const struct health *h, double now, const char *indent, struct strbuf *out)
{
        struct say_text t = {.indent = indent, .out = out};
        enum health_state all = health_overall(h);
        if (all != HEALTH_HEALTHY)
                sb_printf(out, "%sHealth: %s\n", indent, health_state_name(all));
        return health_say(h, now, say_text_line, &t);
}

/* ---- the state file ----
 *
 *   vigil-health 1
 *   watch<TAB>NGPUS<TAB>PI
 *   entry<TAB>NAME<TAB>STATE<TAB>ACTION<TAB>UNTIL<TAB>FLAGS<TAB>SINCE<TAB>LAST_ERROR<TAB>
 *     PROVING_SINCE<TAB>BOOT_ID<TAB>REMEDIED<TAB>RECURRENCES<TAB>ANNOUNCED<TAB>
 *     ANNOUNCED_ACTION<TAB>EVIDENCE<TAB>REASON
 * numbers as integers (enums), times as Unix seconds with milliseconds or "nan", FLAGS
 * three digits (await_answer, await_boot, remedy_seen); a reason or evidence holds no tab
 * or newline (they are replaced with spaces on the way in). */

#define HEALTH_MAGIC "vigil-health 1\n"

static void put_clean(struct strbuf *out, const char *s)
{
        for (; *s; s++)
                sb_putc(out, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void put_time(struct strbuf *out, double t)
{
        if (isnan(t))
                sb_puts(out, "\tnan");
        else
                sb_printf(out, "\t%.3f", t);
}

void health_format(const struct health *h, struct strbuf *out)
{
        sb_puts(out, HEALTH_MAGIC);
        sb_printf(out, "watch\t%u\t%d\n", h->ngpus, h->pi);
        for (size_t i = 0; i < h->n; i++) {
                const struct health_entry *e = &h->e[i];
                sb_printf(out, "entry\t%s\t%d\t%d\t%d\t%d%d%d", e->name, (int)e->state,
                          (int)e->action, (int)e->until, e->await_answer, e->await_boot,
                          e->remedy_seen);
                put_time(out, e->since);
                put_time(out, e->last_error);
                put_time(out, e->proving_since);
                sb_printf(out, "\t%s", e->boot_id[0] ? e->boot_id : "-");
                put_time(out, e->remedied_t);
                sb_printf(out, "\t%u\t%d\t%d\t", e->recurrences, (int)e->announced,
                          (int)e->announced_action);
                put_clean(out, e->evidence[0] ? e->evidence : "-");
                sb_putc(out, '\t');
                put_clean(out, e->reason);
                sb_putc(out, '\n');
        }
}

#define NFIELDS 16

static int field_int(const char *s, size_t n, int max, int *ret)
{
        uint64_t v;
        if (parse_u64(s, n, &v) < 0 || v > (uint64_t)max)
                return -EINVAL;
        *ret = (int)v;
        return 0;
}

static int field_time(const char *s, size_t n, double *ret)
{
        if (n == 3 && !memcmp(s, "nan", 3)) {
                *ret = NAN;
                return 0;
        }
        return parse_double(s, n, ret) < 0 || !isfinite(*ret) ? -EINVAL : 0;
}

static int parse_entry(struct health_entry *e, const char *s, size_t n)
{
        const char *f[NFIELDS];
        size_t len[NFIELDS], k = 0;
        for (const char *p = s, *end = s + n; k < NFIELDS; k++) {
                const char *tab = k + 1 < NFIELDS ? memchr(p, '\t', (size_t)(end - p)) : NULL;
                f[k] = p;
                len[k] = tab ? (size_t)(tab - p) : (size_t)(end - p);
                if (!tab) {
                        k++;
                        break;
                }
                p = tab + 1;
        }
        int st, ac, un, ann, ann_ac, rec;
        memset(e, 0, sizeof(*e));
        if (k != NFIELDS || len[0] != 5 || memcmp(f[0], "entry", 5) || len[1] == 0 ||
            len[1] >= sizeof(e->name) || field_int(f[2], len[2], HEALTH_UNHEALTHY, &st) ||
            field_int(f[3], len[3], EA_REPLACE_PART, &ac) ||
            field_int(f[4], len[4], HU_PERSON, &un) || len[5] != 3 ||
            field_time(f[6], len[6], &e->since) || field_time(f[7], len[7], &e->last_error) ||
            field_time(f[8], len[8], &e->proving_since) ||
            field_time(f[10], len[10], &e->remedied_t) ||
            field_int(f[11], len[11], 1000000, &rec) ||
            field_int(f[12], len[12], HEALTH_UNHEALTHY, &ann) ||
            field_int(f[13], len[13], EA_REPLACE_PART, &ann_ac))
                return -EINVAL;
        copy_bounded(e->name, sizeof(e->name), f[1], len[1]);
        if (!health_name_ok(e->name) || !strcmp(e->name, "all") || !strchr(e->name, '.'))
                return -EINVAL;
        e->state = (enum health_state)st;
        e->action = (enum event_action)ac;
        e->until = (enum health_until)un;
        e->await_answer = f[5][0] == '1';
        e->await_boot = f[5][1] == '1';
        e->remedy_seen = f[5][2] == '1';
        if (!(len[9] == 1 && f[9][0] == '-'))
                copy_bounded(e->boot_id, sizeof(e->boot_id), f[9], len[9]);
        e->recurrences = (unsigned)rec;
        e->recheck_until = NAN;
        e->announced = (enum health_state)ann;
        e->announced_action = (enum event_action)ann_ac;
        if (!(len[14] == 1 && f[14][0] == '-'))
                copy_bounded(e->evidence, sizeof(e->evidence), f[14], len[14]);
        copy_bounded(e->reason, sizeof(e->reason), f[15], len[15]);
        return 0;
}

int health_parse(struct health *h, const char *s, size_t n)
{
        size_t m = strlen(HEALTH_MAGIC);
        if (n < m || memcmp(s, HEALTH_MAGIC, m))
                return -EINVAL;
        h->n = 0;
        for (const char *p = s + m, *end = s + n; p < end;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
                int ngpus, pi;
                if (len > 6 && !memcmp(p, "watch\t", 6)) {
                        const char *tab = memchr(p + 6, '\t', len - 6);
                        if (tab &&
                            field_int(p + 6, (size_t)(tab - p - 6), HEALTH_MAX_GPUS, &ngpus) == 0 &&
                            field_int(tab + 1, (size_t)(p + len - tab - 1), 1, &pi) == 0) {
                                h->ngpus = (unsigned)ngpus;
                                h->pi = pi;
                        } else {
                                h->dropped++;
                        }
                } else if (len && h->n < HEALTH_MAX && parse_entry(&h->e[h->n], p, len) == 0)
                        h->n++;
                else if (len)
                        h->dropped++;
                p += len + 1;
        }
        h->gen++;
        return 0;
}

int health_load(const char *dir, struct health *h)
{
        char *buf = malloc(HEALTH_FILE_MAX + 1);
        struct health *tmp = malloc(sizeof(*tmp));
        int r = -ENOMEM;
        if (buf && tmp) {
                r = read_file_at(dir, "/" HEALTH_FILE, buf, HEALTH_FILE_MAX + 1);
                if (r >= 0) {
                        *tmp = *h;
                        r = health_parse(tmp, buf, (size_t)r);
                        if (r == 0)
                                *h = *tmp;
                }
        }
        free(buf);
        free(tmp);
        return r;
}

int health_save(const char *dir, const struct health *h)
{
        struct strbuf sb;
        if (sb_init_heap(&sb, 4096, HEALTH_FILE_MAX) < 0)
                return -ENOMEM;
        health_format(h, &sb);
        int r = sb.overflow ? -ENOSPC : write_file_atomic(dir, HEALTH_FILE, sb.buf, sb.len);
        sb_free(&sb);
        return r;
}
