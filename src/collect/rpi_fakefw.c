/* SPDX-License-Identifier: Apache-2.0 */
/* The fake firmware behind the mailbox transport seam: answers property requests from
 * a description file, so the whole Raspberry Pi path runs on fixture trees
 * (`vigil --root tests/fixtures/pi4-healthy`). Format in rpi_transport.h.
 *
 *   tag 0x00030047 id=3 1500398464      (one line of a description)
 *   gencmd "measure_clock arm" frequency(48)=1500398464 */
#include "collect/rpi_transport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/rpi_gencmd.h"
#include "collect/rpi_mbox.h"
#include "util/parse.h"

static const struct {
        const char *name;
        int value;
} errno_names[] = {
    {"EACCES", EACCES}, {"EPERM", EPERM},   {"ENOENT", ENOENT},       {"ENODEV", ENODEV},
    {"EIO", EIO},       {"EINVAL", EINVAL}, {"ETIMEDOUT", ETIMEDOUT}, {"EBUSY", EBUSY},
};

static bool tok_is(const char *s, size_t n, const char *lit)
{
        return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* A u32 written in decimal or with a 0x prefix; the whole token must be the number. */
static int tok_u32(const char *s, size_t n, uint32_t *ret)
{
        uint64_t v;
        if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                struct cursor c = cur_make(s, n);
                if (cur_hex(&c, &v) < 0 || !cur_eof(&c))
                        return -EINVAL;
        } else if (parse_u64(s, n, &v) < 0) {
                return -EINVAL;
        }
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t)v;
        return 0;
}

static int tok_errno(const char *s, size_t n, int *ret)
{
        for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++) {
                if (tok_is(s, n, errno_names[i].name)) {
                        *ret = errno_names[i].value;
                        return 0;
                }
        }
        return -EINVAL;
}

/* "tag ID [id=N] [len=N] VALUE..." after the keyword. */
static int parse_tag(struct fakefw *fw, struct cursor *c)
{
        if (fw->n >= FAKEFW_MAX_ENTRIES)
                return -EINVAL;
        struct fakefw_entry e = {0};
        const char *s;
        size_t n;
        if (cur_word(c, &s, &n) < 0 || tok_u32(s, n, &e.id) < 0 || e.id == 0)
                return -EINVAL;
        while (cur_word(c, &s, &n) == 0) {
                if (n > 3 && memcmp(s, "id=", 3) == 0) {
                        e.has_key = true;
                        if (tok_u32(s + 3, n - 3, &e.key) < 0)
                                return -EINVAL;
                } else if (n > 4 && memcmp(s, "len=", 4) == 0) {
                        e.has_len = true;
                        if (tok_u32(s + 4, n - 4, &e.len) < 0 || e.len > MBOX_TAG_LEN_MASK)
                                return -EINVAL;
                } else {
                        if (e.nvals >= FAKEFW_MAX_VALUES || tok_u32(s, n, &e.vals[e.nvals]) < 0)
                                return -EINVAL;
                        e.nvals++;
                }
        }
        fw->e[fw->n++] = e;
        return 0;
}

/* "fail open ERRNO" or "fail ioctl ERRNO [after N]" after the keyword. */
static int parse_fail(struct fakefw *fw, struct cursor *c)
{
        const char *what, *s;
        size_t wn, n;
        int err;
        if (cur_word(c, &what, &wn) < 0 || cur_word(c, &s, &n) < 0 || tok_errno(s, n, &err) < 0)
                return -EINVAL;
        if (tok_is(what, wn, "open")) {
                fw->open_err = err;
        } else if (tok_is(what, wn, "ioctl")) {
                fw->call_err = err;
                if (cur_word(c, &s, &n) == 0) {
                        if (!tok_is(s, n, "after") || cur_word(c, &s, &n) < 0 ||
                            tok_u32(s, n, &fw->call_after) < 0)
                                return -EINVAL;
                }
        } else {
                return -EINVAL;
        }
        return cur_word(c, &s, &n) == 0 ? -EINVAL : 0;
}

/* "gencmd [err=N] [fail=ERRNO] "COMMAND" REPLY..." after the keyword: the reply is
 * the rest of the line as written (blanks around it dropped). */
static int parse_gencmd(struct fakefw *fw, struct cursor *c)
{
        if (fw->ngencmd >= FAKEFW_MAX_GENCMDS)
                return -EINVAL;
        struct fakefw_gencmd g = {0};
        for (;;) {
                cur_skip_blank(c);
                if (cur_lit(c, "err=")) {
                        const char *s;
                        size_t n;
                        if (cur_word(c, &s, &n) < 0 || tok_u32(s, n, &g.err) < 0)
                                return -EINVAL;
                } else if (cur_lit(c, "fail=")) {
                        const char *s;
                        size_t n;
                        if (cur_word(c, &s, &n) < 0 || tok_errno(s, n, &g.fail) < 0)
                                return -EINVAL;
                } else {
                        break;
                }
        }
        if (!cur_lit(c, "\""))
                return -EINVAL;
        const char *cmd = c->p;
        const char *q = memchr(cmd, '"', (size_t)(c->end - cmd));
        if (!q || q == cmd || (size_t)(q - cmd) >= sizeof(g.cmd))
                return -EINVAL;
        memcpy(g.cmd, cmd, (size_t)(q - cmd));
        c->p = q + 1;
        cur_skip_blank(c);
        size_t rn = (size_t)(c->end - c->p);
        if (rn >= sizeof(g.reply))
                return -EINVAL;
        memcpy(g.reply, c->p, rn);
        fw->g[fw->ngencmd++] = g;
        return 0;
}

