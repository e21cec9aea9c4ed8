/* SPDX-License-Identifier: Apache-2.0 */
/* The remote-write config reader: the keys of rw_config.h over the YAML subset reader
 * (util/conf_yaml.h). See rw_config.h.
 *
 *   external_labels:
 *     site: lobby
 */
#include "push/rw_config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/conf_yaml.h"
#include "util/conffile.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/strbuf.h"

enum section { SEC_AUTH, SEC_TLS };

/* The top-level keys, which config each belongs to, and whether it opens a mapping. */
struct top_key {
        const char *name;
        unsigned users; /* RWCONF_* bits */
        bool block;
};

#define BOTH (RWCONF_REMOTE_WRITE | RWCONF_ALERTMANAGER)

static const struct top_key top_keys[] = {
    {"push_interval", RWCONF_REMOTE_WRITE, false},
    {"queue_max_bytes", RWCONF_REMOTE_WRITE, false},
    {"timeout", BOTH, false},
    {"bearer_token_file", BOTH, false},
    {"basic_auth", BOTH, true},
    {"tls_config", BOTH, true},
    {"external_labels", BOTH, true},
    {"url", RWCONF_ALERTMANAGER, false},
    {"resend_delay", RWCONF_ALERTMANAGER, false},
    {"evaluation_interval", RWCONF_ALERTMANAGER, false},
    {"keep_firing_for", RWCONF_ALERTMANAGER, false},
};
#define NTOP     (sizeof(top_keys) / sizeof(top_keys[0]))
#define K_BEARER 3
#define K_AUTH   4
#define K_TLS    5
#define K_LABELS 6

struct rc_reader {
        struct rw_config *c;
        unsigned user; /* RWCONF_REMOTE_WRITE or RWCONF_ALERTMANAGER */
        const char *base_dir;
        unsigned seen;       /* bit per top-level key seen */
        unsigned line[NTOP]; /* where each top-level key was, by its index (0: absent) */
};

void rwconfig_defaults(struct rw_config *c)
{
        memset(c, 0, sizeof(*c));
        c->push_interval_ns = RW_DEFAULT_PUSH_NS;
        c->timeout_ns = RW_DEFAULT_TIMEOUT_NS;
        c->queue_max_bytes = 64ull << 20;
        c->resend_delay_ns = AM_DEFAULT_RESEND_NS;
        c->eval_interval_ns = AM_DEFAULT_EVAL_NS;
        c->keep_firing_ns = AM_DEFAULT_KEEP_FIRING_NS;
}

