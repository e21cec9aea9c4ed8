/* SPDX-License-Identifier: Apache-2.0 */
/* Loading a small config file. See conffile.h. */
#include "util/conffile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/pfile.h"

/* The directory of path: "" for a bare name, "/" for a file in the root. */
static void dir_of(const char *path, char *out, size_t cap)
{
        const char *slash = strrchr(path, '/');
        size_t dl = slash ? (size_t)(slash - path) : 0;
        if (slash && dl == 0)
                snprintf(out, cap, "/");
        else
                snprintf(out, cap, "%.*s", (int)dl, path);
}

int conf_load(const char *path, size_t max_bytes, conf_parse_fn parse, void *cfg, char *err,
              size_t cap)
{
        char dir[sizeof(((struct pfile *)0)->path)], msg[400];
        struct pfile f = {.fd = -1};
        struct stat st;
        const char *why = NULL;
        int r = pfile_open(&f, NULL, path, max_bytes + 2);
        /* A regular file (or a character device: /dev/null for "none"); a directory, or a
         * FIFO that would read as empty, is no config. */
        if (r >= 0 && fstat(f.fd, &st) < 0)
                r = -errno;
        else if (r >= 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
                why = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
                r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        }
        if (r >= 0)
                r = pfile_read(&f);
        if (why) {
                snprintf(err, cap, "%s: %s", path, why);
        } else if (r >= 0 && (size_t)r > max_bytes) {
                if (max_bytes % (1024 * 1024) == 0)
                        snprintf(err, cap, "%s: larger than %zu MB", path, max_bytes >> 20);
                else
                        snprintf(err, cap, "%s: larger than %zu bytes", path, max_bytes);
                r = -EFBIG;
        } else if (r < 0) {
                snprintf(err, cap, "%s: %s", path, strerror(-r));
        } else {
                dir_of(path, dir, sizeof(dir));
                msg[0] = '\0';
                r = parse(f.buf, f.len, dir, cfg, msg, sizeof(msg));
                if (r < 0)
                        snprintf(err, cap, "%s: %s", path, msg);
        }
        pfile_close(&f);
        return r < 0 ? r : 0;
}

int conf_resolve(char *out, size_t cap, const char *base_dir, const char *v)
{
        const char *base = v[0] != '/' && base_dir ? base_dir : "";
        size_t bl = strlen(base);
        const char *sep = bl && base[bl - 1] != '/' ? "/" : "";
        int n = snprintf(out, cap, "%s%s%s", base, sep, v);
        return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}
