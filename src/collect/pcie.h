/* SPDX-License-Identifier: Apache-2.0 */
/* The PCIe state of one device, from sysfs alone (no lspci/setpci):
 * ROOT/sys/bus/pci/devices/DDDD:BB:DD.F/{current,max}_link_{speed,width},
 * aer_dev_{correctable,nonfatal,fatal}, aer_rootport_total_err_* and config (the
 * first two bytes are the vendor id, little-endian; 0xffff means the device no
 * longer answers: it is off the bus). The upstream bridge is found from the sysfs
 * link (../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0) and read the same way:
 * when an endpoint fails, the errors are often counted at its root port. */
#ifndef VIGIL_COLLECT_PCIE_H
#define VIGIL_COLLECT_PCIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

#define PCIE_NAME_MAX 24 /* "0000:01:00.0" and domains up to 8 hex digits */
#define PCIE_AER_KEPT 8  /* nonzero AER counters kept by name */

struct pcie_aer_count {
        char name[40]; /* "Receiver Error", "BadTLP" (the kernel's spelling varies) */
        uint64_t count;
};

/* One aer_dev_* file: "NAME COUNT" lines (NAME may hold spaces), ending with a
 * TOTAL_ERR_COR / TOTAL_ERR_FATAL / TOTAL_ERR_NONFATAL line. */
struct pcie_aer {
        bool present;      /* the file was read and parsed */
        uint64_t total;    /* the TOTAL_ERR_* line, or the sum when it is missing */
        unsigned nnonzero; /* nonzero counters other than the total */
        struct pcie_aer_count nonzero[PCIE_AER_KEPT]; /* the first PCIE_AER_KEPT of them */
};

struct pcie_state {
        char name[PCIE_NAME_MAX]; /* sysfs name, "0000:01:00.0" */
        bool present;             /* the sysfs directory exists */
        char link_speed[32];      /* current_link_speed as written ("16.0 GT/s PCIe"); "" missing */
        char max_link_speed[32];
        double link_width; /* lanes; NAN when missing */
        double max_link_width;
        int vendor_id;    /* from config; -1 when config could not be read */
        int device_id;    /* -1 when unknown */
        int config_error; /* -errno of the config read, 0 when read */
        struct pcie_aer cor, nonfatal, fatal;
        /* aer_rootport_total_err_{cor,nonfatal,fatal}: root ports only; NAN missing */
        double rp_cor, rp_nonfatal, rp_fatal;
        char upstream[PCIE_NAME_MAX]; /* the bridge above it, "" when none or unknown */
};

/* NVML's bus id ("00000000:01:00.0", upper-case hex, 8-digit domain) to the sysfs
 * name ("0000:01:00.0", lower-case, at least 4-digit domain). "01:00.0" (no domain)
 * means domain 0. Pure. 0, -EINVAL (not a bus id) or -ENOSPC (cap too small). */
int pcie_sysfs_name(const char *bus_id, char *out, size_t cap);

/* True when a and b name the same device: domain, bus and device compared as
 * numbers, the function only when both give one. Takes NVML ids, sysfs names and the
 * Xid line's "0000:01:00" or "PCI:0000:01:00". Pure. */
bool pcie_same_device(const char *a, const char *b);

/* Parse one aer_dev_* file's text s[0..n) (need not be NUL-terminated). Pure,
 * bounded. 0, or -EINVAL when no line has a count. */
int pcie_parse_aer(const char *s, size_t n, struct pcie_aer *ret);

/* Read the state of sysfs device name under root ("" or NULL: /). Every file is
 * optional: what cannot be read stays missing. 0, -EINVAL (bad name) or -ENOENT
 * (no such device in sysfs; ret->present is false and ret->name is set). */
int pcie_read(const char *root, const char *name, struct pcie_state *ret);

/* True when the config space answered with all ones (vendor 0xffff): off the bus. */
bool pcie_off_bus(const struct pcie_state *s);

/* Append a readable block for a snapshot, first line "LABEL NAME: ...", e.g.
 *   device 0000:01:00.0: vendor 0x10de, device 0x2684
 *     link: 16.0 GT/s PCIe x16 (max 16.0 GT/s PCIe x16)
 *     AER correctable: 3 (Receiver Error 2, Bad TLP 1)
 * label is "device" or "upstream port". */
void pcie_format(const struct pcie_state *s, const char *label, struct strbuf *out);

/* The whole snapshot section for the GPU at NVML bus id bus_id: the device's block,
 * then its upstream port's block when there is one. Bad ids and missing devices
 * give one explanatory line. */
void pcie_snapshot(const char *root, const char *bus_id, struct strbuf *out);

#endif
