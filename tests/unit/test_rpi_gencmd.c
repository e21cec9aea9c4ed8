/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the gencmd request and answer layout (exact words, as vcgencmd builds
 * them), recorded real vcgencmd answers, and the fake firmware's gencmd, restricted
 * node and failure behaviour, end to end through rpi_fw_gencmd(). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "collect/rpi_fw.h"
#include "collect/rpi_gencmd.h"
#include "collect/rpi_mbox.h"
#include "collect/rpi_transport.h"

/* The fake firmware as a transport whose state the test holds. */
static int direct_call(void *priv, uint32_t *buf, size_t cap)
{
        return fakefw_answer(priv, buf, cap);
}

static const struct rpi_transport_ops direct_ops = {
    .name = "direct",
    .call = direct_call,
};

static void load(struct fakefw *fw, const char *text)
{
        unsigned line = 0;
        assert_int_equal(fakefw_parse(fw, text, strlen(text), &line), 0);
}

static void test_request_layout(void **state)
{
        (void)state;
        uint32_t buf[GENCMD_WORDS];
        memset(buf, 0xa5, sizeof(buf));
        size_t n = 0;
        assert_int_equal(gencmd_build(buf, GENCMD_WORDS, "measure_clock arm", &n), 0);
        /* vcgencmd.c gencmd(): size, request, tag, buffer bytes, 0, error word 0, text,
         * end tag; the text area is 1024 bytes past the error word. */
        assert_int_equal(n, 263);
        assert_int_equal(buf[0], 263 * 4);
        assert_int_equal(buf[1], 0);
        assert_int_equal(buf[2], 0x00030080);
        assert_int_equal(buf[3], 1024);
        assert_int_equal(buf[4], 0);
        assert_int_equal(buf[5], 0);
        assert_memory_equal(&buf[6], "measure_clock arm", 18);
        for (unsigned i = 6 + 5; i < 262; i++)
                assert_int_equal(buf[i], 0); /* the text area past the command is zeroed */
        assert_int_equal(buf[262], 0);
        char longcmd[1100];
        memset(longcmd, 'x', sizeof(longcmd) - 1);
        longcmd[sizeof(longcmd) - 1] = '\0';
        assert_int_equal(gencmd_build(buf, GENCMD_WORDS, longcmd, &n), -ENAMETOOLONG);
        longcmd[1023] = '\0'; /* 1023 bytes and the NUL: fits exactly */
        assert_int_equal(gencmd_build(buf, GENCMD_WORDS, longcmd, &n), 0);
        assert_int_equal(gencmd_build(buf, 100, "measure_temp", &n), -ENOSPC);
}

/* An answer as the kernel hands it back: reply code set, response bit and length. */
static void answer(uint32_t *buf, uint32_t err, const char *text)
{
        buf[1] = 0x80000000;
        buf[4] = 0x80000000 | (uint32_t)(4 + strlen(text) + 1);
        buf[5] = err;
        memset(&buf[6], 0, GENCMD_TEXT_BYTES);
        memcpy(&buf[6], text, strlen(text) + 1);
}

