/* SPDX-License-Identifier: Apache-2.0 */
/* Source: the screens of a signage player, on the host clock. Every DRM connector
 * (ROOT/sys/class/drm/cardN-NAME, drivers/gpu/drm/drm_sysfs.c: status, enabled, dpms,
 * edid; the texts in collect/display_parse.c) and, where an HDMI-CEC adapter exists
 * (ROOT/dev/cec0), the TV's power status, asked once a minute without waiting
 * (collect/cec.h; a fixture's fake adapter at every sample). Connectors are found at
 * start and again every minute (a USB or DisplayPort MST screen can come and go), and
 * at once when one is found gone. A connector's files are kept open from the scan that
 * found it and read with one pread each a sample (collect/sysfs_obj.h: a kept
 * descriptor sees each new value; a removed connector's fails, and it is dropped). On a Raspberry Pi 4 and 5 with the
 * vc4-kms-v3d overlay the HDMI connectors are card1-HDMI-A-1 and card1-HDMI-A-2 on
 * recent kernels (card0 is the v3d render node); on a Pi 5 the RP1's DSI and DPI
 * outputs are connectors of their own card (raspberrypi/linux drivers/gpu/drm/vc4,
 * drivers/gpu/drm/rp1).
 *
 * A file that cannot be read or parsed makes its value missing and is said once on
 * stderr; the other connectors and values carry on. An empty read of a text file is no
 * value this sample, said only when the next read is empty too (sysfs never serves one
 * empty; a test rewriting a fixture file in place can be caught between its truncation
 * and its write).
 *
 * Frame fields: display.nconn, display.conn[], display.cec_power. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/cec.h"
#include "collect/display_parse.h"
#include "collect/sysfs_obj.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"

#define DRM_DIR       "/sys/class/drm"
#define CEC_DEV       "/dev/cec0"
#define RESCAN_NS     (60 * NSEC_PER_SEC)
#define CEC_EVERY_NS  (60 * NSEC_PER_SEC) /* the bus is slow and shared: once a minute */
#define CEC_GIVEUP_NS (5 * NSEC_PER_SEC)  /* no answer by then: not answered */
#define EDID_MAX      1024                /* the base block and up to 7 extensions */
#define TEXT_MAX      64

enum conn_file { CF_STATUS, CF_ENABLED, CF_DPMS, CF_EDID, CF_COUNT };
static const char *const conn_files[CF_COUNT] = {"status", "enabled", "dpms", "edid"};

struct conn_state {
        char dir[64];          /* "card1-HDMI-A-1" */
        char card[8];          /* "card1" */
        char name[32];         /* "HDMI-A-1" */
        struct sysfs_obj file; /* its files, kept open */
        unsigned warned;       /* bit per enum conn_file: said once */
        uint8_t edid[EDID_MAX];
        int edid_len; /* -1: not read yet */
        bool have_id;
        struct edid_ident id;
};

struct display_state {
        char root[4096];
        unsigned n;
        struct conn_state conn[VIGIL_MAX_CONNECTORS];
        int64_t scanned_ns;
        bool rescan; /* a connector was found gone: scan at the next sample */
        struct cec *cec;
        bool cec_pending;
        int64_t cec_asked_ns; /* 0: never */
        double cec_power;
        int cec_warned; /* the last error said, 0 none */
};

/* "cardN-NAME": the card's part and the connector's; false for anything else
 * ("card1", "renderD128", "version") and for writeback connectors. */
static bool split_connector(const char *d, char *card, size_t ccap, char *name, size_t ncap)
{
        if (strncmp(d, "card", 4) != 0)
                return false;
        const char *p = d + 4;
        size_t digits = strspn(p, "0123456789");
        if (!digits || p[digits] != '-' || !p[digits + 1])
                return false;
        /* A writeback connector (vc4's TXP) is no screen. */
        if (!strncmp(p + digits + 1, "Writeback", 9))
                return false;
        copy_bounded(card, ccap, d, 4 + digits);
        copy_bounded(name, ncap, p + digits + 1, strlen(p + digits + 1));
        return true;
}

static int by_dir(const void *a, const void *b)
{
        return strcmp(((const struct conn_state *)a)->dir, ((const struct conn_state *)b)->dir);
}

/* The connectors now: known ones keep their state and open files (those that could not
 * be opened are tried again), new ones have theirs opened, gone ones closed. */
