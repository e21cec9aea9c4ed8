/* The remote-write config reader: strict and bounded, line by line. See rw_config.h.
 *
 *   external_labels:
 *     site: lobby
 */
#include "push/rw_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/conffile.h"
#include "util/parse.h"
#include "util/pfile.h"

enum section { SEC_NONE, SEC_AUTH, SEC_TLS, SEC_LABELS };

struct rc_parser {
        struct rw_config *c;
        const char *base_dir;
        unsigned line;
        enum section sec;
        unsigned indent; /* of the open section's entries; 0 until the first */
        unsigned seen;   /* bit per top-level key seen */
        char *err;
        size_t cap;
};

static const char *const top_keys[] = {
    "push_interval", "queue_max_bytes", "timeout",         "bearer_token_file",
    "basic_auth",    "tls_config",      "external_labels",
};
#define NTOP (sizeof(top_keys) / sizeof(top_keys[0]))

__attribute__((format(printf, 2, 3))) static int fail(struct rc_parser *p, const char *fmt, ...)
{
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(p->err, p->cap, "line %u: %s", p->line, msg);
        return -EINVAL;
}

void rwconfig_defaults(struct rw_config *c)
{
        memset(c, 0, sizeof(*c));
        c->push_interval_ns = RW_DEFAULT_PUSH_NS;
        c->timeout_ns = RW_DEFAULT_TIMEOUT_NS;
        c->queue_max_bytes = 64ull << 20;
}

/* A plain (up to " #") or 'single' / "double" quoted scalar (\" and \\ only). */
static int scalar(struct rc_parser *p, const char *s, size_t n, char *out, size_t cap)
{
        size_t o = 0, i;
        if (n && (s[0] == '"' || s[0] == '\'')) {
                for (i = 1; i < n && s[i] != s[0]; i++) {
                        if (s[0] == '"' && s[i] == '\\' && i + 1 < n)
                                i++;
                        if (o + 1 >= cap)
                                return fail(p, "value too long (at most %zu bytes)", cap - 1);
                        out[o++] = s[i];
                }
                if (i >= n)
                        return fail(p, "unterminated quoted value");
                for (i++; i < n && s[i] == ' '; i++)
                        ;
                if (i < n && s[i] != '#')
                        return fail(p, "unexpected text after the quoted value");
                out[o] = '\0';
                return 0;
        }
        if (n && strchr("-?:,[]{}&*!|>%@`", s[0]))
                return fail(p, "unsupported YAML syntax '%c' (write a plain or quoted value)",
                            s[0]);
        for (i = 0; i < n && !(s[i] == '#' && i > 0 && s[i - 1] == ' '); i++)
                ;
        while (i > 0 && s[i - 1] == ' ')
                i--;
        if (i >= cap)
                return fail(p, "value too long (at most %zu bytes)", cap - 1);
        memcpy(out, s, i);
        out[i] = '\0';
        return 0;
}

static int set_path(struct rc_parser *p, char *out, size_t cap, const char *v, const char *key)
{
        if (conf_resolve(out, cap, p->base_dir, v) < 0)
                return fail(p, "%s: file name too long", key);
        return 0;
}

/* "64MiB", "65536", "1GB". */
static int parse_size(const char *v, uint64_t *ret)
{
        static const struct {
                const char *unit;
                uint64_t mul;
        } units[] = {{"KiB", 1ull << 10},
                     {"MiB", 1ull << 20},
                     {"GiB", 1ull << 30},
                     {"KB", 1000},
                     {"MB", 1000000},
                     {"GB", 1000000000},
                     {"B", 1},
                     {"", 1}};
        size_t d = 0;
        uint64_t n;
        while (v[d] >= '0' && v[d] <= '9')
                d++;
        if (d == 0 || parse_u64(v, d, &n) < 0)
                return -EINVAL;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
                if (!strcmp(v + d, units[i].unit)) {
                        if (n > UINT64_MAX / units[i].mul)
                                return -ERANGE;
                        *ret = n * units[i].mul;
                        return 0;
                }
        }
        return -EINVAL;
}

static bool label_name_ok(const char *s)
{
        if (!s[0] || (s[0] >= '0' && s[0] <= '9') || (s[0] == '_' && s[1] == '_'))
                return false;
        for (; *s; s++) {
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                      (*s >= '0' && *s <= '9') || *s == '_'))
                        return false;
        }
        return true;
}

