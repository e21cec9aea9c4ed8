/* SPDX-License-Identifier: Apache-2.0 */
/* The host row as CSV. Formats follow the reference monitor's Python csv.DictWriter
 * output: repr() of floats, psutil's one-decimal percentages, hex(). See host_row_csv.h. */
#include "encode/host_row_csv.h"

#include "util/fmt.h"
#include "util/hot.h"

void host_row_header(struct strbuf *out, unsigned ncpu, const struct host_row *r)
{
        char name[48];
        for (unsigned c = 0; c < HC_COUNT; c++) {
                if (host_col_fmt(c) != HF_CORES) {
                        sb_printf(out, c ? ",%s" : "%s", host_col_name(c));
                        continue;
                }
                for (unsigned i = 0; i < ncpu; i++) {
                        host_core_col_name(name, sizeof(name), i);
                        sb_printf(out, ",%s", name);
                }
        }
        for (unsigned i = 0; i < r->nwatch; i++)
                for (unsigned k = 0; k < WC_COUNT; k++)
                        sb_printf(out, ",%s%s", r->w[i].name, watch_col_suffix(k));
        sb_putc(out, '\n');
}

VIGIL_HOT static void put_value(struct strbuf *out, enum host_col_fmt fmt, double v)
{
        char buf[48];
        if (!VAL_OK(v))
                return;
        switch (fmt) {
        case HF_PY:
                fmt_pyfloat(buf, sizeof(buf), v);
                sb_puts(out, buf);
                break;
        case HF_PCT1:
                sb_fixed(out, '\0', v, 1);
                break;
        case HF_INT:
                sb_fixed(out, '\0', v, 0);
                break;
        case HF_HEX:
                sb_printf(out, "0x%llx", (unsigned long long)v);
                break;
        default:
                break;
        }
}

VIGIL_HOT void host_row_csv(struct strbuf *out, const struct host_row *r, unsigned ncpu)
{
        const struct host_col_info *cols = host_cols(), *wcols = host_watch_cols();
        char ts[40];
        for (unsigned c = 0; c < HC_COUNT; c++) {
                if (cols[c].fmt == HF_CORES) { /* as many cells as the header has */
                        for (unsigned i = 0; i < ncpu; i++) {
                                sb_putc(out, ',');
                                if (i < r->ncpu)
                                        put_value(out, HF_PCT1, r->cpu[i]);
                        }
                        continue;
                }
                if (c)
                        sb_putc(out, ',');
                switch (cols[c].fmt) {
                case HF_TIME:
                        fmt_time_iso_ms(ts, sizeof(ts), r->real_ns);
                        sb_puts(out, ts);
                        break;
                case HF_TEXT:
                case HF_FLAGS:
                        sb_csv_cell(out, (const char *)r + cols[c].text);
                        break;
                default:
                        put_value(out, cols[c].fmt, r->v[c]);
                }
        }
        for (unsigned i = 0; i < r->nwatch; i++)
                for (unsigned k = 0; k < WC_COUNT; k++) {
                        sb_putc(out, ',');
                        put_value(out, wcols[k].fmt, r->w[i].v[k]);
                }
        sb_putc(out, '\n');
}
