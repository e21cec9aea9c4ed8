/* SPDX-License-Identifier: Apache-2.0 */
/* Throttled-word decoding with the reference monitor's labels. See rpi_throttle.h.
 *
 *   0x50005 -> NOW:under-voltage,NOW:currently throttled,HAS:under-voltage occurred,
 *              HAS:throttling occurred */
#include "core/rpi_throttle.h"

#include <string.h>

#include "util/strbuf.h"
#include "util/hot.h"

/* In the reference's THROTTLE_BITS order, which is the order it joins them in. */
static const struct {
        unsigned bit;
        const char *when;
        const char *label;
        const char *brief; /* the live view's narrow table (rpi_throttle_flags_brief) */
} bits[] = {
    {0, "NOW", "under-voltage", "UV"},
    {1, "NOW", "arm frequency capped", "CAP"},
    {2, "NOW", "currently throttled", "THR"},
    {3, "NOW", "soft temperature limit", "SOFT"},
    {16, "HAS", "under-voltage occurred", "UV"},
    {17, "HAS", "arm frequency capping occurred", "CAP"},
    {18, "HAS", "throttling occurred", "THR"},
    {19, "HAS", "soft temperature limit occurred", "SOFT"},
};

#define NBITS (sizeof(bits) / sizeof(bits[0]))

const char *rpi_throttle_label(unsigned bit)
{
        for (unsigned i = 0; i < NBITS; i++)
                if (bits[i].bit == bit)
                        return bits[i].label;
        return NULL;
}

VIGIL_HOT size_t rpi_throttle_flags(uint32_t word, char *out, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, out, cap);
        for (unsigned i = 0; i < NBITS; i++) {
                if (!(word & (1u << bits[i].bit)))
                        continue;
                sb_printf(&sb, "%s%s:%s", sb.len ? "," : "", bits[i].when, bits[i].label);
                if (sb.overflow)
                        break;
        }
        return sb.len;
}

VIGIL_HOT size_t rpi_throttle_hex(uint32_t word, char *out, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, out, cap);
        sb_printf(&sb, "0x%x", (unsigned)word);
        return sb.len;
}

size_t rpi_throttle_since_boot(uint32_t word, char *out, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, out, cap);
        for (unsigned i = 0; i < NBITS; i++) {
                if (bits[i].bit < RPI_THROTTLE_STICKY_SHIFT || !(word & (1u << bits[i].bit)))
                        continue;
                sb_printf(&sb, "%s%s since boot", sb.len ? ", " : "", bits[i].label);
                if (sb.overflow)
                        break;
        }
        return sb.len;
}

unsigned rpi_throttle_transitions(uint32_t prev, uint32_t cur, struct rpi_throttle_change *out,
                                  unsigned cap)
{
        unsigned n = 0;
        uint32_t diff = (prev ^ cur) & RPI_THROTTLE_NOW_MASK;
        for (unsigned bit = 0; bit < 4 && n < cap; bit++) {
                if (!(diff & (1u << bit)))
                        continue;
                out[n].bit = bit;
                out[n].set = (cur >> bit) & 1u;
                out[n].label = rpi_throttle_label(bit);
                n++;
        }
        return n;
}

VIGIL_HOT uint32_t rpi_throttle_missed(uint32_t prev, uint32_t cur)
{
        uint32_t new_sticky = (cur & ~prev & RPI_THROTTLE_STICKY_MASK) >> RPI_THROTTLE_STICKY_SHIFT;
        return new_sticky & ~(prev | cur) & RPI_THROTTLE_NOW_MASK;
}

VIGIL_HOT bool rpi_frame_sticky_reliable(const struct rpi_frame *p)
{
        return p->present && p->throttled_valid &&
               (p->throttle_src == RPI_SRC_GENCMD || p->throttle_src == RPI_SRC_VCGENCMD);
}

VIGIL_HOT size_t rpi_frame_flags(const struct rpi_frame *p, char *out, size_t cap)
{
        if (cap)
                out[0] = '\0';
        if (!p->present)
                return 0;
        if (p->throttled_valid && p->throttled <= 0xffffffffu) {
                uint32_t word = (uint32_t)p->throttled;
                if (!rpi_frame_sticky_reliable(p))
                        word &= RPI_THROTTLE_NOW_MASK;
                return rpi_throttle_flags(word, out, cap);
        }
        if (VAL_OK(p->undervolt_alarm) && p->undervolt_alarm != 0)
                return rpi_throttle_flags(1u, out, cap);
        return 0;
}

/* The entry of one "NOW:label" / "HAS:label" flag of n bytes, or -1. */
static int flag_entry(const char *p, size_t n)
{
        for (unsigned i = 0; i < NBITS; i++) {
                size_t wl = strlen(bits[i].when), ll = strlen(bits[i].label);
                if (n == wl + 1 + ll && !memcmp(p, bits[i].when, wl) && p[wl] == ':' &&
                    !memcmp(p + wl + 1, bits[i].label, ll))
                        return (int)i;
        }
        return -1;
}

/* Append the brief names of the flags of flags whose time is `when` ("NOW", "HAS";
 * NULL: the flags the table does not know), each after sep, the first after first. */
static void brief_group(struct strbuf *sb, const char *flags, const char *when, const char *first)
{
        const char *sep = first;
        for (const char *p = flags; p && *p;) {
                const char *comma = strchr(p, ',');
                size_t n = comma ? (size_t)(comma - p) : strlen(p);
                int e = flag_entry(p, n);
                if (e >= 0 ? when && !strcmp(bits[e].when, when) : !when) {
                        sb_puts(sb, sep);
                        if (e >= 0)
                                sb_puts(sb, bits[e].brief);
                        else
                                sb_put(sb, p, n);
                        sep = ",";
                }
                p += n + (comma ? 1 : 0);
        }
}

size_t rpi_throttle_flags_brief(const char *flags, char *out, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, out, cap);
        brief_group(&sb, flags, "NOW", "");
        brief_group(&sb, flags, "HAS", sb.len ? " had:" : "had:");
        brief_group(&sb, flags, NULL, sb.len ? " " : "");
        return sb.len;
}
