/* SPDX-License-Identifier: Apache-2.0 */
/* Sink: the live view. On a terminal, a full screen redrawn in place (live_screen.h);
 * into a pipe or file (--live), plain scrolling rows in the reference monitor's layout:
 *   time    CPU%  cores(0-3)   temp    ARM    V3D  volt   RAM  player chrome  gov      flags
 *   18:12:47   12   10  14   9  15   47.2C   1500   500  0.856V 1234M  210M   880M ondema ...
 * Colour only on a terminal and never with NO_COLOR. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/vigil.h"
#include "core/host_row.h"
#include "core/rpi_throttle.h"
#include "local/live_gpu.h"
#include "local/live_screen.h"
#include "local/sinks.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/strbuf.h"

#define LIVE_MAX_CORES 16

struct live {
        bool colour;
        bool header_done;
        bool screen; /* full screen on a terminal (live_screen.h), else plain rows */
        bool narrow; /* the screen's Pi table is the narrow one (narrow_header) */
        bool held;   /* the daemon's messages are held while the screen is shown */
        struct live_screen ls;
        struct host_row hr;
        struct live_gpu gpus; /* worst GPU values since the last line */
        char line[2048 + VIGIL_MAX_GPUS * 160];
};

/* True when fds a and b are the same terminal. */
static bool same_terminal(int a, int b)
{
        struct stat sa, sb;
        return isatty(a) && isatty(b) && fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
               sa.st_rdev == sb.st_rdev;
}

static int live_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->live)
                return -ENODEV;
        struct live *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        const char *nc = getenv("NO_COLOR");
        s->colour = isatty(STDOUT_FILENO) && !(nc && nc[0]);
        live_gpu_reset(&s->gpus);
        s->screen = isatty(STDOUT_FILENO);
        if (s->screen && live_screen_init(&s->ls, s->colour) < 0) {
                free(s);
                return -ENOMEM;
        }
        s->held = s->screen && same_terminal(STDOUT_FILENO, STDERR_FILENO);
        if (s->held)
                log_hold(); /* written after the screen is left (live_fini) */
        *ret_state = s;
        return 0;
}

/* The reference's fmt(): right-aligned, "--" when missing. */
static void cell(struct strbuf *sb, double v, int width, int decimals)
{
        if (!VAL_OK(v))
                sb_printf(sb, "%*s", width, "--");
        else
                sb_printf(sb, "%*.*f", width, decimals, v);
}

static const char *origin_name(enum rpi_origin o)
{
        static const char *const names[] = {"none", "tag", "sysfs", "vcgencmd", "gencmd"};
        return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "?";
}

/* Where the Pi values come from: the firmware mailbox, or a fallback. */
static void print_rpi_source(const struct rpi_frame *pi)
{
        if (!pi->present)
                return;
        printf("  %s: source temp=%s volt=%s clocks=%s max=%s throttled=%s\n", pi->model,
               origin_name(pi->temp_src), origin_name(pi->volt_src), origin_name(pi->clock_src),
               origin_name(pi->arm_max_src), origin_name(pi->throttle_src));
}

/* The reference's table header for ncpu cores (one line, no newline). */
static void header_text(struct strbuf *sb, unsigned ncpu)
{
        unsigned shown = ncpu < LIVE_MAX_CORES ? ncpu : LIVE_MAX_CORES;
        char cores[32];
        snprintf(cores, sizeof(cores), "cores(0-%u)", shown ? shown - 1 : 0);
        sb_printf(
            sb,
            "   time    CPU%%  %-*s   temp    ARM    V3D  volt   RAM  player chrome  gov      "
            "flags",
            (int)(shown * 4 > 16 ? shown * 4 - 6 : 10), cores);
}

static void print_header(struct live *s, unsigned ncpu)
{
        char buf[256];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        header_text(&sb, ncpu);
        printf("\n%s\n  ", buf);
        for (int i = 0; i < 84; i++)
                putchar('-');
        putchar('\n');
        s->header_done = true;
}

/* The narrow screen's table (build_line with narrow): the reference's without the
 * per-core cells, the governor and the indent, its flags in brief, so that the flags
 * still fit in 80 columns. */
static const char narrow_header[] =
    "   time  CPU%    temp    ARM   V3D   volt   RAM player chrome flags";

