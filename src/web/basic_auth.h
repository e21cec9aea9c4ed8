/* SPDX-License-Identifier: Apache-2.0 */
/* HTTP basic authentication against the crypt(3) hashes of a web config.
 *
 * crypt(3) with bcrypt costs tens of milliseconds by design, and Prometheus sends the
 * same credentials on every scrape: a verified password is remembered as a keyed
 * SHA-256 digest (never the password itself), so a repeat costs a hash, not a crypt.
 * Verifications that do need crypt(3) are rationed by token buckets: one per client
 * address, so a stream of wrong passwords from one address is refused (429) without
 * touching the budget of any other, and one for all, so many addresses together still
 * cannot keep the server thread busy. The addresses are a fixed table: a new one takes
 * the place of the one seen longest ago (with a full bucket, as a stranger's).
 *
 * libcrypt is opened at run time by basic_auth_init: only a web config with users
 * needs it. */
#ifndef VIGIL_WEB_BASIC_AUTH_H
#define VIGIL_WEB_BASIC_AUTH_H

#include <crypt.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "web/webconfig.h"
#include "util/sha256.h"

#define BASIC_AUTH_MAX_PASSWORD 256  /* longer passwords are refused unchecked */
#define BASIC_AUTH_RATE         4.0  /* crypt(3) verifications per second, one address */
#define BASIC_AUTH_BURST        8.0  /* ... and in a burst */
#define BASIC_AUTH_TOTAL_RATE   16.0 /* all addresses together, per second */
#define BASIC_AUTH_TOTAL_BURST  32.0 /* ... and in a burst */
#define BASIC_AUTH_ADDRS        64   /* client addresses whose budgets are remembered */
#define BASIC_AUTH_CRYPT_SONAME "libcrypt.so.1"

enum auth_result {
        AUTH_OK,   /* the user and password match */
        AUTH_FAIL, /* unknown user or wrong password: 401 */
        AUTH_BUSY, /* not checked: the verification budget is spent, retry later: 429 */
};

/* A token bucket of crypt(3) verifications. */
struct auth_bucket {
        double tokens;
        int64_t refill_ns; /* when tokens was last brought up to date; 0: never */
};

/* One client address's bucket. */
struct auth_peer {
        unsigned char ip[16]; /* IPv6, or IPv4 as ::ffff:a.b.c.d; all zero: unknown */
        bool used;
        int64_t seen_ns; /* the last verification it asked for */
        struct auth_bucket b;
};

struct basic_auth {
        const struct web_config *cfg; /* not owned; must outlive this */
        unsigned char key[32];        /* random key of the digests */
        bool cached[WEBCONFIG_MAX_USERS];
        unsigned char digest[WEBCONFIG_MAX_USERS][SHA256_DIGEST_LEN];
        struct auth_bucket total;
        struct auth_peer peers[BASIC_AUTH_ADDRS];
        void *crypt_handle;
        __typeof__(crypt_r) *crypt_r;
        struct crypt_data cd; /* crypt_r's work area */
};

/* Set up for cfg's users (cfg->nusers > 0); opens libcrypt. 0, -ENOENT (libcrypt
 * cannot be loaded) or -errno (no randomness). Undo with basic_auth_fini. */
int basic_auth_init(struct basic_auth *a, const struct web_config *cfg);

/* Give back what basic_auth_init took and wipe *a. Accepts a zeroed *a. */
void basic_auth_fini(struct basic_auth *a);

/* Check one user/password pair sent from client address peer (NULL: unknown, all such
 * share one budget) at monotonic time now_ns. A verification that needs crypt(3) takes
 * one token from peer's bucket and one from the common one: AUTH_BUSY when either is
 * empty. Takes the same path for an unknown user as for a wrong password.
 * Single-threaded: one caller at a time. */
enum auth_result basic_auth_check(struct basic_auth *a, const char *user, const char *password,
                                  const struct sockaddr *peer, int64_t now_ns);

#endif
