/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: `vigil report` (text and HTML) on any file content. The corpus is
 * seeded with the host and GPU fixtures so headers are recognised.
 * Build: clang -fsanitize=fuzzer,address,undefined -Isrc fuzz/fuzz_report.c
 *        build/libvigil.a -lz -lm */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        int fd = memfd_create("fuzz-report", MFD_CLOEXEC);
        if (fd < 0)
                return 0;
        if (write(fd, data, size) != (ssize_t)size) {
                close(fd);
                return 0;
        }
        char path[64], html[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        snprintf(html, sizeof(html), "--html=/tmp/fuzz-report-%d.html", (int)getpid());
        FILE *null = fopen("/dev/null", "w");
        if (null) {
                char *argv[] = {"report", html, path, NULL};
                report_run(3, argv, null, null);
                fclose(null);
        }
        close(fd);
        return 0;
}
