/* SPDX-License-Identifier: Apache-2.0 */
/* Test helpers: how much of a buffer or of the process is resident. A page of private
 * anonymous memory is resident once written (mm/memory.c, do_anonymous_page); a buffer
 * from fresh_pages() starts with none, so what a function wrote shows page by page.
 * Header-only: each test program includes it once. */
#ifndef VIGIL_TEST_RESIDENT_H
#define VIGIL_TEST_RESIDENT_H

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* n bytes of fresh zeroed pages, none resident yet; NULL when mmap fails. */
static inline void *fresh_pages(size_t n)
{
        void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
}

/* Pages of [p, p + n) resident now (mincore(2)); -1 on error. */
static inline long resident_pages(const void *p, size_t n)
{
        size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(pg - 1);
        size_t len = (uintptr_t)p + n - lo;
        size_t npages = (len + pg - 1) / pg;
        unsigned char vec[4096];
        if (npages > sizeof(vec))
                return -1;
        if (mincore((void *)lo, len, vec) < 0)
                return -1;
        long r = 0;
        for (size_t i = 0; i < npages; i++)
                r += vec[i] & 1;
        return r;
}

/* The process's resident anonymous memory, kB (RssAnon of /proc/self/status: what it
 * wrote, not the code pages it ran); -1 on error. */
static inline long self_anon_kb(void)
{
        FILE *f = fopen("/proc/self/status", "re");
        char line[128];
        long kb = -1;
        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "RssAnon: %ld", &kb) == 1)
                        break;
        if (f)
                fclose(f);
        return kb;
}

#endif
