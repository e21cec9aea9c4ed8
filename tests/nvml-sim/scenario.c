/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML's scenario file (format: README.md), read with vigil's bounded
 * parse helpers. A sample:
 *
 *   gpu 0 name="NVIDIA RTX PRO 6000 Blackwell" pci=00000000:01:00.0 fans=2
 *   set 0 temp=45 power_mw=85000 fan0=30
 *   at 0 step 20 ramp temp=90 over 10
 *   at 0 step 30 xid 79
 */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/parse.h"

#define MAX_LINE  1024
#define MAX_STEP  1000000000ULL
#define MAX_COUNT 100000ULL
#define MAX_STALL 600000ULL

static const struct {
        const char *name;
        unsigned long long type;
} event_names[] = {
    {"sbe", NVML_EVENT_SINGLE_BIT_ECC},
    {"dbe", NVML_EVENT_DOUBLE_BIT_ECC},
    {"pstate", NVML_EVENT_PSTATE},
    {"xid", NVML_EVENT_XID_CRITICAL_ERROR},
    {"clock", NVML_EVENT_CLOCK},
    {"power_source", NVML_EVENT_POWER_SOURCE_CHANGE},
    {"mig", NVML_EVENT_MIG_CONFIG_CHANGE},
    {"unavailable", NVML_EVENT_GPU_UNAVAILABLE_ERROR},
    {"recovery", NVML_EVENT_GPU_RECOVERY_ACTION},
};

/* The parse of one file: where we are, for messages. */
struct loader {
        struct sim *s;
        const char *path;
        unsigned line;
        uint32_t seq;
        size_t total_ops;
        char *err;
        size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct loader *ld, const char *fmt, ...)
{
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(ld->err, ld->errlen, "%s:%u: %s", ld->path, ld->line, msg);
        return -1;
}

/* A number as scenarios write it: decimal with an optional '-', or 0x hexadecimal. */
static int parse_num(const char *s, size_t n, int64_t *ret)
{
        if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                struct cursor c = cur_make(s, n);
                uint64_t u;
                if (cur_hex(&c, &u) < 0 || !cur_eof(&c) || u > INT64_MAX)
                        return -EINVAL;
                *ret = (int64_t)u;
                return 0;
        }
        return parse_i64(s, n, ret);
}

static int parse_range(struct loader *ld, const char *s, size_t n, int64_t lo, int64_t hi,
                       int64_t *ret)
{
        int64_t v;
        if (parse_num(s, n, &v) < 0 || v < lo || v > hi)
                return fail(ld, "'%.*s' is not a number from %lld to %lld", (int)n, s,
                            (long long)lo, (long long)hi);
        *ret = v;
        return 0;
}

static int parse_field_value(struct loader *ld, int f, const char *s, size_t n, int64_t *ret)
{
        switch (sim_field_kind(f)) {
        case SIM_K_U64:
                return parse_range(ld, s, n, 0, INT64_MAX, ret);
        case SIM_K_I32:
                return parse_range(ld, s, n, INT32_MIN, INT32_MAX, ret);
        default:
                return parse_range(ld, s, n, 0, UINT32_MAX, ret);
        }
}

/* Next token: a word, or key=value where value may be "quoted". false at end of line. */
struct token {
        const char *key, *val;
        size_t klen, vlen;
        bool has_val;
};

static int next_token(struct loader *ld, struct cursor *c, struct token *t)
{
        cur_skip_blank(c);
        if (cur_eof(c))
                return 0;
        memset(t, 0, sizeof(*t));
        t->key = c->p;
        while (!cur_eof(c) && *c->p != ' ' && *c->p != '\t' && *c->p != '=')
                c->p++;
        t->klen = (size_t)(c->p - t->key);
        if (cur_eof(c) || *c->p != '=')
                return 1;
        c->p++;
        t->has_val = true;
        if (cur_lit(c, "\"")) {
                t->val = c->p;
                const char *q = memchr(c->p, '"', (size_t)(c->end - c->p));
                if (!q)
                        return fail(ld, "unterminated quote");
                t->vlen = (size_t)(q - c->p);
                c->p = q + 1;
                return 1;
        }
        t->val = c->p;
        while (!cur_eof(c) && *c->p != ' ' && *c->p != '\t')
                c->p++;
        t->vlen = (size_t)(c->p - t->val);
        if (t->vlen == 0)
                return fail(ld, "'%.*s=' has no value", (int)t->klen, t->key);
        return 1;
}

