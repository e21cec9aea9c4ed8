/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: PCIe AER lines by device (util/aer_line.c) and the post-mortem's kernel
 * excerpt that puts the GPU's first (report/pm_klog.c), on string literals and on
 * tests/fixtures/postmortem/journal-aer.txt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/pm_klog.h"
#include "test_fixtures.h"
#include "util/aer_line.h"

#define GPU "0000:01:00.0"

static bool of(const char *line, const char *bdf)
{
        return aer_line_of_device(line, strlen(line), bdf);
}

static void test_bdf(void **state)
{
        char out[AER_BDF_LEN];
        (void)state;
        assert_int_equal(aer_bdf_from_bus_id("00000000:01:00.0", out, sizeof(out)), 0);
        assert_string_equal(out, GPU);
        assert_int_equal(aer_bdf_from_bus_id("00000000:3B:00.0", out, sizeof(out)), 0);
        assert_string_equal(out, "0000:3b:00.0");
        assert_int_equal(aer_bdf_from_bus_id("0001:c1:00.1", out, sizeof(out)), 0);
        assert_string_equal(out, "0001:c1:00.1");
        /* Not a bus id: out is "". */
        assert_int_equal(aer_bdf_from_bus_id("00010000:01:00.0", out, sizeof(out)), -22);
        assert_string_equal(out, "");
        assert_int_equal(aer_bdf_from_bus_id("0000:01:00.8", out, sizeof(out)), -22);
        assert_int_equal(aer_bdf_from_bus_id("01:00.0", out, sizeof(out)), -22);
        assert_int_equal(aer_bdf_from_bus_id("", out, sizeof(out)), -22);
        assert_int_equal(aer_bdf_from_bus_id("0000:01:00.0", out, 5), -22);
}

static void test_lines(void **state)
{
        (void)state;
        /* The port's line naming the device, both wordings (aer_print_port_info). */
        assert_true(of("kernel: pcieport 0000:00:01.1: AER: Corrected error received: "
                       "0000:01:00.0",
                       GPU));
        assert_true(of("pcieport 0000:00:01.1: AER: Multiple Uncorrected (Fatal) error "
                       "message received from 0000:01:00.0",
                       GPU));
        /* The device's own lines (aer_print_error, __aer_print_error), any prefix. */
        assert_true(of("Dec  3 03:00:52 h kernel: [ 6523.123456] nvidia 0000:01:00.0: PCIe Bus "
                       "Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
                       GPU));
        assert_true(of("nvidia 0000:01:00.0:   device [10de:2330] error status/mask=00000001/"
                       "0000e000",
                       GPU));
        assert_true(of("nvidia 0000:01:00.0:    [ 0] RxErr                  (First)", GPU));
        assert_true(of("nvidia 0000:01:00.0:    [14] CmpltTO                (First)", GPU));
        assert_true(
            of("nvidia 0000:01:00.0:   TLP Header: 40000001 0000000f 9c4a0000 00000000", GPU));
        assert_true(of("nvidia 0000:01:00.0: AER: aer_status: 0x00000001", GPU));
        /* Upper-case hex is the same device. */
        assert_true(of("nvidia 0000:3B:00.0: PCIe Bus Error: severity=Corrected", "0000:3b:00.0"));
        /* Another device, or the port's own error. */
        assert_false(of("pcieport 0000:00:1b.0: AER: Corrected error received: 0000:02:00.0", GPU));
        assert_false(of("nvme 0000:02:00.0: PCIe Bus Error: severity=Corrected", GPU));
        assert_false(of("pcieport 0000:00:01.1: PCIe Bus Error: severity=Corrected", GPU));
        /* A device whose name holds the GPU's as a part. */
        assert_false(of("x 10000:01:00.0: PCIe Bus Error: severity=Corrected", GPU));
        assert_false(
            of("pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.00", GPU));
        /* The GPU's lines that are not AER. */
        assert_false(of("pci 0000:01:00.0: [10de:2330] type 00 class 0x030200 PCIe Endpoint", GPU));
        assert_false(of("NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.", GPU));
        assert_false(of("nvidia 0000:01:00.0: enabling device (0000 -> 0003)", GPU));
        assert_false(of("nvidia 0000:01:00.0:   [ x] what", GPU));
        /* A bad device name matches nothing. */
        assert_false(of("nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected", ""));
        assert_false(of("nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected", NULL));
}