static int parse_allow(struct fakefw *fw, struct cursor *c)
{
        const char *s;
        size_t n;
        if (fw->nallow >= FAKEFW_MAX_ALLOW || cur_word(c, &s, &n) < 0 ||
            tok_u32(s, n, &fw->allow[fw->nallow]) < 0)
                return -EINVAL;
        fw->nallow++;
        return cur_word(c, &s, &n) == 0 ? -EINVAL : 0;
}

static int parse_line(struct fakefw *fw, const char *line, size_t len)
{
        struct cursor c = cur_make(line, len);
        const char *kw;
        size_t kn;
        if (cur_word(&c, &kw, &kn) < 0 || kw[0] == '#')
                return 0;
        /* A gencmd reply may hold '#': only whole-line comments there. */
        if (tok_is(kw, kn, "gencmd")) {
                while (c.end > c.p && (c.end[-1] == '\r' || c.end[-1] == ' ' || c.end[-1] == '\t'))
                        c.end--;
                return parse_gencmd(fw, &c);
        }
        const char *hash = memchr(line, '#', len);
        if (hash)
                c.end = hash;
        while (c.end > c.p && (c.end[-1] == '\r' || c.end[-1] == ' ' || c.end[-1] == '\t'))
                c.end--;
        if (tok_is(kw, kn, "tag"))
                return parse_tag(fw, &c);
        if (tok_is(kw, kn, "fail"))
                return parse_fail(fw, &c);
        if (tok_is(kw, kn, "allow"))
                return parse_allow(fw, &c);
        return -EINVAL;
}

int fakefw_parse(struct fakefw *fw, const char *text, size_t n, unsigned *ret_line)
{
        memset(fw, 0, sizeof(*fw));
        struct cursor c = cur_make(text, n);
        unsigned lineno = 0;
        while (!cur_eof(&c)) {
                const char *line;
                size_t len;
                cur_line(&c, &line, &len);
                lineno++;
                if (parse_line(fw, line, len) < 0) {
                        if (ret_line)
                                *ret_line = lineno;
                        return -EINVAL;
                }
        }
        return 0;
}

static const struct fakefw_entry *find_entry(const struct fakefw *fw, uint32_t id,
                                             uint32_t first_word)
{
        for (unsigned i = 0; i < fw->n; i++) {
                const struct fakefw_entry *e = &fw->e[i];
                if (e->id == id && (!e->has_key || e->key == first_word))
                        return e;
        }
        return NULL;
}

/* Answer one tag whose value buffer is buf[0..vwords); code is its response word. */
static void answer_tag(const struct fakefw_entry *e, uint32_t *code, uint32_t *val, uint32_t vwords)
{
        uint32_t out[FAKEFW_MAX_VALUES + 1];
        uint32_t nout = 0;
        if (e->has_key)
                out[nout++] = e->key;
        for (unsigned i = 0; i < e->nvals; i++)
                out[nout++] = e->vals[i];
        for (uint32_t w = 0; w < nout && w < vwords; w++)
                val[w] = out[w];
        *code = MBOX_TAG_RESPONSE_BIT | (e->has_len ? e->len : nout * 4);
}

static void note_request(struct fakefw *fw, uint32_t id, const uint32_t *val, uint32_t vwords)
{
        fw->last_ntags++;
        if (id == MBOX_TAG_GET_THROTTLED) {
                fw->throttled_requests++;
                if (vwords > 0 && val[0] != 0)
                        fw->throttled_nonzero++;
        }
}

static bool tag_allowed(const struct fakefw *fw, uint32_t id)
{
        if (fw->nallow == 0)
                return true;
        for (unsigned i = 0; i < fw->nallow; i++)
                if (fw->allow[i] == id)
                        return true;
        return false;
}

/* The tags of buf[0..nwords) in order: -EINVAL when a tag runs past the buffer or
 * there is no end tag, -EPERM for a tag the node does not allow (the kernel checks
 * that before the firmware sees the buffer), else 0. */
static int check_tags(const struct fakefw *fw, const uint32_t *buf, size_t nwords)
{
        size_t pos = 2;
        while (pos < nwords) {
                uint32_t id = buf[pos];
                if (id == 0)
                        return 0;
                if (!tag_allowed(fw, id))
                        return -EPERM;
                if (pos + 3 > nwords || (buf[pos + 1] + 3) / 4 > nwords - pos - 3)
                        return -EINVAL;
                pos += 3 + (buf[pos + 1] + 3) / 4;
        }
        return -EINVAL;
}