static bool tok_is(const struct token *t, const char *word)
{
        return !t->has_val && strlen(word) == t->klen && memcmp(t->key, word, t->klen) == 0;
}

/* The next token must be a bare number in [lo, hi]. */
static int want_num(struct loader *ld, struct cursor *c, const char *what, int64_t lo, int64_t hi,
                    int64_t *ret)
{
        struct token t;
        int r = next_token(ld, c, &t);
        if (r < 0)
                return r;
        if (r == 0 || t.has_val)
                return fail(ld, "expected %s", what);
        return parse_range(ld, t.key, t.klen, lo, hi, ret);
}

static int want_gpu(struct loader *ld, struct cursor *c, struct sim_gpu **ret)
{
        int64_t i;
        if (want_num(ld, c, "a GPU index", 0, SIM_MAX_GPUS - 1, &i) < 0)
                return -1;
        if ((unsigned)i >= ld->s->ngpus)
                return fail(ld, "GPU %lld has no 'gpu' line before this one", (long long)i);
        *ret = &ld->s->gpu[i];
        return 0;
}

static int want_end(struct loader *ld, struct cursor *c)
{
        struct token t;
        int r = next_token(ld, c, &t);
        if (r > 0)
                return fail(ld, "unexpected '%.*s'", (int)t.klen, t.key);
        return r;
}

static int add_op(struct loader *ld, struct sim_gpu *g, const struct sim_op *op)
{
        if (ld->total_ops >= SIM_MAX_OPS)
                return fail(ld, "more than %d timeline entries", SIM_MAX_OPS);
        struct sim_op *n = realloc(g->ops, (g->nops + 1) * sizeof(*n));
        if (!n)
                return fail(ld, "out of memory");
        g->ops = n;
        g->ops[g->nops] = *op;
        g->ops[g->nops].seq = ld->seq++;
        g->nops++;
        ld->total_ops++;
        return 0;
}

static int copy_str(struct loader *ld, char *out, size_t cap, const struct token *t)
{
        if (t->vlen >= cap)
                return fail(ld, "%.*s is longer than %zu bytes", (int)t->klen, t->key, cap - 1);
        copy_bounded(out, cap, t->val, t->vlen);
        return 0;
}

/* "00000000:01:00.0": domain, bus, device (hex; the function must be 0). */
static int parse_pci(struct loader *ld, struct sim_gpu *g, const struct token *t)
{
        struct cursor c = cur_make(t->val, t->vlen);
        uint64_t d, b, dev, fn;
        if (cur_hex(&c, &d) < 0 || !cur_lit(&c, ":") || cur_hex(&c, &b) < 0 || !cur_lit(&c, ":") ||
            cur_hex(&c, &dev) < 0 || !cur_lit(&c, ".") || cur_u64(&c, &fn) < 0 || !cur_eof(&c) ||
            d > UINT32_MAX || b > 0xff || dev > 0x1f || fn != 0)
                return fail(ld, "pci='%.*s' is not DOMAIN:BUS:DEVICE.0", (int)t->vlen, t->val);
        g->domain = (unsigned)d;
        g->bus = (unsigned)b;
        g->device = (unsigned)dev;
        return 0;
}

