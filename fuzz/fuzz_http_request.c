/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the plain transport's request-head parser (web/http_request.c
 * http_request_parse) on whatever a client sends, parsed as the server does: with the
 * buffer's capacity the input's own size and, separately, a larger one. A parsed head
 * lies within the input, its strings are NUL-terminated inside the buffer (or the
 * decoded credentials), its path starts with '/', the bytes after the head are
 * untouched; a refusal is one of the statuses the header names. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "web/http_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, const char *buf, size_t used, const struct http_parsed *p)
{
        if (!s)
                return;
        bool in_buf = s >= buf && s < buf + used;
        bool in_cred = s >= p->cred && s < p->cred + sizeof(p->cred);
        if (!in_buf && !in_cred)
                __builtin_trap();
        if (in_buf && !memchr(s, '\0', used - (size_t)(s - buf)))
                __builtin_trap();
}

static void one(const uint8_t *data, size_t size, size_t cap)
{
        char *buf = malloc(size ? size : 1);
        if (!buf)
                return;
        memcpy(buf, data, size);
        struct http_parsed p;
        size_t used = 0;
        int st = http_request_parse(buf, size, cap, &p, &used);
        if (st == 1) {
                if (used == 0 || used > size || memcmp(buf + used, data + used, size - used))
                        __builtin_trap();
                if (!p.rq.method || !p.rq.path || p.rq.path[0] != '/')
                        __builtin_trap();
                check_str(p.rq.method, buf, used, &p);
                check_str(p.rq.path, buf, used, &p);
                check_str(p.rq.day, buf, used, &p);
                check_str(p.rq.accept_encoding, buf, used, &p);
                check_str(p.rq.user, buf, used, &p);
                check_str(p.rq.password, buf, used, &p);
        } else if (st != 0 && st != 400 && st != 414 && st != 431 && st != 505) {
                __builtin_trap();
        } else if (st == 0 && size >= cap) {
                __builtin_trap(); /* a full buffer always gets an answer */
        }
        free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        one(data, size, size ? size : 1);
        one(data, size, size + 4096);
        return 0;
}
