/* SPDX-License-Identifier: Apache-2.0 */
/* ext4's own commit bound for a log directory's file system. See fs_commit.h. */
#include "util/fs_commit.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/clock.h"

/* True when the text holds the line exactly. */
static bool has_line(const char *text, size_t len, const char *line)
{
        size_t k = strlen(line);
        for (size_t i = 0; i + k <= len;) {
                if (memcmp(text + i, line, k) == 0 && (i + k == len || text[i + k] == '\n'))
                        return true;
                const char *nl = memchr(text + i, '\n', len - i);
                if (!nl)
                        break;
                i = (size_t)(nl - text) + 1;
        }
        return false;
}

/* The N of a "commit=N" line, or -1. */
static long commit_seconds(const char *text, size_t len)
{
        static const char key[] = "commit=";
        const size_t k = sizeof(key) - 1;
        for (size_t i = 0; i + k <= len;) {
                if (memcmp(text + i, key, k) == 0) {
                        long v = 0;
                        size_t j = i + k, d = j;
                        while (j < len && text[j] >= '0' && text[j] <= '9' && j - d < 9)
                                v = v * 10 + (text[j++] - '0');
                        return j > d && (j == len || text[j] == '\n') ? v : -1;
                }
                const char *nl = memchr(text + i, '\n', len - i);
                if (!nl)
                        break;
                i = (size_t)(nl - text) + 1;
        }
        return -1;
}

int64_t fs_commit_parse(const char *text, size_t len)
{
        if (!has_line(text, len, "data=ordered") || !has_line(text, len, "barrier") ||
            has_line(text, len, "nobarrier"))
                return 0;
        long s = commit_seconds(text, len);
        return s >= 1 ? (int64_t)s * NSEC_PER_SEC : 0;
}

int64_t fs_commit_of_dev(dev_t dev)
{
        char link[64], target[PATH_MAX], path[PATH_MAX + 64], text[4096];
        snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0)
                return 0;
        target[n] = '\0';
        const char *name = strrchr(target, '/');
        name = name ? name + 1 : target;
        if (!name[0])
                return 0;
        snprintf(path, sizeof(path), "/proc/fs/ext4/%s/options", name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        ssize_t got = read(fd, text, sizeof(text));
        close(fd);
        return got > 0 ? fs_commit_parse(text, (size_t)got) : 0;
}