static int gpu_attr(struct loader *ld, struct sim_gpu *g, const struct token *t)
{
        int64_t v;
#define KEY(k) (t->klen == strlen(k) && memcmp(t->key, k, t->klen) == 0)
        if (KEY("name"))
                return copy_str(ld, g->name, sizeof(g->name), t);
        if (KEY("uuid"))
                return copy_str(ld, g->uuid, sizeof(g->uuid), t);
        if (KEY("serial"))
                return copy_str(ld, g->serial, sizeof(g->serial), t);
        if (KEY("vbios"))
                return copy_str(ld, g->vbios, sizeof(g->vbios), t);
        if (KEY("pci"))
                return parse_pci(ld, g, t);
        if (KEY("pci_id") || KEY("subsys")) {
                if (parse_range(ld, t->val, t->vlen, 0, UINT32_MAX, &v) < 0)
                        return -1;
                *(KEY("pci_id") ? &g->pci_id : &g->subsys) = (unsigned)v;
                return 0;
        }
        if (KEY("fans")) {
                if (parse_range(ld, t->val, t->vlen, 0, SIM_MAX_FANS, &v) < 0)
                        return -1;
                g->fans = (unsigned)v;
                return 0;
        }
#undef KEY
        return fail(ld, "unknown gpu attribute '%.*s'", (int)t->klen, t->key);
}

static int line_gpu(struct loader *ld, struct cursor *c)
{
        int64_t i;
        if (want_num(ld, c, "a GPU index", 0, SIM_MAX_GPUS - 1, &i) < 0)
                return -1;
        if ((unsigned)i != ld->s->ngpus)
                return fail(ld, "GPU %lld declared out of order (expected %u)", (long long)i,
                            ld->s->ngpus);
        struct sim_gpu *g = &ld->s->gpu[i];
        g->index = (unsigned)i;
        snprintf(g->name, sizeof(g->name), "NVIDIA Simulated GPU");
        snprintf(g->uuid, sizeof(g->uuid), "GPU-00000000-0000-0000-0000-%012u", g->index);
        g->bus = g->index + 1;
        g->pci_id = 0x000010de;
        ld->s->ngpus++;
        struct token t;
        int r;
        while ((r = next_token(ld, c, &t)) > 0) {
                if (!t.has_val)
                        return fail(ld, "expected key=value, got '%.*s'", (int)t.klen, t.key);
                if (gpu_attr(ld, g, &t) < 0)
                        return -1;
        }
        return r;
}

/* field=value pairs into ops of `kind` at `step`, until the end or the word `stop`. */
static int field_ops(struct loader *ld, struct cursor *c, struct sim_gpu *g, uint64_t step,
                     enum sim_op_kind kind, const char *stop, struct sim_op **ret_first)
{
        struct token t;
        int r, n = 0;
        size_t first = g->nops;
        while ((r = next_token(ld, c, &t)) > 0) {
                if (stop && tok_is(&t, stop))
                        break;
                int f = t.has_val ? sim_field_find(t.key, t.klen) : -1;
                if (f < 0)
                        return fail(ld, "unknown field '%.*s'", (int)t.klen, t.key);
                struct sim_op op = {.step = step, .kind = (uint8_t)kind, .field = (int16_t)f};
                if (kind == OP_FAIL ? parse_range(ld, t.val, t.vlen, 0, 999, &op.val) < 0
                                    : parse_field_value(ld, f, t.val, t.vlen, &op.val) < 0)
                        return -1;
                if (add_op(ld, g, &op) < 0)
                        return -1;
                n++;
        }
        if (r < 0)
                return r;
        if (n == 0)
                return fail(ld, "expected field=value");
        if (stop && r == 0)
                return fail(ld, "missing '%s'", stop);
        *ret_first = g->ops + first;
        return 0;
}