static void build_line(struct live *s, struct strbuf *sb, const struct vigil_options *o,
                       bool narrow)
{
        const struct host_row *r = &s->hr;
        char ts[40];
        fmt_time_iso_ms(ts, sizeof(ts), r->real_ns);
        sb_printf(sb, "%s%.8s ", narrow ? "" : "  ", ts + 11);
        cell(sb, r->v[HC_CPU_TOTAL], 4, 0);
        sb_puts(sb, "  ");
        unsigned shown = r->ncpu < LIVE_MAX_CORES ? r->ncpu : LIVE_MAX_CORES;
        for (unsigned i = 0; i < shown && !narrow; i++) {
                if (i)
                        sb_putc(sb, ' ');
                cell(sb, r->cpu[i], 3, 0);
        }
        if (!narrow)
                sb_puts(sb, "  ");
        cell(sb, r->v[HC_TEMP], 5, 1);
        sb_puts(sb, "C ");
        cell(sb, r->v[HC_ARM], 6, 0);
        sb_putc(sb, ' ');
        cell(sb, r->v[HC_V3D], 5, 0);
        sb_putc(sb, ' ');
        cell(sb, r->v[HC_VOLT], 6, 3);
        sb_putc(sb, 'V');
        cell(sb, r->v[HC_MEM_USED], 5, 0);
        sb_puts(sb, "M ");
        cell(sb, r->v[HC_PLAYER_PSS], 4, 0);
        sb_puts(sb, "M ");
        cell(sb, r->v[HC_CHROMIUM_PSS], 5, 0);
        sb_puts(sb, "M ");
        if (narrow) {
                char brief[sizeof(r->throttle_flags)];
                rpi_throttle_flags_brief(r->throttle_flags, brief, sizeof(brief));
                sb_puts(sb, brief);
        } else {
                sb_printf(sb, "%-6.6s ", r->governor);
        }
        /* The reference shows sticky flags as "had:". */
        for (const char *p = narrow ? "" : r->throttle_flags; *p; p++) {
                if (!strncmp(p, "HAS:", 4)) {
                        sb_puts(sb, "had:");
                        p += 3;
                } else {
                        sb_putc(sb, *p);
                }
        }
        double t = r->v[HC_TEMP];
        const char *warn = NULL, *on = "", *off = "";
        if (VAL_OK(t) && t >= o->temp_crit_c) {
                warn = " ***HOT***";
                on = "\033[1;31m";
        } else if (VAL_OK(t) && t >= o->temp_warn_c) {
                warn = " *warm*";
                on = "\033[33m";
        }
        if (warn) {
                if (s->colour)
                        off = "\033[0m";
                sb_printf(sb, "%s%s%s", s->colour ? on : "", warn, off);
        }
        sb_putc(sb, '\n');
}

/* The terminal's size; 80x24 when it cannot be asked. */
static void term_size(unsigned *rows, unsigned *cols)
{
        struct winsize ws;
        *rows = 24;
        *cols = 80;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
                *rows = ws.ws_row;
                *cols = ws.ws_col;
        }
}

static void draw_screen(struct live *s, struct vigil_ctx *ctx)
{
        char head[256];
        struct strbuf hb, sb;
        struct live_screen_in in = {
            .ctx = ctx, .missed = ctx->frame->self.missed_deadlines, .hr = &s->hr, .lg = &s->gpus};
        unsigned rows, cols;
        term_size(&rows, &cols);
        if (ctx->frame->rpi.present) {
                /* The reference's table when its row fits, else the narrow one (a change
                 * of width starts the kept rows again, in the new layout). */
                sb_init_fixed(&sb, s->line, sizeof(s->line));
                build_line(s, &sb, ctx->opt, false);
                size_t len = sb.len && sb.buf[sb.len - 1] == '\n' ? sb.len - 1 : sb.len;
                bool narrow = live_screen_fit(sb.buf, len, cols) < len;
                if (narrow != s->narrow)
                        s->ls.npi = 0;
                s->narrow = narrow;
                sb_init_fixed(&hb, head, sizeof(head));
                if (narrow) {
                        sb_puts(&hb, narrow_header);
                        sb_init_fixed(&sb, s->line, sizeof(s->line));
                        build_line(s, &sb, ctx->opt, true);
                } else {
                        header_text(&hb, s->hr.ncpu);
                }
                if (sb.len && sb.buf[sb.len - 1] == '\n')
                        sb.buf[--sb.len] = '\0';
                in.pi_header = head;
                in.pi_row = sb.buf;
        }
        live_screen_draw(&s->ls, &in, rows, cols);
        live_gpu_reset(&s->gpus);
}

static int live_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct live *s = state;
        if (t->due & VCLOCK_BIT(VCLOCK_GPU))
                live_gpu_feed(&s->gpus, ctx->frame);
        if (!(t->due & VCLOCK_BIT(VCLOCK_HOST)))
                return 0;
        host_row_build(&s->hr, ctx->frame);
        if (s->screen) {
                draw_screen(s, ctx);
                return 0;
        }
        if (!s->header_done) {
                print_header(s, s->hr.ncpu);
                print_rpi_source(&ctx->frame->rpi);
        }
        struct strbuf sb;
        sb_init_fixed(&sb, s->line, sizeof(s->line));
        build_line(s, &sb, ctx->opt, false);
        live_gpu_lines(&s->gpus, ctx->frame, &sb);
        fwrite(sb.buf, 1, sb.len, stdout);
        fflush(stdout);
        return 0;
}

static void live_fini(void *state, struct vigil_ctx *ctx)
{
        struct live *s = state;
        (void)ctx;
        if (s && s->screen)
                live_screen_fini(&s->ls);
        if (s && s->held)
                log_release();
        free(s);
}

const struct vigil_sink vigil_sink_live = {
    .name = "live",
    .clocks = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_GPU),
    .init = live_init,
    .write = live_write,
    .fini = live_fini,
};
