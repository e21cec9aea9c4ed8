/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe AER lines by device. See aer_line.h. One line it matches:
 *   nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID) */
#include "util/aer_line.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/parse.h"
#include "util/hot.h"

/* n hex digits at s. */
static bool hex_run(const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (parse_hex_digit(s[i]) < 0)
                        return false;
        return true;
}

VIGIL_HOT int aer_bdf_from_bus_id(const char *s, char *out, size_t cap)
{
        size_t n = strlen(s), dom = n >= 8 ? n - 8 : 0;
        if (cap)
                out[0] = '\0';
        /* DOMAIN:BB:DD.F with a domain of 4 or 8 hex digits, the top four zero in NVML's. */
        if (cap < AER_BDF_LEN || (n != 12 && n != 16) || !hex_run(s, dom) || s[dom] != ':' ||
            !hex_run(s + dom + 1, 2) || s[dom + 3] != ':' || !hex_run(s + dom + 4, 2) ||
            s[dom + 6] != '.' || parse_hex_digit(s[dom + 7]) < 0 || parse_hex_digit(s[dom + 7]) > 7)
                return -EINVAL;
        if (dom == 8 && memcmp(s, "0000", 4))
                return -EINVAL; /* a domain past 16 bits: not one Linux names in 4 digits */
        for (size_t i = 0; i < 12; i++) {
                char c = s[dom - 4 + i];
                out[i] = c >= 'A' && c <= 'F' ? (char)(c - 'A' + 'a') : c;
        }
        out[12] = '\0';
        return 0;
}

/* s[0..n) at i starts with lit. */
static bool at(const char *s, size_t n, size_t i, const char *lit)
{
        size_t k = strlen(lit);
        return i + k <= n && !memcmp(s + i, lit, k);
}

/* The first place at or after from where bdf (12 characters) stands in s[0..n) as a
 * whole name: not inside a longer hex run. n when none. */
static size_t find_bdf(const char *s, size_t n, size_t from, const char *bdf)
{
        for (size_t i = from; i + 12 <= n; i++) {
                if (strncasecmp(s + i, bdf, 12))
                        continue;
                bool before = i > 0 && (parse_hex_digit(s[i - 1]) >= 0 || s[i - 1] == ':');
                bool after = i + 12 < n && parse_hex_digit(s[i + 12]) >= 0;
                if (!before && !after)
                        return i;
        }
        return n;
}

/* What the device writes after its name: "AER: ...", "PCIe Bus Error: ...", and the
 * lines that follow one: "  device [10de:2330] error status/mask=...", "   [ 0] RxErr",
 * "  TLP Header: ...", "  Error of this Agent is reported first". */
static bool device_text(const char *s, size_t n, size_t i)
{
        if (at(s, n, i, "AER: ") || at(s, n, i, "PCIe Bus Error"))
                return true;
        size_t j = i;
        while (j < n && s[j] == ' ')
                j++;
        if (j == i)
                return false; /* the continuation lines are indented */
        if (at(s, n, j, "device [") || at(s, n, j, "TLP Header") ||
            at(s, n, j, "Error of this Agent"))
                return true;
        /* "[%2d] %-22s": a bit of the status register */
        return at(s, n, j, "[") && j + 4 <= n && s[j + 3] == ']' &&
               (s[j + 1] == ' ' || (s[j + 1] >= '0' && s[j + 1] <= '9')) && s[j + 2] >= '0' &&
               s[j + 2] <= '9';
}

bool aer_line_of_device(const char *s, size_t n, const char *bdf)
{
        if (!bdf || strlen(bdf) != 12)
                return false;
        for (size_t i = find_bdf(s, n, 0, bdf); i < n; i = find_bdf(s, n, i + 1, bdf)) {
                /* "DRIVER 0000:01:00.0: TEXT": the device's own line. */
                if (i > 0 && s[i - 1] == ' ' && at(s, n, i + 12, ": ") && device_text(s, n, i + 14))
                        return true;
                /* "... AER: Corrected error received: 0000:01:00.0" from its port. */
                if ((i >= 10 && !memcmp(s + i - 10, "received: ", 10)) ||
                    (i >= 14 && !memcmp(s + i - 14, "received from ", 14)))
                        return memmem(s, i, "AER: ", 5) != NULL;
        }
        return false;
}
