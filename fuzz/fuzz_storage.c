/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the storage health parsers (collect/storage_parse.c). The first
 * byte picks the parser and is the kernel-log prio: even, the input is a mounts table
 * looked up for the root and a log directory; odd, it is one kernel-log line's text. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/storage_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A field of the entry is a NUL-terminated string within its array. */
static void check_field(const char *s, size_t cap)
{
        if (memchr(s, '\0', cap) == NULL)
                __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size == 0)
                return 0;
        const char *s = (const char *)data + 1;
        size_t n = size - 1;
        if ((data[0] & 1) == 0) {
                static const char *const paths[] = {"/", "/var/log/vigil", "/media/usb stick/x"};
                for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
                        struct mount_entry e;
                        if (storage_mount_find(s, n, paths[i], &e) != 0)
                                continue;
                        check_field(e.device, sizeof(e.device));
                        check_field(e.mount, sizeof(e.mount));
                        check_field(e.fstype, sizeof(e.fstype));
                        size_t ml = strlen(e.mount);
                        /* the mount point covers the path */
                        if (ml == 0 || (ml > 1 && strncmp(e.mount, paths[i], ml) != 0))
                                __builtin_trap();
                }
                return 0;
        }
        char text[512];
        size_t len = n < sizeof(text) - 1 ? n : sizeof(text) - 1;
        memcpy(text, s, len);
        text[len] = '\0';
        int kind = storage_classify(data[0] >> 1, text);
        if (kind < -1 || kind >= STORAGE_ERR_COUNT)
                __builtin_trap();
        return 0;
}
