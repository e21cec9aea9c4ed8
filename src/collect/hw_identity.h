/* SPDX-License-Identifier: Apache-2.0 */
/* The machine's identity in its hardware, which a copied disk image does not carry:
 * two Raspberry Pis flashed from one SD card share /etc/machine-id and the host name,
 * not their SoC's serial number. Read once at start, under --root, by an unprivileged
 * service where it can (the first found wins):
 *
 *   /sys/firmware/devicetree/base/serial-number   "10000000a1b2c3d4\0"   (Raspberry Pi
 *   /proc/device-tree/serial-number               the same, older kernels  firmware)
 *   /proc/cpuinfo                                 "Serial\t\t: 10000000a1b2c3d4"
 *   /sys/class/dmi/id/product_uuid                "4c4c4544-0042-..."  (root only)
 *   /sys/class/dmi/id/product_serial              "CZ20401234"         (root only)
 *   /sys/class/dmi/id/board_serial                "/7T4Q2M3/CN1296..." (root only)
 *   /sys/class/net/IF/address                     "dc:a6:32:01:02:03", the permanent
 *       address (addr_assign_type 0, NET_ADDR_PERM in the kernel's netdevice.h) of a
 *       device-backed interface: the default route's (/proc/net/route), else the first
 *       by name.
 *
 * Values firmware ships unset ("To Be Filled By O.E.M.", "Default string", all zeros,
 * the well-known 03000200-0400-0500-0006-000700080009 UUID) are skipped. */
#ifndef VIGIL_COLLECT_HW_IDENTITY_H
#define VIGIL_COLLECT_HW_IDENTITY_H

#include <stdbool.h>

#define HW_ID_LEN 64 /* the identity and its NUL */

struct hw_identity {
        char id[HW_ID_LEN]; /* lower case, as read; "" when none */
        const char *source; /* "rpi_serial", "dmi_product_uuid", "dmi_product_serial",
                               "dmi_board_serial", "mac"; "" when none */
};

/* The identity of the machine under root ("" or "/" for this one) into *ret. 0, or
 * -ENOENT when no source gives one (*ret then holds "" and ""). */
int hw_identity_read(const char *root, struct hw_identity *ret);

/* True when value (as read, spaces trimmed) is one that firmware leaves unset. */
bool hw_identity_placeholder(const char *value);

#endif
