/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the host sources' unit tests (test_host_sources.c, test_signage_sources.c):
 * a source run on a copy of a fixture tree under a temporary directory, so a test can
 * change its files. Helpers are static inline, so each test file takes what it uses. */
#ifndef VIGIL_TESTS_UNIT_SOURCE_ENV_H
#define VIGIL_TESTS_UNIT_SOURCE_ENV_H

#include <fcntl.h>
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

#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "run_cmd.h"

#define SEC 1000000000LL

struct env {
        char root[512]; /* the copied tree */
        char tmp[256];  /* the temporary directory holding it */
        struct vigil_options opt;
        struct frame frame;
        struct vigil_ctx ctx;
        struct tick tick;
};

static inline const char *fixtures_dir(void)
{
        const char *d = getenv("FIXTURES");
        return d && d[0] ? d : "tests/fixtures";
}

/* A fresh environment over a copy of fixture tree `name` (NULL: an empty root). */
static inline struct env *env_new(const char *name)
{
        struct env *e = calloc(1, sizeof(*e));
        assert_non_null(e);
        const char *tmpdir = getenv("TMPDIR");
        snprintf(e->tmp, sizeof(e->tmp), "%s/vigil-host-XXXXXX", tmpdir ? tmpdir : "/tmp");
        assert_non_null(mkdtemp(e->tmp));
        snprintf(e->root, sizeof(e->root), "%s/root", e->tmp);
        if (name) {
                char src[512];
                snprintf(src, sizeof(src), "%s/%s", fixtures_dir(), name);
                run_cmd("cp -a '%s' '%s'", src, e->root);
        } else {
                assert_int_equal(mkdir(e->root, 0755), 0);
        }
        options_defaults(&e->opt);
        snprintf(e->opt.root, sizeof(e->opt.root), "%s", e->root);
        frame_clear(&e->frame);
        e->ctx.opt = &e->opt;
        e->ctx.frame = &e->frame;
        e->tick.due = VCLOCK_BIT(VCLOCK_HOST);
        e->tick.mono_ns = 1000 * SEC;
        return e;
}

static inline void env_free(struct env *e)
{
        run_cmd("rm -rf '%s'", e->tmp);
        free(e);
}

/* The path of rel inside the copied tree. */
static inline const char *at(struct env *e, const char *rel)
{
        static char path[1024];
        snprintf(path, sizeof(path), "%s/%s", e->root, rel);
        return path;
}

/* Overwrite a file in place (same inode: kept-open fds see the new content). */
static inline void write_file(struct env *e, const char *rel, const char *data, size_t n)
{
        int fd = open(at(e, rel), O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, n), (ssize_t)n);
        close(fd);
}

static inline void *src_init(struct env *e, const struct vigil_source *s)
{
        void *st = NULL;
        assert_int_equal(s->init(&e->ctx, &st), 0);
        assert_non_null(st);
        return st;
}

static inline int src_sample(struct env *e, const struct vigil_source *s, void *st)
{
        return s->sample(st, &e->ctx, &e->tick);
}

#endif
