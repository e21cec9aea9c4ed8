/* SPDX-License-Identifier: Apache-2.0 */
/* The live view's full screen. See live_screen.h. */
#include "local/live_screen.h"

#include <stdio.h>
#include <string.h>

#include "core/health.h"
#include "core/run_findings.h"
#include "core/throttle_reasons.h"
#include "util/clock.h"
#include "util/fmt.h"

#define ALT_ON    "\033[?1049h\033[?25l" /* alternate screen, cursor hidden */
#define ALT_OFF   "\033[?25h\033[?1049l"
#define HOME      "\033[H"
#define EOL       "\033[K" /* clear to the end of the line */
#define CLEAR_END "\033[J"
#define C_TITLE   "\033[7m"
#define C_ALARM   "\033[31m"
#define C_WARN    "\033[33m"
#define C_DIM     "\033[2m"
#define C_OFF     "\033[0m"

#define FRAME_MAX   (1u << 20)
#define HEALTH_ROWS 3 /* the verdict's lines shown at most; the rest counted */

/* A frame being drawn: rows left, the width, and the line being built. */
struct draw {
        struct live_screen *ls;
        unsigned rows, cols, used;
        char line[2048];
        struct strbuf lb;
};

static void put_raw(const char *s)
{
        fwrite(s, 1, strlen(s), stdout);
}

int live_screen_init(struct live_screen *ls, bool colour)
{
        memset(ls, 0, sizeof(*ls));
        ls->colour = colour;
        if (sb_init_heap(&ls->out, 16384, FRAME_MAX) < 0)
                return -1;
        put_raw(ALT_ON);
        fflush(stdout);
        ls->entered = true;
        return 0;
}

void live_screen_fini(struct live_screen *ls)
{
        if (ls->entered) {
                put_raw(C_OFF ALT_OFF);
                fflush(stdout);
                ls->entered = false;
        }
        sb_free(&ls->out);
}

size_t live_screen_fit(const char *s, size_t n, unsigned cols)
{
        unsigned w = 0;
        size_t i = 0;
        while (i < n) {
                unsigned char c = (unsigned char)s[i];
                if (c == 0x1b) { /* ESC [ parameters final-byte */
                        size_t j = i + 1;
                        if (j < n && s[j] == '[')
                                for (j++; j < n && !(s[j] >= 0x40 && s[j] <= 0x7e); j++)
                                        ;
                        i = j < n ? j + 1 : n;
                        continue;
                }
                if ((c & 0xc0) != 0x80) { /* not a continuation byte: a new column */
                        if (w == cols)
                                break;
                        w++;
                }
                i++;
        }
        return i;
}

static void line_begin(struct draw *d)
{
        sb_init_fixed(&d->lb, d->line, sizeof(d->line));
}

static bool room(const struct draw *d, unsigned n)
{
        return d->used + n <= d->rows;
}

/* Emit the line built in d->lb, cut to the width; the last row gets no newline (it
 * would scroll the screen). */
static void line_end(struct draw *d)
{
        struct strbuf *o = &d->ls->out;
        if (d->used >= d->rows)
                return;
        if (d->used)
                sb_puts(o, "\r\n");
        sb_put(o, d->lb.buf, live_screen_fit(d->lb.buf, d->lb.len, d->cols));
        if (d->ls->colour)
                sb_puts(o, C_OFF);
        sb_puts(o, EOL);
        d->used++;
}

static void colour(struct draw *d, const char *c)
{
        if (d->ls->colour)
                sb_puts(&d->lb, c);
}

static void val(struct strbuf *sb, const char *label, double v, int decimals, const char *unit)
{
        if (VAL_OK(v))
                sb_printf(sb, "  %s%.*f%s", label, decimals, v, unit);
}

static void title(struct draw *d, const struct live_screen_in *in)
{
        const struct frame *f = in->ctx->frame;
        char ts[40];
        int64_t up = (now_mono_ns() - f->self.started_mono_ns) / NSEC_PER_SEC;
        fmt_time_iso_ms(ts, sizeof(ts), in->hr->real_ns);
        line_begin(d);
        colour(d, C_TITLE);
        sb_printf(&d->lb, " vigil %s | %.8s | up %lldh%02lldm | %s", VIGIL_VERSION, ts + 11,
                  (long long)(up / 3600), (long long)(up % 3600 / 60),
                  f->rpi.present ? f->rpi.model : "host");
        unsigned ngpu = 0;
        for (unsigned i = 0; i < f->ngpus; i++)
                ngpu += f->gpus[i].present;
        if (ngpu)
                sb_printf(&d->lb, " | %u GPU%s", ngpu, ngpu == 1 ? "" : "s");
        sb_printf(&d->lb, " | every %.1f s ", (double)in->ctx->opt->interval_ns / 1e9);
        /* Pad the title bar to the width (reverse video shows it). */
        while (d->lb.len < d->cols && d->lb.len < sizeof(d->line) - 8)
                sb_putc(&d->lb, ' ');
        line_end(d);
}

