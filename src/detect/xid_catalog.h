/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's Xid catalog: what an Xid code means and what to do about it, for every code
 * the catalog lists (1-172), with its resolution bucket (the catalog's "Resolution Bucket
 * (Immediate Action)"). Source: NVIDIA, "Analyzing Xid Errors with the Xid Catalog",
 * https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html (Table 1 "Xids"
 * and the "Fault Resolution Buckets" table). Used by `vigil xid CODE`, the NVML event
 * listener, findings, the post-mortem and the dashboard. */
#ifndef VIGIL_DETECT_XID_CATALOG_H
#define VIGIL_DETECT_XID_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/event_kinds.h"
#include "util/strbuf.h"

/* The highest code the catalog lists. */
#define XID_CATALOG_LAST 172

/* What vigil says of a code the catalog does not list. */
#define XID_NOT_IN_CATALOG "not in NVIDIA's Xid catalog"

/* NVIDIA's resolution bucket (immediate action), as the catalog spells it. */
enum xid_bucket {
        XID_BUCKET_NONE,                 /* listed, but the catalog gives no immediate action */
        XID_BUCKET_IGNORE,               /* no action required */
        XID_BUCKET_RESTART_APP,          /* restart the application; no reset or reboot */
        XID_BUCKET_RESET_GPU,            /* reset the GPU */
        XID_BUCKET_RESTART_VM,           /* restart the VM that owns the GPU */
        XID_BUCKET_RESTART_BM,           /* restart the bare-metal machine */
        XID_BUCKET_CONTACT_SUPPORT,      /* contact support (unused codes: should never appear) */
        XID_BUCKET_CHECK_MECHANICALS,    /* check the board's seating and connections */
        XID_BUCKET_UPDATE_SWFW,          /* update software and firmware */
        XID_BUCKET_CHECK_UVM,            /* with UVM/vGPU in use reset the GPU, else ignore */
        XID_BUCKET_WORKFLOW_XID_45,      /* solo: restart Fabric Manager; else follow the other */
        XID_BUCKET_WORKFLOW_XID_48,      /* solo: reset the GPU; with 63/64: drain and reset */
        XID_BUCKET_WORKFLOW_NVLINK_ERR,  /* decode the registers; a reset or reboot clears it */
        XID_BUCKET_WORKFLOW_NVLINK5_ERR, /* decode with the catalog's Xid 144-150 table */
        XID_BUCKET_XID_154,              /* follow what Xid 154 reports */
        XID_BUCKET_COUNT
};

/* What it takes to get the GPU back: vigil's action class, from the bucket. */
enum xid_class {
        XID_CLASS_INFO,    /* informational, or a consequence of another Xid */
        XID_CLASS_APP,     /* the application is affected: restart it */
        XID_CLASS_WATCH,   /* the GPU runs on: watch for repeats, collect evidence */
        XID_CLASS_RESET,   /* the GPU needs a reset (or the machine a reboot) */
        XID_CLASS_REBOOT,  /* the machine (bare metal or VM) needs a restart */
        XID_CLASS_SERVICE, /* a person must look: support, the hardware, the software */
};

/* How serious, for findings and the event log: reset, reboot and service are critical. */
enum xid_severity {
        XID_SEV_INFO,
        XID_SEV_WARNING,
        XID_SEV_CRITICAL,
};

struct xid_info {
        unsigned first, last; /* the codes this entry covers (a range for 1-7, 144-150) */
        const char *meaning;  /* "GPU has fallen off the bus" */
        const char *action;   /* "reboot the machine; ..." */
        enum xid_class cls;
        enum xid_bucket bucket; /* NVIDIA's immediate action */
};

/* The catalog entry for code, or NULL when the catalog does not list it. Static. */
const struct xid_info *xid_lookup(unsigned code);
/* The whole table, sorted by code, entries not overlapping; *n gets its length. Static. */
const struct xid_info *xid_table_all(size_t *n);
/* "info", "application", "watch", "reset", "reboot", "service". */
const char *xid_class_name(enum xid_class cls);
/* The class a bucket asks for (XID_BUCKET_NONE: XID_CLASS_SERVICE, the entry may differ). */
enum xid_class xid_bucket_class(enum xid_bucket b);
/* The catalog's name, "RESET_GPU"; "NONE" for XID_BUCKET_NONE. Static. */
const char *xid_bucket_name(enum xid_bucket b);
/* What the bucket asks for, in words: "reset the GPU". Static. */
const char *xid_bucket_text(enum xid_bucket b);
/* Critical for reset, reboot and service; warning for application and watch. */
enum xid_severity xid_class_severity(enum xid_class cls);
/* "info", "warning", "critical". */
const char *xid_severity_name(enum xid_severity sev);
/* True for the reset/reboot class (46 48 62 64 74 79 95 109 110 119 120 136 140 143 151
 * 155 156 158 167 169 171 172). */
bool xid_needs_reset(unsigned code);
/* Append "Xid 79: GPU has fallen off the bus. Action: reboot the machine; ..." for a
 * listed code; -ENOENT (nothing appended) for one the catalog lacks. */
int xid_describe(struct strbuf *sb, unsigned code);
/* Append "NVIDIA's Xid catalog: RESTART_BM (restart the bare-metal machine). Severity:
 * critical." for a listed code; -ENOENT (nothing appended) for one the catalog lacks. */
int xid_describe_bucket(struct strbuf *sb, unsigned code);
/* The suggested action of an Xid event (an event_kinds row's EA_FROM_EVENT), from the
 * code's class, which its resolution bucket gives: none for info and watch, restart the
 * workload for the application, reset the GPU, reboot the machine (bare metal or VM),
 * inspect the hardware for service; inspect the hardware for a code the catalog lacks. */
enum event_action xid_event_action(unsigned code);

#endif
