/* SPDX-License-Identifier: Apache-2.0 */
/* system-info.txt: the hardware and driver snapshot of the reference GPU logger,
 * written at start and rewritten when the NVIDIA driver version changes. Everything is
 * read natively (uname(2), files under --root), no shell:
 *
 *   === GPU Telemetry — System Info ===
 *   Generated: 2026-03-14T10:00:00.123456+00:00
 *   Script: vigil v0.1.0
 *
 *   --- GPU 0 ---
 *     Name: NVIDIA RTX PRO 6000 ...
 *     ...
 *   --- OS ---                 (uname, then lsb_release -d style from os-release)
 *   --- CPU ---                (the first "model name" line of /proc/cpuinfo)
 *   --- Motherboard ---        (DMI board_vendor, board_name)
 *   --- NVIDIA kernel modules --- (lsmod style, from /proc/modules) */
#ifndef VIGIL_LOCAL_SYSINFO_H
#define VIGIL_LOCAL_SYSINFO_H

#include <stdint.h>

#include "collect/nvml_lib.h"
#include "util/strbuf.h"

/* Append the whole file's text. sh may be NULL (no GPUs); root "" or NULL is "/". */
void sysinfo_text(struct strbuf *sb, const char *root, const struct nvml_shared *sh,
                  int64_t real_ns);

/* Append the lsmod-style lines of /proc/modules text whose module name contains
 * "nvidia" (any case): "nvidia_modeset       1568768  1 nvidia_drm". Returns how many. */
unsigned sysinfo_nvidia_modules(struct strbuf *sb, const char *modules);

#endif
