/* SPDX-License-Identifier: Apache-2.0 */
/* Escaping text for XML and HTML output (SVG charts, the HTML report, the dashboard). */
#ifndef VIGIL_UTIL_XML_H
#define VIGIL_UTIL_XML_H

#include <stddef.h>

#include "util/strbuf.h"

/* Append s[0..n) to sb, safe inside XML/HTML text and quoted attribute values:
 * & < > " ' become entities, control characters other than tab, CR and LF become '?',
 * and bytes that are not valid UTF-8 become U+FFFD. s need not be NUL-terminated. */
void sb_xml_escape(struct strbuf *sb, const char *s, size_t n);

/* The same for a NUL-terminated string; NULL appends nothing. */
void sb_xml_puts(struct strbuf *sb, const char *s);

#endif
