/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark: the reference monitor's eight firmware reads (measure_temp, measure_volts
 * core, measure_clock arm|core|v3d|h264|pixel, get_throttled) per sample, two ways:
 *
 *   gencmd    rpi_fw_gencmd() through a transport, one mailbox request per command:
 *             the fake firmware on a fixture node (ROOT/dev/vcio_gencmd), so the figure
 *             is user-space work: vigil's (build, decode, parse) and the fake's answer
 *             (a copy of the 1 KB buffer); on a Pi the ioctl's kernel and firmware time
 *             replaces the fake's and cannot be measured here
 *   vcgencmd  rpi_fw_vcgencmd(): one `vcgencmd` process per value (the PATH's, e.g.
 *             tests/fixtures/bin/vcgencmd), CPU of the children included
 *             (getrusage(RUSAGE_CHILDREN)), as the reference's is measured
 *
 * Each figure is the median over rounds, in microseconds of CPU per sample (eight
 * values). Output: one "key value" line per figure.
 *
 * usage: bench_gencmd ROUNDS GENCMD_PER_ROUND VCGENCMD_PER_ROUND NODE */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "collect/rpi_fw.h"
#include "collect/rpi_transport.h"

#define MAX_ROUNDS 64

static const enum rpi_value values[] = {RPI_V_TEMP, RPI_V_VOLT, RPI_V_ARM,   RPI_V_CORE,
                                        RPI_V_V3D,  RPI_V_H264, RPI_V_PIXEL, RPI_V_THROTTLED};
#define NVALUES (sizeof(values) / sizeof(values[0]))

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
        qsort(v, n, sizeof(double), cmp_double);
        return v[n / 2];
}

/* CPU time of this process and its reaped children, in microseconds. */
static double cpu_us(void)
{
        struct rusage self, kids;
        getrusage(RUSAGE_SELF, &self);
        getrusage(RUSAGE_CHILDREN, &kids);
        double s = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                            kids.ru_stime.tv_sec) *
                   1e6;
        return s + (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                            kids.ru_stime.tv_usec);
}

/* One sample's eight values; the number read. */
static unsigned sample_gencmd(const struct rpi_transport_ops *ops, void *priv, double *sum)
{
        unsigned got = 0;
        for (unsigned i = 0; i < NVALUES; i++) {
                double x;
                if (rpi_fw_gencmd(ops, priv, values[i], &x) == 0) {
                        *sum += x;
                        got++;
                }
        }
        return got;
}

static unsigned sample_vcgencmd(double *sum)
{
        unsigned got = 0;
        for (unsigned i = 0; i < NVALUES; i++) {
                double x;
                if (rpi_fw_vcgencmd("vcgencmd", values[i], 5000, &x) == 0) {
                        *sum += x;
                        got++;
                }
        }
        return got;
}

int main(int argc, char **argv)
{
        if (argc != 5) {
                fprintf(stderr, "usage: bench_gencmd ROUNDS GENCMD_PER_ROUND "
                                "VCGENCMD_PER_ROUND NODE\n");
                return 2;
        }
        unsigned rounds = (unsigned)strtoul(argv[1], NULL, 10);
        unsigned ng = (unsigned)strtoul(argv[2], NULL, 10),
                 nv = (unsigned)strtoul(argv[3], NULL, 10);
        if (rounds == 0 || rounds > MAX_ROUNDS || ng == 0 || nv == 0)
                return 2;
        const struct rpi_transport_ops *ops = rpi_transport_pick(argv[4]);
        void *priv = NULL;
        if (ops->open(argv[4], &priv) < 0) {
                fprintf(stderr, "bench_gencmd: cannot open %s\n", argv[4]);
                return 1;
        }
        double g[MAX_ROUNDS], v[MAX_ROUNDS], sum = 0;
        unsigned got_g = 0, got_v = 0;
        for (unsigned r = 0; r < rounds; r++) {
                double t0 = cpu_us();
                for (unsigned i = 0; i < ng; i++)
                        got_g = sample_gencmd(ops, priv, &sum);
                double t1 = cpu_us();
                for (unsigned i = 0; i < nv; i++)
                        got_v = sample_vcgencmd(&sum);
                double t2 = cpu_us();
                g[r] = (t1 - t0) / ng;
                v[r] = (t2 - t1) / nv;
        }
        ops->close(priv);
        printf("values_gencmd %u\n", got_g);
        printf("values_vcgencmd %u\n", got_v);
        printf("gencmd_sample_us %.2f\n", median(g, rounds));
        printf("vcgencmd_sample_us %.2f\n", median(v, rounds));
        printf("checksum %.0f\n", fmod(sum, 1e9));
        return 0;
}
