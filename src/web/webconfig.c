/* SPDX-License-Identifier: Apache-2.0 */
/* The web config reader: the sections and keys of webconfig.h over the YAML subset
 * reader (util/conf_yaml.h).
 *
 *   basic_auth_users:
 *     prometheus: "$2y$10$X0h1..."
 *
 * Two top-level mappings, each of "key: value" entries. */
#include "web/webconfig.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util/conf_yaml.h"
#include "util/conffile.h"

struct wc_reader {
        struct web_config *cfg;
        const char *base_dir;
        bool seen_tls, seen_users;
};

static int tls_entry(struct conf_yaml *y, struct wc_reader *w, const struct conf_yaml_item *it)
{
        struct web_config *c = w->cfg;
        const char *key = it->key;
        char *dst = !strcmp(key, "cert_file")  ? c->cert_file
                    : !strcmp(key, "key_file") ? c->key_file
                                               : NULL;
        if (!dst)
                return conf_yaml_fail(
                    y, it->line,
                    "unsupported key '%.64s' in tls_server_config (supported: cert_file, key_file)",
                    key);
        if (dst[0])
                return conf_yaml_fail(y, it->line, "duplicate key '%s'", key);
        if (conf_resolve(dst, sizeof(c->cert_file), w->base_dir, it->value) < 0)
                return conf_yaml_fail(y, it->line, "%s: file name too long", key);
        return 0;
}

static int user_entry(struct conf_yaml *y, struct wc_reader *w, const struct conf_yaml_item *it)
{
        struct web_config *c = w->cfg;
        const char *name = it->key, *hash = it->value;
        for (unsigned i = 0; i < c->nusers; i++) {
                if (!strcmp(c->users[i].name, name))
                        return conf_yaml_fail(y, it->line, "duplicate user '%.64s'", name);
        }
        if (c->nusers >= WEBCONFIG_MAX_USERS)
                return conf_yaml_fail(y, it->line, "too many users (at most %d)",
                                      WEBCONFIG_MAX_USERS);
        size_t nl = strlen(name), hl = strlen(hash);
        if (hash[0] != '$' || hl < 4)
                return conf_yaml_fail(
                    y, it->line, "the password of '%.64s' is not a crypt(3) hash (bcrypt: $2y$...)",
                    name);
        struct web_user *u = &c->users[c->nusers];
        if (hl >= sizeof(u->hash))
                return conf_yaml_fail(y, it->line,
                                      "the hash of '%.64s' is too long (at most %zu bytes)", name,
                                      sizeof(u->hash) - 1);
        if (nl >= sizeof(u->name))
                return conf_yaml_fail(y, it->line, "user name too long (at most %zu bytes)",
                                      sizeof(u->name) - 1);
        memcpy(u->name, name, nl + 1);
        memcpy(u->hash, hash, hl + 1);
        c->nusers++;
        return 0;
}

/* The end of a section: what it must hold. */
static int close_section(struct conf_yaml *y, const struct web_config *c,
                         const struct conf_yaml_item *it)
{
        if (!strcmp(it->key, "tls_server_config") && (!c->cert_file[0] || !c->key_file[0]))
                return conf_yaml_fail(y, it->line,
                                      "tls_server_config needs both cert_file and key_file");
        if (!strcmp(it->key, "basic_auth_users") && c->nusers == 0)
                return conf_yaml_fail(y, it->line, "basic_auth_users has no users");
        return 0;
}

/* A top-level key: one of the two sections, each once. */
static int open_section(struct conf_yaml *y, struct wc_reader *w, const struct conf_yaml_item *it)
{
        bool *seen = !strcmp(it->key, "tls_server_config")  ? &w->seen_tls
                     : !strcmp(it->key, "basic_auth_users") ? &w->seen_users
                                                            : NULL;
        if (!seen)
                return conf_yaml_fail(
                    y, it->line,
                    "unsupported key '%s' (supported: tls_server_config, basic_auth_users)",
                    it->key);
        if (*seen)
                return conf_yaml_fail(y, it->line, "duplicate key '%s'", it->key);
        *seen = true;
        w->cfg->tls |= seen == &w->seen_tls;
        return 0;
}

static int on_item(struct conf_yaml *y, const struct conf_yaml_item *it, void *arg)
{
        struct wc_reader *w = arg;
        switch (it->event) {
        case CONF_YAML_OPEN:
                return it->depth ? conf_yaml_fail(y, it->line, "missing value for '%s'", it->key)
                                 : open_section(y, w, it);
        case CONF_YAML_SCALAR:
                if (!it->depth)
                        return conf_yaml_fail(
                            y, it->line, "'%s' must be followed by an indented block", it->key);
                return !strcmp(it->parent, "tls_server_config") ? tls_entry(y, w, it)
                                                                : user_entry(y, w, it);
        case CONF_YAML_CLOSE:
                return it->depth ? 0 : close_section(y, w->cfg, it);
        case CONF_YAML_END:
                break;
        }
        return 0;
}

int webconfig_parse(const char *text, size_t len, const char *base_dir, struct web_config *ret,
                    char *err, size_t cap)
{
        struct wc_reader w = {.cfg = ret, .base_dir = base_dir};
        memset(ret, 0, sizeof(*ret));
        return conf_yaml_read(text, len, on_item, &w, err, cap);
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
