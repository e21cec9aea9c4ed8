/* The Xid catalog: one row per code (or range), from FACTS.md's summary of NVIDIA's
 * Xid catalog. The reset/reboot class is NVIDIA's; the other actions are the generic
 * ones for their kind of error. */
#include "detect/xid_catalog.h"

#include <errno.h>
#include <stddef.h>

#define BUG_REPORT "if it repeats, collect a bug report (nvidia-bug-report.sh)"

static const struct xid_info xid_table[] = {
    {13, 13, "graphics engine exception", "restart the application; " BUG_REPORT, XID_CLASS_APP},
    {31, 31, "GPU memory page fault", "restart the application; " BUG_REPORT, XID_CLASS_APP},
    {32, 32, "corrupted push buffer", "restart the application; " BUG_REPORT, XID_CLASS_APP},
    {43, 43, "GPU stopped processing", "restart the application; " BUG_REPORT, XID_CLASS_APP},
    {45, 45, "preemptive cleanup after earlier errors",
     "none of its own: see the Xid before it, which caused it", XID_CLASS_INFO},
    {48, 48, "double-bit ECC error",
     "reset the GPU (nvidia-smi -r) or reboot, then check the remapped rows", XID_CLASS_RESET},
    {61, 61, "PMU breakpoint", "watch for Xid 62 next; " BUG_REPORT, XID_CLASS_WATCH},
    {62, 62, "internal micro-controller (PMU) halt", "reset the GPU (nvidia-smi -r) or reboot",
     XID_CLASS_RESET},
    {63, 63, "row-remap / page-retirement event",
     "none: informational; watch the remapped-row counters", XID_CLASS_INFO},
    {64, 64, "row-remap failure", "reset the GPU (nvidia-smi -r) or reboot", XID_CLASS_RESET},
    {68, 68, "NVDEC error", "restart the application using the video decoder; " BUG_REPORT,
     XID_CLASS_APP},
    {69, 69, "graphics class error", "restart the application; " BUG_REPORT, XID_CLASS_APP},
    {74, 74, "NVLink error",
     "reset the GPU (nvidia-smi -r) or reboot; if it repeats, check the NVLink connections",
     XID_CLASS_RESET},
    {79, 79, "GPU has fallen off the bus",
     "reboot the machine; if it repeats, check the PCIe slot and riser, the power supply and "
     "cooling",
     XID_CLASS_REBOOT},
    {92, 92, "excessive single-bit ECC rate",
     "watch the ECC and remapped-row counters; plan a GPU reset", XID_CLASS_WATCH},
    {94, 94, "contained memory error",
     "restart the affected application; reset the GPU when convenient", XID_CLASS_APP},
    {95, 95, "uncontained memory error", "reset the GPU (nvidia-smi -r) or reboot",
     XID_CLASS_RESET},
    {109, 109, "context-switch timeout", "reset the GPU (nvidia-smi -r) or reboot",
     XID_CLASS_RESET},
    {119, 119, "GSP RPC timeout", "reset the GPU (nvidia-smi -r) or reboot", XID_CLASS_RESET},
    {120, 120, "GSP error", "reset the GPU (nvidia-smi -r) or reboot", XID_CLASS_RESET},
    {121, 121, "C2C error", "watch for repeats; " BUG_REPORT, XID_CLASS_WATCH},
    {140, 140, "unrecoverable ECC error escape", "reset the GPU (nvidia-smi -r) or reboot",
     XID_CLASS_RESET},
    {143, 143, "GPU initialisation error", "reset the GPU (nvidia-smi -r) or reboot",
     XID_CLASS_RESET},
    {144, 150, "NVLink-5 error", "check the NVLink fabric; " BUG_REPORT, XID_CLASS_WATCH},
    {151, 151, "key-rotation error", BUG_REPORT, XID_CLASS_WATCH},
    {154, 154, "GPU recovery action changed",
     "see the Xid before it; do what the recovery action asks (reset or reboot)", XID_CLASS_INFO},
    {155, 155, "NVLink software-defined error", "check the NVLink fabric; " BUG_REPORT,
     XID_CLASS_WATCH},
};

const struct xid_info *xid_lookup(unsigned code)
{
        for (size_t i = 0; i < sizeof(xid_table) / sizeof(xid_table[0]); i++)
                if (code >= xid_table[i].first && code <= xid_table[i].last)
                        return &xid_table[i];
        return NULL;
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