static void test_decode(void **state)
{
        (void)state;
        uint32_t buf[GENCMD_WORDS];
        size_t n;
        char out[64] = "untouched";
        uint32_t err = 77;
        assert_int_equal(gencmd_build(buf, GENCMD_WORDS, "measure_temp", &n), 0);
        /* Unanswered: the command is still there; not read as an answer. */
        buf[1] = 0x80000000;
        assert_int_equal(gencmd_decode(buf, n, out, sizeof(out), &err), -ENODATA);
        assert_string_equal(out, "untouched");
        assert_int_equal(err, 77);
        answer(buf, 0, "temp=47.2'C");
        assert_int_equal(gencmd_decode(buf, n, out, sizeof(out), &err), 11);
        assert_string_equal(out, "temp=47.2'C");
        assert_int_equal(err, 0);
        /* The reported length is not trusted: the text ends at its NUL. */
        buf[4] = 0x80000004;
        assert_int_equal(gencmd_decode(buf, n, out, sizeof(out), &err), 11);
        /* A text that fills the area without a NUL is not an answer. */
        memset(&buf[6], 'a', GENCMD_TEXT_BYTES);
        assert_int_equal(gencmd_decode(buf, n, out, sizeof(out), &err), -EBADMSG);
        /* Cut to the caller's buffer. */
        answer(buf, 0, "frequency(48)=1500398464");
        char small[10];
        assert_int_equal(gencmd_decode(buf, n, small, sizeof(small), &err), 9);
        assert_string_equal(small, "frequency");
        /* Not a gencmd answer at all. */
        buf[1] = 0x80000001;
        assert_int_equal(gencmd_decode(buf, n, out, sizeof(out), &err), -EPROTO);
        buf[1] = 0x80000000;
        buf[2] = 0x00030046;
        assert_int_equal(gencmd_decode(buf, n, out, sizeof(out), &err), -EPROTO);
        buf[2] = 0x00030080;
        buf[0] = 16;
        assert_int_equal(gencmd_decode(buf, n, out, sizeof(out), &err), -EPROTO);
        assert_int_equal(gencmd_decode(buf, n - 1, out, sizeof(out), &err), -EPROTO);
}

/* Answers recorded on real machines (FACTS.md, raspberrypi/utils#39). */
static void test_recorded_replies(void **state)
{
        (void)state;
        static const struct {
                enum rpi_value v;
                const char *text;
                int ret;
                double want;
        } cases[] = {
            {RPI_V_TEMP, "temp=47.2'C\n", 0, 47.2},
            {RPI_V_ARM, "frequency(48)=1500000000\n", 0, 1500000000.0},
            {RPI_V_H264, "frequency(0)=0\n", 0, 0.0},
            {RPI_V_VOLT, "volt=0.8563V\n", 0, 0.8563},
            {RPI_V_THROTTLED, "throttled=0x50000\n", 0, 0x50000},
            {RPI_V_THROTTLED, "throttled=0x0", 0, 0},
            {RPI_V_TEMP, "error=1 error_msg=\"Command not registered\"\n", -EPROTO, NAN},
            {RPI_V_VOLT, "error=2 error_msg=\"Invalid arguments\"", -EPROTO, NAN},
            {RPI_V_TEMP, "temp=47.", -EBADMSG, NAN},
            {RPI_V_ARM, "frequency(48)=", -EBADMSG, NAN},
            {RPI_V_VOLT, "", -EBADMSG, NAN},
            {RPI_V_THROTTLED, "throttled=50000", -EBADMSG, NAN},
            {RPI_V_ARM_MAX, "frequency(48)=1500000000", -ENOTSUP, NAN},
        };
        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                double x = -1;
                int r = rpi_fw_parse_reply(cases[i].v, cases[i].text, strlen(cases[i].text), &x);
                assert_int_equal(r, cases[i].ret);
                if (r == 0)
                        assert_true(x == cases[i].want);
                else
                        assert_true(x == -1);
        }
        assert_int_equal(gencmd_error_code("error=1 error_msg=\"x\"", 21), 1);
        assert_int_equal(gencmd_error_code("temp=47.2'C", 11), -1);
        assert_string_equal(rpi_fw_command(RPI_V_VOLT), "measure_volts core");
        assert_string_equal(rpi_fw_command(RPI_V_PIXEL), "measure_clock pixel");
        assert_null(rpi_fw_command(RPI_V_ARM_MAX));
}

