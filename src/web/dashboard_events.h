/* SPDX-License-Identifier: Apache-2.0 */
/* events.log lines as sentences for the dashboard (internal to web/dashboard*.c):
 *   type=NVML_EVENT gpu=0 event=Xid(79) ... xid=79 ...
 *   -> "GPU 0: Xid 79: GPU has fallen off the bus. Action: reboot the machine; ..." */
#ifndef VIGIL_WEB_DASHBOARD_EVENTS_H
#define VIGIL_WEB_DASHBOARD_EVENTS_H

#include "util/strbuf.h"

/* Append the sentence for the line's text (after its time stamp), its kind's row's in
 * core/event_kinds.c; a line of no known kind, or of a kind whose sentence is
 * EVENT_SENTENCE_NONE, is appended as it is. Plain text: the caller escapes it. */
void dash_event_sentence(const char *text, struct strbuf *out);

#endif
