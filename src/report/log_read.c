/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a log back. See log_read.h. */
#include "report/log_read.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "encode/gpu_columns.h"
#include "core/host_row.h"
#include "util/parse.h"

static int find_col(const struct csv_reader *r, const char *name)
{
        for (unsigned i = 0; i < r->nfields; i++) {
                if (csv_cell_is(&r->f[i], name))
                        return (int)i;
        }
        return -1;
}

static void map_fans(const struct csv_reader *r, struct log_map *m)
{
        const char *speed = GPU_COLUMN_NAME(GC_PER_FAN, fan_speed_pct);
        const char *target = GPU_COLUMN_NAME(GC_PER_FAN, fan_target_pct);
        for (unsigned i = 0; i < GPU_ACC_MAX_FANS; i++) {
                char name[64];
                snprintf(name, sizeof(name), GPU_COL_FAN_PREFIX "%u%s", i, speed);
                m->fan_speed[i] = find_col(r, name);
                snprintf(name, sizeof(name), GPU_COL_FAN_PREFIX "%u%s", i, target);
                m->fan_target[i] = find_col(r, name);
                if (m->fan_speed[i] >= 0)
                        m->nfans = i + 1;
        }
}

/* Recognise a vigil log by its header. 0 or -EBADMSG. */
int log_map_header(const struct csv_reader *r, struct log_map *m)
{
        memset(m, 0, sizeof(*m));
        m->nfields = r->nfields;
        if (r->nfields < 3)
                return -EBADMSG;
        if (csv_cell_is(&r->f[0], host_col_name(HC_TIMESTAMP)) &&
            csv_cell_is(&r->f[1], host_col_name(HC_UPTIME)) &&
            csv_cell_is(&r->f[2], host_col_name(HC_CPU_TOTAL))) {
                m->kind = REPORT_HOST;
                for (int c = 0; c < HC_COUNT; c++)
                        m->host[c] = host_col_numeric(c) ? find_col(r, host_col_name(c)) : -1;
                m->throttle_flags = find_col(r, host_col_name(HC_THROTTLE_FLAGS));
                return 0;
        }
        if (csv_cell_is(&r->f[0], GPU_COLUMN_NAME(GC_TIME, sampled_real_ns)) &&
            csv_cell_is(&r->f[1], gpu_field_name(GPU_F_TEMP)) &&
            csv_cell_is(&r->f[2], gpu_field_name(GPU_F_TLIMIT))) {
                m->kind = REPORT_GPU;
                for (int f = 0; f < GPU_F_COUNT; f++)
                        m->gpu[f] = find_col(r, gpu_field_name(f));
                map_fans(r, m);
                m->reasons = find_col(r, GPU_COLUMN_NAME(GC_MASK_NAMES, throttle_mask));
                m->flags = find_col(r, GPU_COLUMN_NAME(GC_FLAGS, flags));
                return 0;
        }
        return -EBADMSG;
}

/* The columns of the watches that have their own (NAME_procs, then NAME_pss_mb,
 * NAME_cpu_pct, NAME_threads anywhere), each given its slot in a. */
void log_map_watches(const struct csv_reader *r, struct log_map *m, struct watch_acc *a)
{
        const char *procs = watch_col_suffix(WC_PROCS);
        const size_t sl = strlen(procs);
        for (unsigned i = 0; i < r->nfields && m->nwatch < WATCH_ACC_MAX; i++) {
                const struct csv_field *f = &r->f[i];
                char name[64], col[96];
                if (f->len <= sl || f->len - sl >= sizeof(name) ||
                    memcmp(f->s + f->len - sl, procs, sl) != 0 ||
                    csv_cell_is(f, host_col_name(HC_CHROMIUM_PROCS)))
                        continue;
                copy_bounded(name, sizeof(name), f->s, f->len - sl);
                int cols[WC_COUNT];
                bool whole = true;
                for (int c = 0; c < WC_COUNT; c++) {
                        snprintf(col, sizeof(col), "%s%s", name, watch_col_suffix(c));
                        cols[c] = find_col(r, col);
                        whole &= cols[c] >= 0;
                }
                int slot = whole ? watch_acc_slot(a, name, strlen(name)) : -1;
                if (slot < 0)
                        continue;
                m->wslot[m->nwatch] = slot;
                memcpy(m->wcol[m->nwatch++], cols, sizeof(cols));
        }
}

