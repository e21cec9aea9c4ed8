/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the mailbox buffer (exact words), the fake firmware, the firmware value
 * plan, vcgencmd parsing and running, and the sysfs helpers of the Raspberry Pi source. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/rpi_fw.h"
#include "collect/rpi_mbox.h"
#include "collect/rpi_sysfs.h"
#include "collect/rpi_transport.h"
#include "collect/rpi_vcgencmd.h"

#define NWORDS(a) (sizeof(a) / sizeof((a)[0]))

static struct mbox_tag temp_tag(void)
{
        struct mbox_tag t = {.id = MBOX_TAG_GET_TEMPERATURE, .buf_words = 2, .nin = 1};
        t.in[0] = 0;
        return t;
}

static void test_build_one_tag(void **state)
{
        (void)state;
        struct mbox_tag t = temp_tag();
        uint32_t buf[16];
        size_t n = 0;
        assert_int_equal(mbox_build(buf, 16, &t, 1, &n), 0);
        static const uint32_t want[] = {32, 0, 0x00030006, 8, 0, 0, 0, 0};
        assert_int_equal(n, NWORDS(want));
        assert_memory_equal(buf, want, sizeof(want));
}

static void test_build_all_values(void **state)
{
        (void)state;
        struct mbox_tag tags[RPI_V_COUNT];
        uint8_t which[RPI_V_COUNT];
        unsigned nt = rpi_fw_tags(RPI_V_ALL, tags, which);
        assert_int_equal(nt, 9);
        uint32_t buf[MBOX_MAX_WORDS];
        size_t n = 0;
        assert_int_equal(mbox_build(buf, MBOX_MAX_WORDS, tags, nt, &n), 0);
        /* Every tag in one buffer; get-throttled asks with 0 (never clears sticky bits). */
        static const uint32_t want[] = {
            188,        0, 0x00030006, 8, 0, 0, 0, /* temperature, id 0 */
            0x00030003, 8, 0,          1, 0,       /* voltage, core */
            0x00030047, 8, 0,          3, 0,       /* measured ARM */
            0x00030047, 8, 0,          4, 0,       /* CORE */
            0x00030047, 8, 0,          5, 0,       /* V3D */
            0x00030047, 8, 0,          6, 0,       /* H264 */
            0x00030047, 8, 0,          9, 0,       /* PIXEL */
            0x00030004, 8, 0,          3, 0,       /* max ARM */
            0x00030046, 4, 0,          0,          /* throttled, request 0 */
            0,                                     /* end tag */
        };
        assert_int_equal(n, NWORDS(want));
        assert_memory_equal(buf, want, sizeof(want));
        assert_int_equal(mbox_request_words(tags, nt), 47);
}

static void test_build_errors(void **state)
{
        (void)state;
        struct mbox_tag t = temp_tag();
        uint32_t buf[16];
        size_t n = 99;
        assert_int_equal(mbox_build(buf, 16, &t, 0, &n), -EINVAL);
        assert_int_equal(mbox_build(buf, 7, &t, 1, &n), -ENOSPC);
        t.buf_words = 3;
        assert_int_equal(mbox_build(buf, 16, &t, 1, &n), -EINVAL);
        t = temp_tag();
        t.nin = 3;
        assert_int_equal(mbox_build(buf, 16, &t, 1, &n), -EINVAL);
        t = temp_tag();
        t.id = 0;
        assert_int_equal(mbox_build(buf, 16, &t, 1, &n), -EINVAL);
        assert_int_equal(n, 99);
}

static void test_decode_success(void **state)
{
        (void)state;
        struct mbox_tag tags[2] = {temp_tag(),
                                   {.id = MBOX_TAG_GET_THROTTLED, .buf_words = 1, .nin = 1}};
        uint32_t buf[] = {48,     0x80000000, 0x00030006, 8,          0x80000008, 0,
                          0xb884, 0x00030046, 4,          0x80000004, 0x50005,    0};
        assert_int_equal(mbox_decode(buf, NWORDS(buf), tags, 2), 0);
        uint32_t w = 0;
        assert_true(tags[0].answered);
        assert_int_equal(tags[0].resp_bytes, 8);
        assert_int_equal(mbox_tag_word(&tags[0], 0, &w), 0);
        assert_int_equal(w, 0);
        assert_int_equal(mbox_tag_word(&tags[0], 1, &w), 0);
        assert_int_equal(w, 47236);
        assert_int_equal(mbox_tag_word(&tags[1], 0, &w), 0);
        assert_int_equal(w, 0x50005);
        assert_int_equal(mbox_tag_word(&tags[1], 1, &w), -EBADMSG);
}

