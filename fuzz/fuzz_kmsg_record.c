/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: one /dev/kmsg record (collect/kmsg.c kmsg_parse_record). Seed the
 * corpus with the lines of tests/fixtures/kmsg/dev/kmsg. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct kmsg_record r;
        if (kmsg_parse_record((const char *)data, size, &r) == 0) {
                /* The result is a bounded, NUL-terminated string of the stated length. */
                if (r.len >= KMSG_TEXT_MAX || strlen(r.text) != r.len)
                        __builtin_trap();
        }
        return 0;
}
