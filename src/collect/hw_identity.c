/* SPDX-License-Identifier: Apache-2.0 */
/* The machine's identity in its hardware. See hw_identity.h.
 *
 *   /proc/cpuinfo (Raspberry Pi 4):  Serial          : 10000000a1b2c3d4
 *   /proc/net/route:  Iface Destination Gateway ...   eth0 00000000 0101A8C0 ...
 */
#include "collect/hw_identity.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "util/pfile.h"

/* What firmware writes where nobody set a value (SMBIOS strings of board vendors'
 * templates), compared without case. */
static const char *const placeholders[] = {
    "to be filled by o.e.m.",
    "default string",
    "not specified",
    "not applicable",
    "none",
    "n/a",
    "unknown",
    "system serial number",
    "chassis serial number",
    "base board serial number",
    "0123456789",
    "03000200-0400-0500-0006-000700080009",
};

bool hw_identity_placeholder(const char *v)
{
        bool filler = true; /* only 0, f, -, :, space */
        for (const char *p = v; *p; p++)
                filler &= strchr("0fF-: ", *p) != NULL;
        if (!v[0] || filler)
                return true;
        for (size_t i = 0; i < sizeof(placeholders) / sizeof(placeholders[0]); i++)
                if (!strcasecmp(v, placeholders[i]))
                        return true;
        return false;
}

/* v (NUL-terminated) trimmed of spaces and control bytes, lower-cased, into ret->id
 * with source, unless a placeholder or unprintable. */
static bool take(struct hw_identity *ret, const char *v, const char *source)
{
        while (*v == ' ' || *v == '\t')
                v++;
        size_t n = strcspn(v, "\n\r");
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\0'))
                n--;
        if (n == 0 || n >= HW_ID_LEN)
                return false;
        char id[HW_ID_LEN];
        for (size_t i = 0; i < n; i++) {
                if (!isprint((unsigned char)v[i]) || v[i] == '"' || v[i] == '\\')
                        return false;
                id[i] = (char)tolower((unsigned char)v[i]);
        }
        id[n] = '\0';
        if (hw_identity_placeholder(id))
                return false;
        memcpy(ret->id, id, n + 1);
        ret->source = source;
        return true;
}

static bool from_file(const char *root, const char *path, struct hw_identity *ret,
                      const char *source)
{
        char buf[256];
        int n = read_file_at(root, path, buf, sizeof(buf));
        return n > 0 && take(ret, buf, source); /* a device-tree string ends in NUL */
}

/* The Serial line of /proc/cpuinfo (Raspberry Pi kernels add it). */
static bool from_cpuinfo(const char *root, struct hw_identity *ret)
{
        char *buf = malloc(65536);
        bool found = false;
        if (buf && read_file_at(root, "/proc/cpuinfo", buf, 65536) > 0) {
                for (char *l = buf; l && *l && !found; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                        if (strncmp(l, "Serial", 6) != 0)
                                continue;
                        char *colon = strchr(l, ':');
                        char *eol = strchr(l, '\n');
                        if (colon && (!eol || colon < eol))
                                found = take(ret, colon + 1, "rpi_serial");
                }
        }
        free(buf);
        return found;
}

/* The interface of the default route in /proc/net/route into out ("" when none). */
static void default_iface(const char *root, char *out, size_t cap)
{
        char buf[8192];
        out[0] = '\0';
        if (read_file_at(root, "/proc/net/route", buf, sizeof(buf)) <= 0)
                return;
        char iface[32], dest[16];
        for (char *l = strchr(buf, '\n'); l && *++l; l = strchr(l, '\n'))
                if (sscanf(l, "%31s %15s", iface, dest) == 2 && !strcmp(dest, "00000000")) {
                        snprintf(out, cap, "%s", iface);
                        return;
                }
}

/* The permanent address of interface name, when it is backed by a device. */
static bool iface_mac(const char *root, const char *name, struct hw_identity *ret)
{
        char path[300], buf[64], full[4096];
        struct stat st;
        snprintf(path, sizeof(path), "/sys/class/net/%s/device", name); /* not virtual */
        if (path_join(full, sizeof(full), root, path) < 0 || stat(full, &st) < 0)
                return false;
        snprintf(path, sizeof(path), "/sys/class/net/%s/addr_assign_type", name);
        if (read_line_at(root, path, buf, sizeof(buf)) < 0 || strcmp(buf, "0") != 0)
                return false;
        snprintf(path, sizeof(path), "/sys/class/net/%s/address", name);
        return from_file(root, path, ret, "mac");
}

static int name_cmp(const void *a, const void *b)
{
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool from_nic(const char *root, struct hw_identity *ret)
{
        char def[32], dir[4096];
        default_iface(root, def, sizeof(def));
        if (def[0] && iface_mac(root, def, ret))
                return true;
        if (path_join(dir, sizeof(dir), root, "/sys/class/net") < 0)
                return false;
        DIR *d = opendir(dir);
        if (!d)
                return false;
        char names[64][64];
        const char *order[64];
        size_t n = 0;
        for (struct dirent *e; n < 64 && (e = readdir(d));)
                if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof(names[0])) {
                        memcpy(names[n], e->d_name, strlen(e->d_name) + 1); /* fits: above */
                        order[n] = names[n];
                        n++;
                }
        closedir(d);
        qsort(order, n, sizeof(order[0]), name_cmp);
        for (size_t i = 0; i < n; i++)
                if (iface_mac(root, order[i], ret))
                        return true;
        return false;
}

int hw_identity_read(const char *root, struct hw_identity *ret)
{
        ret->id[0] = '\0';
        ret->source = "";
        if (from_file(root, "/sys/firmware/devicetree/base/serial-number", ret, "rpi_serial") ||
            from_file(root, "/proc/device-tree/serial-number", ret, "rpi_serial") ||
            from_cpuinfo(root, ret) ||
            from_file(root, "/sys/class/dmi/id/product_uuid", ret, "dmi_product_uuid") ||
            from_file(root, "/sys/class/dmi/id/product_serial", ret, "dmi_product_serial") ||
            from_file(root, "/sys/class/dmi/id/board_serial", ret, "dmi_board_serial") ||
            from_nic(root, ret))
                return 0;
        return -ENOENT;
}
