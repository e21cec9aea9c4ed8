/* SPDX-License-Identifier: Apache-2.0 */
/* The Xid catalog: one row per code (or run of codes alike), every code NVIDIA's Xid
 * catalog lists, with its resolution bucket (immediate action) as the catalog gives it:
 *   NVIDIA, "Analyzing Xid Errors with the Xid Catalog", Table 1 "Xids",
 *   https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html
 * The meanings are the catalog's descriptions (the mnemonic's sense for the codes it calls
 * "Unused": deprecated, or Volta and older only). The actions are the bucket's, in words,
 * with the catalog's trigger-condition advice where it gives some, and vigil's own where
 * the reference logger leans on it (62 -> 45 -> 119 -> 154, FACTS.md).
 *
 * Codes 162-172 are listed without an immediate action (XID_BUCKET_NONE); their class is
 * vigil's, said at each row: 171/172 are details of Xid 48 (open-gpu-kernel-modules logs
 * 172 beside 48 in kgspEccServiceUncorrErrorIndex_*, which can mark the GPU for reset), 169 is
 * the catalog's "Internal micro-controller halt" as 62 is (RESET_GPU), 167 is a fatal
 * timeout as 158 is (RESET_GPU). */
#include "detect/xid_catalog.h"

#include <errno.h>

#define BUG_REPORT "if it repeats, collect a bug report (nvidia-bug-report.sh)"
#define SUPPORT    "collect a bug report (nvidia-bug-report.sh) and contact support"
#define M_UNUSED   "unused on current GPUs (deprecated, or Volta and older)"
#define A_UNUSED   "none expected on current GPUs: " SUPPORT
#define A_APP      "restart the application; " BUG_REPORT
#define A_VIDEO    "restart the application using the video engine; " BUG_REPORT
#define A_RESET    "reset the GPU (nvidia-smi -r) or reboot"
#define A_NONE     "none"
#define A_NONE_BR  "none; " BUG_REPORT

/* clang-format off */
#define UNUSED(a, b) {a, b, M_UNUSED, A_UNUSED, XID_CLASS_SERVICE, XID_BUCKET_CONTACT_SUPPORT}
#define APP(a, b, m) {a, b, m, A_APP, XID_CLASS_APP, XID_BUCKET_RESTART_APP}
#define VIDEO(a, b, m) {a, b, m, A_VIDEO, XID_CLASS_APP, XID_BUCKET_RESTART_APP}
#define IGNORE(a, b, m, act) {a, b, m, act, XID_CLASS_INFO, XID_BUCKET_IGNORE}
#define RESET(a, b, m, act) {a, b, m, act, XID_CLASS_RESET, XID_BUCKET_RESET_GPU}
/* clang-format on */

