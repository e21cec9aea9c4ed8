/* SPDX-License-Identifier: Apache-2.0 */
/* Sink: system-info.txt. See sysinfo.h. A /proc/modules line it reads:
 *   nvidia_modeset 1568768 1 nvidia_drm, Live 0x0000000000000000 (POE) */
#include "local/sysinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/vigil.h"
#include "local/gpu_sinks.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/hot.h"

#define SYSINFO_READ_MAX (64 * 1024) /* bytes read of /proc/cpuinfo, /proc/modules */
#define SYSINFO_TEXT_MAX (64 * 1024)

static void threshold_line(struct strbuf *sb, const char *label, double c)
{
        if (VAL_OK(c))
                sb_printf(sb, "  %s: %.0fC\n", label, c);
        else
                sb_printf(sb, "  %s: N/A\n", label);
}

static const char *or_na(const char *s)
{
        return s && s[0] ? s : "N/A";
}

static void gpu_section(struct strbuf *sb, const struct nvml_shared *sh)
{
        if (!sh || sh->ngpus == 0) {
                sb_puts(sb, "--- GPU ---\n  none\n\n");
                return;
        }
        for (unsigned i = 0; i < sh->ngpus; i++) {
                const struct nvml_gpu *g = &sh->gpu[i];
                sb_printf(sb, "--- GPU %u ---\n", g->index);
                sb_printf(sb, "  Name: %s\n  PCI: %s\n  UUID: %s\n", or_na(g->name),
                          or_na(g->pci_bus_id), or_na(g->uuid));
                sb_printf(sb, "  Serial: %s\n  VBIOS: %s\n  Driver: %s\n  Fans: %u\n\n",
                          or_na(g->serial), or_na(g->vbios), or_na(sh->driver_version), g->nfans);
                sb_printf(sb, "--- Thermal thresholds (GPU %u) ---\n", g->index);
                threshold_line(sb, "shutdown", g->shutdown_c);
                threshold_line(sb, "slowdown", g->slowdown_c);
                threshold_line(sb, "gpu_max", g->gpu_max_c);
                sb_putc(sb, '\n');
        }
}

/* The value of KEY= in os-release text, without quotes. */
static bool os_release_value(const char *text, const char *key, char *out, size_t cap)
{
        struct cursor c = cur_str(text);
        size_t kl = strlen(key);
        while (!cur_eof(&c)) {
                const char *l;
                size_t n;
                cur_line(&c, &l, &n);
                if (n <= kl || strncmp(l, key, kl) != 0 || l[kl] != '=')
                        continue;
                l += kl + 1;
                n -= kl + 1;
                if (n >= 2 && (l[0] == '"' || l[0] == '\'') && l[n - 1] == l[0]) {
                        l++;
                        n -= 2;
                }
                copy_bounded(out, cap, l, n);
                return true;
        }
        return false;
}

static void os_section(struct strbuf *sb, const char *root, char *buf, size_t cap)
{
        struct utsname u;
        char pretty[256];
        sb_puts(sb, "--- OS ---\n");
        if (uname(&u) == 0)
                sb_printf(sb, "  %s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version,
                          u.machine);
        if ((read_file_at(root, "/etc/os-release", buf, cap) >= 0 ||
             read_file_at(root, "/usr/lib/os-release", buf, cap) >= 0) &&
            os_release_value(buf, "PRETTY_NAME", pretty, sizeof(pretty)))
                sb_printf(sb, "  Description:\t%s\n", pretty);
        sb_putc(sb, '\n');
}

static void cpu_section(struct strbuf *sb, const char *root, char *buf, size_t cap)
{
        sb_puts(sb, "--- CPU ---\n");
        bool found = false;
        if (read_file_at(root, "/proc/cpuinfo", buf, cap) >= 0) {
                struct cursor c = cur_str(buf);
                while (!cur_eof(&c) && !found) {
                        const char *l;
                        size_t n;
                        cur_line(&c, &l, &n);
                        if (n >= 10 && !strncmp(l, "model name", 10)) {
                                sb_printf(sb, "  %.*s\n", (int)n, l);
                                found = true;
                        }
                }
        }
        if (!found)
                sb_puts(sb, "  N/A\n");
        sb_putc(sb, '\n');
}

static void board_section(struct strbuf *sb, const char *root)
{
        char v[128];
        sb_puts(sb, "--- Motherboard ---\n");
        sb_printf(sb, "  %s\n",
                  read_line_at(root, "/sys/devices/virtual/dmi/id/board_vendor", v, sizeof(v)) > 0
                      ? v
                      : "N/A");
        sb_printf(sb, "  %s\n",
                  read_line_at(root, "/sys/devices/virtual/dmi/id/board_name", v, sizeof(v)) > 0
                      ? v
                      : "N/A");
        sb_putc(sb, '\n');
}

static bool name_has_nvidia(const char *name, size_t n)
{
        for (size_t i = 0; i + 6 <= n; i++)
                if (!strncasecmp(name + i, "nvidia", 6))
                        return true;
        return false;
}

