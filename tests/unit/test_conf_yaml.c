/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the YAML subset reader of the config files (util/conf_yaml.c): the entries
 * it hands on, in order, and each error with the line it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/conf_yaml.h"
#include "util/conffile.h"

/* What the reader handed on, one entry a line: "S1 parent.key=value @L", "O0 key @L",
 * "C0 key @L", "E @L". A key named "fail" makes the callback fail at its line. */
struct log {
        char text[2048];
        size_t len;
};

static int record(struct conf_yaml *y, const struct conf_yaml_item *it, void *arg)
{
        struct log *l = arg;
        static const char ev[] = {'S', 'O', 'C', 'E'};
        int n;
        if (it->event == CONF_YAML_END)
                n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "E @%u\n", it->line);
        else
                n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%c%u %s%s%s%s%s @%u\n",
                             ev[it->event], it->depth, it->parent ? it->parent : "",
                             it->parent ? "." : "", it->key, it->value[0] ? "=" : "", it->value,
                             it->line);
        l->len += (size_t)n;
        if (!strcmp(it->key, "fail"))
                return conf_yaml_fail(y, it->line, "'%s' refused", it->key);
        return 0;
}

static int read_text(const char *text, struct log *l, char *err, size_t cap)
{
        memset(l, 0, sizeof(*l));
        return conf_yaml_read(text, strlen(text), record, l, err, cap);
}

static void test_entries(void **state)
{
        (void)state;
        struct log l;
        char err[256];
        const char *text = "---\n"
                           "# a comment\n"
                           "top: 1\n"
                           "block:   # a comment after a key: still a mapping\n"
                           "  plain: a b  # comment\n"
                           "  single: 'it''s # not a comment'\n"
                           "  double: \"a\\\\b\\\"c\"\r\n"
                           "\n"
                           "  inner:\n"
                           "      deep: x:y\n"
                           "      deeper:\n"
                           "        leaf: '1'\n"
                           "  after: \"\"\n"
                           "  tail: \t v \t\n"
                           "empty:\n"
                           "last: z";
        assert_int_equal(read_text(text, &l, err, sizeof(err)), 0);
        assert_string_equal(err, "");
        assert_string_equal(l.text, "S0 top=1 @3\n"
                                    "O0 block @4\n"
                                    "S1 block.plain=a b @5\n"
                                    "S1 block.single=it's # not a comment @6\n"
                                    "S1 block.double=a\\b\"c @7\n"
                                    "O1 block.inner @9\n"
                                    "S2 inner.deep=x:y @10\n"
                                    "O2 inner.deeper @11\n"
                                    "S3 deeper.leaf=1 @12\n"
                                    "C2 inner.deeper @11\n"
                                    "C1 block.inner @9\n"
                                    "O1 block.after @13\n"
                                    "C1 block.after @13\n"
                                    "S1 block.tail=v @14\n"
                                    "C0 block @4\n"
                                    "O0 empty @15\n"
                                    "C0 empty @15\n"
                                    "S0 last=z @16\n"
                                    "E @16\n");
        /* Nothing at all, and only comments: just the end. */
        assert_int_equal(read_text("", &l, err, sizeof(err)), 0);
        assert_string_equal(l.text, "E @0\n");
        assert_int_equal(read_text("# x\n\n   \n", &l, err, sizeof(err)), 0);
        assert_string_equal(l.text, "E @3\n");
        /* A mapping open at the end is closed before the end. */
        assert_int_equal(read_text("a:\n  b:\n    c: 1\n", &l, err, sizeof(err)), 0);
        assert_string_equal(l.text, "O0 a @1\nO1 a.b @2\nS2 b.c=1 @3\nC1 a.b @2\nC0 a @1\nE @3\n");
        /* A long comment is no long line. */
        char longc[1200];
        memset(longc, 'x', sizeof(longc));
        memcpy(longc, "# ", 2);
        memcpy(longc + sizeof(longc) - 7, "\na: 1\n", 7);
        assert_int_equal(read_text(longc, &l, err, sizeof(err)), 0);
        assert_string_equal(l.text, "S0 a=1 @2\nE @2\n");
}

