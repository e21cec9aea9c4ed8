/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the table of events.log kinds (core/event_kinds.c). Every row is whole
 * (a name, keys, a finding handler, a sentence whose keys are its own); no source file
 * spells a type= name by hand, so every line written comes through a row, and every row
 * has an emitter; lines of every kind carry only their row's keys; eventlog_event()
 * writes the same bytes a hand-spelled line did. Run from the top of the tree. */
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/event_kinds.h"
#include "core/eventlog.h"
#include "event_lines.h"

/* The words of a space-separated list, one at a time: false at the end. */
static bool next_word(const char **p, char *out, size_t cap)
{
        while (**p == ' ')
                (*p)++;
        size_t n = 0;
        while ((*p)[n] && (*p)[n] != ' ')
                n++;
        if (!n || n >= cap)
                return false;
        memcpy(out, *p, n);
        out[n] = '\0';
        *p += n;
        return true;
}

static bool has_key(const struct event_kind_desc *d, const char *key)
{
        char w[32];
        const char *p = d->keys;
        while (next_word(&p, w, sizeof(w)))
                if (!strcmp(w, key))
                        return true;
        return false;
}

static void check_keys(const struct event_kind_desc *d)
{
        char w[32];
        const char *p = d->keys;
        unsigned n = 0;
        while (next_word(&p, w, sizeof(w))) {
                n++;
                for (const char *c = w; *c; c++)
                        assert_true(islower((unsigned char)*c) || *c == '_');
                assert_string_not_equal(w, "type");
                /* once each */
                const char *rest = p;
                char v[32];
                while (next_word(&rest, v, sizeof(v)))
                        assert_string_not_equal(w, v);
        }
        assert_true(n > 0);
        assert_int_equal(*p, '\0');
}

/* Every {key} of a template is a key of the row; [ and ] pair, not nested. */
static void check_template(const struct event_kind_desc *d)
{
        int depth = 0;
        for (const char *p = d->sentence; *p; p++) {
                if (*p == '[')
                        assert_int_equal(depth++, 0);
                else if (*p == ']')
                        assert_int_equal(--depth, 0);
                if (*p != '{')
                        continue;
                const char *close = strchr(p, '}');
                assert_non_null(close);
                char key[32];
                assert_true((size_t)(close - p - 1) < sizeof(key));
                memcpy(key, p + 1, (size_t)(close - p - 1));
                key[close - p - 1] = '\0';
                if (!has_key(d, key))
                        print_error("%s: {%s} is not one of its keys\n", d->name, key);
                assert_true(has_key(d, key));
        }
        assert_int_equal(depth, 0);
}

static void test_rows_whole(void **state)
{
        (void)state;
        for (int k = 0; k < EV_KIND_COUNT; k++) {
                const struct event_kind_desc *d = event_kind((enum event_kind)k);
                assert_non_null(d->name);
                assert_true(strlen(d->name) > 0 && strlen(d->name) < 40);
                for (const char *c = d->name; *c; c++)
                        assert_true(isupper((unsigned char)*c) || *c == '_');
                /* names are unique: the lookup finds this row */
                assert_int_equal(event_kind_find(d->name, strlen(d->name)), k);
                assert_non_null(d->keys);
                check_keys(d);
                assert_non_null(d->finding);
                /* one sentence: a template (or EVENT_SENTENCE_NONE) or a function */
                assert_true((d->sentence != NULL) != (d->sentence_fn != NULL));
                if (d->sentence)
                        check_template(d);
                assert_string_not_equal(event_component_name(d->component), "?");
                assert_string_not_equal(event_action_text(d->action), "?");
        }
        assert_int_equal(event_kind_find("NO_SUCH_KIND", 12), -1);
        assert_int_equal(event_kind_find("STAR", 4), -1);
}