static void scan(struct display_state *s)
{
        char path[4200];
        struct conn_state *old = malloc(sizeof(s->conn));
        if (!old)
                return;
        memcpy(old, s->conn, sizeof(s->conn));
        unsigned nold = s->n;
        s->n = 0;
        DIR *dir = path_join(path, sizeof(path), s->root, DRM_DIR) == 0 ? opendir(path) : NULL;
        struct dirent *e;
        while (dir && (e = readdir(dir)) && s->n < VIGIL_MAX_CONNECTORS) {
                struct conn_state c;
                memset(&c, 0, sizeof(c));
                if (strlen(e->d_name) >= sizeof(c.dir) ||
                    !split_connector(e->d_name, c.card, sizeof(c.card), c.name, sizeof(c.name)))
                        continue;
                copy_bounded(c.dir, sizeof(c.dir), e->d_name, strlen(e->d_name));
                c.edid_len = -1;
                char rel[sizeof(c.dir) + sizeof(DRM_DIR)];
                snprintf(rel, sizeof(rel), DRM_DIR "/%s", c.dir);
                sysfs_obj_init(&c.file, s->root, rel, conn_files, CF_COUNT);
                for (unsigned i = 0; i < nold; i++)
                        if (!old[i].file.gone && !strcmp(old[i].dir, c.dir)) {
                                c = old[i];
                                old[i].dir[0] = '\0'; /* taken over */
                        }
                sysfs_obj_open(&c.file);
                s->conn[s->n++] = c;
        }
        if (dir)
                closedir(dir);
        for (unsigned i = 0; i < nold; i++)
                if (old[i].dir[0])
                        sysfs_obj_close(&old[i].file);
        free(old);
        qsort(s->conn, s->n, sizeof(s->conn[0]), by_dir);
        s->rescan = false;
}

static int display_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct display_state *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        const char *root = ctx->opt->root;
        snprintf(s->root, sizeof(s->root), "%s", root ? root : "");
        s->cec_power = NAN;
        scan(s);
        char cec[4200];
        if (path_join(cec, sizeof(cec), s->root, CEC_DEV) == 0) {
                int r = cec_open(cec, &s->cec);
                if (r < 0 && r != -ENOENT)
                        vlog(LOG_WARN,
                             "display: cannot open %s: %s; the TV's power state is not "
                             "read",
                             cec, strerror(-r));
        }
        if (s->n == 0 && !s->cec) {
                free(s);
                return -ENODEV;
        }
        *ret_state = s;
        return 0;
}

/* Read one file of connector c (its text, or bytes for the EDID) into buf with one
 * pread of its kept descriptor; the length or -errno, said once per file (not when the
 * connector is gone: it is dropped at the next sample). */
static int read_conn(struct display_state *s, struct conn_state *c, enum conn_file f, char *buf,
                     size_t cap)
{
        int n = sysfs_obj_read(&c->file, f, buf, cap);
        if (c->file.gone) {
                s->rescan = true;
                return n < 0 ? n : -ENODEV;
        }
        if (n < 0 && !(c->warned & (1u << f))) {
                c->warned |= 1u << f;
                char path[4400];
                sysfs_obj_path(&c->file, f, path, sizeof(path));
                vlog(LOG_WARN, "display: cannot read %s: %s", path, strerror(-n));
        }
        return n;
}

static void bad_text(struct conn_state *c, enum conn_file f, const char *text)
{
        if (c->warned & (1u << f))
                return;
        c->warned |= 1u << f;
        vlog(LOG_WARN, "display: %s/%s: unexpected \"%.*s\"", c->dir, conn_files[f],
             (int)strcspn(text, "\n"), text);
}

typedef int (*word_parser)(const char *s, double *ret);

static void read_word(struct display_state *s, struct conn_state *c, enum conn_file f,
                      word_parser parse, double *out)
{
        char buf[TEXT_MAX];
        int n = read_conn(s, c, f, buf, sizeof(buf));
        if (n < 0 || sysfs_obj_skip_empty(&c->file, f, n))
                return;
        if (parse(buf, out) < 0)
                bad_text(c, f, buf);
}