static double cell(const struct csv_reader *r, int col)
{
        return col >= 0 && (unsigned)col < r->nfields ? csv_cell_double(&r->f[col]) : NAN;
}

/* A cell copied as a C string ("" when absent). */
static const char *cell_str(const struct csv_reader *r, int col, char *buf, size_t cap)
{
        buf[0] = '\0';
        if (col >= 0 && (unsigned)col < r->nfields)
                copy_bounded(buf, cap, r->f[col].s, r->f[col].len);
        return buf;
}

/* The column that holds "NVML_FAILED:<error>" in a failure row: flags, found by its
 * name (vigil writes its own columns after flags); the last cell of a shorter row
 * (the reference logger writes nothing after it). */
static int failure_col(const struct csv_reader *r, const struct log_map *m)
{
        if (m->flags >= 0 && (unsigned)m->flags < r->nfields)
                return m->flags;
        return (int)r->nfields - 1;
}

bool log_is_failure_row(const struct csv_reader *r, const struct log_map *m)
{
        const struct csv_field *c = &r->f[failure_col(r, m)];
        return c->len >= 11 && memcmp(c->s, "NVML_FAILED", 11) == 0;
}

/* The row's time; false when the row is damaged (wrong width, bad time stamp). */
bool log_row_time(struct csv_reader *r, const struct log_map *m, struct log_row_ctx *c, double *t)
{
        bool failure = m->kind == REPORT_GPU && r->nfields >= 2 && log_is_failure_row(r, m);
        if ((r->nfields != m->nfields && !failure) ||
            tstamp_parse(&c->tc, r->f[0].s, r->f[0].len, t) < 0) {
                r->skipped++;
                return false;
        }
        cell_str(r, 0, c->ts, sizeof(c->ts));
        return true;
}

bool log_host_row(struct csv_reader *r, const struct log_map *m, struct log_row_ctx *c,
                  struct host_acc_row *row, double wv[WATCH_ACC_MAX][WC_COUNT])
{
        if (!log_row_time(r, m, c, &row->t))
                return false;
        for (unsigned w = 0; w < m->nwatch; w++)
                for (int k = 0; k < WC_COUNT; k++)
                        wv[w][k] = cell(r, m->wcol[w][k]);
        row->timestamp = c->ts;
        for (int k = 0; k < HC_COUNT; k++)
                row->v[k] = cell(r, m->host[k]);
        row->throttle_flags = cell_str(r, m->throttle_flags, c->text1, sizeof(c->text1));
        return true;
}

bool log_gpu_row(struct csv_reader *r, const struct log_map *m, struct log_row_ctx *c,
                 struct gpu_row *row)
{
        memset(row, 0, sizeof(*row));
        if (!log_row_time(r, m, c, &row->t))
                return false;
        row->timestamp = c->ts;
        if (log_is_failure_row(r, m)) {
                row->failure = cell_str(r, failure_col(r, m), c->text1, sizeof(c->text1));
                return true;
        }
        for (int f = 0; f < GPU_F_COUNT; f++)
                row->v[f] = cell(r, m->gpu[f]);
        row->nfans = m->nfans;
        for (unsigned i = 0; i < m->nfans; i++) {
                row->fan_speed_pct[i] = cell(r, m->fan_speed[i]);
                row->fan_target_pct[i] = cell(r, m->fan_target[i]);
        }
        row->throttle_reasons = cell_str(r, m->reasons, c->text1, sizeof(c->text1));
        row->flags = cell_str(r, m->flags, c->text2, sizeof(c->text2));
        return true;
}
