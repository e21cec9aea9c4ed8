/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe state from sysfs. See pcie.h. Parses, for example, aer_dev_correctable:
 *   Receiver Error 2
 *   TOTAL_ERR_COR 2
 */
#include "collect/pcie.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/frame.h"
#include "util/parse.h"
#include "util/pfile.h"

#define DEVICES_DIR "/sys/bus/pci/devices/"

struct bdf {
        uint32_t domain;
        unsigned bus, dev, fn;
        bool has_fn;
};

/* 1..maxdigits hex digits at *p; advances *p. */
static int take_hex(const char **p, unsigned maxdigits, uint32_t *ret)
{
        uint32_t v = 0;
        unsigned n = 0;
        for (; parse_hex_digit(**p) >= 0; (*p)++) {
                if (++n > maxdigits)
                        return -EINVAL;
                v = v << 4 | (uint32_t)parse_hex_digit(**p);
        }
        if (n == 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* "[PCI:][DOMAIN:]BUS:DEV[.FN]" */
static int parse_bdf(const char *s, struct bdf *ret)
{
        uint32_t a, b, c = 0, fn = 0;
        const char *p = s;
        bool three = false, has_fn = false;
        if (strncmp(p, "PCI:", 4) == 0)
                p += 4;
        if (take_hex(&p, 8, &a) < 0 || *p++ != ':' || take_hex(&p, 2, &b) < 0)
                return -EINVAL;
        if (*p == ':') {
                p++;
                three = true;
                if (take_hex(&p, 2, &c) < 0)
                        return -EINVAL;
        }
        if (*p == '.') {
                p++;
                has_fn = true;
                if (take_hex(&p, 1, &fn) < 0 || fn > 7)
                        return -EINVAL;
        }
        if (*p != '\0')
                return -EINVAL;
        ret->domain = three ? a : 0;
        ret->bus = three ? b : a;
        ret->dev = three ? c : b;
        ret->fn = fn;
        ret->has_fn = has_fn;
        if (ret->bus > 0xff || ret->dev > 0x1f)
                return -EINVAL;
        return 0;
}

int pcie_sysfs_name(const char *bus_id, char *out, size_t cap)
{
        struct bdf d;
        if (!bus_id || parse_bdf(bus_id, &d) < 0)
                return -EINVAL;
        int n = snprintf(out, cap, "%04x:%02x:%02x.%x", d.domain, d.bus, d.dev, d.fn);
        if (n < 0 || (size_t)n >= cap)
                return -ENOSPC;
        return 0;
}

bool pcie_same_device(const char *a, const char *b)
{
        struct bdf x, y;
        if (!a || !b || parse_bdf(a, &x) < 0 || parse_bdf(b, &y) < 0)
                return false;
        if (x.domain != y.domain || x.bus != y.bus || x.dev != y.dev)
                return false;
        return !(x.has_fn && y.has_fn) || x.fn == y.fn;
}

static void aer_add(struct pcie_aer *a, const char *name, size_t nlen, uint64_t v)
{
        if (nlen >= 10 && memcmp(name, "TOTAL_ERR_", 10) == 0) {
                a->total = v;
                return;
        }
        if (v == 0)
                return;
        if (a->nnonzero < PCIE_AER_KEPT) {
                struct pcie_aer_count *e = &a->nonzero[a->nnonzero];
                copy_bounded(e->name, sizeof(e->name), name, nlen);
                e->count = v;
        }
        a->nnonzero++;
}

int pcie_parse_aer(const char *s, size_t n, struct pcie_aer *ret)
{
        struct pcie_aer a;
        struct cursor c = cur_make(s, n);
        uint64_t sum = 0;
        bool any = false, has_total = false;
        memset(&a, 0, sizeof(a));
        while (!cur_eof(&c)) {
                const char *line;
                size_t len;
                cur_line(&c, &line, &len);
                while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\r'))
                        len--;
                /* The count is the last word; the name is everything before it. */
                size_t sp = len;
                while (sp > 0 && line[sp - 1] != ' ' && line[sp - 1] != '\t')
                        sp--;
                uint64_t v;
                if (sp == 0 || parse_u64(line + sp, len - sp, &v) < 0)
                        continue;
                size_t nlen = sp;
                while (nlen > 0 && (line[nlen - 1] == ' ' || line[nlen - 1] == '\t'))
                        nlen--;
                if (nlen >= 10 && memcmp(line, "TOTAL_ERR_", 10) == 0)
                        has_total = true;
                else if (sum + v >= sum)
                        sum += v;
                aer_add(&a, line, nlen, v);
                any = true;
        }
        if (!any)
                return -EINVAL;
        if (!has_total)
                a.total = sum;
        a.present = true;
        *ret = a;
        return 0;
}

static int read_attr(const char *root, const char *name, const char *file, char *buf, size_t cap)
{
        char path[256];
        int n = snprintf(path, sizeof(path), DEVICES_DIR "%s/%s", name, file);
        if (n < 0 || (size_t)n >= sizeof(path))
                return -ENAMETOOLONG;
        return read_line_at(root, path, buf, cap);
}

static double read_number(const char *root, const char *name, const char *file)
{
        char buf[64];
        double v;
        int n = read_attr(root, name, file, buf, sizeof(buf));
        if (n <= 0 || parse_double(buf, (size_t)n, &v) < 0)
                return NAN;
        return v;
}

static void read_aer(const char *root, const char *name, const char *file, struct pcie_aer *ret)
{
        char buf[2048];
        int n = read_attr(root, name, file, buf, sizeof(buf));
        if (n <= 0 || pcie_parse_aer(buf, (size_t)n, ret) < 0)
                memset(ret, 0, sizeof(*ret));
}

static void read_config(const char *root, struct pcie_state *s)
{
        char rel[128], path[4096];
        unsigned char b[4];
        snprintf(rel, sizeof(rel), DEVICES_DIR "%s/config", s->name);
        s->config_error = path_join(path, sizeof(path), root, rel);
        if (s->config_error < 0)
                return;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                s->config_error = -errno;
                return;
        }
        ssize_t n = pread(fd, b, sizeof(b), 0);
        s->config_error = n < 0 ? -errno : (n < 2 ? -EIO : 0);
        close(fd);
        if (s->config_error < 0)
                return;
        s->vendor_id = b[0] | b[1] << 8;
        if (n >= 4)
                s->device_id = b[2] | b[3] << 8;
}

/* The bridge above: the parent directory in the device's sysfs link target. */
static void read_upstream(const char *dir, struct pcie_state *s)
{
        char target[1024], name[PCIE_NAME_MAX];
        ssize_t n = readlink(dir, target, sizeof(target) - 1);
        if (n <= 0)
                return;
        target[n] = '\0';
        char *last = strrchr(target, '/');
        if (!last)
                return;
        *last = '\0';
        char *parent = strrchr(target, '/');
        parent = parent ? parent + 1 : target;
        if (pcie_sysfs_name(parent, name, sizeof(name)) == 0 && strcmp(name, parent) == 0)
                snprintf(s->upstream, sizeof(s->upstream), "%s", name);
}

int pcie_read(const char *root, const char *name, struct pcie_state *ret)
{
        char canon[PCIE_NAME_MAX], rel[128], dir[4096];
        struct pcie_state s;
        struct stat st;
        memset(&s, 0, sizeof(s));
        if (pcie_sysfs_name(name, canon, sizeof(canon)) < 0 || strcmp(canon, name) != 0)
                return -EINVAL;
        snprintf(s.name, sizeof(s.name), "%s", name);
        s.link_width = s.max_link_width = NAN;
        s.rp_cor = s.rp_nonfatal = s.rp_fatal = NAN;
        s.vendor_id = s.device_id = -1;
        snprintf(rel, sizeof(rel), DEVICES_DIR "%s", name);
        if (path_join(dir, sizeof(dir), root, rel) < 0 || stat(dir, &st) < 0) {
                *ret = s;
                return -ENOENT;
        }
        s.present = true;
        read_attr(root, name, "current_link_speed", s.link_speed, sizeof(s.link_speed));
        read_attr(root, name, "max_link_speed", s.max_link_speed, sizeof(s.max_link_speed));
        s.link_width = read_number(root, name, "current_link_width");
        s.max_link_width = read_number(root, name, "max_link_width");
        read_aer(root, name, "aer_dev_correctable", &s.cor);
        read_aer(root, name, "aer_dev_nonfatal", &s.nonfatal);
        read_aer(root, name, "aer_dev_fatal", &s.fatal);
        s.rp_cor = read_number(root, name, "aer_rootport_total_err_cor");
        s.rp_nonfatal = read_number(root, name, "aer_rootport_total_err_nonfatal");
        s.rp_fatal = read_number(root, name, "aer_rootport_total_err_fatal");
        read_config(root, &s);
        read_upstream(dir, &s);
        *ret = s;
        return 0;
}

bool pcie_off_bus(const struct pcie_state *s)
{
        return s->present && s->config_error == 0 && s->vendor_id == 0xffff;
}

static void format_link(const struct pcie_state *s, struct strbuf *out)
{
        if (!s->link_speed[0] && !VAL_OK(s->link_width) && !s->max_link_speed[0] &&
            !VAL_OK(s->max_link_width))
                return;
        sb_printf(out, "  link: %s x", s->link_speed[0] ? s->link_speed : "?");
        if (VAL_OK(s->link_width))
                sb_printf(out, "%.0f", s->link_width);
        else
                sb_putc(out, '?');
        sb_printf(out, " (max %s x", s->max_link_speed[0] ? s->max_link_speed : "?");
        if (VAL_OK(s->max_link_width))
                sb_printf(out, "%.0f)\n", s->max_link_width);
        else
                sb_puts(out, "?)\n");
}

static void format_aer(const struct pcie_aer *a, const char *what, struct strbuf *out)
{
        if (!a->present)
                return;
        sb_printf(out, "  AER %s: %llu", what, (unsigned long long)a->total);
        unsigned kept = a->nnonzero < PCIE_AER_KEPT ? a->nnonzero : PCIE_AER_KEPT;
        for (unsigned i = 0; i < kept; i++)
                sb_printf(out, "%s%s %llu", i ? ", " : " (", a->nonzero[i].name,
                          (unsigned long long)a->nonzero[i].count);
        if (a->nnonzero > kept)
                sb_printf(out, ", %u more", a->nnonzero - kept);
        sb_puts(out, kept ? ")\n" : "\n");
}

static void format_rootport(const struct pcie_state *s, struct strbuf *out)
{
        const double v[3] = {s->rp_cor, s->rp_nonfatal, s->rp_fatal};
        static const char *const what[3] = {"correctable", "nonfatal", "fatal"};
        if (!VAL_OK(v[0]) && !VAL_OK(v[1]) && !VAL_OK(v[2]))
                return;
        sb_puts(out, "  AER messages received as root port:");
        for (int i = 0; i < 3; i++) {
                if (VAL_OK(v[i]))
                        sb_printf(out, " %s %.0f", what[i], v[i]);
                else
                        sb_printf(out, " %s ?", what[i]);
                sb_puts(out, i < 2 ? "," : "\n");
        }
}

void pcie_format(const struct pcie_state *s, const char *label, struct strbuf *out)
{
        sb_printf(out, "%s %s: ", label, s->name);
        if (!s->present) {
                sb_puts(out, "not in sysfs (removed from the bus, or never enumerated)\n");
                return;
        }
        if (s->config_error < 0)
                sb_printf(out, "config space not readable (%s)\n", strerror(-s->config_error));
        else if (pcie_off_bus(s))
                sb_puts(out, "config space reads 0xffff: the device no longer answers (off the "
                             "bus)\n");
        else if (s->device_id >= 0)
                sb_printf(out, "vendor 0x%04x, device 0x%04x\n", (unsigned)s->vendor_id,
                          (unsigned)s->device_id);
        else
                sb_printf(out, "vendor 0x%04x\n", (unsigned)s->vendor_id);
        format_link(s, out);
        format_aer(&s->cor, "correctable", out);
        format_aer(&s->nonfatal, "nonfatal", out);
        format_aer(&s->fatal, "fatal", out);
        format_rootport(s, out);
}

void pcie_snapshot(const char *root, const char *bus_id, struct strbuf *out)
{
        char name[PCIE_NAME_MAX];
        struct pcie_state s, up;
        if (pcie_sysfs_name(bus_id, name, sizeof(name)) < 0) {
                sb_printf(out, "(not a PCI bus id: %.40s)\n", bus_id ? bus_id : "(none)");
                return;
        }
        pcie_read(root, name, &s);
        pcie_format(&s, "device", out);
        if (!s.upstream[0])
                return;
        pcie_read(root, s.upstream, &up);
        pcie_format(&up, "upstream port", out);
}
