/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: every chart of a page (report/svg.c's SVG) has one unit on its y axis.
 * The axis label is the rotated text (transform="rotate(-90 ..."); it must be one of
 * the single units the charts use, so "°C / %" or "°C / W" on one axis is caught. */
#ifndef VIGIL_TESTS_SVG_UNITS_H
#define VIGIL_TESTS_SVG_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The number of y-axis labels in page; *bad gets the first that is not a single
 * known unit (NULL when all are), pointing into page. */
static inline size_t svg_axis_units(const char *page, const char **bad)
{
        static const char *const units[] = {"%",
                                            "\xC2\xB0"
                                            "C",
                                            "W",
                                            "MHz",
                                            "MB",
                                            "MiB",
                                            "V",
                                            "count"};
        size_t n = 0;
        *bad = NULL;
        for (const char *p = strstr(page, "transform=\"rotate(-90"); p;
             p = strstr(p + 1, "transform=\"rotate(-90")) {
                const char *t = strchr(p, '>'), *e = t ? strchr(t, '<') : NULL;
                if (!e)
                        break;
                t++;
                bool known = false;
                for (size_t k = 0; k < sizeof(units) / sizeof(units[0]) && !known; k++)
                        known = strlen(units[k]) == (size_t)(e - t) &&
                                !strncmp(units[k], t, (size_t)(e - t));
                if (!known && !*bad)
                        *bad = t;
                n++;
        }
        return n;
}

#endif