struct health_draw {
        struct draw *d;
        size_t max, shown, more;
};

static void health_count(void *arg, enum health_state st, const char *line)
{
        (void)st;
        (void)line;
        (*(size_t *)arg)++;
}

static void health_row_line(void *arg, enum health_state st, const char *line)
{
        struct health_draw *h = arg;
        if (h->shown == h->max || !room(h->d, 1)) {
                h->more++;
                return;
        }
        line_begin(h->d);
        if (st != HEALTH_HEALTHY)
                colour(h->d, st == HEALTH_UNHEALTHY ? C_ALARM : C_WARN);
        sb_printf(&h->d->lb, "%s%s", st == HEALTH_HEALTHY ? "health: " : "", line);
        line_end(h->d);
        h->shown++;
}

/* The verdict under the title, the unhealthy parts first, in HEALTH_ROWS rows at most
 * (past them, the last row counts the rest), or "health: healthy: every component";
 * now (Unix seconds) shortens today's times. */
static void health_part(struct draw *d, const struct health *hv, double now)
{
        if (!hv || !room(d, 1))
                return;
        size_t n = 0;
        health_say(hv, NAN, health_count, &n);
        struct health_draw h = {.d = d, .max = n > HEALTH_ROWS ? HEALTH_ROWS - 1 : HEALTH_ROWS};
        health_say(hv, now, health_row_line, &h);
        if (!h.more || !room(d, 1))
                return;
        line_begin(d);
        sb_printf(&d->lb, "  (+%zu more: vigil health)", h.more);
        line_end(d);
}

static void host_other(struct draw *d, const struct live_screen_in *in)
{
        const struct host_row *r = in->hr;
        const struct host_frame *h = &in->ctx->frame->host;
        line_begin(d);
        sb_puts(&d->lb, "host");
        val(&d->lb, "cpu ", r->v[HC_CPU_TOTAL], 1, "%");
        if (VAL_OK(r->v[HC_LOAD1]))
                sb_printf(&d->lb, "  load %.2f %.2f %.2f", r->v[HC_LOAD1], r->v[HC_LOAD5],
                          r->v[HC_LOAD15]);
        val(&d->lb, "mem used ", r->v[HC_MEM_USED] / 1024.0, 1, "G");
        val(&d->lb, "avail ", r->v[HC_MEM_AVAIL] / 1024.0, 1, "G");
        val(&d->lb, "temp ", r->v[HC_TEMP], 1, "C");
        line_end(d);
        if (!room(d, 1) || (h->ntemps <= 1 && r->ncpu == 0))
                return;
        line_begin(d);
        sb_puts(&d->lb, "    ");
        for (unsigned i = 0; i < h->ntemps && i < VIGIL_MAX_TEMPS; i++)
                if (VAL_OK(h->temps[i].celsius))
                        sb_printf(&d->lb, " %s %.0fC", h->temps[i].chip, h->temps[i].celsius);
        sb_puts(&d->lb, "  cores");
        for (unsigned i = 0; i < r->ncpu && i < VIGIL_MAX_CPUS; i++) {
                if (VAL_OK(r->cpu[i]))
                        sb_printf(&d->lb, " %.0f", r->cpu[i]);
                else
                        sb_puts(&d->lb, " --");
        }
        line_end(d);
}

/* The reference's table: its header, then the newest rows that fit in keep rows. */
static void host_pi(struct draw *d, const struct live_screen_in *in, unsigned keep)
{
        struct live_screen *ls = d->ls;
        line_begin(d);
        sb_puts(&d->lb, in->pi_header);
        line_end(d);
        unsigned n = ls->npi < keep ? ls->npi : keep;
        for (unsigned k = n; k > 0; k--) {
                unsigned i = (ls->pi_next + LIVE_SCREEN_PI_ROWS - k) % LIVE_SCREEN_PI_ROWS;
                line_begin(d);
                sb_puts(&d->lb, ls->pi_rows[i]);
                line_end(d);
        }
}

static void cell(struct strbuf *sb, double v, int width, int decimals, const char *unit)
{
        if (VAL_OK(v))
                sb_printf(sb, "%*.*f%s", width, decimals, v, unit);
        else
                sb_printf(sb, "%*s%s", width, "--", unit);
}