static void test_decode_edge_cases(void **state)
{
        (void)state;
        struct mbox_tag tags[2] = {temp_tag(),
                                   {.id = MBOX_TAG_GET_THROTTLED, .buf_words = 1, .nin = 1}};
        uint32_t w = 7;
        /* A reply code the kernel never passes on (it fails the ioctl with EINVAL and
         * copies nothing back): not taken as a partial answer. */
        uint32_t partial[] = {48,     0x80000001, 0x00030006, 8, 0x80000008, 0,
                              0xb884, 0x00030046, 4,          0, 0,          0};
        assert_int_equal(mbox_decode(partial, NWORDS(partial), tags, 2), -EPROTO);
        assert_false(tags[0].answered);
        assert_false(tags[1].answered);
        assert_int_equal(mbox_tag_word(&tags[1], 0, &w), -ENODATA);
        assert_int_equal(w, 7);
        /* Not processed at all (reply code still 0): nothing answered. */
        uint32_t unprocessed[] = {48,     0,          0x00030006, 8,          0x80000008, 0,
                                  0xb884, 0x00030046, 4,          0x80000004, 1,          0};
        assert_int_equal(mbox_decode(unprocessed, NWORDS(unprocessed), tags, 2), -EPROTO);
        assert_false(tags[0].answered);
        assert_false(tags[1].answered);
        /* The size word changed, or the buffer is not the one built for these tags. */
        uint32_t resized[] = {44,     0x80000000, 0x00030006, 8,          0x80000008, 0,
                              0xb884, 0x00030046, 4,          0x80000004, 1,          0};
        assert_int_equal(mbox_decode(resized, NWORDS(resized), tags, 2), -EPROTO);
        assert_int_equal(mbox_decode(resized, 11, tags, 2), -EPROTO);
        /* A tag id overwritten: that tag is not answered. */
        uint32_t clobbered[] = {48,     0x80000000, 0x00030007, 8,          0x80000008, 0,
                                0xb884, 0x00030046, 4,          0x80000004, 1,          0};
        assert_int_equal(mbox_decode(clobbered, NWORDS(clobbered), tags, 2), 0);
        assert_false(tags[0].answered);
        assert_true(tags[1].answered);
}

static void test_decode_short_and_truncated(void **state)
{
        (void)state;
        struct mbox_tag t = temp_tag();
        uint32_t w = 0;
        /* Short: the firmware says 4 bytes; the second word is not an answer. */
        uint32_t shortr[] = {32, 0x80000000, 0x00030006, 8, 0x80000004, 0, 0xb884, 0};
        assert_int_equal(mbox_decode(shortr, NWORDS(shortr), &t, 1), 0);
        assert_int_equal(mbox_tag_word(&t, 0, &w), 0);
        assert_int_equal(mbox_tag_word(&t, 1, &w), -EBADMSG);
        /* Longer than the buffer: truncated, the first words still read. */
        uint32_t longr[] = {32, 0x80000000, 0x00030006, 8, 0x8000000c, 0, 0xb884, 0};
        assert_int_equal(mbox_decode(longr, NWORDS(longr), &t, 1), 0);
        assert_int_equal(t.resp_bytes, 12);
        assert_int_equal(mbox_tag_word(&t, 1, &w), 0);
        assert_int_equal(w, 47236);
        assert_int_equal(mbox_tag_word(&t, 2, &w), -EBADMSG);
}

