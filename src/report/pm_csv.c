/* SPDX-License-Identifier: Apache-2.0 */
/* The post-mortem's read-back of the CSV logs. See pm_csv.h. A row it reads:
 *   2026/12/03 03:01:02.300,87,0,312.40,350,0,1410,9501,100,71,20480,4,16,0x0040,... */
#include "report/pm_csv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "encode/gpu_columns.h"
#include "core/host_row.h"
#include "core/throttle_reasons.h"
#include "report/tstamp.h"
#include "util/fmt.h"
#include "util/parse.h"

#define MAX_CELLS  256
#define MAX_STATS  12 /* columns with a min/max: temperature, power, 2 clocks, 8 fans */
#define HEADER_CAP 8192

unsigned pm_csv_split(const char *s, size_t n, const char **cell, size_t *len, unsigned max)
{
        unsigned k = 0;
        size_t i = 0;
        while (k < max) {
                bool quoted = i < n && s[i] == '"';
                size_t start = quoted ? i + 1 : i, j = start;
                while (j < n && (quoted ? s[j] != '"' : s[j] != ','))
                        j++;
                cell[k] = s + start;
                len[k++] = j - start;
                if (quoted && j < n)
                        j++; /* the closing quote */
                while (j < n && s[j] != ',')
                        j++;
                if (j >= n)
                        break;
                i = j + 1;
        }
        return k;
}

/* A file name of a daily log: PREFIX-YYYY-MM-DD.csv. Sets *gpu and the prefix length. */
static bool log_name(const char *name, bool *gpu, size_t *plen)
{
        size_t n = strlen(name);
        if (n < 16 || n >= sizeof(((struct pm_csv_file *)0)->name) || strcmp(name + n - 4, ".csv"))
                return false;
        *plen = n - 15; /* "-YYYY-MM-DD.csv" */
        if (name[*plen] != '-')
                return false;
        if (*plen == 4 && !memcmp(name, "host", 4)) {
                *gpu = false;
                return true;
        }
        if (*plen < 4 || memcmp(name, "gpu", 3))
                return false;
        for (size_t i = 3; i < *plen; i++)
                if (name[i] < '0' || name[i] > '9')
                        return false;
        *gpu = true;
        return true;
}

/* Order: host first, then GPUs by number. */
static int file_cmp(const void *a, const void *b)
{
        const struct pm_csv_file *x = a, *y = b;
        if (x->gpu != y->gpu)
                return x->gpu ? 1 : -1;
        size_t lx = strlen(x->name), ly = strlen(y->name);
        if (lx != ly)
                return lx < ly ? -1 : 1;
        return strcmp(x->name, y->name);
}

int pm_csv_find(const char *dir, struct pm_csv_file *files, unsigned max)
{
        DIR *d = opendir(dir);
        unsigned n = 0;
        if (!d)
                return -errno;
        struct dirent *e;
        while ((e = readdir(d))) {
                bool gpu;
                size_t plen;
                if (!log_name(e->d_name, &gpu, &plen))
                        continue;
                unsigned i = 0;
                while (i < n &&
                       (strncmp(files[i].name, e->d_name, plen) || files[i].name[plen] != '-'))
                        i++;
                if (i == n && n == max)
                        continue;
                /* The same log on another day: the newer date sorts higher. */
                if (i < n && strcmp(e->d_name, files[i].name) <= 0)
                        continue;
                if (i == n)
                        n++;
                memset(&files[i], 0, sizeof(files[i]));
                copy_bounded(files[i].name, sizeof(files[i].name), e->d_name, strlen(e->d_name));
                files[i].gpu = gpu;
        }
        closedir(d);
        qsort(files, n, sizeof(files[0]), file_cmp);
        for (unsigned i = 0; i < n; i++)
                pm_csv_last(dir, &files[i]);
        return (int)n;
}

/* The tail of a file: buf[start..len) holds whole lines (the partial first line of a
 * tail that starts mid-file and the header are skipped; a torn last line is cut). */
struct tail {
        char *buf;
        size_t start, len;
        bool torn;
        char header[HEADER_CAP];
};

static void tail_free(struct tail *t)
{
        free(t->buf);
        t->buf = NULL;
}

static int read_full(int fd, char *buf, size_t n, off_t off)
{
        size_t got = 0;
        while (got < n) {
                ssize_t r = pread(fd, buf + got, n - got, off + (off_t)got);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r == 0)
                        break;
                got += (size_t)r;
        }
        return (int)got;
}

