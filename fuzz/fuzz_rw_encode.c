/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the remote-write encoder (push/rw_proto.c) on an arbitrary queue
 * payload, as the queue could hand it back: a sample record (push/rw_record.c) or an
 * older vigil's exposition text in, a WriteRequest out, every length prefix within the
 * buffer. The input is added twice (two frames) to group samples. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "push/rw_proto.h"
#include "push/rw_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Walk one level of length-delimited fields; trap when one runs past the end. */
static void walk(const uint8_t *b, size_t len)
{
        size_t i = 0;
        while (i < len) {
                uint8_t tag = b[i++];
                if ((tag & 7) != 2)
                        __builtin_trap();
                uint64_t n = 0;
                for (unsigned shift = 0;; shift += 7) {
                        if (i >= len || shift > 63)
                                __builtin_trap();
                        n |= (uint64_t)(b[i] & 0x7f) << shift;
                        if (!(b[i++] & 0x80))
                                break;
                }
                if (n > len - i)
                        __builtin_trap();
                i += n;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const struct rw_label extra[] = {{"job", "vigil"}, {"site", "x"}};
        struct rw_encoder e;
        uint8_t *buf;
        size_t len;
        if (rw_enc_init(&e, extra, 2) < 0)
                return 0;
        if (rw_enc_add_payload(&e, (const char *)data, size, 1000) == 0 &&
            rw_enc_add_payload(&e, (const char *)data, size, 2000) == 0 &&
            rw_enc_finish(&e, &buf, &len) == 0) {
                walk(buf, len);
                free(buf);
        }
        rw_enc_free(&e);
        return 0;
}
