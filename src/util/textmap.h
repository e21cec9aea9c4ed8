/* SPDX-License-Identifier: Apache-2.0 */
/* The program's and its libraries' code mapped one page at a time. A fault on a file
 * mapping maps the pages around it as well when they are in the page cache
 * (fault-around, mm/memory.c do_fault_around(), fault_around_bytes: 64 kB by default),
 * so every code page a daemon touches once shows 16 pages in its resident set. For a
 * mapping advised MADV_RANDOM the kernel maps only the page asked for (mm/memory.c,
 * should_fault_around(): not for VM_RAND_READ), so the resident set is the code the
 * daemon runs. Code only (r-xp file mappings): never data, whose pages may hold the
 * loader's relocations, nor the pages of code mapping that has a copy of its own. */
#ifndef VIGIL_UTIL_TEXTMAP_H
#define VIGIL_UTIL_TEXTMAP_H

/* Advise MADV_RANDOM on every executable file mapping of this process, and drop the
 * pages mapped so far (MADV_DONTNEED) of those that hold no page of their own
 * ("Anonymous: 0 kB" in /proc/self/smaps: all are the file's, and come back from the
 * page cache on the next touch, one at a time). Libraries loaded later are
 * not covered. Returns the number of mappings advised, or -errno when /proc/self/maps
 * cannot be read. */
int textmap_random(void);

#endif