/* The monitor's identity, parsed again only when the EDID's bytes changed. */
static void read_edid(struct display_state *s, struct conn_state *c, struct display_conn *out)
{
        char buf[EDID_MAX + 1];
        int n = read_conn(s, c, CF_EDID, buf, sizeof(buf));
        if (n < 0)
                return;
        if (n != c->edid_len || memcmp(buf, c->edid, (size_t)n) != 0) {
                memcpy(c->edid, buf, (size_t)n);
                c->edid_len = n;
                int r = edid_parse(c->edid, (size_t)n, &c->id);
                c->have_id = r == 0;
                if (r == -EINVAL && !(c->warned & (1u << CF_EDID))) {
                        c->warned |= 1u << CF_EDID;
                        vlog(LOG_WARN, "display: %s/edid: not a valid EDID base block (%d bytes)",
                             c->dir, n);
                }
        }
        if (!c->have_id)
                return;
        snprintf(out->monitor, sizeof(out->monitor), "%s", c->id.name);
        snprintf(out->serial, sizeof(out->serial), "%s", c->id.serial);
        snprintf(out->edid_id, sizeof(out->edid_id), "%s", c->id.id);
}

static void cec_said(struct display_state *s, int err)
{
        if (err == s->cec_warned || err == -ETIMEDOUT)
                return;
        s->cec_warned = err;
        if (err == -EADDRNOTAVAIL)
                vlog(LOG_WARN, "display: the CEC adapter has no logical address (configure it, "
                               "e.g. cec-ctl --playback); the TV's power state is not read");
        else
                vlog(LOG_WARN, "display: CEC power status: %s", strerror(-err));
}

/* The last question's answer when it came, then a new question when one is due. */
static void sample_cec(struct display_state *s, int64_t now_ns)
{
        if (s->cec_pending) {
                int a = cec_answer(s->cec);
                if (a != -EAGAIN || now_ns - s->cec_asked_ns >= CEC_GIVEUP_NS) {
                        s->cec_pending = false;
                        s->cec_power = a >= 0 ? a : NAN;
                        if (a < 0 && a != -EAGAIN)
                                cec_said(s, a);
                }
        }
        int64_t every = cec_is_fake(s->cec) ? 0 : CEC_EVERY_NS;
        if (s->cec_pending || (s->cec_asked_ns && now_ns - s->cec_asked_ns < every))
                return;
        s->cec_asked_ns = now_ns;
        int r = cec_ask(s->cec);
        if (r < 0) {
                s->cec_power = NAN;
                cec_said(s, r);
                return;
        }
        s->cec_pending = true;
        int a = cec_answer(s->cec); /* the fake answers at once; the bus later */
        if (a != -EAGAIN) {
                s->cec_pending = false;
                s->cec_power = a >= 0 ? a : NAN;
                if (a < 0)
                        cec_said(s, a);
        }
}

static int display_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct display_state *s = state;
        struct display_frame *out = &ctx->frame->display;
        display_frame_clear(out);
        if (s->rescan || !s->scanned_ns || t->mono_ns - s->scanned_ns >= RESCAN_NS) {
                if (s->scanned_ns || s->rescan)
                        scan(s);
                s->scanned_ns = t->mono_ns;
        }
        out->nconn = s->n;
        for (unsigned i = 0; i < s->n; i++) {
                struct conn_state *c = &s->conn[i];
                struct display_conn *o = &out->conn[i];
                sysfs_obj_retry(&c->file);
                snprintf(o->card, sizeof(o->card), "%s", c->card);
                snprintf(o->name, sizeof(o->name), "%s", c->name);
                read_word(s, c, CF_STATUS, drm_parse_status, &o->connected);
                read_word(s, c, CF_ENABLED, drm_parse_enabled, &o->enabled);
                read_word(s, c, CF_DPMS, drm_parse_dpms, &o->dpms);
                if (VAL_OK(o->connected) && o->connected > 0)
                        read_edid(s, c, o);
        }
        if (s->cec)
                sample_cec(s, t->mono_ns);
        out->cec_power = s->cec_power;
        return 0;
}

static void display_fini(void *state)
{
        struct display_state *s = state;
        if (!s)
                return;
        cec_close(s->cec);
        for (unsigned i = 0; i < s->n; i++)
                sysfs_obj_close(&s->conn[i].file);
        free(s);
}

const struct vigil_source vigil_source_display = {
    .name = "display",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = display_init,
    .sample = display_sample,
    .fini = display_fini,
};