/* Append the files of dir (recursively) with a C suffix to list. */
static void walk(const char *dir, char list[][256], size_t *n, size_t cap)
{
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                char path[256];
                int w = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                assert_true(w > 0 && (size_t)w < sizeof(path));
                size_t len = strlen(path);
                if (e->d_type == DT_DIR) {
                        walk(path, list, n, cap);
                } else if (len > 2 &&
                           (!strcmp(path + len - 2, ".c") || !strcmp(path + len - 2, ".h"))) {
                        assert_true(*n < cap);
                        snprintf(list[(*n)++], 256, "%s", path);
                }
        }
        closedir(d);
}

/* The text of path with its comments blanked; NULL-terminated, caller frees. */
static char *code_of(const char *path)
{
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        char *s = malloc((size_t)n + 1);
        assert_non_null(s);
        assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
        s[n] = '\0';
        fclose(f);
        bool str = false;
        for (long i = 0; i < n; i++) {
                if (str) {
                        if (s[i] == '\\')
                                i++;
                        else if (s[i] == '"')
                                str = false;
                } else if (s[i] == '\'') {
                        i += s[i + 1] == '\\' ? 3 : 2;
                } else if (s[i] == '"') {
                        str = true;
                } else if (s[i] == '/' && s[i + 1] == '*') {
                        char *end = strstr(s + i + 2, "*/");
                        long stop = end ? end - s + 2 : n;
                        memset(s + i, ' ', (size_t)(stop - i));
                        i = stop - 1;
                } else if (s[i] == '/' && s[i + 1] == '/') {
                        while (i < n && s[i] != '\n')
                                s[i++] = ' ';
                }
        }
        return s;
}

/* Whether p is inside a string literal of its line of code. */
static bool in_literal(const char *code, const char *p)
{
        const char *q = p;
        while (q > code && q[-1] != '\n')
                q--;
        bool in = false;
        for (; q < p; q++) {
                if (in && *q == '\\')
                        q++;
                else if (*q == '"')
                        in = !in;
                else if (!in && *q == '\'')
                        q += q[1] == '\\' ? 3 : 2;
        }
        return in;
}

/* A string literal with a word "type=" before a name or a conversion: a type spelled
 * by hand (the key alone, "type=", is how a parser looks for it; an HTML type=\"date\"
 * is not ours). */
static const char *hand_spelled(const char *code)
{
        for (const char *p = strstr(code, "type="); p; p = strstr(p + 1, "type=")) {
                bool word = p == code || (!isalnum((unsigned char)p[-1]) && p[-1] != '_');
                bool name = isupper((unsigned char)p[5]) || p[5] == '%';
                if (word && name && in_literal(code, p))
                        return p;
        }
        return NULL;
}

#define MAX_FILES 600

static void test_no_type_spelled_by_hand(void **state)
{
        (void)state;
        static char files[MAX_FILES][256];
        size_t n = 0;
        walk("src", files, &n, MAX_FILES);
        assert_true(n > 100);
        bool used[EV_KIND_COUNT] = {false};
        for (size_t i = 0; i < n; i++) {
                char *code = code_of(files[i]);
                const char *bad = hand_spelled(code);
                if (bad)
                        print_error("%s spells an events.log type by hand: %.40s\n", files[i], bad);
                assert_null(bad);
                bool table = strstr(files[i], "core/event_kinds.") != NULL;
                for (int k = 0; k < EV_KIND_COUNT && !table; k++) {
                        char sym[64];
                        snprintf(sym, sizeof(sym), "EV_%s", event_kind((enum event_kind)k)->name);
                        for (const char *p = strstr(code, sym); p; p = strstr(p + 1, sym))
                                if (!isalnum((unsigned char)p[strlen(sym)]) &&
                                    p[strlen(sym)] != '_')
                                        used[k] = true;
                }
                free(code);
        }
        for (int k = 0; k < EV_KIND_COUNT; k++) {
                if (!used[k])
                        print_error("no source writes EV_%s\n",
                                    event_kind((enum event_kind)k)->name);
                assert_true(used[k]);
        }
}