/* unsupported G a,b,c*: the fields (a trailing * matches a prefix) answer NOT_SUPPORTED. */
static int line_unsupported(struct loader *ld, struct cursor *c)
{
        struct sim_gpu *g;
        const char *w;
        size_t n;
        if (want_gpu(ld, c, &g) < 0)
                return -1;
        cur_skip_blank(c);
        int found = 0;
        while (cur_word(c, &w, &n) == 0) {
                struct cursor list = cur_make(w, n);
                while (!cur_eof(&list)) {
                        const char *item = list.p;
                        const char *comma = memchr(list.p, ',', (size_t)(list.end - list.p));
                        const char *end = comma ? comma : list.end;
                        size_t len = (size_t)(end - item);
                        bool prefix = len > 0 && item[len - 1] == '*';
                        int matched = 0;
                        for (int f = 0; f < F_COUNT; f++) {
                                char buf[32];
                                sim_field_name(f, buf, sizeof(buf));
                                size_t bl = strlen(buf);
                                if (prefix ? (bl >= len - 1 && memcmp(buf, item, len - 1) == 0)
                                           : (bl == len && memcmp(buf, item, len) == 0)) {
                                        struct sim_op op = {.kind = OP_FAIL,
                                                            .field = (int16_t)f,
                                                            .val = NVML_ERROR_NOT_SUPPORTED};
                                        if (add_op(ld, g, &op) < 0)
                                                return -1;
                                        matched++;
                                }
                        }
                        if (!matched)
                                return fail(ld, "unknown field '%.*s'", (int)len, item);
                        found += matched;
                        list.p = comma ? comma + 1 : list.end;
                }
        }
        return found ? 0 : fail(ld, "expected a list of fields");
}

static int event_options(struct loader *ld, struct cursor *c, struct sim_op *op)
{
        struct token t;
        int r;
        op->arg = 1;
        while ((r = next_token(ld, c, &t)) > 0) {
                int64_t v;
                bool is_count = t.has_val && t.klen == 5 && !memcmp(t.key, "count", 5);
                bool is_data = t.has_val && t.klen == 4 && !memcmp(t.key, "data", 4);
                if (!is_count && !is_data)
                        return fail(ld, "unknown event option '%.*s'", (int)t.klen, t.key);
                if (parse_range(ld, t.val, t.vlen, is_count ? 1 : 0,
                                is_count ? (int64_t)MAX_COUNT : INT64_MAX, &v) < 0)
                        return -1;
                if (is_count)
                        op->arg = (uint64_t)v;
                else
                        op->val = v;
        }
        return r;
}

static int at_event(struct loader *ld, struct cursor *c, struct sim_gpu *g, struct sim_op *op,
                    bool xid)
{
        op->kind = OP_EVENT;
        if (xid) {
                op->type = NVML_EVENT_XID_CRITICAL_ERROR;
                if (want_num(ld, c, "an Xid", 0, INT64_MAX, &op->val) < 0)
                        return -1;
        } else {
                struct token t;
                int r = next_token(ld, c, &t);
                if (r < 0)
                        return r;
                for (size_t i = 0; r > 0 && i < sizeof(event_names) / sizeof(event_names[0]); i++)
                        if (tok_is(&t, event_names[i].name))
                                op->type = event_names[i].type;
                if (!op->type)
                        return fail(ld, "expected an event type (sbe dbe pstate xid clock "
                                        "power_source mig unavailable recovery)");
        }
        if (event_options(ld, c, op) < 0)
                return -1;
        return add_op(ld, g, op);
}

