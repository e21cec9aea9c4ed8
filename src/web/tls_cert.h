/* SPDX-License-Identifier: Apache-2.0 */
/* How long the HTTPS server's certificate stays valid, so that an expired one is said at
 * start and every day after, not found out by the first scrape that fails (Prometheus
 * refuses the target with "x509: certificate has expired"; vigil keeps serving).
 *
 *   -----BEGIN CERTIFICATE-----            RFC 7468: base64 of the DER, in lines
 *   MIIBjTCCATOgAwIBAgIU...
 *   -----END CERTIFICATE-----
 *
 * The first certificate of the file is the server's (a chain follows it). Its DER (RFC
 * 5280, 4.1): Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL,
 * serialNumber INTEGER, signature SEQUENCE, issuer SEQUENCE, validity SEQUENCE {
 * notBefore Time, notAfter Time }, ... } ... }; Time is UTCTime "YYMMDDHHMMSSZ" (YY
 * below 50 is 20YY, RFC 5280 4.1.2.5.1) or GeneralizedTime "YYYYMMDDHHMMSSZ". */
#ifndef VIGIL_WEB_TLS_CERT_H
#define VIGIL_WEB_TLS_CERT_H

#include <stddef.h>
#include <stdint.h>

#define TLS_CERT_WARN_DAYS 14 /* a certificate this close to its end is warned about */

/* The notAfter of the first certificate of the PEM text pem[0..n), in seconds since
 * the epoch, into *ret. 0; -ENOENT when there is no CERTIFICATE block; -EINVAL when
 * its base64 or DER does not parse. */
int tls_cert_not_after(const char *pem, size_t n, int64_t *ret);

enum tls_cert_state { TLS_CERT_OK, TLS_CERT_EXPIRING, TLS_CERT_EXPIRED };

/* Warn (one line) when the certificate at path, valid until not_after (seconds since
 * the epoch), has expired at now or expires within TLS_CERT_WARN_DAYS; nothing when it
 * is fine. Returns which it is. */
enum tls_cert_state tls_cert_warn(const char *path, int64_t not_after, int64_t now);

/* The certificate being served, looked at once a day of CLOCK_MONOTONIC. */
#define TLS_CERT_CHECK_NS (86400LL * 1000000000LL)
struct tls_cert_watch {
        char path[1024];   /* "" when nothing is watched */
        int64_t not_after; /* seconds since the epoch */
        int64_t next_ns;   /* CLOCK_MONOTONIC of the next look */
        unsigned warnings; /* warnings given so far */
};

/* Start watching the certificate whose PEM text is pem[0..n) at path: read its end of
 * validity and give the start's warning (tls_cert_warn) at real time now_s, then look
 * again TLS_CERT_CHECK_NS after mono_ns. -errno as tls_cert_not_after (nothing is
 * watched then). */
int tls_cert_watch_start(struct tls_cert_watch *w, const char *path, const char *pem, size_t n,
                         int64_t mono_ns, int64_t now_s);

/* A tick of the loop: the daily warning when a day has passed since the last look.
 * Nothing when nothing is watched. */
void tls_cert_watch_tick(struct tls_cert_watch *w, int64_t mono_ns, int64_t now_s);

#endif
