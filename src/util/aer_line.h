/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe Advanced Error Reporting lines of the kernel log, told apart by the device they
 * are about. The kernel's drivers/pci/pcie/aer.c prints, for an error a GPU at
 * 0000:01:00.0 behind the root port 0000:00:01.1 reported (pci_info and pci_printk
 * prefix the driver's name and the device's name, and pci_info adds aer.c's dev_fmt
 * "AER: "):
 *   pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0
 *                                              (aer_print_port_info; since 6.16
 *                                               "... error message received from ...")
 *   nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)
 *   nvidia 0000:01:00.0:   device [10de:2330] error status/mask=00000001/0000e000
 *   nvidia 0000:01:00.0:    [ 0] RxErr                  (First)
 *                                              (aer_print_error, __aer_print_error)
 * Pure functions on one line; nothing here reads a file. */
#ifndef VIGIL_UTIL_AER_LINE_H
#define VIGIL_UTIL_AER_LINE_H

#include <stdbool.h>
#include <stddef.h>

#define AER_BDF_LEN 13 /* "0000:01:00.0" and its NUL */

/* The kernel's name of a PCI device ("0000:01:00.0", lower case) from NVML's bus id
 * ("00000000:01:00.0", an 8-digit domain, hex in either case) or from the kernel's own
 * form, into out (cap >= AER_BDF_LEN). 0, or -EINVAL when s is neither (out is ""). */
int aer_bdf_from_bus_id(const char *s, char *out, size_t cap);

/* True when the kernel log line s[0..n) is an AER line about the device bdf (the
 * kernel's form, "0000:01:00.0"): one the device logged itself (its name, then "AER: ",
 * "PCIe Bus Error", or one of the lines aer_print_error writes after that one), or one a
 * port logged on receiving an error message from it. Any prefix (a time stamp, a host
 * name, "kernel: ", "[  12.345678]") may come before. Case-insensitive on the hex. */
bool aer_line_of_device(const char *s, size_t n, const char *bdf);

#endif
