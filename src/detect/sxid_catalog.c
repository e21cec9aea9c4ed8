/* SPDX-License-Identifier: Apache-2.0 */
/* NVSwitch SXid catalog: NVIDIA Fabric Manager user guide, DU-09883-001 v1.3 (October
 * 2023), appendix D. Row names are the guide's (its
 * "Single bit ECC errors" rows name the unit their code's range is); classes follow its section and the
 * "Recovery" column of the row (see sxid_catalog.h). */
#include "detect/sxid_catalog.h"

#include <stddef.h>

#define N(c, n)                                                                                    \
        {                                                                                          \
                .code = c, .name = n, .cls = SXID_CORRECTED                                        \
        }

/* Sorted by code (sxid_lookup() searches it in halves; test_sxid checks the order). */
static const struct sxid_info sxids[] = {
    {10001, "host priv error", SXID_FATAL},
    {10002, "host priv timeout", SXID_FATAL},
    {10003, "host unhandled interrupt", SXID_ALWAYS_FATAL},
    {10004, "host thermal event start", SXID_THROUGHPUT},
    {10005, "host thermal event end", SXID_THROUGHPUT},
    {11001, "ingress invalid command", SXID_FATAL},
    {11004, "ingress invalid ACL", SXID_STALL},
    {11009, "ingress invalid VCSet", SXID_FATAL},
    N(11012, "ingress single-bit ECC error"),
    {11013, "ingress header DBE", SXID_FATAL},
    {11018, "ingress RID DBE", SXID_FATAL},
    {11019, "ingress RLAN DBE", SXID_FATAL},
    {11020, "ingress control parity", SXID_FATAL},
    N(11021, "ingress single-bit ECC error"),
    N(11022, "ingress single-bit ECC error"),
    N(11023, "ingress single-bit ECC error"),
    {12001, "egress crossbar overflow", SXID_FATAL},
    {12002, "egress packet route", SXID_FATAL},
    {12020, "egress sequence ID error", SXID_ALWAYS_FATAL},
    N(12021, "egress single-bit ECC error"),
    {12022, "egress input ECC DBE error", SXID_FATAL},
    N(12023, "egress single-bit ECC error"),
    {12024, "egress output ECC DBE error", SXID_FATAL},
    {12025, "egress credit overflow", SXID_FATAL},
    {12026, "egress destination request ID error", SXID_FATAL},
    {12027, "egress destination response ID error", SXID_FATAL},
    {12028, "egress nonposted PRIV error", SXID_STALL},
    {12030, "egress control parity error", SXID_FATAL},
    {12031, "egress credit parity error", SXID_FATAL},
    {12032, "egress flit type mismatch", SXID_FATAL},
    {14017, "TS ATO timeout", SXID_FATAL},
    {15001, "route buffer over/underflow", SXID_FATAL},
    {15006, "route transdone over/underflow", SXID_FATAL},
    N(15008, "route single-bit ECC error"),
    {15009, "route GLT DBE", SXID_FATAL},
    {15010, "route parity", SXID_FATAL},
    N(15011, "route single-bit ECC error"),
    {15012, "route incoming DBE", SXID_FATAL},
    {15013, "route credit parity", SXID_FATAL},
    {19047, "NCISOC HDR ECC DBE error", SXID_FATAL},
    {19048, "NCISOC DAT ECC DBE error", SXID_FATAL},
    N(19049, "NCISOC single-bit ECC error"),
    {19054, "HDR RAM ECC DBE error", SXID_FATAL},
    N(19055, "HDR RAM single-bit ECC error"),
    {19056, "DAT0 RAM ECC DBE error", SXID_FATAL},
    N(19057, "DAT0 RAM single-bit ECC error"),
    {19058, "DAT1 RAM ECC DBE error", SXID_FATAL},
    N(19059, "DAT1 RAM single-bit ECC error"),
    {19060, "CREQ RAM HDR ECC DBE error", SXID_FATAL},
    {19061, "CREQ RAM DAT ECC DBE error", SXID_FATAL},
    N(19062, "CREQ RAM single-bit ECC error"),
    {19063, "response RAM HDR ECC DBE error", SXID_FATAL},
    {19064, "response RAM DAT ECC DBE error", SXID_FATAL},
    N(19065, "response RAM single-bit ECC error"),
    {19066, "COM RAM HDR ECC DBE error", SXID_FATAL},
    {19067, "COM RAM DAT ECC DBE error", SXID_FATAL},
    N(19068, "COM RAM single-bit ECC error"),
    {19069, "RSP1 RAM HDR ECC DBE error", SXID_FATAL},
    {19070, "RSP1 RAM DAT ECC DBE error", SXID_FATAL},
    N(19071, "RSP1 RAM single-bit ECC error"),
    {19084, "AN1 heartbeat timeout error", SXID_FATAL},
    {20001, "TX replay error", SXID_THROUGHPUT},
    {20012, "broken/inconsistent connection", SXID_LINK},
    {20034, "LTSSM fault up", SXID_FATAL},
    {22003, "MINION halt", SXID_ALWAYS_FATAL},
    {22011, "MINION exterror", SXID_ALWAYS_FATAL},
    {22012, "MINION link NA interrupt", SXID_LINK},
    {22013, "MINION link DLREQ interrupt", SXID_IGNORE},
    {23001, "ingress SRC-VC buffer overflow", SXID_ALWAYS_FATAL},
    {23002, "ingress SRC-VC buffer underflow", SXID_ALWAYS_FATAL},
    {23003, "egress DST-VC credit overflow", SXID_ALWAYS_FATAL},
    {23004, "egress DST-VC credit underflow", SXID_ALWAYS_FATAL},
    {23005, "ingress packet burst error", SXID_ALWAYS_FATAL},
    {23006, "ingress packet sticky error", SXID_ALWAYS_FATAL},
    {23007, "possible bubbles at ingress", SXID_ALWAYS_FATAL},
    {23008, "ingress packet invalid dst error", SXID_ALWAYS_FATAL},
    {23009, "ingress packet parity error", SXID_ALWAYS_FATAL},
    {23010, "ingress SRC-VC buffer overflow", SXID_ALWAYS_FATAL},
    {23011, "ingress SRC-VC buffer underflow", SXID_ALWAYS_FATAL},
    {23012, "egress DST-VC credit overflow", SXID_ALWAYS_FATAL},
    {23013, "egress DST-VC credit underflow", SXID_ALWAYS_FATAL},
    {23014, "ingress packet burst error", SXID_ALWAYS_FATAL},
    {23015, "ingress packet sticky error", SXID_ALWAYS_FATAL},
    {23016, "possible bubbles at ingress", SXID_ALWAYS_FATAL},
    {23017, "ingress credit parity error", SXID_ALWAYS_FATAL},
    N(24001, "sourcetrack single-bit ECC error"),
    N(24002, "sourcetrack single-bit ECC error"),
    N(24003, "sourcetrack single-bit ECC error"),
    {24004, "sourcetrack TCEN0 crumbstore DBE", SXID_FATAL},
    {24005, "sourcetrack TCEN0 TD crumbstore DBE", SXID_FATAL},
    {24006, "sourcetrack TCEN1 crumbstore DBE", SXID_FATAL},
    {24007, "sourcetrack timeout error", SXID_FATAL},
};