static int tail_read(const char *dir, const char *name, size_t max, struct tail *t)
{
        char path[1200];
        struct stat st;
        memset(t, 0, sizeof(*t));
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        int r = fstat(fd, &st) < 0 ? -errno : 0;
        size_t size = r == 0 ? (size_t)st.st_size : 0;
        int h = r == 0 ? read_full(fd, t->header, sizeof(t->header) - 1, 0) : 0;
        size_t off = size > max ? size - max : 0;
        t->buf = r == 0 && h >= 0 ? malloc(size - off + 1) : NULL;
        int n = t->buf ? read_full(fd, t->buf, size - off, (off_t)off) : -ENOMEM;
        close(fd);
        if (r < 0 || h < 0 || n < 0) {
                tail_free(t);
                return r < 0 ? r : h < 0 ? h : n;
        }
        char *nl = memchr(t->header, '\n', (size_t)h);
        t->header[nl ? (size_t)(nl - t->header) : 0] = '\0';
        t->len = (size_t)n;
        /* Skip to the first whole line: past the header, or past a partial line. */
        char *first = memchr(t->buf, '\n', t->len);
        if (off > 0 || (t->len && t->buf[0] == 't'))
                t->start = first ? (size_t)(first - t->buf) + 1 : t->len;
        while (t->len > t->start && t->buf[t->len - 1] != '\n') {
                t->len--;
                t->torn = true;
        }
        t->buf[t->len] = '\0';
        return 0;
}

/* The time of the row at s[0..n) (its first cell). */
static bool row_time(struct tstamp_cache *c, const char *s, size_t n, double *t)
{
        const char *comma = memchr(s, ',', n);
        size_t len = comma ? (size_t)(comma - s) : n;
        return tstamp_parse(c, s, len, t) == 0;
}

/* Next line of the tail from *pos: its start and length; false at the end. */
static bool next_line(const struct tail *t, size_t *pos, const char **s, size_t *n)
{
        if (*pos >= t->len)
                return false;
        *s = t->buf + *pos;
        const char *nl = memchr(*s, '\n', t->len - *pos);
        *n = nl ? (size_t)(nl - *s) : t->len - *pos;
        *pos += *n + 1;
        return true;
}

int pm_csv_last(const char *dir, struct pm_csv_file *f)
{
        struct tail t;
        struct tstamp_cache c = {0};
        f->last_t = NAN;
        f->last_row[0] = '\0';
        int r = tail_read(dir, f->name, PM_LAST_BYTES, &t);
        if (r < 0)
                return r;
        f->torn = t.torn;
        size_t pos = t.start;
        const char *s;
        size_t n;
        while (next_line(&t, &pos, &s, &n)) {
                double tt;
                if (n && row_time(&c, s, n, &tt)) {
                        f->last_t = tt;
                        copy_bounded(f->last_row, sizeof(f->last_row), s, n);
                }
        }
        tail_free(&t);
        return 0;
}

/* Columns of a GPU log with a min/max, found in the header. */
struct pm_gpu_stats {
        unsigned ncols;
        unsigned col[MAX_STATS];
        char name[MAX_STATS][24];
        double min[MAX_STATS], max[MAX_STATS];
        int mask_col, reasons_col;
        uint64_t mask_or;
        unsigned rows;
};

/* The GPU writer's columns with a min/max: temperature, power, the two clocks, and
 * every fan's speed (GPU_COL_FAN_PREFIX, its number, then the speed's name). */
static bool stat_column(const char *s, size_t n)
{
        const char *names[] = {
            GPU_COLUMN_NAME(GC_FIXED, temp_c),
            GPU_COLUMN_NAME(GC_FIXED, power_w),
            GPU_COLUMN_NAME(GC_FIXED, gpu_clock_mhz),
            GPU_COLUMN_NAME(GC_FIXED, mem_clock_mhz),
        };
        for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (n == strlen(names[i]) && !memcmp(s, names[i], n))
                        return true;
        const char *fan = GPU_COL_FAN_PREFIX, *speed = GPU_COLUMN_NAME(GC_PER_FAN, fan_speed_pct);
        size_t fl = strlen(fan), sl = strlen(speed);
        return n > fl + sl && !memcmp(s, fan, fl) && !memcmp(s + n - sl, speed, sl);
}

static int find_col(const char **cell, const size_t *len, unsigned n, const char *name)
{
        for (unsigned i = 0; i < n; i++)
                if (len[i] == strlen(name) && !memcmp(cell[i], name, len[i]))
                        return (int)i;
        return -1;
}

