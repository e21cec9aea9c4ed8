/* NVIDIA's Xid catalog (FACTS.md): what an Xid code means and what to do about it.
 * Used by `vigil xid CODE` and by the NVML event listener. */
#ifndef VIGIL_DETECT_XID_CATALOG_H
#define VIGIL_DETECT_XID_CATALOG_H

#include <stdbool.h>

#include "util/strbuf.h"

/* How serious: what it takes to get the GPU back. */
enum xid_class {
        XID_CLASS_INFO,   /* informational, or a consequence of another Xid */
        XID_CLASS_APP,    /* the application is affected: restart it */
        XID_CLASS_WATCH,  /* the GPU runs on: watch for repeats, collect evidence */
        XID_CLASS_RESET,  /* the GPU needs a reset (or the machine a reboot) */
        XID_CLASS_REBOOT, /* the machine needs a reboot */
};

struct xid_info {
        unsigned first, last; /* the codes this entry covers (a range for 144-150) */
        const char *meaning;  /* "GPU has fallen off the bus" */
        const char *action;   /* "reboot the machine; ..." */
        enum xid_class cls;
};

/* The catalog entry for code, or NULL when the catalog does not list it. Static. */
const struct xid_info *xid_lookup(unsigned code);
/* "info", "application", "watch", "reset", "reboot". */
const char *xid_class_name(enum xid_class cls);
/* True for the reset/reboot class (48 62 64 74 79 95 109 119 120 140 143). */
bool xid_needs_reset(unsigned code);
/* Append "Xid 79: GPU has fallen off the bus. Action: reboot the machine; ..." for a
 * listed code; -ENOENT (nothing appended) for one the catalog lacks. */
int xid_describe(struct strbuf *sb, unsigned code);

#endif
