/* SPDX-License-Identifier: Apache-2.0 */
/* Basic-auth checks with a digest cache and a crypt(3) budget. See basic_auth.h. */
#include "web/basic_auth.h"

#include <errno.h>
#include <netinet/in.h>
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
        a->total.tokens = BASIC_AUTH_TOTAL_BURST;
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

/* Bring b up to date at now_ns (rate tokens a second, at most burst); then take one
 * token: false when none is left. */
static bool take_token(struct auth_bucket *b, double rate, double burst, int64_t now_ns)
{
        if (b->refill_ns && now_ns > b->refill_ns) {
                b->tokens += (double)(now_ns - b->refill_ns) / 1e9 * rate;
                if (b->tokens > burst)
                        b->tokens = burst;
        }
        b->refill_ns = now_ns;
        if (b->tokens < 1)
                return false;
        b->tokens -= 1;
        return true;
}

/* peer as 16 bytes: IPv6 as it is, IPv4 mapped (::ffff:a.b.c.d), anything else zero. */
static void peer_key(const struct sockaddr *peer, unsigned char out[16])
{
        memset(out, 0, 16);
        if (peer && peer->sa_family == AF_INET6) {
                memcpy(out, &((const struct sockaddr_in6 *)peer)->sin6_addr, 16);
        } else if (peer && peer->sa_family == AF_INET) {
                out[10] = out[11] = 0xff;
                memcpy(out + 12, &((const struct sockaddr_in *)peer)->sin_addr, 4);
        }
}

/* peer's entry in the table: its own, a free one, or the one seen longest ago, taken
 * over with a full bucket. */
static struct auth_peer *peer_entry(struct basic_auth *a, const struct sockaddr *peer,
                                    int64_t now_ns)
{
        unsigned char ip[16];
        peer_key(peer, ip);
        struct auth_peer *oldest = &a->peers[0];
        for (unsigned i = 0; i < BASIC_AUTH_ADDRS; i++) {
                struct auth_peer *e = &a->peers[i];
                if (e->used && !memcmp(e->ip, ip, sizeof(ip))) {
                        e->seen_ns = now_ns;
                        return e;
                }
                if (oldest->used && (!e->used || e->seen_ns < oldest->seen_ns))
                        oldest = e;
        }
        *oldest =
            (struct auth_peer){.used = true, .seen_ns = now_ns, .b = {.tokens = BASIC_AUTH_BURST}};
        memcpy(oldest->ip, ip, sizeof(ip));
        return oldest;
}

/* One crypt(3) verification for peer: a token of its own and one of the common budget
 * (the address's is given back when the common one is spent). */
static bool may_verify(struct basic_auth *a, const struct sockaddr *peer, int64_t now_ns)
{
        struct auth_peer *e = peer_entry(a, peer, now_ns);
        if (!take_token(&e->b, BASIC_AUTH_RATE, BASIC_AUTH_BURST, now_ns))
                return false;
        if (take_token(&a->total, BASIC_AUTH_TOTAL_RATE, BASIC_AUTH_TOTAL_BURST, now_ns))
                return true;
        e->b.tokens += 1;
        return false;
}

/* crypt(3) password against hash; a constant-time comparison of the results. */
static bool crypt_matches(struct basic_auth *a, const char *password, const char *hash)
{
        const char *out = a->crypt_r(password, hash, &a->cd);
        size_t n = strlen(hash);
        return out && out[0] != '*' && strlen(out) == n && ct_equal(out, hash, n);
}

enum auth_result basic_auth_check(struct basic_auth *a, const char *user, const char *password,
                                  const struct sockaddr *peer, int64_t now_ns)
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
        if (!may_verify(a, peer, now_ns))
                return AUTH_BUSY;
        /* An unknown user costs a crypt too, so timing does not tell users apart. */
        const char *hash = cfg->users[found >= 0 ? found : 0].hash;
        if (!crypt_matches(a, password, hash) || found < 0)
                return AUTH_FAIL;
        memcpy(a->digest[found], d, sizeof(d));
        a->cached[found] = true;
        return AUTH_OK;
}
