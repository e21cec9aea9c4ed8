/* SPDX-License-Identifier: Apache-2.0 */
/* Raspberry Pi facts from /proc and /sys. See rpi_sysfs.h.
 *
 *   Raspberry Pi 4 Model B Rev 1.4\0          (/proc/device-tree/model)
 *   render  239043069420    22619   27284814161   (a gpu_stats line) */
#include "collect/rpi_sysfs.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/parse.h"
#include "util/pfile.h"

#define RPI_MODEL_PREFIX "Raspberry Pi"

int rpi_read_model(const char *root, char *out, size_t cap)
{
        char buf[128];
        int n = read_file_at(root, "/proc/device-tree/model", buf, sizeof(buf));
        if (n < 0)
                return n;
        /* The property ends in a NUL; take the text before it, without line ends. */
        size_t len = strnlen(buf, (size_t)n);
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
                len--;
        copy_bounded(out, cap, buf, len);
        return memmem(buf, len, RPI_MODEL_PREFIX, strlen(RPI_MODEL_PREFIX)) ? 1 : 0;
}

int rpi_model_generation(const char *model)
{
        const char *p = strstr(model, RPI_MODEL_PREFIX " ");
        if (!p)
                return 0;
        struct cursor c = cur_str(p + strlen(RPI_MODEL_PREFIX " "));
        cur_lit(&c, "Compute Module ");
        if (cur_lit(&c, "Model "))
                return 1;
        uint64_t n;
        if (cur_u64(&c, &n) < 0 || n == 0)
                return 0;
        /* The keyboard models: 400 is a Pi 4, 500 a Pi 5. */
        if (n >= 100)
                n /= 100;
        return n > 99 ? 0 : (int)n;
}

int rpi_find_thermal_zone(const char *root, const char *type, char *out, size_t cap)
{
        char path[96], buf[64];
        for (unsigned i = 0; i < RPI_SCAN_MAX; i++) {
                snprintf(path, sizeof(path), "/sys/class/thermal/thermal_zone%u/type", i);
                if (read_line_at(root, path, buf, sizeof(buf)) < 0 || strcmp(buf, type) != 0)
                        continue;
                int w = snprintf(out, cap, "/sys/class/thermal/thermal_zone%u/temp", i);
                return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
        }
        return -ENOENT;
}

int rpi_find_hwmon(const char *root, const char *name, char *out, size_t cap)
{
        char path[96], buf[64];
        for (unsigned i = 0; i < RPI_SCAN_MAX; i++) {
                snprintf(path, sizeof(path), "/sys/class/hwmon/hwmon%u/name", i);
                if (read_line_at(root, path, buf, sizeof(buf)) < 0 || strcmp(buf, name) != 0)
                        continue;
                int w = snprintf(out, cap, "/sys/class/hwmon/hwmon%u", i);
                return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
        }
        return -ENOENT;
}

int rpi_find_gpu_stats(const char *root, char *out, size_t cap)
{
        char path[96], full[4096];
        for (unsigned i = 0; i < RPI_SCAN_MAX; i++) {
                snprintf(path, sizeof(path), "/sys/class/drm/card%u/device/gpu_stats", i);
                if (path_join(full, sizeof(full), root, path) < 0 || access(full, R_OK) != 0)
                        continue;
                int w = snprintf(out, cap, "%s", path);
                return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
        }
        return -ENOENT;
}

/* One "name ts jobs runtime" line; false when malformed. */
static bool parse_queue_line(const char *line, size_t len, struct v3d_queue_stat *q)
{
        struct cursor c = cur_make(line, len);
        const char *name;
        size_t nlen;
        if (cur_word(&c, &name, &nlen) < 0 || nlen >= sizeof(q->name))
                return false;
        if (cur_u64(&c, &q->timestamp_ns) < 0 || cur_u64(&c, &q->jobs) < 0 ||
            cur_u64(&c, &q->runtime_ns) < 0)
                return false;
        cur_skip_space(&c);
        if (!cur_eof(&c))
                return false;
        copy_bounded(q->name, sizeof(q->name), name, nlen);
        return true;
}

unsigned v3d_stats_parse(const char *s, size_t n, struct v3d_queue_stat *out, unsigned cap)
{
        struct cursor c = cur_make(s, n);
        unsigned count = 0;
        while (!cur_eof(&c) && count < cap) {
                const char *line;
                size_t len;
                cur_line(&c, &line, &len);
                if (len >= 5 && memcmp(line, "queue", 5) == 0)
                        continue;
                if (parse_queue_line(line, len, &out[count]))
                        count++;
        }
        return count;
}

double v3d_busy_ratio(const struct v3d_queue_stat *prev, const struct v3d_queue_stat *cur)
{
        if (strcmp(prev->name, cur->name) != 0 || cur->timestamp_ns <= prev->timestamp_ns ||
            cur->runtime_ns < prev->runtime_ns)
                return NAN;
        double r = (double)(cur->runtime_ns - prev->runtime_ns) /
                   (double)(cur->timestamp_ns - prev->timestamp_ns);
        return r > 1.0 ? 1.0 : r;
}