/* The fixture's text into a heap buffer (caller frees); *n its length. */
static char *read_fixture(size_t *n)
{
        char dir[PATH_MAX + 32], path[PATH_MAX + 96];
        test_csv_fixtures(dir, sizeof(dir));
        assert_true(dir[0] != '\0');
        snprintf(path, sizeof(path), "%.*s/postmortem/journal-aer.txt",
                 (int)(strlen(dir) - strlen("/csv")), dir);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char *buf = malloc(1 << 16);
        assert_non_null(buf);
        *n = fread(buf, 1, (1 << 16) - 1, f);
        buf[*n] = '\0';
        fclose(f);
        return buf;
}

static void test_rank_gpu_first(void **state)
{
        (void)state;
        size_t n;
        char *text = read_fixture(&n);
        char *out = malloc(1 << 17);
        struct strbuf sb;
        struct pm_klog_gpus gpus = {.n = 1};
        snprintf(gpus.bdf[0], sizeof(gpus.bdf[0]), GPU);
        sb_init_fixed(&sb, out, 1 << 17);
        pm_klog_rank(&sb, text, n, &gpus);
        /* The GPU's five AER lines first, in their order, under their title. */
        const char *first = "PCIe errors (AER) of the GPUs' devices (" GPU "): 4 lines\n";
        assert_ptr_equal(strstr(sb.buf, first), sb.buf);
        const char *p = sb.buf + strlen(first);
        static const char *const want[] = {
            "pcieport 0000:00:01.1: AER: Uncorrected (Non-Fatal) error received: " GPU "\n",
            "nvidia " GPU ": PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction "
            "Layer, (Requester ID)\n",
            "nvidia " GPU ":   device [10de:2330] error status/mask=00004000/00000000\n",
            "nvidia " GPU ":    [14] CmpltTO                (First)\n",
        };
        for (unsigned i = 0; i < 4; i++) {
                const char *nl = strchr(p, '\n');
                assert_non_null(nl);
                const char *body = strstr(p, "kernel: ");
                assert_true(body && body < nl);
                /* The line as the kernel wrote it; what vigil knows of it may follow
                 * (pm_klog.c's put_line: "  [aer_nonfatal]"). */
                assert_memory_equal(body + 8, want[i], strlen(want[i]) - 1);
                p = nl + 1;
        }
        /* Then the other important lines as before: no line of the GPU's twice, the
         * NVMe flood's port lines, the Xid. */
        assert_ptr_equal(strstr(p, "Important lines ("), p);
        const char *tail = strstr(p, "Last ");
        assert_non_null(tail);
        const char *again = strstr(p, "error received: " GPU);
        assert_true(!again || again > tail);
        const char *nvme = strstr(p, "AER: Corrected error received: 0000:02:00.0");
        assert_true(nvme && nvme < tail);
        const char *xid = strstr(p, "GPU has fallen off the bus.  [Xid 79:");
        assert_true(xid && xid < tail);
        /* The tail is the log's, unchanged. */
        assert_non_null(strstr(tail, "usb 1-2: USB disconnect"));
        /* Without a GPU named: no such section, as before. */
        sb_init_fixed(&sb, out, 1 << 17);
        pm_klog_rank(&sb, text, n, NULL);
        assert_null(strstr(sb.buf, "PCIe errors (AER)"));
        assert_ptr_equal(strstr(sb.buf, "Important lines ("), sb.buf);
        assert_non_null(strstr(sb.buf, "error received: " GPU));
        free(out);
        free(text);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_bdf),
            cmocka_unit_test(test_lines),
            cmocka_unit_test(test_rank_gpu_first),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
