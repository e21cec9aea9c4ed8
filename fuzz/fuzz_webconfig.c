/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the --web-config file (web/webconfig.c webconfig_parse), the
 * Prometheus-style YAML subset. A rejection names its line; an accepted file's strings
 * are NUL-terminated within their fields and its users within the table. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "web/webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct web_config cfg; /* large: kept off the stack */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char err[256];
        err[0] = '\0';
        const char *base = size % 2 ? "/etc/vigil" : NULL;
        if (webconfig_parse((const char *)data, size, base, &cfg, err, sizeof(err)) < 0) {
                if (!err[0])
                        __builtin_trap();
                return 0;
        }
        if (cfg.nusers > WEBCONFIG_MAX_USERS ||
            strnlen(cfg.cert_file, sizeof(cfg.cert_file)) >= sizeof(cfg.cert_file) ||
            strnlen(cfg.key_file, sizeof(cfg.key_file)) >= sizeof(cfg.key_file))
                __builtin_trap();
        for (unsigned i = 0; i < cfg.nusers; i++) {
                const struct web_user *u = &cfg.users[i];
                if (strnlen(u->name, sizeof(u->name)) >= sizeof(u->name) ||
                    strnlen(u->hash, sizeof(u->hash)) >= sizeof(u->hash))
                        __builtin_trap();
        }
        return 0;
}
