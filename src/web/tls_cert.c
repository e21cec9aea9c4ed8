/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTPS certificate's end of validity. See tls_cert.h.
 *
 *   30 82 01 8d  30 82 01 33  a0 03 02 01 02  02 14 ...  30 0a ...  30 14 ...
 *   30 1e  17 0d "261202183019Z"  17 0d "261108183019Z"    (validity) */
#include "web/tls_cert.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/base64.h"
#include "util/log.h"

#define DER_MAX 16384 /* a certificate's DER; chains are longer, the first one is not */

/* One DER element at *p (before end): its tag, and its contents in [*val, *val + *len).
 * *p moves past it. false when it runs past end or its length is not DER's. */
static bool der_next(const uint8_t **p, const uint8_t *end, unsigned *tag, const uint8_t **val,
                     size_t *len)
{
        const uint8_t *q = *p;
        if (end - q < 2)
                return false;
        *tag = *q++;
        size_t l = *q++;
        if (l & 0x80) {
                unsigned nb = l & 0x7f;
                if (nb == 0 || nb > 3 || end - q < (ptrdiff_t)nb)
                        return false;
                l = 0;
                while (nb--)
                        l = l << 8 | *q++;
        }
        if ((size_t)(end - q) < l)
                return false;
        *val = q;
        *len = l;
        *p = q + l;
        return true;
}

static bool digits(const uint8_t *s, size_t n, int *ret)
{
        int v = 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return false;
                v = v * 10 + (s[i] - '0');
        }
        *ret = v;
        return true;
}

/* A UTCTime (tag 0x17) or GeneralizedTime (0x18) in UTC ("Z"), to seconds. */
static bool der_time(unsigned tag, const uint8_t *v, size_t n, int64_t *ret)
{
        size_t yl = tag == 0x17 ? 2 : tag == 0x18 ? 4 : 0;
        if (!yl || n != yl + 11 || v[n - 1] != 'Z')
                return false;
        int year, mon, day, hour, min, sec;
        if (!digits(v, yl, &year) || !digits(v + yl, 2, &mon) || !digits(v + yl + 2, 2, &day) ||
            !digits(v + yl + 4, 2, &hour) || !digits(v + yl + 6, 2, &min) ||
            !digits(v + yl + 8, 2, &sec))
                return false;
        if (yl == 2)
                year += year < 50 ? 2000 : 1900;
        struct tm tm = {.tm_year = year - 1900,
                        .tm_mon = mon - 1,
                        .tm_mday = day,
                        .tm_hour = hour,
                        .tm_min = min,
                        .tm_sec = sec};
        *ret = (int64_t)timegm(&tm);
        return true;
}

/* notAfter of the DER certificate der[0..n). */
static int cert_not_after(const uint8_t *der, size_t n, int64_t *ret)
{
        const uint8_t *p = der, *end = der + n, *v;
        size_t len;
        unsigned tag;
        if (!der_next(&p, end, &tag, &v, &len) || tag != 0x30) /* Certificate */
                return -EINVAL;
        p = v, end = v + len;
        if (!der_next(&p, end, &tag, &v, &len) || tag != 0x30) /* tbsCertificate */
                return -EINVAL;
        p = v, end = v + len;
        const uint8_t *save = p;
        if (!der_next(&p, end, &tag, &v, &len))
                return -EINVAL;
        if (tag != 0xa0) /* no version: v1 */
                p = save;
        static const unsigned skip[] = {0x02, 0x30, 0x30}; /* serial, signature, issuer */
        for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
                if (!der_next(&p, end, &tag, &v, &len) || tag != skip[i])
                        return -EINVAL;
        if (!der_next(&p, end, &tag, &v, &len) || tag != 0x30) /* validity */
                return -EINVAL;
        p = v, end = v + len;
        if (!der_next(&p, end, &tag, &v, &len)) /* notBefore */
                return -EINVAL;
        if (!der_next(&p, end, &tag, &v, &len) || !der_time(tag, v, len, ret))
                return -EINVAL;
        return 0;
}

int tls_cert_not_after(const char *pem, size_t n, int64_t *ret)
{
        static const char begin[] = "-----BEGIN CERTIFICATE-----",
                          stop[] = "-----END CERTIFICATE-----";
        const char *b = memmem(pem, n, begin, sizeof(begin) - 1);
        if (!b)
                return -ENOENT;
        b += sizeof(begin) - 1;
        const char *e = memmem(b, n - (size_t)(b - pem), stop, sizeof(stop) - 1);
        if (!e)
                return -EINVAL;
        char *b64 = malloc((size_t)(e - b) + 1);
        uint8_t *der = malloc(DER_MAX);
        int r = -ENOMEM;
        if (b64 && der) {
                size_t k = 0;
                for (const char *c = b; c < e; c++)
                        if (*c != '\n' && *c != '\r' && *c != ' ' && *c != '\t')
                                b64[k++] = *c;
                int dl = base64_decode(b64, k, (char *)der, DER_MAX);
                r = dl < 0 ? -EINVAL : cert_not_after(der, (size_t)dl, ret);
        }
        free(b64);
        free(der);
        return r;
}

enum tls_cert_state tls_cert_warn(const char *path, int64_t not_after, int64_t now)
{
        char when[32];
        time_t t = (time_t)not_after;
        struct tm tm;
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
        if (not_after <= now) {
                vlog(LOG_WARN,
                     "http: the TLS certificate %s expired on %s (%lld days ago): clients that "
                     "check it (Prometheus, browsers) refuse the connection; renew it and restart "
                     "vigil",
                     path, when, (long long)((now - not_after) / 86400));
                return TLS_CERT_EXPIRED;
        }
        if (not_after - now < (int64_t)TLS_CERT_WARN_DAYS * 86400) {
                vlog(LOG_WARN,
                     "http: the TLS certificate %s expires on %s (in %lld days); renew it and "
                     "restart vigil",
                     path, when, (long long)((not_after - now) / 86400));
                return TLS_CERT_EXPIRING;
        }
        return TLS_CERT_OK;
}

/* The warning, counted when one is given. */
static void look(struct tls_cert_watch *w, int64_t mono_ns, int64_t now_s)
{
        if (tls_cert_warn(w->path, w->not_after, now_s) != TLS_CERT_OK)
                w->warnings++;
        w->next_ns = mono_ns + TLS_CERT_CHECK_NS;
}

int tls_cert_watch_start(struct tls_cert_watch *w, const char *path, const char *pem, size_t n,
                         int64_t mono_ns, int64_t now_s)
{
        memset(w, 0, sizeof(*w));
        int64_t end = 0;
        int r = tls_cert_not_after(pem, n, &end);
        if (r < 0)
                return r;
        snprintf(w->path, sizeof(w->path), "%s", path);
        w->not_after = end;
        look(w, mono_ns, now_s);
        return 0;
}

void tls_cert_watch_tick(struct tls_cert_watch *w, int64_t mono_ns, int64_t now_s)
{
        if (w->path[0] && mono_ns >= w->next_ns)
                look(w, mono_ns, now_s);
}
