/* SPDX-License-Identifier: Apache-2.0 */
/* The shared style sheet. See html_style.h. */
#include "report/html_style.h"

const char report_html_style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1000px;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}"
    "pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:12px}"
    "table{border-collapse:collapse;font-size:12px;width:100%}"
    "td{border-top:1px solid #e4e4e4;padding:2px 6px;vertical-align:top}"
    "td.t{white-space:nowrap;color:#555}td.x{font-family:monospace;word-break:break-all}"
    ".chart{margin:.6em 0}.note{color:#666;font-size:12px}"
    "ul.find li{margin:.2em 0}"
    ".findings{border:1px solid #ccc;border-radius:4px;padding:0 .8em .6em;margin:1em 0}"
    ".findings.alarm{border-color:#c33;background:#fff6f6}.findings.clean{background:#f4fbf4}"
    ".findings li{margin:.25em 0}.findings li:not(.alarm){color:#666}"
    ".findings .sev{display:inline-block;min-width:4.5em;padding:0 .3em;margin-right:.3em;"
    "border-radius:3px;font-size:.85em;text-align:center;color:#fff;background:#888}"
    ".findings .critical .sev{background:#c00}.findings .warning .sev{background:#b36b00}"
    ".findings .critical{color:#900}"
    ".legend{font-size:11px;color:#444;margin:0 0 .3em 8px}"
    ".legend span.sw{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;"
    "vertical-align:middle}";