static const struct fakefw_gencmd *find_gencmd(const struct fakefw *fw, const char *cmd)
{
        for (unsigned i = 0; i < fw->ngencmd; i++)
                if (strcmp(fw->g[i].cmd, cmd) == 0)
                        return &fw->g[i];
        return NULL;
}

/* A gencmd tag: val[0] is the error word, the text follows (vbytes in all). 0, or a
 * negative errno that fails the whole request. */
static int answer_gencmd(struct fakefw *fw, uint32_t *code, uint32_t *val, uint32_t vbytes)
{
        static const struct fakefw_gencmd unknown = {
            .reply = "error=1 error_msg=\"Command not registered\"", .err = 0xffffffffu};
        if (vbytes < 8)
                return -EINVAL;
        char *text = (char *)&val[1];
        size_t room = vbytes - 4;
        size_t cmdlen = strnlen(text, room);
        fw->gencmd_requests++;
        memset(fw->last_gencmd, 0, sizeof(fw->last_gencmd));
        memcpy(fw->last_gencmd, text, cmdlen < FAKEFW_CMD_MAX ? cmdlen : FAKEFW_CMD_MAX - 1);
        if (fw->ngencmd == 0)
                return 0; /* the firmware does not know the tag: left unanswered */
        const struct fakefw_gencmd *g = cmdlen < room ? find_gencmd(fw, text) : NULL;
        if (!g)
                g = &unknown;
        if (g->fail)
                return -g->fail;
        size_t rlen = strlen(g->reply);
        if (rlen + 1 > room)
                return -EINVAL; /* the answer does not fit: the firmware fails it */
        val[0] = g->err;
        memcpy(text, g->reply, rlen + 1);
        *code = MBOX_TAG_RESPONSE_BIT | (uint32_t)(4 + rlen + 1);
        return 0;
}

/* Answer every tag of the (checked) request in buf. 0 or -errno. */
static int answer_all(struct fakefw *fw, uint32_t *buf, size_t nwords)
{
        size_t pos = 2;
        fw->last_ntags = 0;
        while (pos < nwords && buf[pos] != 0) {
                uint32_t id = buf[pos];
                uint32_t vbytes = buf[pos + 1];
                uint32_t vwords = (vbytes + 3) / 4;
                uint32_t *val = &buf[pos + 3];
                note_request(fw, id, val, vwords);
                if (id == GENCMD_TAG) {
                        int r = answer_gencmd(fw, &buf[pos + 2], val, vbytes);
                        if (r < 0)
                                return r;
                } else {
                        const struct fakefw_entry *e = find_entry(fw, id, vwords ? val[0] : 0);
                        if (e)
                                answer_tag(e, &buf[pos + 2], val, vwords);
                }
                pos += 3 + vwords;
        }
        buf[1] = MBOX_REPLY_SUCCESS; /* the kernel sets it on success */
        return 0;
}

int fakefw_answer(struct fakefw *fw, uint32_t *buf, size_t cap)
{
        fw->calls++;
        if (fw->call_err && fw->calls > fw->call_after)
                return -fw->call_err;
        if (cap < 3 || buf[0] % 4 != 0 || buf[0] < 12 || buf[0] / 4 > cap ||
            buf[0] / 4 > FAKEFW_MAX_WORDS)
                return -EINVAL;
        size_t nwords = buf[0] / 4;
        int r = check_tags(fw, buf, nwords);
        if (r < 0)
                return r;
        /* Work on a copy: on failure the kernel copies nothing back. */
        uint32_t *work = malloc(nwords * sizeof(uint32_t));
        if (!work)
                return -ENOMEM;
        memcpy(work, buf, nwords * sizeof(uint32_t));
        r = answer_all(fw, work, nwords);
        if (r == 0)
                memcpy(buf, work, nwords * sizeof(uint32_t));
        free(work);
        return r;
}

static int fake_open(const char *path, void **ret_priv)
{
        char *text = malloc(FAKEFW_MAX_BYTES);
        struct fakefw *fw = malloc(sizeof(*fw));
        int r = -ENOMEM;
        if (!text || !fw)
                goto out_free;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                r = -errno;
                goto out_free;
        }
        ssize_t n = read(fd, text, FAKEFW_MAX_BYTES);
        r = n < 0 ? -errno : 0;
        close(fd);
        if (r == 0)
                r = fakefw_parse(fw, text, (size_t)n, NULL);
        if (r == 0 && fw->open_err)
                r = -fw->open_err;
        if (r < 0)
                goto out_free;
        free(text);
        *ret_priv = fw;
        return 0;
out_free:
        free(text);
        free(fw);
        return r;
}

static int fake_call(void *priv, uint32_t *buf, size_t cap)
{
        return fakefw_answer(priv, buf, cap);
}

static void fake_close(void *priv)
{
        free(priv);
}

const struct rpi_transport_ops rpi_transport_fake = {
    .name = "fake",
    .open = fake_open,
    .call = fake_call,
    .close = fake_close,
};
