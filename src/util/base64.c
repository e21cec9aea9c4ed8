/* SPDX-License-Identifier: Apache-2.0 */
/* Standard base64 decoding. See base64.h. */
#include "util/base64.h"

#include <stdbool.h>

static int b64_value(char c)
{
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int base64_decode(const char *in, size_t n, char *out, size_t cap)
{
        if (n % 4 || n / 4 * 3 >= cap)
                return -1;
        size_t o = 0;
        for (size_t i = 0; i < n; i += 4) {
                bool last = i + 4 == n;
                unsigned pad = last && in[i + 3] == '=' ? (in[i + 2] == '=' ? 2 : 1) : 0;
                unsigned v = 0;
                for (size_t k = 0; k < 4; k++) {
                        int x = k >= 4 - pad ? 0 : b64_value(in[i + k]);
                        if (x < 0)
                                return -1;
                        v = v << 6 | (unsigned)x;
                }
                out[o++] = (char)(v >> 16);
                if (pad < 2)
                        out[o++] = (char)(v >> 8 & 0xff);
                if (pad < 1)
                        out[o++] = (char)(v & 0xff);
        }
        out[o] = '\0';
        return (int)o;
}