static const struct xid_info xid_table[] = {
    UNUSED(1, 7),
    APP(8, 8, "GPU stopped processing (channel idle timeout)"),
    UNUSED(9, 10),
    APP(11, 11, "invalid or corrupted push buffer stream"),
    UNUSED(12, 12),
    APP(13, 13, "graphics engine exception"),
    IGNORE(14, 14, "fake or injected error (from user space)", A_NONE),
    UNUSED(15, 24),
    APP(25, 25, "invalid or illegal push buffer stream"),
    UNUSED(26, 30),
    APP(31, 31, "GPU memory page fault"),
    APP(32, 32, "corrupted push buffer"),
    UNUSED(33, 36),
    IGNORE(37, 38, "driver firmware error", A_NONE_BR),
    APP(39, 41, "copy engine (CE0-CE2) exception"),
    UNUSED(42, 42),
    IGNORE(43, 43, "GPU stopped processing",
           "none: the application hit a software-induced fault and was stopped; the GPU "
           "stays healthy"),
    IGNORE(44, 44, "graphics engine fault during context switch", A_NONE_BR),
    {45, 45, "preemptive cleanup after earlier errors",
     "none of its own: see the Xid before it, which caused it", XID_CLASS_INFO,
     XID_BUCKET_WORKFLOW_XID_45},
    RESET(46, 46, "GPU stopped processing (GPU timeout)", A_RESET),
    UNUSED(47, 47),
    {48, 48, "double-bit ECC error",
     "reset the GPU (nvidia-smi -r) or reboot, then check the remapped rows", XID_CLASS_RESET,
     XID_BUCKET_WORKFLOW_XID_48},
    UNUSED(49, 53),
    {54, 54, "auxiliary power is not connected to the GPU board",
     "check the board's seating and its auxiliary power connections", XID_CLASS_SERVICE,
     XID_BUCKET_CHECK_MECHANICALS},
    UNUSED(55, 59),
    VIDEO(60, 60, "video processor (SEC2) exception"),
    {61, 61, "PMU breakpoint (unused on current GPUs)", "watch for Xid 62 next; " SUPPORT,
     XID_CLASS_SERVICE, XID_BUCKET_CONTACT_SUPPORT},
    RESET(62, 62, "internal micro-controller (PMU) halt", A_RESET),
    IGNORE(63, 63, "row-remap / page-retirement event",
           "none: informational; watch the remapped-row counters"),
    RESET(64, 64, "row-remap failure", A_RESET),
    UNUSED(65, 65),
    IGNORE(66, 67, "illegal access by the driver", A_NONE_BR),
    VIDEO(68, 68, "NVDEC error"),
    APP(69, 69, "graphics class error"),
    APP(70, 72, "copy engine (CE3-CE5) error"),
    UNUSED(73, 73),
    {74, 74, "NVLink error",
     "reset the GPU (nvidia-smi -r) or reboot; if it repeats, check the NVLink connections",
     XID_CLASS_RESET, XID_BUCKET_WORKFLOW_NVLINK_ERR},
    APP(75, 77, "copy engine (CE6-CE8) error"),
    {78, 78, "vGPU start error",
     "update the driver and firmware; check that the guest driver suits the host's and the "
     "vGPU type suits the guest",
     XID_CLASS_SERVICE, XID_BUCKET_UPDATE_SWFW},
    {79, 79, "GPU has fallen off the bus",
     "reboot the machine; if it repeats, check the PCIe slot and riser, the power supply and "
     "cooling",
     XID_CLASS_REBOOT, XID_BUCKET_RESTART_BM},
    APP(80, 80, "corrupted data sent to the GPU (push buffer CRC mismatch)"),
    UNUSED(81, 81),
    VIDEO(82, 82, "NVJPG0 (JPEG engine) error"),
    VIDEO(83, 84, "NVDEC1-NVDEC2 error"),
    APP(85, 85, "copy engine (CE9) error"),
    VIDEO(86, 86, "OFA (optical flow) exception"),
    UNUSED(87, 87),
    VIDEO(88, 89, "NVDEC3-NVDEC4 error"),
    UNUSED(90, 91),
    IGNORE(92, 92, "excessive single-bit ECC rate",
           "none: watch the ECC and remapped-row counters; plan a GPU reset"),
    IGNORE(93, 93, "InfoROM wear limit exceeded (non-fatal)",
           "none; to recover, clear the InfoROM erase limit (nvflash --elsessionclear)"),
    APP(94, 94, "contained memory error"),
    RESET(95, 95, "uncontained memory error", A_RESET),
    VIDEO(96, 98, "NVDEC5-NVDEC7 error"),
    VIDEO(99, 105, "NVJPG1-NVJPG7 (JPEG engine) error"),
    IGNORE(106, 107, "SMBPBI test message", A_NONE),
    IGNORE(108, 108, "NVLink remote translation error (unused)", A_NONE),
    RESET(109, 109, "context-switch timeout", A_RESET),
    RESET(110, 110, "security fault error",
          "reset the GPU (nvidia-smi -r) or reboot; if it repeats, undo recent hardware "
          "changes and cold-reset the machine"),
    UNUSED(111, 118),
    RESET(119, 119, "GSP RPC timeout", A_RESET),
    RESET(120, 120, "GSP error", A_RESET),
    IGNORE(121, 121, "C2C error (corrected)",
           "none: corrected by the system; reset the GPU at a service window to retrain the "
           "link"),
    UNUSED(122, 125),
    APP(126, 135, "copy engine (CE10-CE19) error"),
    RESET(136, 136, "NVLink link training failed", A_RESET),
    IGNORE(137, 137, "NVLink privilege error",
           "none for the GPU: an illegal NVLink peer-to-peer access, mostly an application "
           "bug (cuda-gdb, compute-sanitizer)"),
    UNUSED(138, 138),
    VIDEO(139, 139, "OFA1 (optical flow) error"),
    RESET(140, 140, "unrecoverable ECC error escape", A_RESET),
    IGNORE(141, 141, "CUDA fast path error", A_NONE_BR),
    {142, 142, "NVENC3 error", SUPPORT, XID_CLASS_SERVICE, XID_BUCKET_CONTACT_SUPPORT},
    RESET(143, 143, "GPU initialisation error", A_RESET),
    {144, 150, "NVLink-5 error",
     "decode it with NVIDIA's Xid 144-150 table (the fatal ones need a GPU reset and bring "
     "Xid 154); " BUG_REPORT,
     XID_CLASS_WATCH, XID_BUCKET_WORKFLOW_NVLINK5_ERR},
    {151, 151, "key-rotation error",
     "restart the VM that owns the GPU (no GPU reset or host reboot is needed)", XID_CLASS_REBOOT,
     XID_BUCKET_RESTART_VM},
    IGNORE(152, 152, "DLA SMMU error", A_NONE),
    IGNORE(153, 153, "DLA timeout error", A_NONE),
    {154, 154, "GPU recovery action changed",
     "see the Xid before it; do what the recovery action asks (reset or reboot)", XID_CLASS_INFO,
     XID_BUCKET_XID_154},
    RESET(155, 155, "NVLink software-defined error",
          "reset the GPU (nvidia-smi -r) or reboot; if the link was not taken down on purpose, "
          "find what did"),
    RESET(156, 156, "resource retirement event", A_RESET),
    IGNORE(157, 157, "resource retirement failure",
           "none: no spare resources left; work can go on, but the Xid may come again"),
    RESET(158, 158, "GPU fatal timeout", A_RESET),
    {159, 159, "CHI non-data error", "reset the GPU if UVM or vGPU is in use; otherwise none",
     XID_CLASS_WATCH, XID_BUCKET_CHECK_UVM},
    IGNORE(160, 160, "channel retirement event", A_NONE),
    IGNORE(161, 161, "channel retirement failure", A_NONE_BR),
    /* 162-172: listed without an immediate action; the actions are the catalog's
     * trigger-condition text where it has some. */
    {162, 162, "power-smoothing circuitry re-engaged", A_NONE, XID_CLASS_INFO, XID_BUCKET_NONE},
    {163, 163, "power-smoothing circuitry disengaged",
     "no GPU reset needed; to get power smoothing back, resolve the thermal events (after a "
     "timeout: reload the driver or reset the GPU)",
     XID_CLASS_WATCH, XID_BUCKET_NONE},
    {164, 164, "power-smoothing circuitry low lifetime",
     "watch the power swings: power smoothing will be disabled soon; plan to replace the GPU "
     "if it is needed",
     XID_CLASS_WATCH, XID_BUCKET_NONE},
    {165, 165, "power-smoothing circuitry lifetime exhausted",
     "power smoothing is disabled and power swings will occur: replace the GPU if they are "
     "not acceptable",
     XID_CLASS_WATCH, XID_BUCKET_NONE},
    {166, 166, "encrypted NVLink traffic before the link was set up for it (CC mode)",
     "confidential-computing mode only; " SUPPORT, XID_CLASS_SERVICE, XID_BUCKET_NONE},
    /* A fatal timeout, as 158 (RESET_GPU). */
    {167, 167, "PCIe fatal timeout",
     "reset the GPU (nvidia-smi -r) or reboot; if it repeats, check the PCIe slot and riser",
     XID_CLASS_RESET, XID_BUCKET_NONE},
    {168, 168, "errors in the write-protected region (reduced GPU memory capacity)",
     "enable ECC (for row remapping), or boot again with the region shifted", XID_CLASS_SERVICE,
     XID_BUCKET_NONE},
    /* The catalog's "Internal micro-controller halt", as 62 (RESET_GPU). */
    {169, 169, "internal micro-controller (SEC2) halt", A_RESET, XID_CLASS_RESET, XID_BUCKET_NONE},
    {170, 170, "interrupt seen in confidential-computing mode",
     "confidential-computing mode only; " SUPPORT, XID_CLASS_SERVICE, XID_BUCKET_NONE},
    /* "Additional to Xid 48": 48's workflow (alone: RESET_GPU). */
    {171, 171, "uncorrectable DRAM error (detail of Xid 48)",
     "as for Xid 48: reset the GPU (nvidia-smi -r) or reboot, then check the remapped rows",
     XID_CLASS_RESET, XID_BUCKET_NONE},
    {172, 172, "uncorrectable SRAM error (detail of Xid 48)",
     "as for Xid 48: reset the GPU (nvidia-smi -r) or reboot; when the SRAM error threshold is "
     "exceeded, run the field diagnostics",
     XID_CLASS_RESET, XID_BUCKET_NONE},
};

