/* Basic-auth checks with a digest cache and a crypt(3) budget. See basic_auth.h. */
#include "sink/basic_auth.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "util/dynlib.h"

static const struct dynlib_sym crypt_syms[] = {DYNLIB_SYM(struct basic_auth, crypt_r)};

int basic_auth_init(struct basic_auth *a, const struct web_config *cfg)
{
        char err[256];
        memset(a, 0, sizeof(*a));
        a->cfg = cfg;
        if (getrandom(a->key, sizeof(a->key), 0) != (ssize_t)sizeof(a->key))
                return errno ? -errno : -EIO;
        a->crypt_handle = dynlib_open(BASIC_AUTH_CRYPT_SONAME, crypt_syms, 1, a, err, sizeof(err));
        if (!a->crypt_handle) {
                explicit_bzero(a->key, sizeof(a->key));
                return -ENOENT;
        }
        a->tokens = BASIC_AUTH_BURST;
        return 0;
}

void basic_auth_fini(struct basic_auth *a)
{
        dynlib_close(a->crypt_handle);
        explicit_bzero(a, sizeof(*a));
}

static void digest_of(const struct basic_auth *a, const char *user, const char *password,
                      unsigned char out[SHA256_DIGEST_LEN])
{
        struct sha256 h;
        sha256_init(&h);
        sha256_update(&h, a->key, sizeof(a->key));
        sha256_update(&h, user, strlen(user) + 1);
        sha256_update(&h, password, strlen(password));
        sha256_final(&h, out);
}

/* Take one crypt(3) verification from the budget; false when none is left. */
static bool take_token(struct basic_auth *a, int64_t now_ns)
{
        if (a->refill_ns && now_ns > a->refill_ns) {
                a->tokens += (double)(now_ns - a->refill_ns) / 1e9 * BASIC_AUTH_RATE;
                if (a->tokens > BASIC_AUTH_BURST)
                        a->tokens = BASIC_AUTH_BURST;
        }
        a->refill_ns = now_ns;
        if (a->tokens < 1)
                return false;
        a->tokens -= 1;
        return true;
}

/* crypt(3) password against hash; a constant-time comparison of the results. */
static bool crypt_matches(struct basic_auth *a, const char *password, const char *hash)
{
        const char *out = a->crypt_r(password, hash, &a->cd);
        size_t n = strlen(hash);
        return out && out[0] != '*' && strlen(out) == n && ct_equal(out, hash, n);
}

enum auth_result basic_auth_check(struct basic_auth *a, const char *user, const char *password,
                                  int64_t now_ns)
{
        const struct web_config *cfg = a->cfg;
        unsigned char d[SHA256_DIGEST_LEN];
        int found = -1;
        if (!user || !password || cfg->nusers == 0 ||
            strnlen(password, BASIC_AUTH_MAX_PASSWORD + 1) > BASIC_AUTH_MAX_PASSWORD)
                return AUTH_FAIL;
        for (unsigned i = 0; i < cfg->nusers; i++) {
                if (!strcmp(cfg->users[i].name, user))
                        found = (int)i;
        }
        digest_of(a, user, password, d);
        if (found >= 0 && a->cached[found] && ct_equal(d, a->digest[found], sizeof(d)))
                return AUTH_OK;
        if (!take_token(a, now_ns))
                return AUTH_BUSY;
        /* An unknown user costs a crypt too, so timing does not tell users apart. */
        const char *hash = cfg->users[found >= 0 ? found : 0].hash;
        if (!crypt_matches(a, password, hash) || found < 0)
                return AUTH_FAIL;
        memcpy(a->digest[found], d, sizeof(d));
        a->cached[found] = true;
        return AUTH_OK;
}
