/* SPDX-License-Identifier: Apache-2.0 */
/* Runs `vigil report` (report_main) alone, for bench/report_bench.sh: the benchmark
 * does not depend on the rest of the binary. */
#include "report/report.h"

int main(int argc, char **argv)
{
        return report_main(argc - 1, argv + 1);
}