static void test_voltage_units(void **state)
{
        (void)state;
        assert_true(mbox_voltage_v(856300) == 0.8563);
        assert_true(mbox_voltage_v(1200000) == 1.2);
        assert_true(isnan(mbox_voltage_v(0x80000000u)));
        assert_true(isnan(mbox_voltage_v(0)));           /* 25 mV steps: 1.2 V would be 0 */
        assert_true(isnan(mbox_voltage_v(0xfffffff2u))); /* ... and 0.85 V -14 */
        assert_true(isnan(mbox_voltage_v(3000000)));
}

static void test_fw_decode_values(void **state)
{
        (void)state;
        struct mbox_tag tags[RPI_V_COUNT];
        uint8_t which[RPI_V_COUNT];
        unsigned mask = RPI_V_BIT(RPI_V_ARM) | RPI_V_BIT(RPI_V_V3D) | RPI_V_BIT(RPI_V_VOLT);
        unsigned nt = rpi_fw_tags(mask, tags, which);
        assert_int_equal(nt, 3);
        assert_int_equal(which[0], RPI_V_VOLT);
        assert_int_equal(which[1], RPI_V_ARM);
        assert_int_equal(which[2], RPI_V_V3D);
        uint32_t buf[MBOX_MAX_WORDS];
        size_t n;
        assert_int_equal(mbox_build(buf, MBOX_MAX_WORDS, tags, nt, &n), 0);
        buf[1] = MBOX_REPLY_SUCCESS;
        /* volt: answered; ARM: echoes clock 4 instead of 3; V3D: answered */
        buf[4] = 0x80000008, buf[5] = 1, buf[6] = 856300;
        buf[9] = 0x80000008, buf[10] = 4, buf[11] = 1500398464;
        buf[14] = 0x80000008, buf[15] = 5, buf[16] = 500000992;
        assert_int_equal(mbox_decode(buf, n, tags, nt), 0);
        double vals[RPI_V_COUNT];
        for (unsigned i = 0; i < RPI_V_COUNT; i++)
                vals[i] = NAN;
        unsigned got = rpi_fw_decode(tags, which, nt, vals);
        assert_int_equal(got, RPI_V_BIT(RPI_V_VOLT) | RPI_V_BIT(RPI_V_V3D));
        assert_true(vals[RPI_V_VOLT] == 0.8563);
        assert_true(isnan(vals[RPI_V_ARM]));
        assert_true(vals[RPI_V_V3D] == 500000992.0);
}

static const char fw_text[] = "# a fake firmware\n"
                              "tag 0x00030006 id=0 47236   # temperature\n"
                              "tag 0x00030047 id=3 1500398464\n"
                              "tag 0x00030047 id=5 len=4 250000000\n"
                              "tag 0x00030046 0x50005\n"
                              "\n";

static void test_fakefw_parse(void **state)
{
        (void)state;
        struct fakefw fw;
        unsigned line = 0;
        assert_int_equal(fakefw_parse(&fw, fw_text, strlen(fw_text), &line), 0);
        assert_int_equal(fw.n, 4);
        assert_int_equal(fw.e[0].id, 0x00030006);
        assert_true(fw.e[0].has_key);
        assert_int_equal(fw.e[0].key, 0);
        assert_int_equal(fw.e[0].nvals, 1);
        assert_int_equal(fw.e[0].vals[0], 47236);
        assert_true(fw.e[2].has_len);
        assert_int_equal(fw.e[2].len, 4);
        assert_false(fw.e[3].has_key);
        assert_int_equal(fw.e[3].vals[0], 0x50005);
        assert_int_equal(fw.ngencmd, 0);
        assert_int_equal(fw.nallow, 0);
        const char *bad = "tag 0x00030006 id=0 47236\nfail open ENOSUCH\n";
        assert_int_equal(fakefw_parse(&fw, bad, strlen(bad), &line), -EINVAL);
        assert_int_equal(line, 2);
        /* Reply codes are not a thing user space sees: no such line. */
        const char *reply = "reply 0x80000001\n";
        assert_int_equal(fakefw_parse(&fw, reply, strlen(reply), &line), -EINVAL);
        const char *faults = "fail open EACCES\nfail ioctl EIO after 2\n";
        assert_int_equal(fakefw_parse(&fw, faults, strlen(faults), &line), 0);
        assert_int_equal(fw.open_err, EACCES);
        assert_int_equal(fw.call_err, EIO);
        assert_int_equal(fw.call_after, 2);
        const char *junk = "tag 0x00030006 id=x\n";
        assert_int_equal(fakefw_parse(&fw, junk, strlen(junk), &line), -EINVAL);
        assert_int_equal(line, 1);
}

