/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the --remote-write-config file (push/rw_config.c rwconfig_parse).
 * A rejection names its line; an accepted file's strings are NUL-terminated within their
 * fields, its labels within the table, its durations and bound within their limits. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "push/rw_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rw_config cfg; /* large: kept off the stack */

#define TERMINATED(f) (strnlen((f), sizeof(f)) < sizeof(f))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char err[256];
        err[0] = '\0';
        rwconfig_defaults(&cfg);
        const char *base = size % 2 ? "/etc/vigil" : NULL;
        if (rwconfig_parse((const char *)data, size, base, &cfg, err, sizeof(err)) < 0) {
                if (!err[0])
                        __builtin_trap();
                return 0;
        }
        if (cfg.nlabels > RWCONFIG_MAX_LABELS || cfg.push_interval_ns < 10000000 ||
            cfg.timeout_ns < 10000000 || cfg.queue_max_bytes < 65536 ||
            !TERMINATED(cfg.bearer_token_file) || !TERMINATED(cfg.username) ||
            !TERMINATED(cfg.password) || !TERMINATED(cfg.password_file) ||
            !TERMINATED(cfg.ca_file) || !TERMINATED(cfg.cert_file) || !TERMINATED(cfg.key_file))
                __builtin_trap();
        for (size_t i = 0; i < cfg.nlabels; i++)
                if (!TERMINATED(cfg.labels[i].name) || !TERMINATED(cfg.labels[i].value))
                        __builtin_trap();
        return 0;
}