static void gpu_header(struct draw *d, bool wide)
{
        line_begin(d);
        colour(d, C_DIM);
        /* The widths of gpu_line()'s cells. */
        sb_printf(&d->lb, "%-5s%5s %10s %11s %5s %10s ", "gpu", "temp", "power/lim", "clk/mem MHz",
                  "util", "vram GiB");
        if (wide)
                sb_printf(&d->lb, "%5s %3s %4s ", "mem", "P", "pcie");
        sb_puts(&d->lb, "fans, throttle, flags");
        line_end(d);
}

static void gpu_line(struct draw *d, const struct gpu_frame *g, const struct live_gpu_worst *w,
                     bool wide)
{
        line_begin(d);
        sb_printf(&d->lb, "gpu%-2u ", g->index);
        if (w->samples == 0) {
                colour(d, C_ALARM);
                if (w->failures || !g->ok)
                        sb_printf(&d->lb, "NVML FAILED: %s", w->failures ? w->error : g->error);
                else
                        sb_puts(&d->lb, "-- (not sampled: backing off)");
                line_end(d);
                return;
        }
        cell(&d->lb, w->temp_c, 4, 0, "C ");
        live_gpu_power(&d->lb, w, 5);
        sb_putc(&d->lb, ' ');
        cell(&d->lb, w->clock_mhz, 6, 0, "/");
        cell(&d->lb, g->mem_clock_mhz, 0, 0, " ");
        cell(&d->lb, g->util_gpu_pct, 4, 0, "% ");
        cell(&d->lb, g->vram_used_bytes / 1073741824.0, 5, 1, "/");
        cell(&d->lb, g->vram_total_bytes / 1073741824.0, 0, 1, " ");
        if (wide) {
                cell(&d->lb, g->util_mem_pct, 4, 0, "% ");
                sb_puts(&d->lb, "P");
                cell(&d->lb, g->pstate, 0, 0, " ");
                cell(&d->lb, g->pcie_gen, 2, 0, "x");
                cell(&d->lb, g->pcie_width, 0, 0, " ");
        }
        for (unsigned i = 0; i < w->nfans; i++)
                cell(&d->lb, w->fan_pct[i], 3, 0, "% ");
        sb_putc(&d->lb, ' ');
        bool calm = w->throttle == 0 || w->throttle == 1; /* none, or GpuIdle */
        if (!calm)
                colour(d, C_WARN);
        throttle_decode(&d->lb, w->throttle);
        colour(d, C_ALARM);
        live_gpu_over_max(&d->lb, w);
        if (w->flags[0] || w->failures) {
                if (w->flags[0])
                        sb_printf(&d->lb, " %s", w->flags);
                if (w->failures)
                        sb_printf(&d->lb, " NVML_FAILED x%u", w->failures);
        }
        line_end(d);
}

static void watches(struct draw *d, const struct frame *f)
{
        for (unsigned i = 0; i < f->nwatches && room(d, 1); i++) {
                const struct watch_frame *w = &f->watches[i];
                line_begin(d);
                sb_printf(&d->lb, "watch %s", w->name);
                val(&d->lb, "processes ", w->count, 0, "");
                val(&d->lb, "PSS ", w->pss_bytes / 1048576.0, 0, " MB");
                val(&d->lb, "cpu ", w->cpu_pct, 1, "%");
                line_end(d);
        }
}

/* The rows of the findings: with all, every one of them; else those the screen must
 * show whatever its size: every critical one, under the "What happened:" line, and one
 * line for the rest (shown, or counted). */
static unsigned findings_rows(const struct findings *fs, bool all)
{
        if (findings_clean(fs))
                return 1;
        size_t crit = 0;
        for (size_t i = 0; i < fs->n; i++)
                crit += fs->items[i].severity == FINDING_CRITICAL;
        size_t n = all ? fs->n : crit;
        size_t rows = 1 + n + (fs->n > n || fs->dropped ? 1 : 0);
        return rows < LIVE_SCREEN_MAX ? (unsigned)rows : LIVE_SCREEN_MAX;
}

/* "  (2 warning, 8 fyi not shown)": how many of each severity from items[from] on, and
 * those the table had no room for. */
static void hidden_line(struct draw *d, const struct findings *fs, size_t from)
{
        uint64_t n[FINDING_SEVERITY_COUNT] = {0};
        for (size_t i = from; i < fs->n; i++)
                n[fs->items[i].severity]++;
        line_begin(d);
        sb_puts(&d->lb, "  (");
        const char *sep = "";
        for (unsigned k = 0; k < FINDING_SEVERITY_COUNT; k++) {
                if (!n[k])
                        continue;
                sb_printf(&d->lb, "%s%llu %s", sep, (unsigned long long)n[k],
                          findings_severity_name(k));
                sep = ", ";
        }
        if (fs->dropped)
                sb_printf(&d->lb, "%s%llu unrecorded", sep, (unsigned long long)fs->dropped);
        sb_puts(&d->lb, " not shown)");
        line_end(d);
}

