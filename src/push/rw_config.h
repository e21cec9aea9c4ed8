/* SPDX-License-Identifier: Apache-2.0 */
/* The --remote-write-config and --alertmanager-config files: where and how vigil pushes, in the style of the
 * --web-config file and of Prometheus's own remote_write section:
 *
 *   push_interval: 15s            # a sample set queued and pushed this often
 *   queue_max_bytes: 64MiB        # the on-disk queue's bound (B, KiB, MiB, GiB, KB, MB, GB)
 *   timeout: 10s                  # one request, connect to last byte
 *   bearer_token_file: token      # "Authorization: Bearer <first line of the file>"
 *   basic_auth:                   # or this (not both)
 *     username: player
 *     password_file: secret       # or password: ...
 *   tls_config:
 *     ca_file: ca.pem             # default: the system's CAs
 *     cert_file: client.pem       # a client certificate, with key_file
 *     key_file: client.key
 *     insecure_skip_verify: false # true: no check of the server's certificate
 *   external_labels:              # added to every series (and every alert)
 *     site: lobby
 *
 * The Alertmanager config (push/alertmanager.h) takes timeout, the auth, tls_config
 * and external_labels, not push_interval or queue_max_bytes, and these of its own:
 *
 *   url: http://am.example:9093   # as --alertmanager (which wins)
 *   resend_delay: 1m              # an active alert is sent again this often
 *   evaluation_interval: 15s      # the findings are looked at this often
 *   keep_firing_for: 15m          # a finding of a moment (an Xid) fires this long
 *
 * Read by the YAML subset reader of the web config (util/conf_yaml.h): top-level
 * scalars and three one-level mappings, plain or quoted scalars, spaces, comments. An
 * unknown key, a tab in the indentation, a duplicate is an error naming the line; so is
 * a conflict between keys (the line of the key it concerns). Relative file names are
 * relative to the file's directory. */
#ifndef VIGIL_PUSH_RW_CONFIG_H
#define VIGIL_PUSH_RW_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "push/rw_proto.h"

#define RWCONFIG_MAX_BYTES        65536
#define RWCONFIG_MAX_LABELS       16
#define RW_DEFAULT_PUSH_NS        (15LL * 1000000000LL)
#define RW_DEFAULT_TIMEOUT_NS     (10LL * 1000000000LL)
#define AM_DEFAULT_RESEND_NS      (60LL * 1000000000LL)
#define AM_DEFAULT_EVAL_NS        (15LL * 1000000000LL)
#define AM_DEFAULT_KEEP_FIRING_NS (15LL * 60 * 1000000000LL)

/* Which file is read (the keys each takes). */
#define RWCONF_REMOTE_WRITE 1u
#define RWCONF_ALERTMANAGER 2u

struct rw_config {
        int64_t push_interval_ns;
        int64_t timeout_ns;
        uint64_t queue_max_bytes;
        char bearer_token_file[1024];
        char username[128];
        char password[256];
        char password_file[1024];
        char ca_file[1024];
        char cert_file[1024];
        char key_file[1024];
        bool insecure_skip_verify;
        unsigned skip_verify_line; /* where it was set; 0: not set */
        /* The Alertmanager's only. */
        char url[1024];
        int64_t resend_delay_ns;
        int64_t eval_interval_ns;
        int64_t keep_firing_ns;
        size_t nlabels;
        struct rw_label labels[RWCONFIG_MAX_LABELS];
};

/* The defaults: 15 s, 10 s, 64 MiB; resend 1m, evaluation 15s, keep firing 15m. */
void rwconfig_defaults(struct rw_config *c);

/* Parse text[0..len) over the values already in *c. 0, or -EINVAL with "line N: what"
 * in err (cap bytes). */
int rwconfig_parse(const char *text, size_t len, const char *base_dir, struct rw_config *c,
                   char *err, size_t cap);

/* rwconfig_defaults, then read and parse path (at most RWCONFIG_MAX_BYTES). 0, or
 * -errno/-EINVAL with "PATH: line N: what" in err. */
int rwconfig_load(const char *path, struct rw_config *c, char *err, size_t cap);

/* rwconfig_parse and rwconfig_load for the keys of user (RWCONF_*). */
int rwconfig_parse_for(unsigned user, const char *text, size_t len, const char *base_dir,
                       struct rw_config *c, char *err, size_t cap);
int rwconfig_load_for(unsigned user, const char *path, struct rw_config *c, char *err, size_t cap);

/* Read the first line of a secret file (a token, a password) into out (cap bytes), the
 * line end and surrounding blanks cut. 0, or -errno / -EINVAL (empty) / -E2BIG. */
int rwconfig_read_secret(const char *path, char *out, size_t cap);

#endif