#define NENTRIES (sizeof(xid_table) / sizeof(xid_table[0]))

/* Per bucket: the catalog's name, its resolution action in words (the catalog's "Fault
 * Resolution Buckets" table), and the class it asks for. */
static const struct {
        const char *name, *text;
        enum xid_class cls;
} buckets[XID_BUCKET_COUNT] = {
    [XID_BUCKET_NONE] = {"NONE", "none given", XID_CLASS_SERVICE},
    [XID_BUCKET_IGNORE] = {"IGNORE", "no action required", XID_CLASS_INFO},
    [XID_BUCKET_RESTART_APP] = {"RESTART_APP", "restart the application", XID_CLASS_APP},
    [XID_BUCKET_RESET_GPU] = {"RESET_GPU", "reset the GPU", XID_CLASS_RESET},
    [XID_BUCKET_RESTART_VM] = {"RESTART_VM", "restart the VM that owns the GPU", XID_CLASS_REBOOT},
    [XID_BUCKET_RESTART_BM] = {"RESTART_BM", "restart the bare-metal machine", XID_CLASS_REBOOT},
    [XID_BUCKET_CONTACT_SUPPORT] = {"CONTACT_SUPPORT", "contact support", XID_CLASS_SERVICE},
    [XID_BUCKET_CHECK_MECHANICALS] = {"CHECK_MECHANICALS",
                                      "check the device's seating and connections",
                                      XID_CLASS_SERVICE},
    [XID_BUCKET_UPDATE_SWFW] = {"UPDATE_SWFW", "update software and firmware", XID_CLASS_SERVICE},
    [XID_BUCKET_CHECK_UVM] = {"CHECK_UVM", "with UVM or vGPU in use reset the GPU, else ignore",
                              XID_CLASS_WATCH},
    [XID_BUCKET_WORKFLOW_XID_45] = {"WORKFLOW_XID_45",
                                    "alone: restart Fabric Manager; else follow the other Xid",
                                    XID_CLASS_INFO},
    [XID_BUCKET_WORKFLOW_XID_48] = {"WORKFLOW_XID_48",
                                    "alone: reset the GPU; with Xid 63 or 64: drain and reset",
                                    XID_CLASS_RESET},
    [XID_BUCKET_WORKFLOW_NVLINK_ERR] = {"WORKFLOW_NVLINK_ERR",
                                        "decode its registers; a GPU reset or reboot clears it",
                                        XID_CLASS_RESET},
    [XID_BUCKET_WORKFLOW_NVLINK5_ERR] = {"WORKFLOW_NVLINK5_ERR",
                                         "decode it with the catalog's Xid 144-150 table",
                                         XID_CLASS_WATCH},
    [XID_BUCKET_XID_154] = {"XID_154", "follow what Xid 154 reports", XID_CLASS_INFO},
};

