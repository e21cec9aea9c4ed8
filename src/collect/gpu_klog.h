/* SPDX-License-Identifier: Apache-2.0 */
/* GPU failures as the kernel log tells them: the NVIDIA driver's, the NVSwitch
 * driver's and the PCIe AER driver's lines, each parsed into one event with the PCI
 * address it names. The formats, with where they are printed (open-gpu-kernel-modules
 * 595.45.04 unless said otherwise; Linux drivers/pci/pcie/aer.c and drivers/base/dd.c):
 *
 *   xid             NVRM: Xid (PCI:0000:01:00): 13, pid=1234, name=python3, Graphics ...
 *                   (src/nvidia/src/kernel/gpu/rc/kernel_rc.c:388, collect/xid_line.h)
 *   recovery_action NVRM: Xid (PCI:0000:01:00): 154, pid=..., GPU recovery action changed
 *                   from 0x0 (None) to 0x1 (GPU Reset Required)   (gpu/gpu.c:7258, names 7130)
 *   sxid            nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 ...
 *                   (src/common/nvswitch/kernel/inc/common_nvswitch.h:163)
 *   fallen_off_bus  NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.
 *                   (src/nvidia/arch/nvalloc/unix/src/osinit.c:374, after an Xid 79)
 *                   NVRM: The NVIDIA GPU 0000:b3:00.0
 *                   NVRM: (PCI ID: 10de:26b5) installed in this system has
 *                   NVRM: fallen off the bus and is not responding to commands.
 *                   (osapi.c:3659, at probe, no Xid; one printk with two '\n', which
 *                   /dev/kmsg shows as one record with "\x0a", older kernels as three)
 *                   NVRM: GPU at 0000:01:00.0 has fallen off the bus.   (older drivers)
 *   init_failed     NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)
 *                   (osinit.c:2417); NVRM: GPU 0000:01:00.0: rm_init_adapter failed,
 *                   device minor number 0 (kernel-open/nvidia/nv.c:1527); the driver
 *                   core's "nvidia 0000:01:00.0: probe with driver nvidia failed with
 *                   error -1" (dd.c, 6.x) or "nvidia: probe of 0000:01:00.0 failed with
 *                   error -1" (dd.c, before 6.x)
 *   gsp_timeout     NVRM: Timeout after 45s of waiting for RPC response from GPU0 GSP!
 *                   Expected function 76 (GSP_RM_CONTROL) sequence 9 (0x20801702 0x4).
 *                   (gpu/gsp/kernel_gsp.c:2386, printed without an Xid when the timeout
 *                   is not classified as Xid 119: NV_ERROR_LOG_COND, printf.h:256), and
 *                   the other lines of a GSP failure (see parse_gsp in gpu_klog.c for
 *                   each form and where it is printed): the "GSP Timeout" banner, the
 *                   heartbeat lines, "GSP-RM unresponsive", the rate-limit line that
 *                   says the GPU needs a reset (KLOG_F_RESET)
 *   init_failed     also "NVRM: The NVIDIA probe routine failed for 1 device(s)."
 *                   (kernel-open/nvidia/nv.c:968, no address) and the GSP boot's "(the
 *                   GPU is likely in a bad state and may need to be reset)" (KLOG_F_RESET)
 *   aer_corrected   nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected,
 *   aer_nonfatal      type=Physical Layer, (Receiver ID)   (aer.c aer_print_error();
 *   aer_fatal         severity "Corrected", "Uncorrected (Non-Fatal)", "Uncorrected (Fatal)",
 *                     from 6.16 "Correctable", "Uncorrectable (...)"), the root port's
 *                     "AER: Uncorrected (Fatal) error received: 0000:01:00.0" (the device
 *                     it names), and "nvidia 0000:01:00.0: AER: can't recover (no
 *                     error_detected callback)" (err.c: KLOG_F_NOT_RECOVERED, aer_fatal),
 *                     and firmware-first errors: "nvidia 0000:01:00.0: AER: aer_status:
 *                     0x00004000, aer_mask: 0x0" after "[Hardware Error]: event severity:
 *                     recoverable" (aer.c cper_print_aer(), efi/cper.c; klog_join_feed)
 *
 * Pure and bounded: parsers of one record's text, and a joiner for the message the
 * kernel split over several records. */
#ifndef VIGIL_COLLECT_GPU_KLOG_H
#define VIGIL_COLLECT_GPU_KLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum klog_kind {
        KLOG_XID,
        KLOG_RECOVERY_ACTION, /* Xid 154 */
        KLOG_SXID,
        KLOG_FALLEN_OFF_BUS,
        KLOG_INIT_FAILED,
        KLOG_GSP_TIMEOUT,
        KLOG_AER_CORRECTED,
        KLOG_AER_NONFATAL,
        KLOG_AER_FATAL,
        KLOG_KIND_COUNT
};

