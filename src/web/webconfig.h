/* SPDX-License-Identifier: Apache-2.0 */
/* The --web-config file: TLS and basic-auth settings for the HTTP server, written the
 * way Prometheus exporters take them (exporter-toolkit's web configuration file):
 *
 *   tls_server_config:
 *     cert_file: /etc/vigil/cert.pem
 *     key_file: /etc/vigil/key.pem
 *   basic_auth_users:
 *     prometheus: $2y$10$X0h1...   # a crypt(3) hash: bcrypt $2y$/$2b$, yescrypt $y$
 *
 * Read by the YAML subset reader of every such config (util/conf_yaml.h): two top-level
 * mappings of plain or quoted scalars, indented with spaces, and comments. Anything else
 * (an unknown key, a flow collection, a tab in the indentation, a duplicate) is an error
 * naming the line. */
#ifndef VIGIL_WEB_WEBCONFIG_H
#define VIGIL_WEB_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define WEBCONFIG_MAX_USERS 32
#define WEBCONFIG_MAX_BYTES 65536 /* largest file read */
#define WEBCONFIG_MAX_LINE  1024

struct web_user {
        char name[64];
        char hash[128]; /* a crypt(3) hash, "$..." */
};

struct web_config {
        bool tls;             /* tls_server_config given: serve HTTPS only */
        char cert_file[1024]; /* PEM certificate (chain) */
        char key_file[1024];  /* PEM private key */
        unsigned nusers;      /* 0: no authentication */
        struct web_user users[WEBCONFIG_MAX_USERS];
};

/* Parse the text of a web config (len bytes, need not be NUL-terminated) into *ret.
 * Relative file names are taken relative to base_dir (NULL or "": as written).
 * 0, or -EINVAL with "line N: what" written to err (cap bytes); *ret is then
 * unspecified. */
int webconfig_parse(const char *text, size_t len, const char *base_dir, struct web_config *ret,
                    char *err, size_t cap);

/* Read and parse the file at path (at most WEBCONFIG_MAX_BYTES). Relative file names
 * in it are relative to the file's directory. 0, or -errno/-EINVAL with
 * "PATH: line N: what" written to err. */
int webconfig_load(const char *path, struct web_config *ret, char *err, size_t cap);

#endif
