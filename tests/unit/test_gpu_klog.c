/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the kernel log's GPU lines (collect/gpu_klog.c). Each line is what the
 * driver's format prints (open-gpu-kernel-modules 595.45.04 unless said otherwise; the
 * file and line are next to each), as /dev/kmsg gives the record's text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/gpu_klog.h"

static struct klog_event parse_ok(const char *s, enum klog_kind kind)
{
        struct klog_event e;
        assert_int_equal(klog_parse_line(s, strlen(s), &e), 0);
        assert_string_equal(klog_kind_names[e.kind], klog_kind_names[kind]);
        return e;
}

static void assert_pci(const struct klog_event *e, const char *want)
{
        char buf[24];
        assert_true(e->have_pci);
        klog_pci_format(buf, sizeof(buf), &e->pci);
        assert_string_equal(buf, want);
}

static void test_pci_parse(void **state)
{
        (void)state;
        struct klog_pci p, q;
        assert_int_equal(klog_pci_parse("0000:01:00", 10, &p), 10);
        assert_int_equal(p.fn, -1);
        assert_int_equal(klog_pci_parse("00000000:B3:00.0 rest", 21, &q), 16); /* NVML's */
        assert_int_equal(q.bus, 0xb3);
        assert_int_equal(q.fn, 0);
        assert_int_equal(klog_pci_parse("0000:01:00.0: GPU", 17, &q), 12);
        assert_true(klog_pci_same(&p, &q)); /* no function: any */
        assert_int_equal(klog_pci_parse("0000:02:00.0", 12, &q), 12);
        assert_false(klog_pci_same(&p, &q));
        /* Not addresses: too short, too long, running on. */
        assert_int_equal(klog_pci_parse("1:2", 3, &p), 0);
        assert_int_equal(klog_pci_parse("0000:001:00.0", 13, &p), 0);
        assert_int_equal(klog_pci_parse("0000:01:00.0abc", 15, &p), 0);
        assert_int_equal(klog_pci_parse("GPU0", 4, &p), 0);
        assert_int_equal(klog_pci_parse("", 0, &p), 0);
}

static void test_xid(void **state)
{
        (void)state;
        /* kernel_rc.c:388 "NVRM: Xid (" attr "): %d, pid=%s, name=%s, %s%s\n" */
        struct klog_event e = parse_ok("NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=python3, "
                                       "Graphics Exception: ESR 0x514730=0x201f0000",
                                       KLOG_XID);
        assert_int_equal(e.code, 13);
        assert_pci(&e, "0000:3b:00.0");
        assert_string_equal(e.detail, "Graphics Exception: ESR 0x514730=0x201f0000");
        /* An Xid whose text says "fallen off the bus" is the Xid, not a second kind. */
        e = parse_ok("NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has "
                     "fallen off the bus.",
                     KLOG_XID);
        assert_int_equal(e.code, 79);
        /* An Xid 119's text holds the GSP timeout: it is the Xid (kernel_gsp.c:2386). */
        e = parse_ok("NVRM: Xid (PCI:0000:01:00): 119, pid=4242, name=python3, Timeout after 6s "
                     "of waiting for RPC response from GPU0 GSP! Expected function 76 "
                     "(GSP_RM_CONTROL) sequence 12 (0x20801348 0x4).",
                     KLOG_XID);
        assert_int_equal(e.code, 119);
}

