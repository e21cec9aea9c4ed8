/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a client takes gzip. See http_accept.h. */
#include "web/http_accept.h"

#include <string.h>
#include <strings.h>

bool http_accepts_gzip(const char *h)
{
        const char *p = h;
        while (p && *p) {
                while (*p == ' ' || *p == '\t' || *p == ',')
                        p++;
                const char *tok = p;
                while (*p && !strchr(",; \t", *p))
                        p++;
                size_t tl = (size_t)(p - tok);
                bool gz = (tl == 4 && !strncasecmp(tok, "gzip", 4)) ||
                          (tl == 6 && !strncasecmp(tok, "x-gzip", 6));
                bool q_zero = false;
                while (*p && *p != ',') {
                        if (*p != ';') {
                                p++;
                                continue;
                        }
                        for (p++; *p == ' ' || *p == '\t'; p++)
                                ;
                        if ((*p == 'q' || *p == 'Q') && p[1] == '=') {
                                q_zero = true;
                                for (p += 2; (*p >= '0' && *p <= '9') || *p == '.'; p++)
                                        q_zero &= *p == '0' || *p == '.';
                        }
                }
                if (gz && !q_zero)
                        return true;
        }
        return false;
}