/* Critical red, warning yellow, fyi dim: the label says it without colour too. */
static const char *severity_colour(const struct finding *x)
{
        if (!x->alarm)
                return C_DIM;
        return x->severity == FINDING_CRITICAL ? C_ALARM : C_WARN;
}

/* The findings, most severe first (the order findings_sort() leaves), as many as the
 * rows left allow: the least severe are left out first, and counted by severity. */
static void findings_part(struct draw *d)
{
        const struct findings *fs = &d->ls->findings;
        if (!room(d, 1))
                return;
        line_begin(d);
        if (findings_clean(fs)) {
                sb_puts(&d->lb, "What happened: nothing \xE2\x80\x94 clean");
                line_end(d);
                return;
        }
        colour(d, C_ALARM);
        sb_puts(&d->lb, "What happened:");
        line_end(d);
        unsigned left = d->rows - d->used;
        size_t n = fs->n, shown = n;
        if (n > left || (fs->dropped && n >= left))
                shown = left ? left - 1 : 0; /* keep one row for the count of the rest */
        for (size_t i = 0; i < shown; i++) {
                const struct finding *x = &fs->items[i];
                line_begin(d);
                colour(d, severity_colour(x));
                sb_printf(&d->lb, "  (%s) %s%s", findings_label(x), x->source,
                          x->source[0] ? ": " : "");
                findings_line(x, fs->running, &d->lb);
                line_end(d);
        }
        if (shown < n || fs->dropped)
                hidden_line(d, fs, shown);
}

static void keep_pi_row(struct live_screen *ls, const char *row)
{
        snprintf(ls->pi_rows[ls->pi_next], LIVE_SCREEN_LINE, "%s", row);
        ls->pi_next = (ls->pi_next + 1) % LIVE_SCREEN_PI_ROWS;
        if (ls->npi < LIVE_SCREEN_PI_ROWS)
                ls->npi++;
}

void live_screen_draw(struct live_screen *ls, const struct live_screen_in *in, unsigned rows,
                      unsigned cols)
{
        const struct frame *f = in->ctx->frame;
        struct draw d = {.ls = ls};
        /* Never more rows or columns than the terminal has: a row past the width wraps,
         * one past the height scrolls the screen. */
        d.rows = rows < 1 ? 1 : rows > LIVE_SCREEN_MAX ? LIVE_SCREEN_MAX : rows;
        d.cols = cols < 1 ? 1 : cols > LIVE_SCREEN_MAX ? LIVE_SCREEN_MAX : cols;
        if (in->pi_row)
                keep_pi_row(ls, in->pi_row);
        run_findings_build(in->ctx, in->missed, &ls->findings);
        sb_reset(&ls->out);
        sb_puts(&ls->out, HOME);
        title(&d, in);
        health_part(&d, in->ctx->health, (double)in->hr->real_ns / 1e9);
        unsigned ngpu = 0;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++)
                ngpu += f->gpus[i].present;
        /* The findings' rows that may not be given away (every critical one): the parts
         * above them are fitted in what is left, and the screen is whole again for the
         * findings. */
        unsigned whole = d.rows, fmin = findings_rows(&ls->findings, false);
        d.rows = whole > fmin + 1 ? whole - fmin : 1;
        /* Rows the parts below the host need: GPUs, watches, and the findings (all of
         * them while that is at most a third of the screen: the Pi table's older rows
         * matter less). */
        unsigned fall = findings_rows(&ls->findings, true);
        unsigned fres = fmin > whole / 3 ? fmin : fall < whole / 3 ? fall : whole / 3;
        unsigned below = (ngpu ? ngpu + 1 : 0) + f->nwatches + fres - fmin;
        if (in->pi_header) {
                unsigned left = d.rows > d.used + below + 1 ? d.rows - d.used - below - 1 : 1;
                host_pi(&d, in, left);
        } else {
                host_other(&d, in);
        }
        bool wide = d.cols >= 120;
        if (ngpu && room(&d, 2))
                gpu_header(&d, wide);
        unsigned undrawn = ngpu;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS && room(&d, 1); i++) {
                if (!f->gpus[i].present)
                        continue;
                if (undrawn > 1 && !room(&d, 2)) { /* the last row: say what is left out */
                        line_begin(&d);
                        sb_printf(&d.lb, "... %u more GPUs (a taller terminal shows them)",
                                  undrawn);
                        line_end(&d);
                        break;
                }
                gpu_line(&d, &f->gpus[i], &in->lg->gpu[i], wide);
                undrawn--;
        }
        watches(&d, f);
        d.rows = whole;
        findings_part(&d);
        sb_puts(&ls->out, CLEAR_END);
        fwrite(ls->out.buf, 1, ls->out.len, stdout);
        fflush(stdout);
}
