/* SPDX-License-Identifier: Apache-2.0 */
/* VIGIL_HOT marks a function that runs at every tick of the daemon's loop: a source's
 * sample, a detector's feed, a sink's write, the row formatting and parsing they call.
 *
 * The compiler puts such functions in the .text.hot section (GCC's hot attribute,
 * with -freorder-functions, on at -O2), and the linker's default script places every
 * object's .text.hot before the rest of the code (GNU ld: "*(.text.hot .text.hot.*)"
 * ahead of "*(.text ...)"), so a tick runs from a few neighbouring code pages instead
 * of pages spread over the whole program. The loop sleeps between ticks, and on a
 * shared or virtual machine the code's cache lines and TLB entries are mostly gone by
 * the next one: a tick's cost is much more the pages and lines it touches than its
 * instructions (bench/RESULTS.md section 39: 1 GPU from 1.25-1.30x to 1.15-1.22x its
 * floor in the same runs). The attribute changes where code lies and how hard it is
 * optimised, never what it does.
 *
 * Which functions: those a steady daemon runs (valgrind --tool=callgrind, start-up
 * left out: 20 s of 1 simulated GPU at 0.1 s with logs on, and 25 s of the Pi 4 fixture
 * tree at --profile signage), in every file but main.c and the fixtures' fake firmware
 * (collect/rpi_fakefw.c). A function added to the tick's path should carry it; one that
 * leaves the path may drop it. */
#ifndef VIGIL_UTIL_HOT_H
#define VIGIL_UTIL_HOT_H

#if defined(__GNUC__) || defined(__clang__)
#define VIGIL_HOT __attribute__((hot))
#else
#define VIGIL_HOT
#endif

#endif