/* snake_case names, indexed by enum klog_kind: "xid", "recovery_action", "sxid",
 * "fallen_off_bus", "init_failed", "gsp_timeout", "aer_corrected", "aer_nonfatal",
 * "aer_fatal" (events.log and /metrics label values). */
extern const char *const klog_kind_names[KLOG_KIND_COUNT];

/* A PCI address, as the lines write it: "0000:01:00" (an Xid's, no function),
 * "0000:01:00.0", "00000000:01:00.0" (NVML's). */
struct klog_pci {
        uint32_t domain;
        unsigned bus, dev;
        int fn; /* -1 when the text had none */
};

/* Parse a PCI address at the start of s[0..n): "[DOMAIN:]BB:DD[.F]" in hex. Returns
 * the bytes taken, or 0 when s does not start with one (*ret then untouched). */
size_t klog_pci_parse(const char *s, size_t n, struct klog_pci *ret);
/* "DDDD:BB:DD.F" (function 0 when unknown) into out; the length written. */
size_t klog_pci_format(char *out, size_t cap, const struct klog_pci *p);
/* The same device: domain, bus and device equal, and the function when both have one. */
bool klog_pci_same(const struct klog_pci *a, const struct klog_pci *b);

#define KLOG_DETAIL_MAX 160

struct klog_event {
        enum klog_kind kind;
        bool have_pci;
        struct klog_pci pci;
        unsigned code;    /* Xid or SXid code; 0 for the other kinds */
        int gpu_instance; /* gsp_timeout: the driver's "GPU%d" (not NVML's index); -1 */
        /* recovery_action: NONE, GPU_RESET, NODE_REBOOT, DRAIN_P2P, DRAIN_AND_RESET,
         * RECOVER_IMEX_DOMAIN or UNKNOWN; "" for the other kinds */
        char action[24];
        unsigned flags;               /* KLOG_F_* */
        char detail[KLOG_DETAIL_MAX]; /* the message after the address and code, trimmed */
};

#define KLOG_F_RESET         0x1u  /* the text asks for a GPU reset */
#define KLOG_F_NOT_RECOVERED 0x2u  /* aer_fatal: the kernel could not recover the device */
#define KLOG_F_FATAL         0x4u  /* sxid: the driver calls it "Fatal" */
#define KLOG_F_CONTINUATION  0x8u  /* sxid: a "Severity ..." or "Data {...}" line of one */
#define KLOG_F_FROM_PORT     0x10u /* aer: the root port's "error received" line */
#define KLOG_F_AFTER_PORT    0x20u /* aer: the device's line of the error that line named */
#define KLOG_F_NVIDIA        0x40u /* aer: printed for a device the nvidia driver holds */

/* Classify one record's text s[0..n) (the text /dev/kmsg gives, control bytes escaped
 * as \xNN). 0 and *ret filled, or -ENOENT when the line is none of the kinds above
 * (the first line of a split fallen-off-the-bus message is none: see klog_join). */
int klog_parse_line(const char *s, size_t n, struct klog_event *ret);

/* One message printed over several records, for KLOG_JOIN_WINDOW records (a firmware-
 * first AER error: KLOG_GHES_WINDOW): the 570.x
 * fallen-off-the-bus message ("NVRM: The NVIDIA GPU <address>" first); an SXid's
 * "Severity ..." and "Data {...}" lines after its first (error_nvswitch.c:43-67); the
 * device's "PCIe Bus Error" lines after the root port's "error received" line for it
 * (aer.c aer_isr_one_error(): aer_print_port_info(), then aer_print_error() per
 * device). Zero it to start. */
#define KLOG_JOIN_WINDOW 4
struct klog_join {
        bool pending;
        struct klog_pci pci;
        unsigned left;            /* records still awaited */
        struct klog_pci sxid_pci; /* the last SXid's first line */
        unsigned sxid_code, sxid_left;
        struct klog_pci aer_pci; /* the last "error received" line's device */
        enum klog_kind aer_kind;
        unsigned aer_left;
        enum klog_kind ghes_kind; /* the firmware's last "event severity" (see gpu_klog.c) */
        unsigned ghes_left;
};
#define KLOG_GHES_WINDOW 32 /* records from the firmware's record to the AER driver's lines */

/* Feed one record's text: klog_parse_line(), and the message joined: 0 and *ret filled
 * when the record is an event of its own, -ENOENT otherwise (a line of a message whose
 * event was given already, or no GPU line). The device's AER line after the port's
 * line for it is given, marked KLOG_F_AFTER_PORT: the caller, who knows whether it took
 * the port's line, decides. */
int klog_join_feed(struct klog_join *j, const char *s, size_t n, struct klog_event *ret);

#endif