const struct xid_info *xid_lookup(unsigned code)
{
        /* Sorted, not overlapping (test_xid checks): a binary search. */
        size_t lo = 0, hi = NENTRIES;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (code < xid_table[mid].first)
                        hi = mid;
                else if (code > xid_table[mid].last)
                        lo = mid + 1;
                else
                        return &xid_table[mid];
        }
        return NULL;
}

const struct xid_info *xid_table_all(size_t *n)
{
        *n = NENTRIES;
        return xid_table;
}

const char *xid_class_name(enum xid_class cls)
{
        switch (cls) {
        case XID_CLASS_INFO:
                return "info";
        case XID_CLASS_APP:
                return "application";
        case XID_CLASS_WATCH:
                return "watch";
        case XID_CLASS_RESET:
                return "reset";
        case XID_CLASS_REBOOT:
                return "reboot";
        case XID_CLASS_SERVICE:
                return "service";
        }
        return "unknown";
}

enum xid_class xid_bucket_class(enum xid_bucket b)
{
        return (unsigned)b < XID_BUCKET_COUNT ? buckets[b].cls : XID_CLASS_SERVICE;
}

const char *xid_bucket_name(enum xid_bucket b)
{
        return (unsigned)b < XID_BUCKET_COUNT ? buckets[b].name : "unknown";
}