static int set_path(struct conf_yaml *y, const struct conf_yaml_item *it, const char *base_dir,
                    char *out, size_t cap)
{
        if (conf_resolve(out, cap, base_dir, it->value) < 0)
                return conf_yaml_fail(y, it->line, "%s: file name too long", it->key);
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

static int top_scalar(struct conf_yaml *y, struct rc_reader *p, const struct conf_yaml_item *it)
{
        struct rw_config *c = p->c;
        const char *key = it->key, *v = it->value;
        int64_t ns;
        int64_t *dur = !strcmp(key, "push_interval")         ? &c->push_interval_ns
                       : !strcmp(key, "timeout")             ? &c->timeout_ns
                       : !strcmp(key, "resend_delay")        ? &c->resend_delay_ns
                       : !strcmp(key, "evaluation_interval") ? &c->eval_interval_ns
                       : !strcmp(key, "keep_firing_for")     ? &c->keep_firing_ns
                                                             : NULL;
        if (dur) {
                if (parse_duration_ns(v, &ns) < 0 || ns < 10000000LL)
                        return conf_yaml_fail(
                            y, it->line, "%s: '%.64s' is not a duration of 10ms or more (15s, 1m)",
                            key, v);
                *dur = ns;
                return 0;
        }
        if (!strcmp(key, "url")) {
                if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
                        return conf_yaml_fail(y, it->line,
                                              "url: '%.64s' is not an http:// or "
                                              "https:// URL",
                                              v);
                if (strlen(v) >= sizeof(c->url))
                        return conf_yaml_fail(y, it->line, "url too long");
                copy_bounded(c->url, sizeof(c->url), v, strlen(v));
                return 0;
        }
        if (!strcmp(key, "queue_max_bytes")) {
                if (parse_size(v, &c->queue_max_bytes) < 0 || c->queue_max_bytes < 65536)
                        return conf_yaml_fail(
                            y, it->line, "queue_max_bytes: '%.64s' is not a size of 64KiB or more",
                            v);
                return 0;
        }
        return set_path(y, it, p->base_dir, c->bearer_token_file, sizeof(c->bearer_token_file));
}

static int label_entry(struct conf_yaml *y, struct rw_config *c, const struct conf_yaml_item *it)
{
        const char *key = it->key, *v = it->value;
        if (!label_name_ok(key))
                return conf_yaml_fail(y, it->line, "'%.64s' is not a label name", key);
        for (size_t i = 0; i < c->nlabels; i++)
                if (!strcmp(c->labels[i].name, key))
                        return conf_yaml_fail(y, it->line, "duplicate label '%s'", key);
        if (c->nlabels >= RWCONFIG_MAX_LABELS)
                return conf_yaml_fail(y, it->line, "too many labels (at most %d)",
                                      RWCONFIG_MAX_LABELS);
        struct rw_label *l = &c->labels[c->nlabels++];
        if (strlen(v) >= sizeof(l->value) || strlen(key) >= sizeof(l->name))
                return conf_yaml_fail(y, it->line, "label name or value too long");
        copy_bounded(l->name, sizeof(l->name), key, strlen(key));
        copy_bounded(l->value, sizeof(l->value), v, strlen(v));
        return 0;
}

/* tls_config's insecure_skip_verify: true or false, once. */
static int skip_verify(struct conf_yaml *y, struct rw_config *c, const struct conf_yaml_item *it)
{
        if (c->skip_verify_line)
                return conf_yaml_fail(y, it->line, "duplicate key '%s'", it->key);
        c->skip_verify_line = it->line;
        if (strcmp(it->value, "true") && strcmp(it->value, "false"))
                return conf_yaml_fail(y, it->line,
                                      "insecure_skip_verify: '%.64s' is not true or "
                                      "false",
                                      it->value);
        c->insecure_skip_verify = !strcmp(it->value, "true");
        return 0;
}

/* An entry of basic_auth or tls_config. */
static int sec_entry(struct conf_yaml *y, struct rc_reader *p, enum section sec,
                     const struct conf_yaml_item *it)
{
        struct rw_config *c = p->c;
        const char *key = it->key, *v = it->value;
        char *dst = NULL;
        size_t cap = 0;
        bool path = true;
        if (sec == SEC_AUTH) {
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
                else if (!strcmp(key, "insecure_skip_verify"))
                        return skip_verify(y, c, it);
        }
        if (!dst)
                return conf_yaml_fail(y, it->line, "unsupported key '%.64s' in %s", key,
                                      sec == SEC_AUTH
                                          ? "basic_auth (username, password, password_file)"
                                          : "tls_config (ca_file, cert_file, key_file, "
                                            "insecure_skip_verify)");
        if (dst[0])
                return conf_yaml_fail(y, it->line, "duplicate key '%s'", key);
        if (!path) {
                if (strlen(v) >= cap)
                        return conf_yaml_fail(y, it->line, "%s too long", key);
                copy_bounded(dst, cap, v, strlen(v));
                return 0;
        }
        return set_path(y, it, p->base_dir, dst, cap);
}

/* A top-level key, scalar or mapping: known, once, and of its kind. */
static int top_entry(struct conf_yaml *y, struct rc_reader *p, const struct conf_yaml_item *it)
{
        size_t k = 0;
        while (k < NTOP && (strcmp(top_keys[k].name, it->key) || !(top_keys[k].users & p->user)))
                k++;
        if (k == NTOP) {
                char list[400];
                struct strbuf sb;
                sb_init_fixed(&sb, list, sizeof(list));
                for (size_t i = 0; i < NTOP; i++)
                        if (top_keys[i].users & p->user)
                                sb_printf(&sb, "%s%s", sb.len ? ", " : "", top_keys[i].name);
                return conf_yaml_fail(y, it->line, "unsupported key '%s' (supported: %s)", it->key,
                                      list);
        }
        if (p->seen & (1u << k))
                return conf_yaml_fail(y, it->line, "duplicate key '%s'", it->key);
        p->seen |= 1u << k;
        p->line[k] = it->line;
        bool block = it->event == CONF_YAML_OPEN;
        if (top_keys[k].block && !block)
                return conf_yaml_fail(y, it->line, "'%s' must be followed by an indented block",
                                      it->key);
        if (!top_keys[k].block && block)
                return conf_yaml_fail(y, it->line, "missing value for '%s'", it->key);
        return block ? 0 : top_scalar(y, p, it);
}

/* What holds across keys, each error at the line of the key it concerns. */
static int check(struct conf_yaml *y, const struct rc_reader *p)
{
        const struct rw_config *c = p->c;
        unsigned auth = p->line[K_AUTH], bearer = p->line[K_BEARER];
        if (c->username[0] && c->bearer_token_file[0])
                return conf_yaml_fail(y, auth > bearer ? auth : bearer,
                                      "basic_auth and bearer_token_file exclude each other");
        if ((c->password[0] || c->password_file[0]) && !c->username[0])
                return conf_yaml_fail(y, auth, "basic_auth needs a username");
        if (c->password[0] && c->password_file[0])
                return conf_yaml_fail(y, auth,
                                      "basic_auth: password and password_file exclude each other");
        if (!c->cert_file[0] != !c->key_file[0])
                return conf_yaml_fail(y, p->line[K_TLS],
                                      "tls_config: cert_file and key_file go together");
        return 0;
}

static int on_item(struct conf_yaml *y, const struct conf_yaml_item *it, void *arg)
{
        struct rc_reader *p = arg;
        switch (it->event) {
        case CONF_YAML_OPEN:
        case CONF_YAML_SCALAR:
                if (!it->depth)
                        return top_entry(y, p, it);
                if (it->event == CONF_YAML_OPEN)
                        return conf_yaml_fail(y, it->line, "missing value for '%s'", it->key);
                if (!strcmp(it->parent, top_keys[K_LABELS].name))
                        return label_entry(y, p->c, it);
                return sec_entry(
                    y, p, strcmp(it->parent, top_keys[K_AUTH].name) ? SEC_TLS : SEC_AUTH, it);
        case CONF_YAML_CLOSE:
                break;
        case CONF_YAML_END:
                return check(y, p);
        }
        return 0;
}

int rwconfig_parse_for(unsigned user, const char *text, size_t len, const char *base_dir,
                       struct rw_config *c, char *err, size_t cap)
{
        struct rc_reader p = {.c = c, .user = user, .base_dir = base_dir};
        return conf_yaml_read(text, len, on_item, &p, err, cap);
}

int rwconfig_parse(const char *text, size_t len, const char *base_dir, struct rw_config *c,
                   char *err, size_t cap)
{
        return rwconfig_parse_for(RWCONF_REMOTE_WRITE, text, len, base_dir, c, err, cap);
}

static int parse_rw(const char *text, size_t len, const char *base_dir, void *cfg, char *err,
                    size_t cap)
{
        return rwconfig_parse_for(RWCONF_REMOTE_WRITE, text, len, base_dir, cfg, err, cap);
}

static int parse_am(const char *text, size_t len, const char *base_dir, void *cfg, char *err,
                    size_t cap)
{
        return rwconfig_parse_for(RWCONF_ALERTMANAGER, text, len, base_dir, cfg, err, cap);
}

int rwconfig_load_for(unsigned user, const char *path, struct rw_config *c, char *err, size_t cap)
{
        rwconfig_defaults(c);
        return conf_load(path, RWCONFIG_MAX_BYTES,
                         user == RWCONF_ALERTMANAGER ? parse_am : parse_rw, c, err, cap);
}

int rwconfig_load(const char *path, struct rw_config *c, char *err, size_t cap)
{
        return rwconfig_load_for(RWCONF_REMOTE_WRITE, path, c, err, cap);
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
