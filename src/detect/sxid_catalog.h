/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's NVSwitch SXid errors: what a code means and what to do about it, for every
 * code NVIDIA's Fabric Manager user guide lists (DU-09883-001 v1.3, October 2023,
 * appendix D "NVSwitch SXid Errors": D.4 non-fatal, D.5 fatal, D.6 always fatal, D.7
 * other notable). The kernel-log detector (detect/kernel_gpu.c) takes a line's meaning,
 * severity and action from here; a code the guide does not list falls back on what the
 * driver's own line says ("Fatal" / "Non-fatal"). Depends on core/ only. */
#ifndef VIGIL_DETECT_SXID_CATALOG_H
#define VIGIL_DETECT_SXID_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/event_kinds.h"

/* The guide's groups, refined by the recovery its rows give. */
enum sxid_class {
        SXID_CORRECTED,    /* D.4 single-bit ECC: the NVSwitch corrected it; no impact */
        SXID_IGNORE,       /* D.4/D.7 rows the guide says can be ignored */
        SXID_THROUGHPUT,   /* D.4 a replay or power-saving link: throughput only */
        SXID_STALL,        /* D.4 the partition's NVLink traffic stalls; CUDA jobs abort
                            * with Xid 45: restart the workload */
        SXID_LINK,         /* D.7 a broken or inconsistent connection: check the link */
        SXID_FATAL,        /* D.5 fatal to the NVSwitch port: reset GPUs and NVSwitches */
        SXID_ALWAYS_FATAL, /* D.6 fatal to the whole fabric: restart the host */
        SXID_CLASS_COUNT
};

struct sxid_info {
        unsigned code;
        const char *name; /* the guide's name, e.g. "egress nonposted PRIV error" */
        enum sxid_class cls;
};

/* The guide's row for code, or NULL when it does not list the code. */
const struct sxid_info *sxid_lookup(unsigned code);
/* What to do for a class, as a sentence for people. */
const char *sxid_class_action(enum sxid_class cls);
/* The impact of a class, as a phrase ("contained by the hardware", ...). */
const char *sxid_class_impact(enum sxid_class cls);
/* The whole table, sorted by code, its length in *n (for tests and `vigil xid`). */
const struct sxid_info *sxid_table(size_t *n);
/* Whether a class takes the GPUs behind the NVSwitch out of service (critical). */
bool sxid_class_critical(enum sxid_class cls);
/* The suggested action of a class in the health vocabulary. */
enum event_action sxid_class_event_action(enum sxid_class cls);

#endif
