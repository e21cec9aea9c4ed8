/* SPDX-License-Identifier: Apache-2.0 */
/* Numbered sysfs entries. See sysfs_scan.h. */
#include "collect/sysfs_scan.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/pfile.h"

int sysfs_name_index(const char *name, const char *prefix, const char *suffix, unsigned *ret)
{
        size_t pl = strlen(prefix), sl = strlen(suffix), nl = strlen(name);
        if (nl <= pl + sl || memcmp(name, prefix, pl) != 0 ||
            memcmp(name + nl - sl, suffix, sl) != 0)
                return -EINVAL;
        const char *d = name + pl, *e = name + nl - sl;
        if (e - d > 1 && d[0] == '0')
                return -EINVAL;
        unsigned v = 0;
        for (; d < e; d++) {
                if (*d < '0' || *d > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned)(*d - '0');
                if (v > SYSFS_MAX_INDEX)
                        return -EINVAL;
        }
        *ret = v;
        return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
        unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
        return (x > y) - (x < y);
}

/* Keep the cap smallest indices: when full, replace the largest if idx is smaller. */
static void keep_smallest(unsigned *v, unsigned *n, unsigned cap, unsigned idx)
{
        if (*n < cap) {
                v[(*n)++] = idx;
                return;
        }
        unsigned max_i = 0;
        for (unsigned i = 1; i < cap; i++) {
                if (v[i] > v[max_i])
                        max_i = i;
        }
        if (idx < v[max_i])
                v[max_i] = idx;
}

int sysfs_scan_indices(const char *root, const char *dir, const char *prefix, const char *suffix,
                       unsigned *ret, unsigned cap)
{
        char full[4096];
        int r = path_join(full, sizeof(full), root, dir);
        if (r < 0)
                return r;
        DIR *d = opendir(full);
        if (!d)
                return -errno;
        unsigned n = 0;
        struct dirent *de;
        while (cap > 0 && (de = readdir(d)) != NULL) {
                unsigned idx;
                if (sysfs_name_index(de->d_name, prefix, suffix, &idx) == 0)
                        keep_smallest(ret, &n, cap, idx);
        }
        closedir(d);
        qsort(ret, n, sizeof(*ret), cmp_unsigned);
        return (int)n;
}