/* at G step N ACTION ... */
static int line_at(struct loader *ld, struct cursor *c)
{
        struct sim_gpu *g;
        struct token t;
        int64_t step, v;
        struct sim_op *first;
        if (want_gpu(ld, c, &g) < 0)
                return -1;
        int r = next_token(ld, c, &t);
        if (r < 0)
                return r;
        if (r == 0 || !tok_is(&t, "step"))
                return fail(ld, "expected 'step'");
        if (want_num(ld, c, "a step", 0, (int64_t)MAX_STEP, &step) < 0)
                return -1;
        r = next_token(ld, c, &t);
        if (r < 0)
                return r;
        if (r == 0 || t.has_val)
                return fail(ld, "expected an action");
        struct sim_op op = {.step = (uint64_t)step};
        if (tok_is(&t, "set") || tok_is(&t, "fail"))
                return field_ops(ld, c, g, op.step, tok_is(&t, "set") ? OP_SET : OP_FAIL, NULL,
                                 &first);
        if (tok_is(&t, "ramp")) {
                size_t before = g->nops;
                if (field_ops(ld, c, g, op.step, OP_RAMP, "over", &first) < 0 ||
                    want_num(ld, c, "a number of steps", 1, (int64_t)MAX_STEP, &v) < 0)
                        return -1;
                for (size_t i = before; i < g->nops; i++)
                        g->ops[i].arg = (uint64_t)v;
                return want_end(ld, c);
        }
        if (tok_is(&t, "xid") || tok_is(&t, "event"))
                return at_event(ld, c, g, &op, tok_is(&t, "xid"));
        if (tok_is(&t, "lost") || tok_is(&t, "recovered")) {
                op.kind = tok_is(&t, "lost") ? OP_LOST : OP_RECOVERED;
                return add_op(ld, g, &op) < 0 ? -1 : want_end(ld, c);
        }
        if (tok_is(&t, "wait_error")) {
                op.kind = OP_WAIT_ERROR;
                if (want_num(ld, c, "a return code", 1, INT32_MAX, &v) < 0)
                        return -1;
                op.val = v;
                if (event_options(ld, c, &op) < 0)
                        return -1;
                if (op.val != v)
                        return fail(ld, "wait_error takes only count=");
                if (op.val == NVML_ERROR_TIMEOUT)
                        return fail(ld, "wait_error 10 is a timeout, not an error");
                return add_op(ld, g, &op);
        }
        if (tok_is(&t, "stall")) {
                op.kind = OP_STALL;
                if (want_num(ld, c, "milliseconds", 0, (int64_t)MAX_STALL, &op.val) < 0)
                        return -1;
                return add_op(ld, g, &op) < 0 ? -1 : want_end(ld, c);
        }
        return fail(ld, "unknown action '%.*s'", (int)t.klen, t.key);
}

static int line_driver(struct loader *ld, struct cursor *c)
{
        const char *w;
        size_t n;
        if (cur_word(c, &w, &n) < 0)
                return fail(ld, "expected a driver version");
        if (n >= sizeof(ld->s->driver))
                return fail(ld, "driver version longer than %zu bytes", sizeof(ld->s->driver) - 1);
        copy_bounded(ld->s->driver, sizeof(ld->s->driver), w, n);
        return want_end(ld, c);
}

/* proc N pid=P type=compute|graphics [mem=BYTES|na] [from=S] [until=S] (procs.c);
 * proc_error N CODE: both process calls of GPU N return CODE. */
static int line_proc(struct loader *ld, struct cursor *c, bool error)
{
        struct sim_gpu *g;
        char msg[200];
        int64_t v;
        if (want_gpu(ld, c, &g) < 0)
                return -1;
        if (error) {
                if (want_num(ld, c, "a return code", 1, 999, &v) < 0)
                        return -1;
                g->procs_err = (int)v;
                return want_end(ld, c);
        }
        if (sim_proc_add(g, c->p, (size_t)(c->end - c->p), msg, sizeof(msg)) < 0)
                return fail(ld, "%s", msg);
        return 0;
}

static int parse_line(struct loader *ld, struct cursor *c)
{
        struct token t;
        int64_t v;
        struct sim_gpu *g;
        struct sim_op *first;
        int r = next_token(ld, c, &t);
        if (r <= 0)
                return r;
        if (tok_is(&t, "driver"))
                return line_driver(ld, c);
        if (tok_is(&t, "init_error")) {
                if (want_num(ld, c, "a return code", 1, 999, &v) < 0)
                        return -1;
                ld->s->init_error = (int)v;
                return want_end(ld, c);
        }
        if (tok_is(&t, "gpu"))
                return line_gpu(ld, c);
        if (tok_is(&t, "set"))
                return want_gpu(ld, c, &g) < 0 ? -1 : field_ops(ld, c, g, 0, OP_SET, NULL, &first);
        if (tok_is(&t, "unsupported"))
                return line_unsupported(ld, c);
        if (tok_is(&t, "at"))
                return line_at(ld, c);
        if (tok_is(&t, "proc") || tok_is(&t, "proc_error"))
                return line_proc(ld, c, tok_is(&t, "proc_error"));
        return fail(ld, "unknown directive '%.*s'", (int)t.klen, t.key);
}