static void test_fakefw_answer(void **state)
{
        (void)state;
        struct fakefw fw;
        assert_int_equal(fakefw_parse(&fw, fw_text, strlen(fw_text), NULL), 0);
        struct mbox_tag tags[RPI_V_COUNT];
        uint8_t which[RPI_V_COUNT];
        unsigned nt = rpi_fw_tags(RPI_V_ALL, tags, which);
        uint32_t buf[MBOX_MAX_WORDS];
        size_t n;
        assert_int_equal(mbox_build(buf, MBOX_MAX_WORDS, tags, nt, &n), 0);
        assert_int_equal(fakefw_answer(&fw, buf, n), 0);
        assert_int_equal(fw.last_ntags, 9);
        assert_int_equal(fw.throttled_requests, 1);
        assert_int_equal(fw.throttled_nonzero, 0);
        static const uint32_t want[] = {
            188,        0x80000000, 0x00030006, 8,          0x80000008, 0,          47236,
            0x00030003, 8,          0,          1,          0,          /* unanswered */
            0x00030047, 8,          0x80000008, 3,          1500398464, /* ARM */
            0x00030047, 8,          0,          4,          0,          /* CORE: none */
            0x00030047, 8,          0x80000004, 5,          250000000,  /* V3D: short */
            0x00030047, 8,          0,          6,          0,          0x00030047, 8,
            0,          9,          0,          0x00030004, 8,          0,          3,
            0,          0x00030046, 4,          0x80000004, 0x50005,    0,
        };
        assert_int_equal(n, NWORDS(want));
        assert_memory_equal(buf, want, sizeof(want));
        double vals[RPI_V_COUNT];
        for (unsigned i = 0; i < RPI_V_COUNT; i++)
                vals[i] = NAN;
        assert_int_equal(mbox_decode(buf, n, tags, nt), 0);
        unsigned got = rpi_fw_decode(tags, which, nt, vals);
        assert_int_equal(got,
                         RPI_V_BIT(RPI_V_TEMP) | RPI_V_BIT(RPI_V_ARM) | RPI_V_BIT(RPI_V_THROTTLED));
        assert_true(vals[RPI_V_TEMP] == 47.236);
        assert_true(vals[RPI_V_THROTTLED] == 0x50005);
}

static void test_fakefw_malformed(void **state)
{
        (void)state;
        struct fakefw fw;
        assert_int_equal(fakefw_parse(&fw, fw_text, strlen(fw_text), NULL), 0);
        /* A tag whose value buffer runs past the end: the firmware errors out, the
         * kernel fails the ioctl with EINVAL and copies nothing back. */
        uint32_t buf[] = {40, 0, 0x00030006, 8, 0, 0, 0, 0x00030046, 64, 0};
        uint32_t before[NWORDS(buf)];
        memcpy(before, buf, sizeof(buf));
        assert_int_equal(fakefw_answer(&fw, buf, NWORDS(buf)), -EINVAL);
        assert_memory_equal(buf, before, sizeof(buf));
        /* No end tag. */
        uint32_t noend[] = {28, 0, 0x00030046, 4, 0, 0, 0x00030046};
        assert_int_equal(fakefw_answer(&fw, noend, NWORDS(noend)), -EINVAL);
        assert_int_equal(noend[1], 0);
        /* A size the kernel refuses. */
        uint32_t odd[] = {30, 0, 0, 0, 0, 0, 0, 0};
        assert_int_equal(fakefw_answer(&fw, odd, NWORDS(odd)), -EINVAL);
        uint32_t huge[] = {4096, 0, 0};
        assert_int_equal(fakefw_answer(&fw, huge, NWORDS(huge)), -EINVAL);
        /* fail ioctl after N. */
        const char *f = "tag 0x00030046 0x1\nfail ioctl EIO after 1\n";
        assert_int_equal(fakefw_parse(&fw, f, strlen(f), NULL), 0);
        uint32_t ok[] = {28, 0, 0x00030046, 4, 0, 0, 0};
        assert_int_equal(fakefw_answer(&fw, ok, NWORDS(ok)), 0);
        assert_int_equal(fakefw_answer(&fw, ok, NWORDS(ok)), -EIO);
}

