/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the kernel log's GPU lines (collect/gpu_klog.c), a pure text parser:
 * each input is fed as one record and, split at '\n', as several (the joiner). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/gpu_klog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct klog_event *e)
{
        char pci[24];
        if ((unsigned)e->kind >= KLOG_KIND_COUNT || strlen(e->detail) >= sizeof(e->detail) ||
            strlen(e->action) >= sizeof(e->action))
                __builtin_trap();
        if (e->have_pci && klog_pci_format(pci, sizeof(pci), &e->pci) < 12)
                __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *s = (const char *)data;
        struct klog_event e;
        struct klog_join j;
        struct klog_pci p;
        if (klog_parse_line(s, size, &e) == 0)
                check(&e);
        if (klog_pci_parse(s, size, &p) > size)
                __builtin_trap();
        memset(&j, 0, sizeof(j));
        for (size_t o = 0; o < size;) {
                const char *nl = memchr(s + o, '\n', size - o);
                size_t n = nl ? (size_t)(nl - (s + o)) : size - o;
                if (klog_join_feed(&j, s + o, n, &e) == 0)
                        check(&e);
                o += n + 1;
        }
        return 0;
}
