/* SPDX-License-Identifier: Apache-2.0 */
/* Network file parsers. See net_parse.h.
 *
 * /proc/net/wireless, net/wireless/wext-proc.c (Linux 6.6), wireless_seq_show(): two
 * header lines, then per wireless interface
 *   "%6s: %04x  %3d%c  %3d%c  %3d%c  %6d %6d %6d %6d %6d   %6d\n"
 * name, status, link quality, level, noise (each followed by '.' when updated, else a
 * space), then the discard and missed-beacon counts:
 *    wlan0: 0000   58.  -52.  -256        0      0      0      0      0        0
 * The level and noise are printed minus 0x100 when IW_QUAL_DBM is set (cfg80211 drivers
 * set it: net/wireless/wext-compat.c cfg80211_wireless_stats()), so dBm read negative.
 *
 * /proc/net/route, net/ipv4/fib_trie.c fib_route_seq_show(): a header, then per route
 * "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT" with
 * Destination, Gateway and Mask as 8 hex digits (network byte order) and Flags in hex
 * (RTF_UP 0x0001, include/uapi/linux/route.h).
 *
 * /proc/net/ipv6_route, net/ipv6/route.c ipv6_route_native_seq_show(): per route the
 * destination (32 hex digits), its prefix length (2), the source and its length, the
 * next hop, then metric, refcnt, use and flags (8 hex digits each) and the device name.
 * The kernel's "unreachable" default route on lo carries RTF_REJECT (0x0200). */
#include "collect/net_parse.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/parse.h"
#include "util/hot.h"

#define RTF_UP     0x0001u
#define RTF_REJECT 0x0200u

static bool word_is(const char *w, size_t wl, const char *s)
{
        return wl == strlen(s) && memcmp(w, s, wl) == 0;
}

/* A number of /proc/net/wireless: *ret the value when a '.' follows it (updated), NAN
 * when not (an interface that is not associated prints zeros without one). */
static int wireless_number(struct cursor *c, double *ret)
{
        int64_t v;
        cur_skip_blank(c);
        if (cur_i64(c, &v) < 0)
                return -EINVAL;
        *ret = cur_lit(c, ".") ? (double)v : NAN;
        return 0;
}

int net_parse_wireless(const char *buf, size_t len, const char *name, struct wireless_stats *ret)
{
        struct cursor c = cur_make(buf, len);
        while (!cur_eof(&c)) {
                const char *l;
                size_t ll;
                cur_line(&c, &l, &ll);
                struct cursor lc = cur_make(l, ll);
                cur_skip_blank(&lc);
                const char *colon = memchr(lc.p, ':', (size_t)(lc.end - lc.p));
                if (!colon || !word_is(lc.p, (size_t)(colon - lc.p), name))
                        continue;
                lc.p = colon + 1;
                const char *w;
                size_t wl;
                double noise;
                struct wireless_stats s;
                if (cur_word(&lc, &w, &wl) < 0 || wireless_number(&lc, &s.quality) < 0 ||
                    wireless_number(&lc, &s.level) < 0 || wireless_number(&lc, &noise) < 0)
                        return -EINVAL;
                *ret = s;
                return 0;
        }
        return -ENOENT;
}

static int hex_word(struct cursor *c, uint64_t *ret)
{
        cur_skip_blank(c);
        return cur_hex(c, ret);
}

VIGIL_HOT bool net_route_has_default(const char *buf, size_t len)
{
        struct cursor c = cur_make(buf, len);
        cur_next_line(&c); /* the header */
        while (!cur_eof(&c)) {
                const char *l, *w;
                size_t ll, wl;
                cur_line(&c, &l, &ll);
                struct cursor lc = cur_make(l, ll);
                uint64_t dest, gw, flags, mask;
                if (cur_word(&lc, &w, &wl) < 0 || hex_word(&lc, &dest) < 0 ||
                    hex_word(&lc, &gw) < 0 || hex_word(&lc, &flags) < 0)
                        continue;
                /* RefCnt, Use, Metric, then Mask */
                if (cur_word(&lc, &w, &wl) < 0 || cur_word(&lc, &w, &wl) < 0 ||
                    cur_word(&lc, &w, &wl) < 0 || hex_word(&lc, &mask) < 0)
                        continue;
                if (dest == 0 && mask == 0 && (flags & RTF_UP))
                        return true;
        }
        return false;
}

bool net_ipv6_route_has_default(const char *buf, size_t len)
{
        struct cursor c = cur_make(buf, len);
        while (!cur_eof(&c)) {
                const char *l, *w[10], *dev;
                size_t ll, wl[10], dl;
                cur_line(&c, &l, &ll);
                struct cursor lc = cur_make(l, ll);
                bool ok = true;
                for (unsigned i = 0; i < 9 && ok; i++)
                        ok = cur_word(&lc, &w[i], &wl[i]) == 0;
                if (!ok || cur_word(&lc, &dev, &dl) < 0 || wl[0] != 32 || wl[1] != 2 || wl[8] != 8)
                        continue;
                bool zero = strspn(w[0], "0") >= 32 && w[1][0] == '0' && w[1][1] == '0';
                uint64_t flags;
                struct cursor fc = cur_make(w[8], wl[8]);
                if (!zero || cur_hex(&fc, &flags) < 0 || word_is(dev, dl, "lo"))
                        continue;
                if ((flags & RTF_UP) && !(flags & RTF_REJECT))
                        return true;
        }
        return false;
}

VIGIL_HOT int net_parse_operstate(const char *s, double *ret)
{
        static const char *const down[] = {"down", "lowerlayerdown", "dormant", "notpresent",
                                           "testing"};
        size_t n = strcspn(s, "\n");
        if (word_is(s, n, "up")) {
                *ret = 1;
                return 0;
        }
        if (word_is(s, n, "unknown")) {
                *ret = NAN;
                return 0;
        }
        for (size_t i = 0; i < sizeof(down) / sizeof(down[0]); i++)
                if (word_is(s, n, down[i])) {
                        *ret = 0;
                        return 0;
                }
        return -EINVAL;
}