static int top_scalar(struct rc_parser *p, const char *key, const char *v)
{
        struct rw_config *c = p->c;
        int64_t ns;
        if (!strcmp(key, "push_interval") || !strcmp(key, "timeout")) {
                if (parse_duration_ns(v, &ns) < 0 || ns < 10000000LL)
                        return fail(p, "%s: '%.64s' is not a duration of 10ms or more (15s, 1m)",
                                    key, v);
                *(key[0] == 'p' ? &c->push_interval_ns : &c->timeout_ns) = ns;
                return 0;
        }
        if (!strcmp(key, "queue_max_bytes")) {
                if (parse_size(v, &c->queue_max_bytes) < 0 || c->queue_max_bytes < 65536)
                        return fail(p, "queue_max_bytes: '%.64s' is not a size of 64KiB or more",
                                    v);
                return 0;
        }
        return set_path(p, c->bearer_token_file, sizeof(c->bearer_token_file), v, key);
}

static int sec_entry(struct rc_parser *p, const char *key, const char *v)
{
        struct rw_config *c = p->c;
        char *dst = NULL;
        size_t cap = 0;
        bool path = true;
        if (p->sec == SEC_LABELS) {
                if (!label_name_ok(key))
                        return fail(p, "'%.64s' is not a label name", key);
                for (size_t i = 0; i < c->nlabels; i++)
                        if (!strcmp(c->labels[i].name, key))
                                return fail(p, "duplicate label '%s'", key);
                if (c->nlabels >= RWCONFIG_MAX_LABELS)
                        return fail(p, "too many labels (at most %d)", RWCONFIG_MAX_LABELS);
                struct rw_label *l = &c->labels[c->nlabels++];
                if (strlen(v) >= sizeof(l->value) || strlen(key) >= sizeof(l->name))
                        return fail(p, "label name or value too long");
                copy_bounded(l->name, sizeof(l->name), key, strlen(key));
                copy_bounded(l->value, sizeof(l->value), v, strlen(v));
                return 0;
        }
        if (p->sec == SEC_AUTH) {
                if (!strcmp(key, "username"))
                        dst = c->username, cap = sizeof(c->username), path = false;
                else if (!strcmp(key, "password"))
                        dst = c->password, cap = sizeof(c->password), path = false;
                else if (!strcmp(key, "password_file"))
                        dst = c->password_file, cap = sizeof(c->password_file);
        } else {
                if (!strcmp(key, "ca_file"))
                        dst = c->ca_file, cap = sizeof(c->ca_file);
                else if (!strcmp(key, "cert_file"))
                        dst = c->cert_file, cap = sizeof(c->cert_file);
                else if (!strcmp(key, "key_file"))
                        dst = c->key_file, cap = sizeof(c->key_file);
        }
        if (!dst)
                return fail(p, "unsupported key '%.64s' in %s", key,
                            p->sec == SEC_AUTH ? "basic_auth (username, password, password_file)"
                                               : "tls_config (ca_file, cert_file, key_file)");
        if (dst[0])
                return fail(p, "duplicate key '%s'", key);
        if (!path) {
                if (strlen(v) >= cap)
                        return fail(p, "%s too long", key);
                copy_bounded(dst, cap, v, strlen(v));
                return 0;
        }
        return set_path(p, dst, cap, v, key);
}

/* "key: rest": the key and where the value starts. */
static int split(struct rc_parser *p, const char *s, size_t n, char *key, size_t kcap,
                 size_t *ret_val)
{
        size_t i = 0;
        while (i < n && s[i] != ':' && s[i] != ' ' && s[i] != '#')
                i++;
        if (i == 0 || i == n || s[i] != ':' || (i + 1 < n && s[i + 1] != ' '))
                return fail(p, "expected 'key: value'");
        if (i >= kcap)
                return fail(p, "key too long");
        memcpy(key, s, i);
        key[i] = '\0';
        for (i++; i < n && s[i] == ' '; i++)
                ;
        *ret_val = i;
        return 0;
}