static void test_vcgencmd_parsers(void **state)
{
        (void)state;
        double d = -1;
        uint32_t w = 9;
        const char *s = "temp=47.2'C\n";
        assert_int_equal(vcgencmd_parse_temp(s, strlen(s), &d), 0);
        assert_true(d == 47.2);
        s = "frequency(48)=1500000000\n";
        assert_int_equal(vcgencmd_parse_freq(s, strlen(s), &d), 0);
        assert_true(d == 1500000000.0);
        s = "frequency(28)=0";
        assert_int_equal(vcgencmd_parse_freq(s, strlen(s), &d), 0);
        assert_true(d == 0.0);
        s = "volt=0.8563V\n";
        assert_int_equal(vcgencmd_parse_volt(s, strlen(s), &d), 0);
        assert_true(d == 0.8563);
        s = "throttled=0x50000\n";
        assert_int_equal(vcgencmd_parse_throttled(s, strlen(s), &w), 0);
        assert_int_equal(w, 0x50000);
        s = "throttled=0x0";
        assert_int_equal(vcgencmd_parse_throttled(s, strlen(s), &w), 0);
        assert_int_equal(w, 0);
        /* Malformed: missing value untouched. */
        d = 5;
        w = 5;
        static const char *const bad_temp[] = {"temp=47.2C", "temp='C", "tmp=47.2'C",
                                               "temp=47.2'C x", ""};
        for (unsigned i = 0; i < 5; i++)
                assert_int_equal(vcgencmd_parse_temp(bad_temp[i], strlen(bad_temp[i]), &d),
                                 -EINVAL);
        s = "frequency(48)=";
        assert_int_equal(vcgencmd_parse_freq(s, strlen(s), &d), -EINVAL);
        s = "frequency=1500000000";
        assert_int_equal(vcgencmd_parse_freq(s, strlen(s), &d), -EINVAL);
        s = "volt=0.8563";
        assert_int_equal(vcgencmd_parse_volt(s, strlen(s), &d), -EINVAL);
        s = "throttled=50000";
        assert_int_equal(vcgencmd_parse_throttled(s, strlen(s), &w), -EINVAL);
        s = "throttled=0x100000000";
        assert_int_equal(vcgencmd_parse_throttled(s, strlen(s), &w), -EINVAL);
        s = "error=2 error_msg=\"Invalid arguments\"";
        assert_int_equal(vcgencmd_parse_throttled(s, strlen(s), &w), -EINVAL);
        assert_true(d == 5);
        assert_int_equal(w, 5);
}

static char scratch_dir[256];

static void write_script(const char *name, const char *body)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", scratch_dir, name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(body, f);
        fclose(f);
        assert_int_equal(chmod(path, 0755), 0);
}