unsigned sysinfo_nvidia_modules(struct strbuf *sb, const char *modules)
{
        struct cursor c = cur_str(modules);
        unsigned count = 0;
        while (!cur_eof(&c)) {
                const char *l, *name, *size, *refs, *users;
                size_t n, nn, sn, rn, un;
                cur_line(&c, &l, &n);
                struct cursor lc = cur_make(l, n);
                if (cur_word(&lc, &name, &nn) < 0 || cur_word(&lc, &size, &sn) < 0 ||
                    cur_word(&lc, &refs, &rn) < 0 || cur_word(&lc, &users, &un) < 0 ||
                    !name_has_nvidia(name, nn))
                        continue;
                sb_printf(sb, "%-19.*s %8.*s  %.*s", (int)nn, name, (int)sn, size, (int)rn, refs);
                if (!(un == 1 && users[0] == '-')) {
                        if (un && users[un - 1] == ',')
                                un--;
                        sb_printf(sb, " %.*s", (int)un, users);
                }
                sb_putc(sb, '\n');
                count++;
        }
        return count;
}

void sysinfo_text(struct strbuf *sb, const char *root, const struct nvml_shared *sh,
                  int64_t real_ns)
{
        char ts[64];
        char *buf = malloc(SYSINFO_READ_MAX);
        fmt_time_utc_iso(ts, sizeof(ts), real_ns);
        sb_printf(sb, "=== GPU Telemetry — System Info ===\nGenerated: %s\nScript: vigil v%s\n\n",
                  ts, VIGIL_VERSION);
        gpu_section(sb, sh);
        if (!buf) {
                sb_puts(sb, "(out of memory)\n");
                return;
        }
        os_section(sb, root, buf, SYSINFO_READ_MAX);
        cpu_section(sb, root, buf, SYSINFO_READ_MAX);
        board_section(sb, root);
        sb_puts(sb, "--- NVIDIA kernel modules ---\n");
        if (read_file_at(root, "/proc/modules", buf, SYSINFO_READ_MAX) < 0 ||
            sysinfo_nvidia_modules(sb, buf) == 0)
                sb_puts(sb, "N/A\n");
        free(buf);
}

/* The sink: write at start unless the file already names this driver, rewrite when
 * the driver version changes. */
struct sysinfo_sink {
        uint64_t driver_gen; /* of the version last written */
        bool pending;        /* the first write, at the first tick (first_write) */
};

/* True when DIR/system-info.txt exists and names driver (the reference's check). */
static bool names_driver(const char *dir, const char *driver)
{
        char line[160];
        bool found = false;
        if (!driver[0])
                return false;
        char *buf = malloc(SYSINFO_TEXT_MAX);
        if (!buf)
                return false;
        snprintf(line, sizeof(line), "  Driver: %s\n", driver);
        if (read_file_at(dir, "/system-info.txt", buf, SYSINFO_TEXT_MAX) > 0)
                found = strstr(buf, line) != NULL;
        free(buf);
        return found;
}

static int write_sysinfo(struct vigil_ctx *ctx)
{
        char tmp[1100], path[1100];
        struct strbuf sb;
        int r = sb_init_heap(&sb, 8192, SYSINFO_TEXT_MAX);
        if (r < 0)
                return r;
        sysinfo_text(&sb, ctx->opt->root, ctx->nvml, now_real_ns());
        snprintf(tmp, sizeof(tmp), "%s/.system-info.txt.tmp", ctx->log_dir);
        snprintf(path, sizeof(path), "%s/system-info.txt", ctx->log_dir);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
                r = -errno;
        } else {
                ssize_t w = write(fd, sb.buf, sb.len);
                r = w == (ssize_t)sb.len ? 0 : w < 0 ? -errno : -ENOSPC;
                close(fd);
                if (r == 0 && rename(tmp, path) < 0)
                        r = -errno;
                if (r < 0)
                        unlink(tmp);
        }
        sb_free(&sb);
        if (r < 0)
                vlog(LOG_WARN, "system info write failed: %s", strerror(-r));
        else
                vlog(LOG_INFO, "System info: %s", path);
        return r;
}

/* The file at start, unless it names the driver already (the reference's check). With
 * GPUs, at the first tick (of either clock): the NVML source acquires them (names,
 * thresholds, the driver's version) in its first. */
static void first_write(struct sysinfo_sink *s, struct vigil_ctx *ctx)
{
        const char *driver = ctx->nvml ? ctx->nvml->driver_version : "";
        s->driver_gen = ctx->nvml ? ctx->nvml->driver_gen : 0;
        s->pending = false;
        if (!names_driver(ctx->log_dir, driver))
                write_sysinfo(ctx);
}

static int sysinfo_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->log_dir)
                return -ENODEV;
        struct sysinfo_sink *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->pending = true;
        if (!ctx->nvml) /* no GPUs to wait for */
                first_write(s, ctx);
        *ret_state = s;
        return 0;
}

VIGIL_HOT static int sysinfo_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct sysinfo_sink *s = state;
        (void)t;
        if (s->pending)
                first_write(s, ctx);
        if (!ctx->nvml || ctx->nvml->driver_gen == s->driver_gen || ctx->disk_paused)
                return 0;
        s->driver_gen = ctx->nvml->driver_gen;
        vlog(LOG_INFO, "NVIDIA driver is now %s", ctx->nvml->driver_version);
        return write_sysinfo(ctx);
}

static void sysinfo_fini(void *state, struct vigil_ctx *ctx)
{
        struct sysinfo_sink *s = state;
        if (s && s->pending) /* stopped before the first tick */
                first_write(s, ctx);
        free(s);
}

const struct vigil_sink vigil_sink_system_info = {
    .name = "system-info",
    /* The GPU clock too: the file waits for the first GPU tick (first_write). */
    .clocks = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_GPU),
    .init = sysinfo_init,
    .write = sysinfo_write,
    .fini = sysinfo_fini,
};