static void test_recovery_action(void **state)
{
        (void)state;
        /* gpu.c:7258 "GPU recovery action changed from 0x%x (%s) to 0x%x (%s)", the names
         * of _gpuRecoveryActionName() (gpu.c:7130-7138), as an Xid 154 line. */
        static const struct {
                const char *to, *want;
        } cases[] = {
            {"0x1 (GPU Reset Required)", "GPU_RESET"},
            {"0x2 (Node Reboot Required)", "NODE_REBOOT"},
            {"0x4 (Drain and Reset)", "DRAIN_AND_RESET"},
            {"0x3 (Drain P2P)", "DRAIN_P2P"},
            {"0x0 (None)", "NONE"},
            {"0x9 (Something New)", "UNKNOWN"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char line[256];
                snprintf(line, sizeof(line),
                         "NVRM: Xid (PCI:0000:01:00): 154, pid='<unknown>', name=<unknown>, GPU "
                         "recovery action changed from 0x0 (None) to %s",
                         cases[i].to);
                struct klog_event e = parse_ok(line, KLOG_RECOVERY_ACTION);
                assert_int_equal(e.code, 154);
                assert_string_equal(e.action, cases[i].want);
                assert_pci(&e, "0000:01:00.0");
        }
}

static void test_sxid(void **state)
{
        (void)state;
        /* common_nvswitch.h:163 "nvidia-%s: SXid (PCI:" NVLINK_PCI_DEV_FMT "): %05d, " _fmt,
         * the name "nvswitch%d" (nvswitch.c:2826), code 28001 and text from
         * heartbeat_ls10.c:49 (NVSWITCH_ERR_HW_OSFP_THERM_WARN_ACTIVATED, ctrl_dev_nvswitch.h). */
        struct klog_event e = parse_ok(
            "nvidia-nvswitch2: SXid (PCI:0000:c5:00.0): 28001, OSFP Thermal Warn Activated",
            KLOG_SXID);
        assert_int_equal(e.code, 28001);
        assert_pci(&e, "0000:c5:00.0");
        assert_string_equal(e.detail, "OSFP Thermal Warn Activated");
        /* %05d: a small code with its zeros. */
        e = parse_ok("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 00012, Non-fatal, Link 4",
                     KLOG_SXID);
        assert_int_equal(e.code, 12);
}

static void test_fallen_one_line(void **state)
{
        (void)state;
        /* osinit.c:374 NV_DEV_PRINTF(..., "GPU has fallen off the bus.\n"): the prefix
         * "NVRM: GPU " NV_PCI_DEV_FMT ": " (kernel-open/common/inc/os-interface.h:269,
         * nv.h:89 "%04x:%02x:%02x.%x"). */
        struct klog_event e =
            parse_ok("NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.", KLOG_FALLEN_OFF_BUS);
        assert_pci(&e, "0000:01:00.0");
        /* Older drivers (not in the open source; as bug reports show it). */
        e = parse_ok("NVRM: GPU at 0000:41:00.0 has fallen off the bus.", KLOG_FALLEN_OFF_BUS);
        assert_pci(&e, "0000:41:00.0");
        e = parse_ok("NVRM: GPU at PCI:0000:3b:00 has fallen off the bus.", KLOG_FALLEN_OFF_BUS);
        assert_pci(&e, "0000:3b:00.0");
        /* The probe message as one record: /dev/kmsg escapes the printk's '\n' as \x0a
         * (osapi.c:3659-3661, one nv_printf()). */
        e = parse_ok("NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) installed in "
                     "this system has\\x0aNVRM: fallen off the bus and is not responding to "
                     "commands.",
                     KLOG_FALLEN_OFF_BUS);
        assert_pci(&e, "0000:b3:00.0");
        assert_string_equal(e.detail, "fallen off the bus and is not responding to commands");
        /* Another device's words are no GPU's (hwbc.c:1781, no NVRM: prefix). */
        struct klog_event x;
        const char *br = "*** BR04 has fallen off the bus after we tried to train it to Gen2!";
        assert_int_equal(klog_parse_line(br, strlen(br), &x), -ENOENT);
}

static int join(struct klog_join *j, const char *s, struct klog_event *e)
{
        return klog_join_feed(j, s, strlen(s), e);
}

static void test_fallen_split(void **state)
{
        (void)state;
        struct klog_join j;
        struct klog_event e;
        memset(&j, 0, sizeof(j));
        /* osapi.c:3659-3661 as three records (kernels that split a printk at '\n'). */
        assert_int_equal(join(&j, "NVRM: The NVIDIA GPU 0000:b3:00.0", &e), -ENOENT);
        assert_int_equal(join(&j, "NVRM: (PCI ID: 10de:26b5) installed in this system has", &e),
                         -ENOENT);
        assert_int_equal(
            join(&j, "NVRM: fallen off the bus and is not responding to commands.", &e), 0);
        assert_int_equal(e.kind, KLOG_FALLEN_OFF_BUS);
        assert_pci(&e, "0000:b3:00.0");
        /* Then (dd.c): the probe that failed, an init failure of its own. */
        assert_int_equal(join(&j, "nvidia: probe of 0000:b3:00.0 failed with error -1", &e), 0);
        assert_int_equal(e.kind, KLOG_INIT_FAILED);
        /* The first line of another message ("is not supported") does not complete. */
        assert_int_equal(join(&j, "NVRM: The NVIDIA GPU 0000:17:00.0", &e), -ENOENT);
        for (int i = 0; i < KLOG_JOIN_WINDOW; i++)
                assert_int_equal(join(&j, "usb 1-2: new high-speed USB device", &e), -ENOENT);
        assert_int_equal(
            join(&j, "NVRM: fallen off the bus and is not responding to commands.", &e), 0);
        assert_false(e.have_pci); /* too late to be that line's: no address */
}

static void test_init_failed(void **state)
{
        (void)state;
        /* osinit.c:2417 NV_DEV_PRINTF(..., "RmInitAdapter failed! (0x%x:0x%x:%d)\n") */
        struct klog_event e = parse_ok(
            "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)", KLOG_INIT_FAILED);
        assert_pci(&e, "0000:01:00.0");
        assert_string_equal(e.detail, "RmInitAdapter failed! (0x22:0x56:667)");
        /* kernel-open/nvidia/nv.c:1527 */
        e = parse_ok("NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0",
                     KLOG_INIT_FAILED);
        assert_pci(&e, "0000:01:00.0");
        /* drivers/base/dd.c call_driver_probe(), 6.x: dev_err(dev, "probe with driver %s
         * failed with error %d\n"), the dev_printk prefix "nvidia 0000:01:00.0: ". */
        e = parse_ok("nvidia 0000:01:00.0: probe with driver nvidia failed with error -1",
                     KLOG_INIT_FAILED);
        assert_pci(&e, "0000:01:00.0");
        /* ... before 6.x: pr_warn("%s: probe of %s failed with error %d\n"). */
        e = parse_ok("nvidia: probe of 0000:02:00.0 failed with error -1", KLOG_INIT_FAILED);
        assert_pci(&e, "0000:02:00.0");
        /* Another driver's failed probe is no GPU's. */
        struct klog_event x;
        const char *other = "ahci: probe of 0000:00:17.0 failed with error -22";
        assert_int_equal(klog_parse_line(other, strlen(other), &x), -ENOENT);
}

static void test_gsp_timeout(void **state)
{
        (void)state;
        /* kernel_gsp.c:2386, printed without an Xid by NV_ERROR_LOG_COND (printf.h:256) with
         * the NV_PRINTF prefix "NVRM: " (nvprintf.h:112). */
        struct klog_event e =
            parse_ok("NVRM: Timeout after 45s of waiting for RPC response from GPU1 GSP! Expected "
                     "function 76 (GSP_RM_CONTROL) sequence 1234 (0x20801702 0x4).",
                     KLOG_GSP_TIMEOUT);
        assert_int_equal(e.gpu_instance, 1);
        assert_false(e.have_pci);
        /* 535.54.03's kernel_gsp.c:1279 "Timeout waiting for RPC from GSP%d!" */
        e = parse_ok("NVRM: Timeout waiting for RPC from GSP0! Expected function 76 "
                     "(GSP_RM_CONTROL) (0x20800a4c 0x4).",
                     KLOG_GSP_TIMEOUT);
        assert_int_equal(e.gpu_instance, 0);
}

static void test_aer(void **state)
{
        (void)state;
        /* drivers/pci/pcie/aer.c aer_print_error(): "PCIe Bus Error: severity=%s, type=%s,
         * (%s)\n" through pci_printk (prefix "<driver> <address>: ", and "AER: " from
         * the file's dev_fmt); severities aer_error_severity_string[]. */
        struct klog_event e =
            parse_ok("nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, "
                     "type=Physical Layer, (Receiver ID)",
                     KLOG_AER_CORRECTED);
        assert_pci(&e, "0000:01:00.0");
        assert_string_equal(e.detail, "Corrected, type=Physical Layer, (Receiver ID)");
        e = parse_ok("pcieport 0000:00:01.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), "
                     "type=Transaction Layer, (Requester ID)",
                     KLOG_AER_NONFATAL);
        assert_pci(&e, "0000:00:01.0");
        e = parse_ok("nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
                     "type=Transaction Layer, (Receiver ID)",
                     KLOG_AER_FATAL);
        assert_pci(&e, "0000:01:00.0");
        /* 6.16's words (aer_error_severity_string[] "Correctable", "Uncorrectable (...)"),
         * and the line without "severity=" that excerpts show. */
        e = parse_ok("nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Correctable, "
                     "type=Physical Layer, (Receiver ID)",
                     KLOG_AER_CORRECTED);
        assert_pci(&e, "0000:01:00.0");
        e = parse_ok("pcieport 0000:00:01.0: PCIe Bus Error: Uncorrectable (Non-Fatal), "
                     "type=Transaction Layer, (Requester ID)",
                     KLOG_AER_NONFATAL);
        assert_pci(&e, "0000:00:01.0");
        /* A journalctl prefix before the device's name. */
        e = parse_ok("Mar 03 10:11:12 node7 kernel: nvidia 0000:63:00.0: PCIe Bus Error: "
                     "severity=Uncorrectable (Fatal), type=Transaction Layer, (Receiver ID)",
                     KLOG_AER_FATAL);
        assert_pci(&e, "0000:63:00.0");
        /* aer_print_port_info(): the root port prints it, the device it names is the
         * one in error (5.4-6.10 "error received: ", 6.11 on "error message received
         * from "). */
        e = parse_ok("pcieport 0000:60:01.1: AER: Uncorrectable (Non-Fatal) error received from "
                     "0000:63:00.0",
                     KLOG_AER_NONFATAL);
        assert_pci(&e, "0000:63:00.0");
        e = parse_ok("pcieport 0000:00:01.0: AER: Multiple Uncorrected (Fatal) error received: "
                     "0000:01:00.0",
                     KLOG_AER_FATAL);
        assert_pci(&e, "0000:01:00.0");
        e = parse_ok("pcieport 0000:00:01.0: AER: Correctable error message received from "
                     "0000:01:00.0",
                     KLOG_AER_CORRECTED);
        assert_pci(&e, "0000:01:00.0");
        /* err.c report_error_detected(): the kernel gave up on the device. */
        e = parse_ok("nvidia 0000:01:00.0: AER: can't recover (no error_detected callback)",
                     KLOG_AER_FATAL);
        assert_pci(&e, "0000:01:00.0");
        assert_true(e.flags & KLOG_F_NOT_RECOVERED);
        /* The detail lines are not a second error. */
        static const char *const not_errors[] = {
            "pcieport 0000:00:01.0: AER: device recovery failed",
            "nvidia 0000:01:00.0:   device [10de:2330] error status/mask=00000001/0000e000",
            "nvidia 0000:01:00.0: PCIe Bus Error: severity=Sideways, type=x, (y)",
        };
        for (size_t i = 0; i < sizeof(not_errors) / sizeof(not_errors[0]); i++)
                assert_int_equal(klog_parse_line(not_errors[i], strlen(not_errors[i]), &e),
                                 -ENOENT);
}

/* The port's line and the device's own account of one error: the device's is marked
 * as the error the port's line named (the detector gives them as one). */
static void test_aer_join(void **state)
{
        (void)state;
        struct klog_join j;
        struct klog_event e;
        memset(&j, 0, sizeof(j));
        assert_int_equal(join(&j,
                              "pcieport 0000:60:01.1: AER: Uncorrectable (Non-Fatal) error "
                              "received from 0000:63:00.0",
                              &e),
                         0);
        assert_true(e.flags & KLOG_F_FROM_PORT);
        assert_false(e.flags & KLOG_F_NVIDIA); /* the port's driver */
        assert_int_equal(join(&j,
                              "nvidia 0000:63:00.0: PCIe Bus Error: severity=Uncorrectable "
                              "(Non-Fatal), type=Transaction Layer, (Requester ID)",
                              &e),
                         0);
        assert_true(e.flags & KLOG_F_AFTER_PORT);
        assert_true(e.flags & KLOG_F_NVIDIA);
        assert_int_equal(
            join(&j, "nvidia 0000:63:00.0:   device [10de:2330] error status/mask=00004000/0", &e),
            -ENOENT);
        /* The next error of the device is one of its own. */
        assert_int_equal(join(&j,
                              "nvidia 0000:63:00.0: PCIe Bus Error: severity=Uncorrectable "
                              "(Non-Fatal), type=Transaction Layer, (Requester ID)",
                              &e),
                         0);
        assert_false(e.flags & KLOG_F_AFTER_PORT);
        /* Another driver's device is not nvidia's, though its name ends so. */
        assert_int_equal(join(&j,
                              "xnvidia 0000:64:00.0: PCIe Bus Error: severity=Corrected, "
                              "type=Physical Layer, (Receiver ID)",
                              &e),
                         0);
        assert_false(e.flags & KLOG_F_NVIDIA);
}

/* Firmware-first AER: the firmware's severity, then the AER driver's lines for the
 * device (cper.c cper_estatus_print(), aer.c cper_print_aer()): one error. */
static void test_aer_firmware_first(void **state)
{
        (void)state;
        struct klog_join j;
        struct klog_event e;
        unsigned events = 0;
        static const char *const lines[] = {
            "{1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 1",
            "{1}[Hardware Error]: event severity: recoverable",
            "{1}[Hardware Error]:  Error 0, type: recoverable",
            "{1}[Hardware Error]:   section_type: PCIe error",
            "{1}[Hardware Error]:   device_id: 0000:63:00.0",
            "nvidia 0000:63:00.0: AER: aer_status: 0x00004000, aer_mask: 0x00000000",
            "nvidia 0000:63:00.0: AER:    [14] CmpltTO                (First)",
            "nvidia 0000:63:00.0: AER: aer_layer=Transaction Layer, aer_agent=Requester ID",
            "nvidia 0000:63:00.0: AER: aer_uncor_severity: 0x00062030",
        };
        memset(&j, 0, sizeof(j));
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
                if (join(&j, lines[i], &e) == 0) {
                        events++;
                        assert_int_equal(e.kind, KLOG_AER_NONFATAL);
                        assert_pci(&e, "0000:63:00.0");
                        assert_true(e.flags & KLOG_F_NVIDIA);
                }
        assert_int_equal(events, 1);
        /* Without the firmware's record, the driver's status line says no severity. */
        memset(&j, 0, sizeof(j));
        assert_int_equal(join(&j, lines[5], &e), -ENOENT);
}

/* An SXid over three lines (error_nvswitch.c:43-67 after the first): one event. */
static void test_sxid_join(void **state)
{
        (void)state;
        struct klog_join j;
        struct klog_event e;
        unsigned events = 0;
        static const char *const lines[] = {
            "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 12028, Fatal, Link 32 egress non-posted "
            "PRIV error (First)",
            "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 12028, Severity 1 Engine instance 32 "
            "Sub-engine instance 00",
            "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 12028, Data {0x00000000, 0x00000000, "
            "0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}",
            "nvidia-nvswitch1: SXid (PCI:0000:86:00.0): 20034, Non-fatal, Link 10 LTSSM Fault Up",
            "nvidia-nvswitch1: SXid (PCI:0000:86:00.0): 20034, Severity 0 Engine instance 10 "
            "Sub-engine instance 00",
            "nvidia-nvswitch1: SXid (PCI:0000:86:00.0): 20034, Data {0x00000000, 0x00000001, "
            "0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}",
            "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 12028, Fatal, Link 33 egress non-posted "
            "PRIV error (First)",
            "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 12028, Severity 1 Engine instance 33 "
            "Sub-engine instance 00",
        };
        memset(&j, 0, sizeof(j));
        bool fatal[3] = {false, false, false};
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
                if (join(&j, lines[i], &e) == 0) {
                        assert_int_equal(e.kind, KLOG_SXID);
                        if (events < 3)
                                fatal[events] = e.flags & KLOG_F_FATAL;
                        events++;
                }
        assert_int_equal(events, 3);
        assert_true(fatal[0]);
        assert_false(fatal[1]);
        assert_true(fatal[2]);
        /* A "Severity" line whose first line was not seen is the SXid's only line. */
        memset(&j, 0, sizeof(j));
        assert_int_equal(join(&j, lines[1], &e), 0);
}

/* Every form of a GSP failure the driver prints (kernel_gsp.c, 595.45.04 / 570.86.15):
 * an event each; the detector makes one failure of them. */
static void test_gsp_forms(void **state)
{
        (void)state;
        static const char *const lines[] = {
            "NVRM: _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 1939412 "
            "heartbeat 1934101 heartbeatWithOffsetMs 1934101 diff 5311 timeout 5200",
            "NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out",
            "NVRM: LibOS heartbeat timed out",
            "NVRM: _kgspLogRpcTimeout: ********************************* GSP Timeout "
            "**********************************",
            "NVRM: _kgspClassifyGspTimeout: =============== GSP-RM unresponsive "
            "==================",
            /* 535.113.01 kernel_gsp.c:1328, kernel_gsp_tu102.c:979 */
            "NVRM: _kgspLogXid119: ********************************* GSP Failure "
            "**********************************",
            "NVRM: kgspHealthCheck_TU102: ****************************** GSP-CrashCat Report "
            "*******************************",
            "NVRM: GPU2 sanity check failed 0xffff waiting for RPC response from GSP. Expected "
            "function 76 (GSP_RM_CONTROL) sequence 3 (0x20800a4c 0x4).",
        };
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
                struct klog_event e = parse_ok(lines[i], KLOG_GSP_TIMEOUT);
                assert_false(e.flags & KLOG_F_RESET);
        }
        struct klog_event e = parse_ok(lines[3], KLOG_GSP_TIMEOUT);
        assert_string_equal(e.detail, "GSP Timeout");
        e = parse_ok(lines[0], KLOG_GSP_TIMEOUT);
        assert_true(!strncmp(e.detail, "Heartbeat timed out, currentTimeMs", 34));
        /* 2477: past the reset threshold the driver says the GPU needs a reset. */
        e = parse_ok("NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:1b:00 (printing "
                     "1 of every 30).  The GPU likely needs to be reset.",
                     KLOG_GSP_TIMEOUT);
        assert_true(e.flags & KLOG_F_RESET);
        assert_pci(&e, "0000:1b:00.0");
        /* The banner's continuation lines are nothing of their own. */
        static const char *const cont[] = {
            "NVRM: _kgspLogRpcTimeout: Note: Please also check logs above.",
            "NVRM: GPU0 GSP RPC buffer contains function 76 (GSP_RM_CONTROL) sequence 9 and "
            "data 0x0000000020801702 0x0000000000000004.",
            "NVRM: _kgspLogRpcTimeout: "
            "********************************************************************************",
            "NVRM:     entry function                   sequence data0              data1",
        };
        for (size_t i = 0; i < sizeof(cont) / sizeof(cont[0]); i++)
                assert_int_equal(klog_parse_line(cont[i], strlen(cont[i]), &e), -ENOENT);
}

