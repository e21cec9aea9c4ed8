/* SPDX-License-Identifier: Apache-2.0 */
/* The NVIDIA driver's Xid line in the kernel log, parsed:
 *   NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
 * Variants: without pid/name, without the "PCI:" prefix, with " GPU-I:NN" (a MIG
 * instance) after the bus id in the brackets. The pattern that takes them all:
 *   NVRM: Xid \(((PCI:)?[0-9a-fA-F:]+)[^)]*\).*?: ([0-9]+), */
#ifndef VIGIL_COLLECT_XID_LINE_H
#define VIGIL_COLLECT_XID_LINE_H

#include <stddef.h>
#include <stdint.h>

/* One Xid line as logged (what the code means is the catalog's: struct xid_info in
 * detect/xid_catalog.h). */
struct xid_line {
        char pci[32];      /* the bus id as logged, without "PCI:" ("0000:01:00") */
        char instance[24]; /* what follows the bus id in the brackets ("GPU-I:05"), or "" */
        unsigned code;     /* the Xid */
        int64_t pid;       /* -1 when absent or not a number ("'<unknown>'") */
        char name[64];     /* the process name, "" when absent (cut to fit) */
        char message[256]; /* the text after code, pid and name, trimmed (cut to fit) */
};

/* Parse the Xid line found anywhere in s[0..n) (s need not be NUL-terminated; only
 * the line holding "NVRM: Xid (" is read). Pure and bounded. 0, or -EINVAL when
 * there is no well-formed Xid line (*ret is then untouched). */
int xid_parse_line(const char *s, size_t n, struct xid_line *ret);

#endif
