/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the web config reader (web/webconfig.c) and basic-auth checks against
 * its crypt(3) hashes (web/basic_auth.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "web/basic_auth.h"
#include "web/webconfig.h"

/* Made with crypt_gensalt_rn + crypt_r: "secret" (bcrypt $2y$, cost 4), "s3cret"
 * (yescrypt), "pa ss:word" (bcrypt $2b$, cost 4). */
#define HASH_2Y "$2y$04$.Qxt8yuSV/wxOU0vEMzyfOJ5nmV.nzTand17tx1Iw852NHdE5LsQG"
#define HASH_Y  "$y$j8T$BpY/xUFOu1JAHN9hlbk7W/$z5yQWV7vD/RZhMNrHjf.w1AaEuGwKVdB3VqpNtHAmq2"
#define HASH_2B "$2b$04$WPApbXzpmIm7HLgsOhojo.WTKNWvLYCrl2loXLULCAMcQEpI05hk6"

static struct web_config cfg;

static int parse(const char *text, const char *base, char *err, size_t cap)
{
        return webconfig_parse(text, strlen(text), base, &cfg, err, cap);
}

static void test_full(void **state)
{
        (void)state;
        char err[256];
        const char *text = "---\n"
                           "# vigil web config\n"
                           "tls_server_config:\n"
                           "  cert_file: cert.pem   # relative to the file\n"
                           "  key_file: \"/etc/vigil/my key.pem\"\n"
                           "\n"
                           "basic_auth_users:\n"
                           "    prometheus: " HASH_2Y "\n"
                           "    alice: '" HASH_Y "'   \n"
                           "    bob: \"" HASH_2B "\"\r\n";
        assert_int_equal(parse(text, "/etc/vigil", err, sizeof(err)), 0);
        assert_string_equal(err, "");
        assert_true(cfg.tls);
        assert_string_equal(cfg.cert_file, "/etc/vigil/cert.pem");
        assert_string_equal(cfg.key_file, "/etc/vigil/my key.pem");
        assert_int_equal(cfg.nusers, 3);
        assert_string_equal(cfg.users[0].name, "prometheus");
        assert_string_equal(cfg.users[0].hash, HASH_2Y);
        assert_string_equal(cfg.users[1].name, "alice");
        assert_string_equal(cfg.users[1].hash, HASH_Y);
        assert_string_equal(cfg.users[2].name, "bob");
        assert_string_equal(cfg.users[2].hash, HASH_2B);
}

static void test_partial_and_empty(void **state)
{
        (void)state;
        char err[256];
        assert_int_equal(parse("", NULL, err, sizeof(err)), 0);
        assert_false(cfg.tls);
        assert_int_equal(cfg.nusers, 0);
        assert_int_equal(parse("# nothing\n\n", NULL, err, sizeof(err)), 0);
        assert_int_equal(parse("basic_auth_users:\n  u: " HASH_2Y, NULL, err, sizeof(err)), 0);
        assert_false(cfg.tls);
        assert_int_equal(cfg.nusers, 1);
        assert_int_equal(parse("tls_server_config:\n  key_file: k.pem\n  cert_file: c.pem\n", "",
                               err, sizeof(err)),
                         0);
        assert_string_equal(cfg.cert_file, "c.pem");
        assert_int_equal(parse("tls_server_config:\n  key_file: k.pem\n  cert_file: c.pem\n", "/",
                               err, sizeof(err)),
                         0);
        assert_string_equal(cfg.key_file, "/k.pem");
        assert_int_equal(
            parse("basic_auth_users:\n  'quote''s': \"a\\\\b\\\"c$\"\n", NULL, err, sizeof(err)),
            -EINVAL);
        assert_string_equal(err, "line 2: unsupported YAML syntax ''' (expected 'key: value')");
        assert_int_equal(parse("basic_auth_users:\n  q: \"$a\\\\b\\\"c\"\n  r: 'it''s$'\n", NULL,
                               err, sizeof(err)),
                         -EINVAL);
        assert_string_equal(err, "line 3: the password of 'r' is not a crypt(3) hash (bcrypt: "
                                 "$2y$...)");
        assert_int_equal(
            parse("basic_auth_users:\n  q: \"$a\\\\b\\\"c\"\n", NULL, err, sizeof(err)), 0);
        assert_string_equal(cfg.users[0].hash, "$a\\b\"c");
}

/* Each bad input and the exact message naming its line. */
static void test_errors(void **state)
{
        (void)state;
        static const struct {
                const char *text;
                const char *msg;
        } cases[] = {
            {"http_server_config:\n  http2: false\n",
             "line 1: unsupported key 'http_server_config' (supported: tls_server_config, "
             "basic_auth_users)"},
            {"tls_server_config:\n  cert_file: c\n  key_file: k\n  client_ca_file: ca\n",
             "line 4: unsupported key 'client_ca_file' in tls_server_config (supported: "
             "cert_file, key_file)"},
            {"tls_server_config:\n  cert_file: c\n", "line 1: tls_server_config needs both "
                                                     "cert_file and key_file"},
            {"tls_server_config:\n  cert_file: c\nbasic_auth_users:\n  a: $2y$x\n",
             "line 1: tls_server_config needs both cert_file and key_file"},
            {"basic_auth_users:\n", "line 1: basic_auth_users has no users"},
            {"basic_auth_users: {}\n", "line 1: unsupported YAML syntax '{' (write a plain or "
                                       "quoted value)"},
            {"basic_auth_users:\n\tu: $2y$x\n", "line 2: tab in indentation (use spaces)"},
            {"basic_auth_users:\n  u: $2y$xxx\n  u: $2y$yyy\n", "line 3: duplicate user 'u'"},
            {"basic_auth_users:\n  u: $2y$xxx\nbasic_auth_users:\n  v: $2y$yyy\n",
             "line 3: duplicate key 'basic_auth_users'"},
            {"basic_auth_users:\n  u: hunter2\n", "line 2: the password of 'u' is not a "
                                                  "crypt(3) hash (bcrypt: $2y$...)"},
            {"basic_auth_users:\n  u:\n", "line 2: missing value for 'u'"},
            {"basic_auth_users:\n  u: $2y$xxx\n    v: $2y$yyy\n",
             "line 3: inconsistent indentation"},
            {"basic_auth_users:\n  - u\n", "line 2: unsupported YAML syntax '-' (expected "
                                           "'key: value')"},
            {"  u: $2y$xxx\n", "line 1: unexpected indentation"},
            {"basic_auth_users:\n  u: \"$2y$xxx\n", "line 2: unterminated quoted value"},
            {"basic_auth_users:\n  u: \"$2y$\\x\"\n", "line 2: unsupported escape in quoted value"},
            {"basic_auth_users:\n  u: '$2y$xxx' junk\n",
             "line 2: unexpected text after the quoted value"},
            {"basic_auth_users:\n  u: $2y$: x\n", "line 2: unexpected ': ' in a value (quote "
                                                  "it)"},
            {"basic_auth_users:\n  u $2y$x\n", "line 2: expected 'key: value'"},
            {"basic_auth_users: yes\n", "line 1: 'basic_auth_users' must be followed by an "
                                        "indented block"},
            {"---\n---\n", "line 2: unsupported YAML syntax '-' (expected 'key: value')"},
            {"basic_auth_users:\n  u: $2y$x\x01\n", "line 2: control character in line"},
            {"basic_auth_users:\n  u: $2y$04$01234567890123456789012345678901234567890123456789"
             "0123456789012345678901234567890123456789012345678901234567890123456789012345\n",
             "line 2: the hash of 'u' is too long (at most 127 bytes)"},
        };
        char err[256];
        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int r = parse(cases[i].text, NULL, err, sizeof(err));
                if (r != -EINVAL || strcmp(err, cases[i].msg) != 0)
                        fail_msg("case %u: got %d '%s', want '%s'", i, r, err, cases[i].msg);
        }
}

