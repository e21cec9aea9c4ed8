/* SPDX-License-Identifier: Apache-2.0 */
/* The live view on a terminal: one full screen redrawn in place at the host cadence,
 * on the terminal's alternate screen (left on exit, SIGTERM and SIGINT: the daemon's
 * shutdown runs the sink's fini), fitted to the terminal's size:
 *   vigil 0.1.0 | 15:20:01 | up 0h05m | 8 GPUs                     (header, always)
 *   host  cpu 12.3%  load 0.52 0.48 0.40  mem 12.3G used 51.2G free  temp 47.0C
 *   gpu   temp  power/limit  clock/mem MHz  util   vram GiB   fans   throttle, flags
 *   gpu0   72C   420/600W    2400/9000    99%   12.3/95.6   40% 40%  SwPowerCap
 *   watch chromium  6 processes  PSS 880 MB  cpu 12.0%
 *   What happened:
 *     gpu0: Xid 79 (...): GPU has fallen off the bus. Action: reboot the machine ...
 * On a Raspberry Pi the host part is the reference monitor's table (its header and as
 * many recent rows as fit). Colour only when asked (a terminal without NO_COLOR). */
#ifndef VIGIL_LOCAL_LIVE_SCREEN_H
#define VIGIL_LOCAL_LIVE_SCREEN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/findings.h"
#include "core/vigil.h"
#include "core/host_row.h"
#include "local/live_gpu.h"
#include "util/strbuf.h"

#define LIVE_SCREEN_PI_ROWS 64   /* recent Pi table rows kept */
#define LIVE_SCREEN_LINE    512  /* bytes of one kept Pi row */
#define LIVE_SCREEN_MAX     4096 /* columns and rows beyond are not drawn */

struct live_screen {
        bool colour;
        bool entered; /* on the alternate screen */
        unsigned npi, pi_next;
        char pi_rows[LIVE_SCREEN_PI_ROWS][LIVE_SCREEN_LINE];
        struct findings findings; /* rebuilt at each refresh */
        struct strbuf out;        /* the frame, written with one write */
};

/* What one refresh shows. pi_header and pi_row are the reference table's header and
 * this tick's row (each without '\n'), NULL on other machines. */
struct live_screen_in {
        const struct vigil_ctx *ctx;
        uint64_t missed; /* missed deadlines, for the findings */
        const struct host_row *hr;
        const struct live_gpu *lg;
        const char *pi_header, *pi_row;
};

/* Set up and switch to the alternate screen (cursor hidden). 0 or -ENOMEM. */
int live_screen_init(struct live_screen *ls, bool colour);
/* Draw one frame in the size rows x cols (clamped to LIVE_SCREEN_MAX). */
void live_screen_draw(struct live_screen *ls, const struct live_screen_in *in, unsigned rows,
                      unsigned cols);
/* Leave the alternate screen and free; idempotent. */
void live_screen_fini(struct live_screen *ls);

/* The bytes of s[0..n) that fit in cols terminal columns (UTF-8 sequences count as
 * one column, escape sequences as none). */
size_t live_screen_fit(const char *s, size_t n, unsigned cols);

#endif