/* Each bad input and the exact message naming its line. */
static void test_errors(void **state)
{
        (void)state;
        static const struct {
                const char *text;
                const char *msg;
        } cases[] = {
            {"a:\n\tb: 1\n", "line 2: tab in indentation (use spaces)"},
            {"a: 1\nb: x\x01y\n", "line 2: control character in line"},
            {"a: 1\nb: x\ry\n", "line 2: control character in line"},
            {"  a: 1\n", "line 1: unexpected indentation"},
            {"a: 1\n  b: 2\n", "line 2: unexpected indentation"},
            {"a:\n  b: 1\n   c: 2\n", "line 3: inconsistent indentation"},
            {"a:\n    b: 1\n  c: 2\n", "line 3: inconsistent indentation"},
            {"a:\n  b:\n    c:\n      d:\n        e: 1\n",
             "line 5: nested too deep (at most 4 levels)"},
            {"a: 'x\n", "line 1: unterminated quoted value"},
            {"a: \"x\\n\"\n", "line 1: unsupported escape in quoted value"},
            {"a: 'x' y\n", "line 1: unexpected text after the quoted value"},
            {"a: b: c\n", "line 1: unexpected ': ' in a value (quote it)"},
            {"a: {}\n", "line 1: unsupported YAML syntax '{' (write a plain or quoted value)"},
            {"a: &anchor x\n",
             "line 1: unsupported YAML syntax '&' (write a plain or quoted value)"},
            {"a: |\n", "line 1: unsupported YAML syntax '|' (write a plain or quoted value)"},
            {"a:\n  - x\n", "line 2: unsupported YAML syntax '-' (expected 'key: value')"},
            {"'a': 1\n", "line 1: unsupported YAML syntax ''' (expected 'key: value')"},
            {"a 1\n", "line 1: expected 'key: value'"},
            {"a b: 1\n", "line 1: expected 'key: value'"},
            {"a:1\n", "line 1: expected 'key: value'"},
            {"a: 1\n---\nb: 2\n", "line 2: unsupported YAML syntax '-' (expected 'key: value')"},
            {"kxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx: 1\n",
             "line 1: key too long (at most 63 bytes)"},
            /* The callback's own error, at its line; a mapping's close at its key's. */
            {"a: 1\nfail: 2\nb: 3\n", "line 2: 'fail' refused"},
        };
        struct log l;
        char err[256];
        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int r = read_text(cases[i].text, &l, err, sizeof(err));
                if (r != -EINVAL || strcmp(err, cases[i].msg) != 0)
                        fail_msg("case %u: got %d '%s', want '%s'", i, r, err, cases[i].msg);
        }
        /* Reading stops at the first error: nothing after it is handed on. */
        assert_int_equal(read_text("a: 1\nfail: 2\nb: 3\n", &l, err, sizeof(err)), -EINVAL);
        assert_string_equal(l.text, "S0 a=1 @1\nS0 fail=2 @2\n");
        assert_int_equal(read_text("a: 1\nb: {\nc: 3\n", &l, err, sizeof(err)), -EINVAL);
        assert_string_equal(l.text, "S0 a=1 @1\n");
}

static void test_limits(void **state)
{
        (void)state;
        struct log l;
        char err[256];
        /* A line of content over the bound. */
        char text[1100];
        memset(text, 'v', sizeof(text));
        memcpy(text, "a: 1\nb: ", 8);
        text[sizeof(text) - 1] = '\0';
        assert_int_equal(read_text(text, &l, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "line 2: line too long (at most 1024 bytes)");
        /* At the bound it is read. */
        text[5 + CONF_YAML_MAX_LINE] = '\0';
        assert_int_equal(read_text(text, &l, err, sizeof(err)), 0);
        /* A NUL byte anywhere. */
        assert_int_equal(conf_yaml_read("a: 1\nb: \0\n", 10, record, &l, err, sizeof(err)),
                         -EINVAL);
        assert_string_equal(err, "line 1: NUL byte in file");
        /* A small error buffer gets a cut message, never an overflow; none at all is fine. */
        char tiny[8];
        assert_int_equal(read_text("  x: 1\n", &l, tiny, sizeof(tiny)), -EINVAL);
        assert_string_equal(tiny, "line 1:");
        assert_int_equal(read_text("  x: 1\n", &l, NULL, 0), -EINVAL);
}

/* A reader over conf_yaml for conf_load: the error names the file and the line. */
static int parse_log(const char *text, size_t len, const char *base_dir, void *cfg, char *err,
                     size_t cap)
{
        (void)base_dir;
        struct log *l = cfg;
        memset(l, 0, sizeof(*l));
        return conf_yaml_read(text, len, record, l, err, cap);
}

static void test_file_and_line(void **state)
{
        (void)state;
        char path[] = "/tmp/vigil-conf-yaml-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        const char text[] = "a:\n  b: 1\n  fail: 2\n";
        assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
        close(fd);
        struct log l;
        char err[512], want[600];
        assert_int_equal(conf_load(path, 4096, parse_log, &l, err, sizeof(err)), -EINVAL);
        snprintf(want, sizeof(want), "%s: line 3: 'fail' refused", path);
        assert_string_equal(err, want);
        unlink(path);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_entries),
            cmocka_unit_test(test_errors),
            cmocka_unit_test(test_limits),
            cmocka_unit_test(test_file_and_line),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