/* The driver's words that ask for a reset at init, and the probe summary. */
static void test_init_reset(void **state)
{
        (void)state;
        /* kernel_gsp.c:4681 (595.45.04), arch/turing/kernel_gsp_tu102.c:1180 */
        struct klog_event e = parse_ok("NVRM: _kgspBootGspRm: (the GPU is likely in a bad state "
                                       "and may need to be reset)",
                                       KLOG_INIT_FAILED);
        assert_true(e.flags & KLOG_F_RESET);
        e = parse_ok("NVRM: kgspWaitForGfwBootOk_TU102: (the GPU may be in a bad state and may "
                     "need to be reset)",
                     KLOG_INIT_FAILED);
        assert_true(e.flags & KLOG_F_RESET);
        /* kernel-open/nvidia/nv.c:968 */
        e = parse_ok("NVRM: The NVIDIA probe routine failed for 1 device(s).", KLOG_INIT_FAILED);
        assert_false(e.have_pci);
        assert_false(e.flags & KLOG_F_RESET);
        /* nv.c:946 is no failure: the device was not ours to probe. */
        const char *not_called = "NVRM: The NVIDIA probe routine was not called for 1 device(s).";
        assert_int_equal(klog_parse_line(not_called, strlen(not_called), &e), -ENOENT);
}