static void test_vcgencmd_run(void **state)
{
        (void)state;
        char out[VCGENCMD_OUTPUT_MAX], prog[512];
        const char *const argv_temp[] = {"vcgencmd", "measure_temp", NULL};
        assert_int_equal(vcgencmd_run("tests/fixtures/bin/vcgencmd", argv_temp, out, sizeof(out),
                                      VCGENCMD_TIMEOUT_MS),
                         12);
        assert_string_equal(out, "temp=47.2'C\n");
        const char *const argv_bad[] = {"vcgencmd", "nonsense", NULL};
        assert_int_equal(vcgencmd_run("tests/fixtures/bin/vcgencmd", argv_bad, out, sizeof(out),
                                      VCGENCMD_TIMEOUT_MS),
                         -EPROTO);
        assert_int_equal(
            vcgencmd_run("/nonexistent/vcgencmd", argv_temp, out, sizeof(out), VCGENCMD_TIMEOUT_MS),
            -ENOENT);
        /* Killed past its deadline; output beyond the bound ends the run. */
        write_script("slow", "#!/bin/sh\necho partial\nexec sleep 30\n");
        snprintf(prog, sizeof(prog), "%s/slow", scratch_dir);
        assert_int_equal(vcgencmd_run(prog, argv_temp, out, sizeof(out), 300), -ETIMEDOUT);
        assert_string_equal(out, "partial\n");
        write_script("flood", "#!/bin/sh\nexec yes 0123456789abcdef\n");
        snprintf(prog, sizeof(prog), "%s/flood", scratch_dir);
        assert_int_equal(vcgencmd_run(prog, argv_temp, out, sizeof(out), VCGENCMD_TIMEOUT_MS),
                         -EMSGSIZE);
        assert_int_equal(strlen(out), sizeof(out) - 1);
        /* Exactly at the bound is still a complete answer. */
        char small[8];
        write_script("seven", "#!/bin/sh\nprintf 'abcdefg'\n");
        snprintf(prog, sizeof(prog), "%s/seven", scratch_dir);
        assert_int_equal(vcgencmd_run(prog, argv_temp, small, sizeof(small), VCGENCMD_TIMEOUT_MS),
                         7);
        assert_string_equal(small, "abcdefg");
}

static void test_fw_vcgencmd(void **state)
{
        (void)state;
        double x = 0;
        const char *prog = "tests/fixtures/bin/vcgencmd";
        assert_int_equal(rpi_fw_vcgencmd(prog, RPI_V_TEMP, VCGENCMD_TIMEOUT_MS, &x), 0);
        assert_true(x == 47.2);
        assert_int_equal(rpi_fw_vcgencmd(prog, RPI_V_VOLT, VCGENCMD_TIMEOUT_MS, &x), 0);
        assert_true(x == 0.8563);
        assert_int_equal(rpi_fw_vcgencmd(prog, RPI_V_ARM, VCGENCMD_TIMEOUT_MS, &x), 0);
        assert_true(x == 1500398464.0);
        assert_int_equal(rpi_fw_vcgencmd(prog, RPI_V_H264, VCGENCMD_TIMEOUT_MS, &x), 0);
        assert_true(x == 0.0);
        assert_int_equal(rpi_fw_vcgencmd(prog, RPI_V_THROTTLED, VCGENCMD_TIMEOUT_MS, &x), 0);
        assert_true(x == 0x50000);
        assert_int_equal(rpi_fw_vcgencmd(prog, RPI_V_ARM_MAX, VCGENCMD_TIMEOUT_MS, &x), -ENOTSUP);
}

static void test_model(void **state)
{
        (void)state;
        char model[64];
        assert_int_equal(rpi_read_model("tests/fixtures/pi4-healthy", model, sizeof(model)), 1);
        assert_string_equal(model, "Raspberry Pi 4 Model B Rev 1.4");
        assert_int_equal(rpi_read_model("tests/fixtures/arm-board", model, sizeof(model)), 0);
        assert_string_equal(model, "Pine64 RockPro64 v2.1");
        assert_int_equal(rpi_read_model("tests/fixtures/nonexistent", model, sizeof(model)),
                         -ENOENT);
        assert_int_equal(rpi_model_generation("Raspberry Pi 4 Model B Rev 1.4"), 4);
        assert_int_equal(rpi_model_generation("Raspberry Pi 5 Model B Rev 1.0"), 5);
        assert_int_equal(rpi_model_generation("Raspberry Pi Compute Module 5 Rev 1.0"), 5);
        assert_int_equal(rpi_model_generation("Raspberry Pi 500 Rev 1.0"), 5);
        assert_int_equal(rpi_model_generation("Raspberry Pi 400 Rev 1.0"), 4);
        assert_int_equal(rpi_model_generation("Raspberry Pi 3 Model B Plus Rev 1.3"), 3);
        assert_int_equal(rpi_model_generation("Raspberry Pi Model B Rev 2"), 1);
        assert_int_equal(rpi_model_generation("Raspberry Pi Zero 2 W Rev 1.0"), 0);
        assert_int_equal(rpi_model_generation("Pine64 RockPro64 v2.1"), 0);
}

