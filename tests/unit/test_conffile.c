/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: loading a small config file and resolving the file names it gives
 * (util/conffile.c), shared by --config, the web config and the remote-write config. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/conffile.h"

static void test_resolve(void **state)
{
        (void)state;
        char out[32];
        assert_int_equal(conf_resolve(out, sizeof(out), "/etc/vigil", "ca.pem"), 0);
        assert_string_equal(out, "/etc/vigil/ca.pem");
        assert_int_equal(conf_resolve(out, sizeof(out), "/etc/vigil/", "ca.pem"), 0);
        assert_string_equal(out, "/etc/vigil/ca.pem");
        assert_int_equal(conf_resolve(out, sizeof(out), "/", "ca.pem"), 0);
        assert_string_equal(out, "/ca.pem");
        assert_int_equal(conf_resolve(out, sizeof(out), "/etc/vigil", "/abs/k.pem"), 0);
        assert_string_equal(out, "/abs/k.pem");
        assert_int_equal(conf_resolve(out, sizeof(out), "", "rel.pem"), 0);
        assert_string_equal(out, "rel.pem");
        assert_int_equal(conf_resolve(out, sizeof(out), NULL, "rel.pem"), 0);
        assert_string_equal(out, "rel.pem");
        assert_int_equal(conf_resolve(out, sizeof(out), "/a/rather/long/directory", "name.pem"),
                         -ENAMETOOLONG);
}

/* A reader that records what it was given, and fails on "bad". */
struct seen {
        char text[64];
        char dir[256];
};

static int record(const char *text, size_t len, const char *base_dir, void *cfg, char *err,
                  size_t cap)
{
        struct seen *s = cfg;
        snprintf(s->text, sizeof(s->text), "%.*s", (int)len, text);
        snprintf(s->dir, sizeof(s->dir), "%s", base_dir);
        if (len >= 3 && !memcmp(text, "bad", 3)) {
                snprintf(err, cap, "line 1: bad");
                return -EINVAL;
        }
        return 0;
}

static void write_file(const char *path, const char *text)
{
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
}

static void test_load(void **state)
{
        (void)state;
        char dir[] = "/tmp/vigil-conffile-XXXXXX";
        char path[256], err[512], want[600];
        struct seen s;
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/c.yml", dir);

        write_file(path, "good\n");
        assert_int_equal(conf_load(path, 16, record, &s, err, sizeof(err)), 0);
        assert_string_equal(s.text, "good\n");
        assert_string_equal(s.dir, dir);

        write_file(path, "bad\n");
        assert_int_equal(conf_load(path, 16, record, &s, err, sizeof(err)), -EINVAL);
        snprintf(want, sizeof(want), "%s: line 1: bad", path);
        assert_string_equal(err, want);

        /* Exactly the bound is read; one byte more is refused unparsed. */
        write_file(path, "0123456789abcdef");
        assert_int_equal(conf_load(path, 16, record, &s, err, sizeof(err)), 0);
        write_file(path, "0123456789abcdefX");
        s.text[0] = '\0';
        assert_int_equal(conf_load(path, 16, record, &s, err, sizeof(err)), -EFBIG);
        assert_string_equal(s.text, "");
        snprintf(want, sizeof(want), "%s: larger than 16 bytes", path);
        assert_string_equal(err, want);

        /* A bound of whole MB is said in MB, as --config's has always been. */
        char *big = malloc((1 << 20) + 2);
        assert_non_null(big);
        memset(big, '#', (1 << 20) + 1);
        big[(1 << 20) + 1] = '\0';
        write_file(path, big);
        free(big);
        assert_int_equal(conf_load(path, 1 << 20, record, &s, err, sizeof(err)), -EFBIG);
        snprintf(want, sizeof(want), "%s: larger than 1 MB", path);
        assert_string_equal(err, want);

        /* A directory, or a FIFO (which would read as empty, or block): no config. */
        char other[300];
        snprintf(other, sizeof(other), "%s/d.yml", dir);
        assert_int_equal(mkdir(other, 0700), 0);
        assert_int_equal(conf_load(other, 16, record, &s, err, sizeof(err)), -EISDIR);
        snprintf(want, sizeof(want), "%s: is a directory", other);
        assert_string_equal(err, want);
        rmdir(other);
        assert_int_equal(mkfifo(other, 0600), 0);
        s.text[0] = 'x';
        assert_int_equal(conf_load(other, 16, record, &s, err, sizeof(err)), -EINVAL);
        snprintf(want, sizeof(want), "%s: not a regular file", other);
        assert_string_equal(err, want);
        assert_int_equal(s.text[0], 'x'); /* never parsed */
        unlink(other);

        unlink(path);
        assert_int_equal(conf_load(path, 16, record, &s, err, sizeof(err)), -ENOENT);
        snprintf(want, sizeof(want), "%s: No such file or directory", path);
        assert_string_equal(err, want);
        rmdir(dir);

        /* A file directly under a directory: that directory. */
        assert_int_equal(conf_load("/dev/null", 16, record, &s, err, sizeof(err)), 0);
        assert_string_equal(s.dir, "/dev");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_resolve),
            cmocka_unit_test(test_load),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