static void stats_init(struct pm_gpu_stats *g, const char **cell, const size_t *len, unsigned n)
{
        memset(g, 0, sizeof(*g));
        for (unsigned i = 0; i < n && g->ncols < MAX_STATS; i++) {
                if (!stat_column(cell[i], len[i]))
                        continue;
                g->col[g->ncols] = i;
                copy_bounded(g->name[g->ncols], sizeof(g->name[0]), cell[i], len[i]);
                g->min[g->ncols] = INFINITY;
                g->max[g->ncols] = -INFINITY;
                g->ncols++;
        }
        g->mask_col = find_col(cell, len, n, GPU_COLUMN_NAME(GC_MASK, throttle_mask));
        g->reasons_col = find_col(cell, len, n, GPU_COLUMN_NAME(GC_MASK_NAMES, throttle_mask));
}

static void stats_add(struct pm_gpu_stats *g, const char *s, size_t n)
{
        const char *cell[MAX_CELLS];
        size_t len[MAX_CELLS];
        unsigned k = pm_csv_split(s, n, cell, len, MAX_CELLS);
        double v;
        uint64_t mask;
        g->rows++;
        for (unsigned i = 0; i < g->ncols; i++) {
                if (g->col[i] >= k || parse_double(cell[g->col[i]], len[g->col[i]], &v) < 0)
                        continue;
                g->min[i] = v < g->min[i] ? v : g->min[i];
                g->max[i] = v > g->max[i] ? v : g->max[i];
        }
        if (g->mask_col >= 0 && (unsigned)g->mask_col < k) {
                struct cursor c = cur_make(cell[g->mask_col], len[g->mask_col]);
                if (cur_hex(&c, &mask) == 0)
                        g->mask_or |= mask;
        }
}

/* A value as the CSV wrote it: whole numbers without a fraction. */
static void put_value(char *out, size_t cap, double v)
{
        if (v == floor(v) && fabs(v) < 1e15)
                snprintf(out, cap, "%.0f", v);
        else
                fmt_pyfloat(out, cap, v);
}

static void stats_put(struct strbuf *out, const struct pm_gpu_stats *g)
{
        char a[32], b[32];
        sb_printf(out, "min/max of the last %.0f s (%u rows):", PM_STATS_S, g->rows);
        for (unsigned i = 0; i < g->ncols; i++) {
                if (g->min[i] > g->max[i]) {
                        sb_printf(out, " %s n/a;", g->name[i]);
                        continue;
                }
                put_value(a, sizeof(a), g->min[i]);
                put_value(b, sizeof(b), g->max[i]);
                sb_printf(out, " %s %s..%s;", g->name[i], a, b);
        }
        if (g->mask_col >= 0) {
                sb_printf(out, " throttle reasons seen 0x%04llx ", (unsigned long long)g->mask_or);
                throttle_decode(out, g->mask_or);
        }
        sb_putc(out, '\n');
}

/* A Pi's last row: the throttled word, voltage and temperature (none off a Pi). */
static void pi_put(struct strbuf *out, const char *header, const char *s, size_t n)
{
        const char *hc[MAX_CELLS], *cell[MAX_CELLS];
        size_t hl[MAX_CELLS], len[MAX_CELLS];
        unsigned nh = pm_csv_split(header, strlen(header), hc, hl, MAX_CELLS);
        unsigned k = pm_csv_split(s, n, cell, len, MAX_CELLS);
        int w = find_col(hc, hl, nh, host_col_name(HC_THROTTLED));
        int v = find_col(hc, hl, nh, host_col_name(HC_VOLT));
        int tc = find_col(hc, hl, nh, host_col_name(HC_TEMP));
        int fl = find_col(hc, hl, nh, host_col_name(HC_THROTTLE_FLAGS));
        uint64_t word;
        if (w < 0 || (unsigned)w >= k || !len[w])
                return;
        struct cursor c = cur_make(cell[w], len[w]);
        bool ok = cur_hex(&c, &word) == 0;
        sb_printf(out, "Raspberry Pi, last row: throttled=%.*s", (int)len[w], cell[w]);
        if (v >= 0 && (unsigned)v < k && len[v])
                sb_printf(out, " %s=%.*s", host_col_name(HC_VOLT), (int)len[v], cell[v]);
        if (tc >= 0 && (unsigned)tc < k && len[tc])
                sb_printf(out, " %s=%.*s", host_col_name(HC_TEMP), (int)len[tc], cell[tc]);
        if (fl >= 0 && (unsigned)fl < k && len[fl])
                sb_printf(out, " flags=\"%.*s\"", (int)len[fl], cell[fl]);
        sb_putc(out, '\n');
        if (ok && (word & 0x1)) /* bit 0: under-voltage now (FACTS.md) */
                sb_puts(out, "UNDER-VOLTAGE NOW in the last row: a brown-out (weak power "
                             "supply) is the likely end\n");
        else if (ok && (word & 0x4)) /* bit 2: throttled now */
                sb_puts(out, "THROTTLED NOW in the last row\n");
}