static void test_sysfs_finders(void **state)
{
        (void)state;
        char path[128];
        assert_int_equal(
            rpi_find_thermal_zone("tests/fixtures/pi5", "cpu-thermal", path, sizeof(path)), 0);
        assert_string_equal(path, "/sys/class/thermal/thermal_zone0/temp");
        assert_int_equal(
            rpi_find_thermal_zone("tests/fixtures/arm-board", "cpu-thermal", path, sizeof(path)),
            -ENOENT);
        assert_int_equal(rpi_find_hwmon("tests/fixtures/pi5", "rpi_volt", path, sizeof(path)), 0);
        assert_string_equal(path, "/sys/class/hwmon/hwmon1");
        assert_int_equal(rpi_find_gpu_stats("tests/fixtures/pi5", path, sizeof(path)), 0);
        assert_string_equal(path, "/sys/class/drm/card0/device/gpu_stats");
        assert_int_equal(rpi_find_gpu_stats("tests/fixtures/pi4-healthy", path, sizeof(path)),
                         -ENOENT);
}

static void test_v3d_stats(void **state)
{
        (void)state;
        const char *s = "queue\ttimestamp\tjobs\truntime\n"
                        "bin\t239043069420\t22620\t17438164056\n"
                        "render\t239043069420\t22619\t27284814161\n"
                        "bad line\n"
                        "cache_clean\t239043069420\t6127\t237375940\n";
        struct v3d_queue_stat q[8];
        assert_int_equal(v3d_stats_parse(s, strlen(s), q, 8), 3);
        assert_string_equal(q[0].name, "bin");
        assert_true(q[0].timestamp_ns == 239043069420ull);
        assert_true(q[0].jobs == 22620);
        assert_true(q[0].runtime_ns == 17438164056ull);
        assert_string_equal(q[2].name, "cache_clean");
        assert_int_equal(v3d_stats_parse(s, strlen(s), q, 2), 2);
        struct v3d_queue_stat a = {"render", 1000000000, 10, 500000000};
        struct v3d_queue_stat b = {"render", 3000000000, 30, 1000000000};
        assert_true(v3d_busy_ratio(&a, &b) == 0.25);
        b.runtime_ns = 4000000000; /* more than elapsed: clamped */
        assert_true(v3d_busy_ratio(&a, &b) == 1.0);
        b.runtime_ns = 100; /* counters went back (driver reloaded) */
        assert_true(isnan(v3d_busy_ratio(&a, &b)));
        b = a;
        assert_true(isnan(v3d_busy_ratio(&a, &b))); /* no time passed */
        b.timestamp_ns += 10;
        memcpy(b.name, "bin", 4);
        assert_true(isnan(v3d_busy_ratio(&a, &b)));
}

static int group_setup(void **state)
{
        (void)state;
        snprintf(scratch_dir, sizeof(scratch_dir), "%s/vigil-rpi-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        return mkdtemp(scratch_dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
        (void)state;
        const char *names[] = {"slow", "flood", "seven"};
        char path[512];
        for (unsigned i = 0; i < 3; i++) {
                snprintf(path, sizeof(path), "%s/%s", scratch_dir, names[i]);
                unlink(path);
        }
        rmdir(scratch_dir);
        return 0;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_build_one_tag),
            cmocka_unit_test(test_build_all_values),
            cmocka_unit_test(test_build_errors),
            cmocka_unit_test(test_decode_success),
            cmocka_unit_test(test_decode_edge_cases),
            cmocka_unit_test(test_decode_short_and_truncated),
            cmocka_unit_test(test_voltage_units),
            cmocka_unit_test(test_fw_decode_values),
            cmocka_unit_test(test_fakefw_parse),
            cmocka_unit_test(test_fakefw_answer),
            cmocka_unit_test(test_fakefw_malformed),
            cmocka_unit_test(test_vcgencmd_parsers),
            cmocka_unit_test(test_vcgencmd_run),
            cmocka_unit_test(test_fw_vcgencmd),
            cmocka_unit_test(test_model),
            cmocka_unit_test(test_sysfs_finders),
            cmocka_unit_test(test_v3d_stats),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