static void test_not_gpu_lines(void **state)
{
        (void)state;
        static const char *const lines[] = {
            "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15  Fri Jan 24 2025",
            "NVRM: GPU at PCI:0000:01:00: GPU-5a1b2c3d-0000-1111-2222-333344445555",
            "NVRM: Xid (PCI:0000:01:00", /* torn */
            "e1000e 0000:00:1f.6 eno1: NIC Link is Up 1000 Mbps Full Duplex",
            "",
        };
        struct klog_event e;
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
                assert_int_equal(klog_parse_line(lines[i], strlen(lines[i]), &e), -ENOENT);
}

/* Bounded: every prefix of every line parses or is refused, without reading past it. */
static void test_prefixes(void **state)
{
        (void)state;
        static const char *const lines[] = {
            "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)",
            "nvidia-nvswitch2: SXid (PCI:0000:c5:00.0): 28001, OSFP Thermal Warn Activated",
            "nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer",
            "NVRM: Timeout after 45s of waiting for RPC response from GPU1 GSP!",
            "NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: fallen off the bus and is not responding",
            "nvidia 0000:63:00.0: AER: can't recover (no error_detected callback)",
            "pcieport 0000:60:01.1: AER: Multiple Uncorrectable (Fatal) error received from "
            "0000:63:00.0",
            "pcieport 0000:00:01.0: PCIe Bus Error: Uncorrectable (Non-Fatal), type=Transaction",
            "NVRM: _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 1",
            "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:1b:00 (printing 1",
            "NVRM: _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)",
            "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 12028, Severity 1 Engine instance 32",
        };
        char buf[256];
        struct klog_event e;
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
                size_t n = strlen(lines[i]);
                for (size_t k = 0; k <= n; k++) {
                        memcpy(buf, lines[i], k);
                        memset(buf + k, 'f', sizeof(buf) - k); /* not NUL-terminated */
                        (void)klog_parse_line(buf, k, &e);
                }
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_pci_parse),
            cmocka_unit_test(test_xid),
            cmocka_unit_test(test_recovery_action),
            cmocka_unit_test(test_sxid),
            cmocka_unit_test(test_fallen_one_line),
            cmocka_unit_test(test_fallen_split),
            cmocka_unit_test(test_init_failed),
            cmocka_unit_test(test_gsp_timeout),
            cmocka_unit_test(test_aer),
            cmocka_unit_test(test_aer_join),
            cmocka_unit_test(test_sxid_join),
            cmocka_unit_test(test_aer_firmware_first),
            cmocka_unit_test(test_gsp_forms),
            cmocka_unit_test(test_init_reset),
            cmocka_unit_test(test_not_gpu_lines),
            cmocka_unit_test(test_prefixes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
