/* SPDX-License-Identifier: Apache-2.0 */
/* The style sheet shared by vigil's HTML pages (`vigil report --html` and the
 * dashboard), so both look alike. */
#ifndef VIGIL_REPORT_HTML_STYLE_H
#define VIGIL_REPORT_HTML_STYLE_H

/* CSS rules for an inline <style> element (no external asset). */
extern const char report_html_style[];

#endif