const char *xid_bucket_text(enum xid_bucket b)
{
        return (unsigned)b < XID_BUCKET_COUNT ? buckets[b].text : "unknown";
}

enum xid_severity xid_class_severity(enum xid_class cls)
{
        switch (cls) {
        case XID_CLASS_INFO:
                return XID_SEV_INFO;
        case XID_CLASS_APP:
        case XID_CLASS_WATCH:
                return XID_SEV_WARNING;
        case XID_CLASS_RESET:
        case XID_CLASS_REBOOT:
        case XID_CLASS_SERVICE:
                break;
        }
        return XID_SEV_CRITICAL;
}

const char *xid_severity_name(enum xid_severity sev)
{
        switch (sev) {
        case XID_SEV_INFO:
                return "info";
        case XID_SEV_WARNING:
                return "warning";
        case XID_SEV_CRITICAL:
                return "critical";
        }
        return "unknown";
}

bool xid_needs_reset(unsigned code)
{
        const struct xid_info *x = xid_lookup(code);
        return x && (x->cls == XID_CLASS_RESET || x->cls == XID_CLASS_REBOOT);
}

int xid_describe(struct strbuf *sb, unsigned code)
{
        const struct xid_info *x = xid_lookup(code);
        if (!x)
                return -ENOENT;
        sb_printf(sb, "Xid %u: %s. Action: %s.", code, x->meaning, x->action);
        return 0;
}

int xid_describe_bucket(struct strbuf *sb, unsigned code)
{
        const struct xid_info *x = xid_lookup(code);
        if (!x)
                return -ENOENT;
        if (x->bucket == XID_BUCKET_NONE)
                sb_puts(sb, "NVIDIA's immediate action: none given in the catalog.");
        else
                sb_printf(sb, "NVIDIA's immediate action: %s (%s).", xid_bucket_name(x->bucket),
                          xid_bucket_text(x->bucket));
        sb_printf(sb, " Severity: %s (%s).", xid_severity_name(xid_class_severity(x->cls)),
                  xid_class_name(x->cls));
        return 0;
}

enum event_action xid_event_action(unsigned code)
{
        static const enum event_action by_class[] = {
            [XID_CLASS_INFO] = EA_NONE,     [XID_CLASS_APP] = EA_RESTART_WORKLOAD,
            [XID_CLASS_WATCH] = EA_NONE,    [XID_CLASS_RESET] = EA_RESET_GPU,
            [XID_CLASS_REBOOT] = EA_REBOOT, [XID_CLASS_SERVICE] = EA_INSPECT_HARDWARE,
        };
        const struct xid_info *x = xid_lookup(code);
        return x ? by_class[x->cls] : EA_INSPECT_HARDWARE;
}