/* The line without its comment: '#' outside quotes starts one. */
static size_t strip_comment(const char *s, size_t n)
{
        bool quoted = false;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '"')
                        quoted = !quoted;
                else if (s[i] == '#' && !quoted)
                        return i;
        }
        return n;
}

static int cmp_op(const void *a, const void *b)
{
        const struct sim_op *x = a, *y = b;
        if (x->step != y->step)
                return x->step < y->step ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int read_all(struct loader *ld, char **ret, size_t *ret_len)
{
        int fd = open(ld->path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return fail(ld, "cannot open: %s", strerror(errno));
        char *buf = malloc(SIM_SCENARIO_MAX + 1);
        size_t len = 0;
        ssize_t n = 1;
        while (buf && len <= SIM_SCENARIO_MAX && n > 0) {
                n = read(fd, buf + len, SIM_SCENARIO_MAX + 1 - len);
                if (n > 0)
                        len += (size_t)n;
        }
        close(fd);
        if (!buf || n < 0 || len > SIM_SCENARIO_MAX) {
                free(buf);
                return fail(ld, "%s",
                            !buf    ? "out of memory"
                            : n < 0 ? "read error"
                                    : "file too large");
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}

int scenario_parse(struct sim *s, const char *text, size_t len, const char *name, char *err,
                   size_t errlen)
{
        struct loader ld = {.s = s, .path = name, .err = err, .errlen = errlen};
        scenario_clear(s);
        if (len > SIM_SCENARIO_MAX)
                return fail(&ld, "file too large");
        struct cursor c = cur_make(text, len);
        int r = 0;
        while (r == 0 && !cur_eof(&c)) {
                const char *l;
                size_t n;
                ld.line++;
                cur_line(&c, &l, &n);
                if (n > MAX_LINE) {
                        r = fail(&ld, "line longer than %d bytes", MAX_LINE);
                        break;
                }
                struct cursor lc = cur_make(l, strip_comment(l, n));
                if (lc.end > lc.p && lc.end[-1] == '\r')
                        lc.end--;
                r = parse_line(&ld, &lc) < 0 ? -1 : 0;
        }
        if (r == 0 && s->ngpus == 0 && !s->init_error) {
                ld.line = 0;
                r = fail(&ld, "no 'gpu' line");
        }
        if (r < 0) {
                scenario_clear(s);
                return -1;
        }
        for (unsigned i = 0; i < s->ngpus; i++)
                if (s->gpu[i].nops)
                        qsort(s->gpu[i].ops, s->gpu[i].nops, sizeof(struct sim_op), cmp_op);
        return 0;
}

int scenario_load(struct sim *s, const char *path, char *err, size_t errlen)
{
        struct loader ld = {.s = s, .path = path, .err = err, .errlen = errlen};
        char *buf = NULL;
        size_t len = 0;
        scenario_clear(s);
        if (read_all(&ld, &buf, &len) < 0)
                return -1;
        int r = scenario_parse(s, buf, len, path, err, errlen);
        free(buf);
        return r;
}

void scenario_clear(struct sim *s)
{
        for (unsigned i = 0; i < s->ngpus && i < SIM_MAX_GPUS; i++) {
                free(s->gpu[i].ops);
                free(s->gpu[i].procs);
                memset(&s->gpu[i], 0, sizeof(s->gpu[i]));
        }
        s->ngpus = 0;
        s->init_error = 0;
        snprintf(s->driver, sizeof(s->driver), "570.86.15");
}
