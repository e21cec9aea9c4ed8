/* HTTP basic authentication against the crypt(3) hashes of a web config.
 *
 * crypt(3) with bcrypt costs tens of milliseconds by design, and Prometheus sends the
 * same credentials on every scrape: a verified password is remembered as a keyed
 * SHA-256 digest (never the password itself), so a repeat costs a hash, not a crypt.
 * Verifications that do need crypt(3) are rationed (a token bucket), so a stream of
 * wrong passwords cannot keep the server thread busy.
 *
 * libcrypt is opened at run time by basic_auth_init: only a web config with users
 * needs it. */
#ifndef VIGIL_SINK_BASIC_AUTH_H
#define VIGIL_SINK_BASIC_AUTH_H

#include <crypt.h>
#include <stdbool.h>
#include <stdint.h>

#include "sink/webconfig.h"
#include "util/sha256.h"

#define BASIC_AUTH_MAX_PASSWORD 256 /* longer passwords are refused unchecked */
#define BASIC_AUTH_RATE         4.0 /* crypt(3) verifications per second, sustained */
#define BASIC_AUTH_BURST        8.0 /* ... and in a burst */
#define BASIC_AUTH_CRYPT_SONAME "libcrypt.so.1"

enum auth_result {
        AUTH_OK,   /* the user and password match */
        AUTH_FAIL, /* unknown user or wrong password: 401 */
        AUTH_BUSY, /* not checked: the verification budget is spent, retry later: 429 */
};

struct basic_auth {
        const struct web_config *cfg; /* not owned; must outlive this */
        unsigned char key[32];        /* random key of the digests */
        bool cached[WEBCONFIG_MAX_USERS];
        unsigned char digest[WEBCONFIG_MAX_USERS][SHA256_DIGEST_LEN];
        double tokens;
        int64_t refill_ns;
        void *crypt_handle;
        __typeof__(crypt_r) *crypt_r;
        struct crypt_data cd; /* crypt_r's work area */
};

/* Set up for cfg's users (cfg->nusers > 0); opens libcrypt. 0, -ENOENT (libcrypt
 * cannot be loaded) or -errno (no randomness). Undo with basic_auth_fini. */
int basic_auth_init(struct basic_auth *a, const struct web_config *cfg);

/* Give back what basic_auth_init took and wipe *a. Accepts a zeroed *a. */
void basic_auth_fini(struct basic_auth *a);

/* Check one user/password pair at monotonic time now_ns. Takes the same path for an
 * unknown user as for a wrong password. Single-threaded: one caller at a time. */
enum auth_result basic_auth_check(struct basic_auth *a, const char *user, const char *password,
                                  int64_t now_ns);

#endif
