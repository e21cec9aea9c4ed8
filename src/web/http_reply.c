/* SPDX-License-Identifier: Apache-2.0 */
/* Plain-text replies. See http_reply.h. */
#include "web/http_reply.h"

#include <string.h>

void http_reply_text(struct http_reply *rp, unsigned status, const char *text)
{
        *rp = (struct http_reply){
            .status = status, .type = HTTP_TEXT_TYPE, .body = text, .len = strlen(text)};
}