static void test_fake_gencmd_answers(void **state)
{
        (void)state;
        struct fakefw fw;
        double x = -1;
        load(&fw, "gencmd \"measure_temp\" temp=47.2'C\n"
                  "gencmd err=2 \"measure_volts core\" error=2 error_msg=\"Invalid arguments\"\n"
                  "gencmd fail=EINVAL \"measure_clock arm\"\n"
                  "gencmd \"measure_clock core\"\n"
                  "gencmd \"get_throttled\" throttled=0x50000   # not a comment\n");
        assert_int_equal(fw.ngencmd, 5);
        assert_string_equal(fw.g[4].reply, "throttled=0x50000   # not a comment");
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_TEMP, &x), 0);
        assert_true(x == 47.2);
        assert_string_equal(fw.last_gencmd, "measure_temp");
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_VOLT, &x), -EPROTO);
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_ARM, &x), -EINVAL);
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_CORE, &x), -EBADMSG);
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_THROTTLED, &x), -EBADMSG);
        /* A command without a line: the firmware's "not registered" answer. */
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_V3D, &x), -EPROTO);
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_ARM_MAX, &x), -ENOTSUP);
        assert_true(x == 47.2);
        assert_int_equal(fw.gencmd_requests, 6);
        /* The error word and text as the kernel copies them back. */
        uint32_t buf[GENCMD_WORDS];
        size_t n;
        char out[128];
        uint32_t err = 0;
        assert_int_equal(gencmd_build(buf, GENCMD_WORDS, "measure_clock v3d", &n), 0);
        assert_int_equal(fakefw_answer(&fw, buf, n), 0);
        assert_int_equal(buf[1], 0x80000000);
        assert_int_equal(gencmd_decode(buf, n, out, sizeof(out), &err), 42);
        assert_string_equal(out, "error=1 error_msg=\"Command not registered\"");
        assert_int_equal(err, 0xffffffffu);
}

static void test_fake_failures(void **state)
{
        (void)state;
        struct fakefw fw;
        double x = -1;
        uint32_t buf[GENCMD_WORDS], before[GENCMD_WORDS];
        size_t n;
        /* No gencmd line: the tag is unknown to this firmware and left unanswered. */
        load(&fw, "tag 0x00030046 0x0\n");
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_TEMP, &x), -ENODATA);
        /* An answer longer than the buffer: the firmware fails the request (EINVAL),
         * nothing is copied back. */
        char text[1200];
        int len = snprintf(text, sizeof(text), "gencmd \"measure_temp\" ");
        memset(text + len, 'y', 250);
        text[len + 250] = '\n';
        text[len + 251] = '\0';
        load(&fw, text);
        assert_int_equal(gencmd_build(buf, GENCMD_WORDS, "measure_temp", &n), 0);
        buf[3] = 200; /* a caller with a 200-byte buffer */
        memcpy(before, buf, sizeof(buf));
        assert_int_equal(fakefw_answer(&fw, buf, n), -EINVAL);
        assert_memory_equal(buf, before, sizeof(buf));
        /* The restricted node: any tag but gencmd is EPERM, before the firmware. */
        load(&fw, "allow 0x00030080\ngencmd \"measure_temp\" temp=47.2'C\n"
                  "tag 0x00030046 0x50005\n");
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_TEMP, &x), 0);
        double vals[RPI_V_COUNT];
        unsigned got = 99;
        assert_int_equal(rpi_fw_query(&direct_ops, &fw, RPI_V_BIT(RPI_V_THROTTLED), vals, &got),
                         -EPERM);
        assert_int_equal(got, 0);
        assert_int_equal(fw.throttled_requests, 0);
        /* fail ioctl: every request. */
        load(&fw, "gencmd \"measure_temp\" temp=47.2'C\nfail ioctl EIO\n");
        assert_int_equal(rpi_fw_gencmd(&direct_ops, &fw, RPI_V_TEMP, &x), -EIO);
        assert_true(x == 47.2);
        /* Bad lines. */
        unsigned line = 0;
        static const char *const bad[] = {"gencmd measure_temp temp=47.2'C\n",
                                          "gencmd \"measure_temp temp\n",
                                          "gencmd fail=ENOPE \"measure_temp\"\n",
                                          "gencmd err=x \"measure_temp\"\n",
                                          "allow\n",
                                          "allow 0x80 0x81\n"};
        for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(fakefw_parse(&fw, bad[i], strlen(bad[i]), &line), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_request_layout),   cmocka_unit_test(test_decode),
            cmocka_unit_test(test_recorded_replies), cmocka_unit_test(test_fake_gencmd_answers),
            cmocka_unit_test(test_fake_failures),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
