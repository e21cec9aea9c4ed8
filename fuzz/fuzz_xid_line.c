/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the NVIDIA Xid kernel log line (collect/xid_line.c) and the PCIe
 * AER counter file (collect/pcie.c), both pure text parsers. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/pcie.h"
#include "collect/xid_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct xid_line x;
        struct pcie_aer a;
        if (xid_parse_line((const char *)data, size, &x) == 0) {
                if (strlen(x.pci) == 0 || strlen(x.message) >= sizeof(x.message))
                        __builtin_trap();
        }
        if (pcie_parse_aer((const char *)data, size, &a) == 0 && !a.present)
                __builtin_trap();
        return 0;
}