static const struct {
        const char *impact, *action;
        bool critical;
        enum event_action ea;
} classes[SXID_CLASS_COUNT] = {
    [SXID_CORRECTED] = {"corrected by the NVSwitch, no impact", "none", false, EA_NONE},
    [SXID_IGNORE] = {"no impact", "none", false, EA_NONE},
    [SXID_THROUGHPUT] = {"NVLink throughput on the port may drop",
                         "none at once; check the cooling (thermal events) and watch for "
                         "repeats",
                         false, EA_NONE},
    [SXID_STALL] = {"the partition's NVLink traffic stalls and its CUDA jobs abort (Xid 45)",
                    "restart the workload (the VM or job using the partition); check the "
                    "fabric partition routing (nvswitch-audit); reset the GPUs and NVSwitches "
                    "if it repeats",
                    true, EA_RESTART_WORKLOAD},
    [SXID_LINK] = {"a broken or inconsistent NVLink connection",
                   "unless the peer was shut down uncoordinated, check the link's mechanical "
                   "connections",
                   false, EA_INSPECT_HARDWARE},
    [SXID_FATAL] = {"fatal to the NVSwitch port: the GPUs whose traffic crossed it are "
                    "unusable",
                    "stop the jobs on the NVSwitch's GPUs; reset all GPUs and NVSwitches "
                    "(stop nvidia-fabricmanager, nvidia-smi -r) or reboot; have the baseboard "
                    "inspected if it repeats",
                    true, EA_REBOOT},
    [SXID_ALWAYS_FATAL] = {"fatal to the whole fabric",
                           "restart the host to reset the entire fabric; have the baseboard "
                           "inspected if it repeats",
                           true, EA_REBOOT},
};

const struct sxid_info *sxid_lookup(unsigned code)
{
        size_t lo = 0, hi = sizeof(sxids) / sizeof(sxids[0]);
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (sxids[mid].code == code)
                        return &sxids[mid];
                if (sxids[mid].code < code)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

const char *sxid_class_action(enum sxid_class cls)
{
        return cls < SXID_CLASS_COUNT ? classes[cls].action : "";
}

const char *sxid_class_impact(enum sxid_class cls)
{
        return cls < SXID_CLASS_COUNT ? classes[cls].impact : "";
}

bool sxid_class_critical(enum sxid_class cls)
{
        return cls < SXID_CLASS_COUNT && classes[cls].critical;
}

enum event_action sxid_class_event_action(enum sxid_class cls)
{
        return cls < SXID_CLASS_COUNT ? classes[cls].ea : EA_INSPECT_HARDWARE;
}

const struct sxid_info *sxid_table(size_t *n)
{
        *n = sizeof(sxids) / sizeof(sxids[0]);
        return sxids;
}
