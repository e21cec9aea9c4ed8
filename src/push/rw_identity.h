/* SPDX-License-Identifier: Apache-2.0 */
/* Which machine pushed a series: a host name alone does not say, since machines cloned
 * from one image (a fleet of Raspberry Pis flashed from one card) share it, and their
 * series would merge into one in the receiver. The push adds the systemd machine ID as
 * the label machine_id (pushed series only: a scrape's target already tells machines
 * apart) and hardware_id, the hardware's own identity (collect/hw_identity.h), which
 * tells apart the machines of one image, and warns when the host name is a
 * distribution's default.
 *
 *   /etc/machine-id   "4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091\n"
 *
 * machine-id(5): 32 lowercase hexadecimal characters and a newline; an image before its
 * first boot may hold an empty file or the word "uninitialized". */
#ifndef VIGIL_PUSH_RW_IDENTITY_H
#define VIGIL_PUSH_RW_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

#include "push/rw_config.h"

#define RW_MACHINE_ID_LEN 32
#define RW_PUSH_LABELS    (RWCONFIG_MAX_LABELS + 4) /* the most rw_push_labels gives */

/* The machine ID in text[0..n) (the file's content) into out (RW_MACHINE_ID_LEN + 1
 * bytes). 0; -ENODATA for an empty or "uninitialized" file; -EINVAL for anything
 * else that is not 32 lowercase hex characters and an optional newline. */
int rw_machine_id_parse(const char *text, size_t n, char *out);

/* Read root/etc/machine-id (root "" or "/" for the machine's own) into out, as
 * rw_machine_id_parse. 0 or -errno (-ENOENT when there is none). */
int rw_machine_id_read(const char *root, char *out);

/* True when name is a host name that images ship with and clones share
 * ("raspberrypi", "localhost", "ubuntu", "debian", ...), in any case. */
bool rw_hostname_is_default(const char *name);

/* The labels every pushed series gets, into labels (RW_PUSH_LABELS of room): the
 * config's external_labels, then instance (the host name) and job="vigil" unless it
 * set them (what a scrape would add, so rules and dashboards read pushed and scraped
 * series alike), then machine_id from root/etc/machine-id and hardware_id from the
 * hardware (collect/hw_identity.h: what a cloned image does not copy) unless it set
 * them. Warns
 * once (the daemon's start) when there is no machine ID, or when the instance is a
 * default host name, each warning led by who ("remote-write", "alertmanager"). Returns
 * the count. */
size_t rw_push_labels(const char *who, const struct rw_config *cfg, const char *root,
                      struct rw_label *labels);

#endif
