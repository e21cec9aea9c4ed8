/* SPDX-License-Identifier: Apache-2.0 */
/* events.log lines as sentences: each kind's sentence is its row's in
 * core/event_kinds.c. See dashboard_events.h. */
#include "web/dashboard_events.h"

#include <string.h>

#include "core/event_kinds.h"

void dash_event_sentence(const char *text, struct strbuf *out)
{
        struct event_line l = {text, strlen(text)};
        const struct event_kind_desc *d = event_kind_of(&l);
        if (!d || !event_sentence(d, &l, out))
                sb_puts(out, text);
}