static int one_line(struct rc_parser *p, const char *s, size_t n)
{
        char key[64], val[1024];
        size_t at = 0, ind = 0;
        int r;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
                n--;
        while (ind < n && s[ind] == ' ')
                ind++;
        if (ind == n || s[ind] == '#' || (ind == 0 && n == 3 && !memcmp(s, "---", 3)))
                return 0;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)s[i] < 0x20)
                        return fail(p, s[i] == '\t' ? "tab in line (use spaces)"
                                                    : "control character in line");
        if ((r = split(p, s + ind, n - ind, key, sizeof(key), &at)) < 0 ||
            (r = scalar(p, s + ind + at, n - ind - at, val, sizeof(val))) < 0)
                return r;
        if (ind) {
                if (p->sec == SEC_NONE)
                        return fail(p, "unexpected indentation");
                if (!p->indent)
                        p->indent = (unsigned)ind;
                if (ind != p->indent)
                        return fail(p, "inconsistent indentation");
                if (!val[0])
                        return fail(p, "missing value for '%s'", key);
                return sec_entry(p, key, val);
        }
        size_t k = 0;
        while (k < NTOP && strcmp(top_keys[k], key))
                k++;
        if (k == NTOP)
                return fail(p,
                            "unsupported key '%s' (supported: push_interval, queue_max_bytes, "
                            "timeout, bearer_token_file, basic_auth, tls_config, external_labels)",
                            key);
        if (p->seen & (1u << k))
                return fail(p, "duplicate key '%s'", key);
        p->seen |= 1u << k;
        p->sec = SEC_NONE;
        p->indent = 0;
        if (k >= 4) {
                if (val[0])
                        return fail(p, "'%s' must be followed by an indented block", key);
                p->sec = k == 4 ? SEC_AUTH : k == 5 ? SEC_TLS : SEC_LABELS;
                return 0;
        }
        if (!val[0])
                return fail(p, "missing value for '%s'", key);
        return top_scalar(p, key, val);
}

static int check(struct rc_parser *p)
{
        const struct rw_config *c = p->c;
        p->line = 0;
        if (c->username[0] && c->bearer_token_file[0])
                return fail(p, "basic_auth and bearer_token_file exclude each other");
        if ((c->password[0] || c->password_file[0]) && !c->username[0])
                return fail(p, "basic_auth needs a username");
        if (c->password[0] && c->password_file[0])
                return fail(p, "basic_auth: password and password_file exclude each other");
        if (!c->cert_file[0] != !c->key_file[0])
                return fail(p, "tls_config: cert_file and key_file go together");
        return 0;
}

int rwconfig_parse(const char *text, size_t len, const char *base_dir, struct rw_config *c,
                   char *err, size_t cap)
{
        struct rc_parser p = {.c = c, .base_dir = base_dir, .err = err, .cap = cap};
        if (cap)
                err[0] = '\0';
        if (memchr(text, '\0', len)) {
                p.line = 1;
                return fail(&p, "NUL byte in file");
        }
        for (size_t pos = 0; pos < len;) {
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
                p.line++;
                if (n > 1024)
                        return fail(&p, "line too long (at most 1024 bytes)");
                int r = one_line(&p, text + pos, n);
                if (r < 0)
                        return r;
                pos += n + 1;
        }
        return check(&p);
}

static int parse_conf(const char *text, size_t len, const char *base_dir, void *cfg, char *err,
                      size_t cap)
{
        return rwconfig_parse(text, len, base_dir, cfg, err, cap);
}

int rwconfig_load(const char *path, struct rw_config *c, char *err, size_t cap)
{
        rwconfig_defaults(c);
        return conf_load(path, RWCONFIG_MAX_BYTES, parse_conf, c, err, cap);
}

int rwconfig_read_secret(const char *path, char *out, size_t cap)
{
        struct pfile f = {.fd = -1};
        int r = pfile_open(&f, NULL, path, 4096);
        if (r >= 0)
                r = pfile_read(&f);
        if (r >= 0) {
                const char *s = f.buf, *end = f.buf + f.len;
                const char *nl = memchr(s, '\n', f.len);
                if (nl)
                        end = nl;
                while (s < end && (*s == ' ' || *s == '\t'))
                        s++;
                while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                        end--;
                if (end == s)
                        r = -EINVAL;
                else if ((size_t)(end - s) >= cap)
                        r = -E2BIG;
                else
                        copy_bounded(out, cap, s, (size_t)(end - s));
        }
        pfile_close(&f);
        return r < 0 ? r : 0;
}
