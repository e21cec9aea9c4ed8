/* SPDX-License-Identifier: Apache-2.0 */
/* The pages of the program's and its libraries' read-only file mappings dropped once
 * start-up is over, so that the resident set holds what the daemon runs and reads from
 * then on, not what it ran once to start.
 *
 * Code (r-xp) and read-only data (r--p: .rodata, and the ELF headers, symbol tables and
 * relocations the loader read at start) are mapped from the page cache: a page the
 * process no longer touches stays in its resident set for good, and every fault maps up
 * to 16 neighbours already in the page cache with it (fault-around, mm/memory.c
 * do_fault_around(): fault_around_bytes, 64 kB by default; should_fault_around() looks
 * only at whether the mapping has ->map_pages and at userfaultfd, not at madvise
 * advice). MADV_DONTNEED on such a mapping unmaps its pages; the next touch maps them
 * again from the page cache, with their neighbours. Code mappings are also advised
 * MADV_RANDOM: should the page cache lose them (memory pressure on a small board), a
 * later fault reads the page it needs, not a readahead window (mm/filemap.c,
 * do_sync_mmap_readahead(): no readahead for VM_RAND_READ).
 *
 * Only mappings that hold no page of their own ("Anonymous: 0 kB" in /proc/self/smaps):
 * a page the loader relocated (a library relocated in its text, .data.rel.ro before
 * relro) is the process's copy, and dropping it would undo the relocation. Writable
 * mappings are never touched. With lazy binding a function first called after the drop
 * would bring the loader's code and the symbol tables back: the daemon is linked with
 * -z now (Makefile, BIND_LD), as the Debian package is. */
#ifndef VIGIL_UTIL_TEXTMAP_H
#define VIGIL_UTIL_TEXTMAP_H

/* Drop the mapped pages of every read-only file mapping of this process that holds no
 * page of its own, and advise its code mappings MADV_RANDOM. Libraries loaded later are
 * not covered until the next call. Returns the number of mappings handled (a code
 * mapping with pages of its own is advised, not dropped, and counts), or -errno when
 * /proc/self/smaps cannot be read. */
int textmap_drop(void);

#endif
