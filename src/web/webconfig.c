/* The web config reader: a strict, bounded reader of the YAML subset in webconfig.h.
 *
 *   basic_auth_users:
 *     prometheus: "$2y$10$X0h1..."
 *
 * Line by line: a top-level line opens a section ("name:" and nothing else), an
 * indented line is one "key: value" of the open section, all at the same indent. */
#include "web/webconfig.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/conffile.h"

enum section { SEC_NONE, SEC_TLS, SEC_USERS };

struct wc_parser {
        struct web_config *cfg;
        const char *base_dir;
        unsigned line;
        enum section sec;
        unsigned child_indent; /* indent of the open section's entries; 0 until the first */
        unsigned sec_line;     /* where the open section started */
        bool seen_tls, seen_users, seen_doc_start, seen_content;
        char *err;
        size_t cap;
};

__attribute__((format(printf, 2, 3))) static int fail(struct wc_parser *p, const char *fmt, ...)
{
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(p->err, p->cap, "line %u: %s", p->line, msg);
        return -EINVAL;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* A plain scalar must not start with a YAML indicator this reader does not handle. */
static bool plain_start_ok(char c)
{
        return !strchr("-?:,[]{}#&*!|>'\"%@`", c);
}

/* Parse a scalar at s[0..n) (leading blanks already skipped) into out: plain (up to a
 * " #" comment), 'single' or "double" quoted (escapes \" and \\ only). */
static int parse_scalar(struct wc_parser *p, const char *s, size_t n, char *out, size_t outcap)
{
        size_t o = 0, i = 0;
        if (n && (s[0] == '"' || s[0] == '\'')) {
                char q = s[0];
                for (i = 1;; i++) {
                        if (i >= n)
                                return fail(p, "unterminated quoted value");
                        char c = s[i];
                        if (q == '\'' && c == '\'' && i + 1 < n && s[i + 1] == '\'')
                                i++;
                        else if (c == q)
                                break;
                        else if (q == '"' && c == '\\') {
                                if (i + 1 >= n || (s[i + 1] != '"' && s[i + 1] != '\\'))
                                        return fail(p, "unsupported escape in quoted value");
                                c = s[++i];
                        }
                        if (o + 1 >= outcap)
                                return fail(p, "value too long (at most %zu bytes)", outcap - 1);
                        out[o++] = s[i];
                }
                for (i++; i < n && is_blank(s[i]); i++)
                        ;
                if (i < n && s[i] != '#')
                        return fail(p, "unexpected text after the quoted value");
                out[o] = '\0';
                return 0;
        }
        if (n && !plain_start_ok(s[0]))
                return fail(p, "unsupported YAML syntax '%c' (write a plain or quoted value)",
                            s[0]);
        for (i = 0; i < n; i++) {
                if (s[i] == '#' && i > 0 && is_blank(s[i - 1]))
                        break;
                if (s[i] == ':' && (i + 1 == n || is_blank(s[i + 1])))
                        return fail(p, "unexpected ': ' in a value (quote it)");
        }
        while (i > 0 && is_blank(s[i - 1]))
                i--;
        if (i >= outcap)
                return fail(p, "value too long (at most %zu bytes)", outcap - 1);
        memcpy(out, s, i);
        out[i] = '\0';
        return 0;
}

/* Split "key: rest" at s[0..n): the key is plain; *ret_rest starts after ':' and blanks. */
static int split_key(struct wc_parser *p, const char *s, size_t n, char *key, size_t keycap,
                     const char **ret_rest, size_t *ret_rest_len)
{
        size_t i;
        if (!plain_start_ok(s[0]))
                return fail(p, "unsupported YAML syntax '%c' (expected 'key: value')", s[0]);
        for (i = 0; i < n; i++) {
                if (s[i] == ':' && (i + 1 == n || is_blank(s[i + 1])))
                        break;
                if (is_blank(s[i]) || s[i] == '#')
                        return fail(p, "expected 'key: value'");
        }
        if (i == n)
                return fail(p, "expected 'key: value'");
        if (i >= keycap)
                return fail(p, "key too long (at most %zu bytes)", keycap - 1);
        memcpy(key, s, i);
        key[i] = '\0';
        for (i++; i < n && is_blank(s[i]); i++)
                ;
        *ret_rest = s + i;
        *ret_rest_len = n - i;
        return 0;
}

static int set_path(struct wc_parser *p, char *out, size_t cap, const char *v, const char *key)
{
        if (conf_resolve(out, cap, p->base_dir, v) < 0)
                return fail(p, "%s: file name too long", key);
        return 0;
}

static int tls_entry(struct wc_parser *p, const char *key, const char *v)
{
        struct web_config *c = p->cfg;
        char *dst = !strcmp(key, "cert_file")  ? c->cert_file
                    : !strcmp(key, "key_file") ? c->key_file
                                               : NULL;
        if (!dst)
                return fail(
                    p,
                    "unsupported key '%.64s' in tls_server_config (supported: cert_file, key_file)",
                    key);
        if (dst[0])
                return fail(p, "duplicate key '%s'", key);
        return set_path(p, dst, sizeof(c->cert_file), v, key);
}

static int user_entry(struct wc_parser *p, const char *name, const char *hash)
{
        struct web_config *c = p->cfg;
        for (unsigned i = 0; i < c->nusers; i++) {
                if (!strcmp(c->users[i].name, name))
                        return fail(p, "duplicate user '%.64s'", name);
        }
        if (c->nusers >= WEBCONFIG_MAX_USERS)
                return fail(p, "too many users (at most %d)", WEBCONFIG_MAX_USERS);
        size_t nl = strlen(name), hl = strlen(hash);
        if (hash[0] != '$' || hl < 4)
                return fail(p, "the password of '%.64s' is not a crypt(3) hash (bcrypt: $2y$...)",
                            name);
        struct web_user *u = &c->users[c->nusers];
        if (hl >= sizeof(u->hash))
                return fail(p, "the hash of '%.64s' is too long (at most %zu bytes)", name,
                            sizeof(u->hash) - 1);
        if (nl >= sizeof(u->name))
                return fail(p, "user name too long (at most %zu bytes)", sizeof(u->name) - 1);
        memcpy(u->name, name, nl + 1);
        memcpy(u->hash, hash, hl + 1);
        c->nusers++;
        return 0;
}

static int close_section(struct wc_parser *p)
{
        const struct web_config *c = p->cfg;
        unsigned at = p->line;
        p->line = p->sec_line;
        int r = 0;
        if (p->sec == SEC_TLS && (!c->cert_file[0] || !c->key_file[0]))
                r = fail(p, "tls_server_config needs both cert_file and key_file");
        else if (p->sec == SEC_USERS && c->nusers == 0)
                r = fail(p, "basic_auth_users has no users");
        p->line = at;
        p->sec = SEC_NONE;
        return r;
}

static int top_line(struct wc_parser *p, const char *s, size_t n)
{
        char key[64], val[8];
        const char *rest;
        size_t rest_len;
        int r = close_section(p);
        if (r < 0)
                return r;
        if (!p->seen_content && n == 3 && !memcmp(s, "---", 3) && !p->seen_doc_start) {
                p->seen_doc_start = true;
                return 0;
        }
        if ((r = split_key(p, s, n, key, sizeof(key), &rest, &rest_len)) < 0)
                return r;
        if ((r = parse_scalar(p, rest, rest_len, val, sizeof(val))) < 0 || val[0])
                return r < 0 ? r : fail(p, "'%s' must be followed by an indented block", key);
        bool *seen = !strcmp(key, "tls_server_config")  ? &p->seen_tls
                     : !strcmp(key, "basic_auth_users") ? &p->seen_users
                                                        : NULL;
        if (!seen)
                return fail(p,
                            "unsupported key '%s' (supported: tls_server_config, basic_auth_users)",
                            key);
        if (*seen)
                return fail(p, "duplicate key '%s'", key);
        *seen = true;
        p->sec = seen == &p->seen_tls ? SEC_TLS : SEC_USERS;
        p->cfg->tls |= p->sec == SEC_TLS;
        p->sec_line = p->line;
        p->child_indent = 0;
        return 0;
}

static int child_line(struct wc_parser *p, unsigned indent, const char *s, size_t n)
{
        char key[64], val[sizeof(p->cfg->cert_file)];
        const char *rest;
        size_t rest_len;
        int r;
        if (p->sec == SEC_NONE)
                return fail(p, "unexpected indentation");
        if (p->child_indent == 0)
                p->child_indent = indent;
        if (indent != p->child_indent)
                return fail(p, "inconsistent indentation");
        if ((r = split_key(p, s, n, key, sizeof(key), &rest, &rest_len)) < 0)
                return r;
        if ((r = parse_scalar(p, rest, rest_len, val, sizeof(val))) < 0)
                return r;
        if (!val[0])
                return fail(p, "missing value for '%s'", key);
        return p->sec == SEC_TLS ? tls_entry(p, key, val) : user_entry(p, key, val);
}

static int one_line(struct wc_parser *p, const char *s, size_t n)
{
        unsigned indent = 0;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
                n--;
        while (indent < n && s[indent] == ' ')
                indent++;
        if (indent == n || s[indent] == '#')
                return 0;
        if (s[indent] == '\t')
                return fail(p, "tab in indentation (use spaces)");
        if (n > WEBCONFIG_MAX_LINE)
                return fail(p, "line too long (at most %d bytes)", WEBCONFIG_MAX_LINE);
        for (size_t i = indent; i < n; i++) {
                if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
                        return fail(p, "control character in line");
        }
        int r = indent ? child_line(p, indent, s + indent, n - indent) : top_line(p, s, n);
        p->seen_content = true;
        return r;
}

int webconfig_parse(const char *text, size_t len, const char *base_dir, struct web_config *ret,
                    char *err, size_t cap)
{
        struct wc_parser p = {.cfg = ret, .base_dir = base_dir, .err = err, .cap = cap};
        memset(ret, 0, sizeof(*ret));
        if (cap)
                err[0] = '\0';
        if (memchr(text, '\0', len)) {
                p.line = 1;
                return fail(&p, "NUL byte in file");
        }
        size_t pos = 0;
        while (pos < len) {
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
                p.line++;
                int r = one_line(&p, text + pos, n);
                if (r < 0)
                        return r;
                pos += n + 1;
        }
        return close_section(&p);
}

static int parse_conf(const char *text, size_t len, const char *base_dir, void *cfg, char *err,
                      size_t cap)
{
        return webconfig_parse(text, len, base_dir, cfg, err, cap);
}

int webconfig_load(const char *path, struct web_config *ret, char *err, size_t cap)
{
        return conf_load(path, WEBCONFIG_MAX_BYTES, parse_conf, ret, err, cap);
}