/* A cell as a number: the throttled word (hex) or a temperature; false when empty. */
static bool cell_hex(const char **cell, const size_t *len, unsigned k, int col, uint64_t *v)
{
        if (col < 0 || (unsigned)col >= k || !len[col])
                return false;
        struct cursor c = cur_make(cell[col], len[col]);
        return cur_hex(&c, v) == 0;
}

int pm_csv_pi_end(const char *dir, const struct pm_csv_file *f, double window_s,
                  struct pm_pi_end *ret)
{
        struct tail t;
        struct tstamp_cache c = {0};
        memset(ret, 0, sizeof(*ret));
        ret->max_temp_c = NAN;
        if (isnan(f->last_t))
                return 0;
        int r = tail_read(dir, f->name, PM_TAIL_BYTES, &t);
        if (r < 0)
                return r;
        const char *hc[MAX_CELLS], *cell[MAX_CELLS], *s;
        size_t hl[MAX_CELLS], len[MAX_CELLS], pos = t.start, n;
        unsigned nh = pm_csv_split(t.header, strlen(t.header), hc, hl, MAX_CELLS);
        int w = find_col(hc, hl, nh, host_col_name(HC_THROTTLED));
        int tc = find_col(hc, hl, nh, host_col_name(HC_TEMP));
        while (next_line(&t, &pos, &s, &n)) {
                double tt, temp;
                uint64_t word;
                if (!n || !row_time(&c, s, n, &tt) || tt < f->last_t - window_s || tt > f->last_t)
                        continue;
                unsigned k = pm_csv_split(s, n, cell, len, MAX_CELLS);
                ret->rows++;
                if (cell_hex(cell, len, k, w, &word)) {
                        ret->throttled_or |= (uint32_t)word;
                        ret->undervolt_rows += (word & 0x1) != 0; /* bit 0: under-voltage now */
                        ret->softtemp_rows += (word & 0x8) != 0;  /* bit 3: soft temp limit */
                }
                if (tc >= 0 && (unsigned)tc < k && len[tc] &&
                    parse_double(cell[tc], len[tc], &temp) == 0 &&
                    (isnan(ret->max_temp_c) || temp > ret->max_temp_c))
                        ret->max_temp_c = temp;
        }
        tail_free(&t);
        return 0;
}

/* Rows of the window: how many, then each printed (every stride-th, and the last). */
static void window_rows(struct strbuf *out, const struct tail *t, double from, double to,
                        struct pm_gpu_stats *g, bool gpu)
{
        struct tstamp_cache c = {0};
        size_t pos = t->start, n;
        const char *s;
        unsigned total = 0, k = 0;
        double tt;
        while (next_line(t, &pos, &s, &n))
                if (n && row_time(&c, s, n, &tt) && tt >= from && tt <= to)
                        total++;
        unsigned stride = total > PM_MAX_ROWS ? (total + PM_MAX_ROWS - 1) / PM_MAX_ROWS : 1;
        sb_printf(out, "%u rows in the last %.0f s", total, PM_WINDOW_S);
        if (stride > 1)
                sb_printf(out, " (every %u. shown, and the last)", stride);
        sb_printf(out, ":\n%s\n", t->header);
        pos = t->start;
        while (next_line(t, &pos, &s, &n)) {
                if (!n || !row_time(&c, s, n, &tt) || tt < from || tt > to)
                        continue;
                k++;
                if (k % stride == 0 || k == total || stride == 1)
                        sb_printf(out, "%.*s\n", (int)n, s);
                if (gpu && tt >= to - PM_STATS_S)
                        stats_add(g, s, n);
        }
}

void pm_csv_section(struct strbuf *out, const char *dir, const struct pm_csv_file *f)
{
        struct tail t;
        struct pm_gpu_stats g;
        sb_printf(out, "--- %s\n", f->name);
        if (isnan(f->last_t)) {
                sb_puts(out, "(no whole row)\n\n");
                return;
        }
        int r = tail_read(dir, f->name, PM_TAIL_BYTES, &t);
        if (r < 0) {
                sb_printf(out, "(cannot read: %s)\n\n", strerror(-r));
                return;
        }
        const char *hc[MAX_CELLS];
        size_t hl[MAX_CELLS];
        stats_init(&g, hc, hl, pm_csv_split(t.header, strlen(t.header), hc, hl, MAX_CELLS));
        if (t.torn)
                sb_puts(out, "(the file ends in a partial row, cut by the end: left out)\n");
        window_rows(out, &t, f->last_t - PM_WINDOW_S, f->last_t, &g, f->gpu);
        if (f->gpu)
                stats_put(out, &g);
        else
                pi_put(out, t.header, f->last_row, strlen(f->last_row));
        sb_putc(out, '\n');
        tail_free(&t);
}