static void test_limits(void **state)
{
        (void)state;
        char err[256];
        /* A value longer than the field. */
        size_t n = 40 + 2000;
        char *text = malloc(n);
        assert_non_null(text);
        int len = snprintf(text, n, "tls_server_config:\n  cert_file: ");
        memset(text + len, 'a', 1100);
        snprintf(text + len + 1100, n - (size_t)len - 1100, "\n  key_file: k\n");
        assert_int_equal(parse(text, NULL, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "line 2: line too long (at most 1024 bytes)");
        free(text);
        /* Too many users. */
        char big[4096];
        size_t pos = (size_t)snprintf(big, sizeof(big), "basic_auth_users:\n");
        for (unsigned i = 0; i <= WEBCONFIG_MAX_USERS; i++)
                pos += (size_t)snprintf(big + pos, sizeof(big) - pos, "  user%u: $2y$x\n", i);
        assert_int_equal(parse(big, NULL, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "line 34: too many users (at most 32)");
        /* A NUL byte. */
        assert_int_equal(webconfig_parse("basic_auth_users:\n\0", 19, NULL, &cfg, err, sizeof(err)),
                         -EINVAL);
        assert_string_equal(err, "line 1: NUL byte in file");
        /* A small error buffer gets a cut message, never an overflow. */
        char tiny[8];
        assert_int_equal(parse("x:\n", NULL, tiny, sizeof(tiny)), -EINVAL);
        assert_string_equal(tiny, "line 1:");
}

static void test_load(void **state)
{
        (void)state;
        char dir[] = "/tmp/vigil-webconfig-XXXXXX";
        char path[256], err[512];
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/web.yml", dir);
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        fputs("tls_server_config:\n  cert_file: c.pem\n  key_file: /abs/k.pem\n", fp);
        fclose(fp);
        assert_int_equal(webconfig_load(path, &cfg, err, sizeof(err)), 0);
        char want[600];
        snprintf(want, sizeof(want), "%s/c.pem", dir);
        assert_string_equal(cfg.cert_file, want);
        assert_string_equal(cfg.key_file, "/abs/k.pem");

        fp = fopen(path, "w");
        assert_non_null(fp);
        fputs("tls_server_config:\n  bogus: 1\n", fp);
        fclose(fp);
        assert_int_equal(webconfig_load(path, &cfg, err, sizeof(err)), -EINVAL);
        snprintf(want, sizeof(want),
                 "%s: line 2: unsupported key 'bogus' in tls_server_config (supported: "
                 "cert_file, key_file)",
                 path);
        assert_string_equal(err, want);

        /* Larger than the bound. */
        fp = fopen(path, "w");
        assert_non_null(fp);
        for (unsigned i = 0; i < WEBCONFIG_MAX_BYTES / 8 + 1; i++)
                fputs("#comment", fp);
        fclose(fp);
        assert_int_equal(webconfig_load(path, &cfg, err, sizeof(err)), -EFBIG);
        unlink(path);
        assert_int_equal(webconfig_load(path, &cfg, err, sizeof(err)), -ENOENT);
        snprintf(want, sizeof(want), "%s: No such file or directory", path);
        assert_string_equal(err, want);
        rmdir(dir);
}

static void setup_users(void)
{
        char err[256];
        assert_int_equal(parse("basic_auth_users:\n  prometheus: " HASH_2Y "\n  alice: " HASH_Y
                               "\n  bob: " HASH_2B "\n",
                               NULL, err, sizeof(err)),
                         0);
}

static void test_auth(void **state)
{
        (void)state;
        static struct basic_auth a;
        setup_users();
        assert_int_equal(basic_auth_init(&a, &cfg), 0);
        int64_t t = 1000000000;
        assert_int_equal(basic_auth_check(&a, "prometheus", "secret", NULL, t), AUTH_OK);
        assert_int_equal(basic_auth_check(&a, "alice", "s3cret", NULL, t), AUTH_OK);
        assert_int_equal(basic_auth_check(&a, "bob", "pa ss:word", NULL, t), AUTH_OK);
        assert_int_equal(basic_auth_check(&a, "prometheus", "Secret", NULL, t), AUTH_FAIL);
        assert_int_equal(basic_auth_check(&a, "alice", "secret", NULL, t), AUTH_FAIL);
        assert_int_equal(basic_auth_check(&a, "mallory", "secret", NULL, t), AUTH_FAIL);
        assert_int_equal(basic_auth_check(&a, "prometheus", "", NULL, t), AUTH_FAIL);
        assert_int_equal(basic_auth_check(&a, NULL, NULL, NULL, t), AUTH_FAIL);
        assert_int_equal(basic_auth_check(&a, "prometheus", NULL, NULL, t), AUTH_FAIL);
        char longpw[BASIC_AUTH_MAX_PASSWORD + 2];
        memset(longpw, 'x', sizeof(longpw) - 1);
        longpw[sizeof(longpw) - 1] = '\0';
        assert_int_equal(basic_auth_check(&a, "prometheus", longpw, NULL, t), AUTH_FAIL);
        basic_auth_fini(&a);
        assert_null(a.crypt_handle);
        basic_auth_fini(&a); /* a wiped state is fine to finish again */
}

/* Wrong passwords use up the crypt(3) budget; remembered good ones still pass. */
static void test_auth_budget(void **state)
{
        (void)state;
        static struct basic_auth a;
        setup_users();
        assert_int_equal(basic_auth_init(&a, &cfg), 0);
        int64_t t = 5000000000;
        assert_int_equal(basic_auth_check(&a, "prometheus", "secret", NULL, t),
                         AUTH_OK); /* 7 left */
        for (unsigned i = 0; i < 7; i++)
                assert_int_equal(basic_auth_check(&a, "prometheus", "wrong", NULL, t), AUTH_FAIL);
        assert_int_equal(basic_auth_check(&a, "prometheus", "wrong", NULL, t), AUTH_BUSY);
        assert_int_equal(basic_auth_check(&a, "alice", "s3cret", NULL, t), AUTH_BUSY);
        /* The remembered password needs no crypt. */
        assert_int_equal(basic_auth_check(&a, "prometheus", "secret", NULL, t), AUTH_OK);
        /* A quarter second later one verification is available again (4 per second). */
        t += 250000000;
        assert_int_equal(basic_auth_check(&a, "alice", "s3cret", NULL, t), AUTH_OK);
        assert_int_equal(basic_auth_check(&a, "bob", "pa ss:word", NULL, t), AUTH_BUSY);
        /* After a long pause the burst is back, but not more. */
        t += 3600LL * 1000000000;
        for (unsigned i = 0; i < 8; i++)
                assert_int_equal(basic_auth_check(&a, "bob", "nope", NULL, t), AUTH_FAIL);
        assert_int_equal(basic_auth_check(&a, "bob", "nope", NULL, t), AUTH_BUSY);
        assert_int_equal(basic_auth_check(&a, "alice", "s3cret", NULL, t), AUTH_OK);
        basic_auth_fini(&a);
}

static struct sockaddr_in v4(const char *ip)
{
        struct sockaddr_in sa = {.sin_family = AF_INET};
        assert_int_equal(inet_pton(AF_INET, ip, &sa.sin_addr), 1);
        return sa;
}

#define SA(x) ((const struct sockaddr *)&(x))

/* One address's wrong passwords spend its own budget, not another's; many addresses
 * together are held by the common budget; the table of addresses stays bounded. */
static void test_auth_per_address(void **state)
{
        (void)state;
        static struct basic_auth a;
        setup_users();
        assert_int_equal(basic_auth_init(&a, &cfg), 0);
        int64_t t = 5000000000;
        struct sockaddr_in bad = v4("192.0.2.7"), good = v4("192.0.2.8");
        for (unsigned i = 0; i < BASIC_AUTH_BURST; i++)
                assert_int_equal(basic_auth_check(&a, "prometheus", "wrong", SA(bad), t),
                                 AUTH_FAIL);
        assert_int_equal(basic_auth_check(&a, "prometheus", "wrong", SA(bad), t), AUTH_BUSY);
        assert_int_equal(basic_auth_check(&a, "prometheus", "secret", SA(bad), t), AUTH_BUSY);
        /* Another address is not locked out by it. */
        assert_int_equal(basic_auth_check(&a, "prometheus", "secret", SA(good), t), AUTH_OK);
        assert_int_equal(basic_auth_check(&a, "alice", "s3cret", SA(good), t), AUTH_OK);
        /* IPv6 addresses have budgets of their own too. */
        struct sockaddr_in6 six = {.sin6_family = AF_INET6};
        assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", &six.sin6_addr), 1);
        assert_int_equal(basic_auth_check(&a, "bob", "pa ss:word", SA(six), t), AUTH_OK);
        basic_auth_fini(&a);

        /* Addresses by the hundred (more than the table holds), each within its own
         * budget: the common one runs out, so the server thread stays free. */
        assert_int_equal(basic_auth_init(&a, &cfg), 0);
        unsigned fails = 0, busy = 0;
        char ip[32];
        for (unsigned i = 0; i < 200; i++) {
                snprintf(ip, sizeof(ip), "198.51.100.%u", i);
                struct sockaddr_in sa = v4(ip);
                enum auth_result r = basic_auth_check(&a, "bob", "nope", SA(sa), t);
                fails += r == AUTH_FAIL;
                busy += r == AUTH_BUSY;
        }
        assert_int_equal(fails, (unsigned)BASIC_AUTH_TOTAL_BURST);
        assert_int_equal(busy, 200 - (unsigned)BASIC_AUTH_TOTAL_BURST);
        basic_auth_fini(&a);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_full),        cmocka_unit_test(test_partial_and_empty),
            cmocka_unit_test(test_errors),      cmocka_unit_test(test_limits),
            cmocka_unit_test(test_load),        cmocka_unit_test(test_auth),
            cmocka_unit_test(test_auth_budget), cmocka_unit_test(test_auth_per_address),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