/* The hand check itself: it finds a spelled type, and lets the parsers' key pass. */
static void test_hand_spelled_check(void **state)
{
        (void)state;
        assert_non_null(hand_spelled("eventlog_printf(el, t, \"type=FOO a=%d\", 1);"));
        assert_non_null(hand_spelled("sb_printf(sb, \"x=1 type=FOO\");"));
        assert_non_null(hand_spelled("sb_printf(sb, \"type=%s\", name);"));
        assert_null(hand_spelled("memcmp(w, \"type=\", 5)"));
        assert_null(hand_spelled("event_field(l, \"type\", v, n)"));
        assert_null(hand_spelled("sb_puts(sb, \"subtype=X\");"));
        assert_null(hand_spelled("sb_puts(sb, \"<input type=\\\"date\\\">\");"));
        assert_null(hand_spelled("if (*v == '\"') x = type=1; /* \"a\" */"));
}

/* Every line of every kind carries only its row's keys. */
static void test_lines_carry_row_keys(void **state)
{
        (void)state;
        bool seen[EV_KIND_COUNT] = {false};
        for (size_t i = 0; i < N_EVENT_CASES; i++) {
                const char *text = event_cases[i].line;
                struct event_line l = {text, strlen(text)};
                const struct event_kind_desc *d = event_kind_of(&l);
                if (!d)
                        continue;
                seen[d - event_kind(0)] = true;
                /* the words key=value after type=NAME, quoted values skipped */
                const char *p = strchr(text, ' ');
                while (p && *p) {
                        p++;
                        const char *eq = strchr(p, '=');
                        if (!eq)
                                break;
                        char key[32];
                        assert_true((size_t)(eq - p) < sizeof(key));
                        memcpy(key, p, (size_t)(eq - p));
                        key[eq - p] = '\0';
                        if (!has_key(d, key))
                                print_error("%s: key %s is not in its row\n", d->name, key);
                        assert_true(has_key(d, key));
                        p = eq + 1;
                        if (*p == '"')
                                p = strchr(p + 1, '"') + 1;
                        p = strchr(p, ' ');
                }
        }
        for (int k = 0; k < EV_KIND_COUNT; k++) {
                if (!seen[k])
                        print_error("no line of %s in event_lines.h\n",
                                    event_kind((enum event_kind)k)->name);
                assert_true(seen[k]);
        }
}

static char tapped[4096];

static void tap(void *arg, int64_t real_ns, const char *text, size_t len)
{
        (void)arg;
        (void)real_ns;
        snprintf(tapped, sizeof(tapped), "%.*s", (int)len, text);
}

/* eventlog_event(kind, fmt) writes what eventlog_printf("type=NAME " fmt) wrote. */
static void test_eventlog_event_bytes(void **state)
{
        (void)state;
        struct eventlog *el;
        assert_int_equal(eventlog_open_none(&el), 0);
        eventlog_set_tap(el, tap, NULL);
        char want[4096];
        for (int k = 0; k < EV_KIND_COUNT; k++) {
                const char *name = event_kind((enum event_kind)k)->name;
                eventlog_event(el, 0, (enum event_kind)k, "gpu=%u error=\"%s\"", 3u, "x y");
                snprintf(want, sizeof(want), "type=%s gpu=3 error=\"x y\"", name);
                assert_string_equal(tapped, want);
                struct strbuf sb;
                sb_init_fixed(&sb, want, sizeof(want));
                event_begin(&sb, (enum event_kind)k);
                assert_int_equal(strncmp(want, "type=", 5), 0);
                assert_string_equal(want + 5, name);
        }
        /* a line past 4 KB is cut as before */
        char big[5000];
        memset(big, 'a', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        eventlog_event(el, 0, EV_STOP, "%s", big);
        assert_int_equal(strncmp(tapped, "type=STOP aaa", 13), 0);
        eventlog_close(el);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_rows_whole),
            cmocka_unit_test(test_hand_spelled_check),
            cmocka_unit_test(test_no_type_spelled_by_hand),
            cmocka_unit_test(test_lines_carry_row_keys),
            cmocka_unit_test(test_eventlog_event_bytes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
