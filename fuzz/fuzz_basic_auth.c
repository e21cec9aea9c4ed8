/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: HTTP basic authentication (web/basic_auth.c basic_auth_check) on
 * the user and password a client sends, split at the input's first ':' as in the
 * Authorization header's decoded credentials. One user "prometheus" with password
 * "secret" (a cheap sha256crypt hash, so a run is not all crypt time). Exactly that pair
 * is accepted, by crypt or by the digest cache; anything else is refused or, once the
 * crypt budget is spent, deferred.
 * Link: -lcrypt */
#include <crypt.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/basic_auth.h"
#include "web/webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct web_config cfg;
static struct basic_auth auth;
static int64_t now_ns;
static int ready; /* 1 set up, -1 cannot be */

static int setup(void)
{
        char text[256], err[256];
        struct crypt_data cd;
        memset(&cd, 0, sizeof(cd));
        const char *h = crypt_r("secret", "$5$rounds=1000$fuzzsalt$", &cd);
        if (!h || h[0] == '*')
                return -1;
        snprintf(text, sizeof(text), "basic_auth_users:\n  prometheus: %s\n", h);
        if (webconfig_parse(text, strlen(text), NULL, &cfg, err, sizeof(err)) < 0 ||
            basic_auth_init(&auth, &cfg) < 0)
                __builtin_trap();
        return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (!ready)
                ready = setup();
        if (ready < 0)
                return 0;
        char *buf = malloc(size + 1);
        if (!buf)
                return 0;
        memcpy(buf, data, size);
        buf[size] = '\0';
        char *colon = memchr(buf, ':', size);
        const char *user = buf, *password = "";
        if (colon) {
                *colon = '\0';
                password = colon + 1;
        }
        /* What the check sees are C strings: they end at the first NUL. */
        bool right = !strcmp(user, "prometheus") && !strcmp(password, "secret");
        /* A second per call keeps the budget topped up, but every fourth call comes at
         * once, so the deferral path is taken too. */
        if (size % 4)
                now_ns += 1000000000;
        /* Two client addresses, by the input's length: each has its own budget. */
        struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons(40000)};
        peer.sin_addr.s_addr = htonl(size % 2 ? 0x7f000001u : 0x7f000002u);
        enum auth_result a =
            basic_auth_check(&auth, user, password, (const struct sockaddr *)&peer, now_ns);
        if ((a == AUTH_OK) != right && !(right && a == AUTH_BUSY))
                __builtin_trap();
        free(buf);
        return 0;
}
