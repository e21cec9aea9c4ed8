/* SPDX-License-Identifier: Apache-2.0 */
/* What a TLS client for the remote-write push costs in resident memory, candidate by
 * candidate, in a bare process: VmRSS (/proc/self/status) before and after the library
 * is loaded (dlopen, RTLD_NOW), initialised, and holds a client context that trusts the
 * system's CA store, as a push to an https:// URL needs before its first handshake:
 *   curl-openssl  libcurl.so.4 (Debian libcurl4t64: OpenSSL, and through librtmp
 *                 GnuTLS too): curl_global_init(CURL_GLOBAL_DEFAULT), curl_easy_init()
 *                 (curl loads the CA file at the handshake: not counted here);
 *   curl-gnutls   libcurl-gnutls.so.4 (libcurl3t64-gnutls), the same calls;
 *   openssl       libssl.so.3 (libssl3t64) alone, with HTTP/1.1 of vigil's own:
 *                 OPENSSL_init_ssl(0, NULL), SSL_CTX_new(TLS_client_method()),
 *                 SSL_CTX_set_default_verify_paths() (OpenSSL 3 ssl/ssl_lib.c; the
 *                 default CA file is read here);
 *   gnutls        libgnutls.so.30 (libgnutls30t64) alone: gnutls_global_init(),
 *                 gnutls_certificate_allocate_credentials(),
 *                 gnutls_certificate_set_x509_system_trust() (GnuTLS 3.7
 *                 lib/gnutls_cert.c; the system store read here).
 *   mbedtls       libmbedtls.so.14 (libmbedtls14, 2.28): mbedtls_ssl_config_defaults()
 *                 for a client, mbedtls_x509_crt_parse_file() of Debian's CA bundle;
 *   bearssl       libbearssl.so.0 (libbearssl0, 0.6): br_ssl_client_init_full() with
 *                 no trust anchors (BearSSL reads no files: the caller decodes them);
 *   openssl-nostore, gnutls-nostore, mbedtls-nostore: without the CA store, to show
 *                 its share.
 * The prototypes are the libraries' public ones (curl/curl.h, openssl/ssl.h,
 * gnutls/gnutls.h), declared here as pointers so nothing is linked.
 *
 * usage: push_tls_rss CANDIDATE. Prints "base_kb N", "after_kb N", "growth_kb N". Exits
 * 1 when the library or a step is missing. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/pfile.h"

static long vm_rss_kb(void)
{
        char buf[4096];
        int n = read_file_at("", "/proc/self/status", buf, sizeof(buf));
        const char *p = n > 0 ? memmem(buf, (size_t)n, "\nVmRSS:", 7) : NULL;
        if (!p)
                return -1;
        struct cursor c = cur_make(p + 7, (size_t)(buf + n - (p + 7)));
        uint64_t kb;
        cur_skip_space(&c);
        return cur_u64(&c, &kb) < 0 ? -1 : (long)kb;
}

static void *sym(void *h, const char *name)
{
        void *p = h ? dlsym(h, name) : NULL;
        if (!p) {
                fprintf(stderr, "push_tls_rss: %s: %s\n", name, dlerror());
                exit(1);
        }
        return p;
}

static void *lib(const char *soname)
{
        void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                fprintf(stderr, "push_tls_rss: %s\n", dlerror());
                exit(1);
        }
        return h;
}

static void curl(const char *soname)
{
        void *h = lib(soname);
        int (*global_init)(long) = (int (*)(long))sym(h, "curl_global_init");
        void *(*easy_init)(void) = (void *(*)(void))sym(h, "curl_easy_init");
        if (global_init(3L /* CURL_GLOBAL_DEFAULT: SSL | WIN32 */) != 0 || !easy_init())
                exit(1);
}

static void openssl(bool store)
{
        void *h = lib("libssl.so.3");
        int (*init)(uint64_t, const void *) =
            (int (*)(uint64_t, const void *))sym(h, "OPENSSL_init_ssl");
        const void *(*method)(void) = (const void *(*)(void))sym(h, "TLS_client_method");
        void *(*ctx_new)(const void *) = (void *(*)(const void *))sym(h, "SSL_CTX_new");
        int (*paths)(void *) = (int (*)(void *))sym(h, "SSL_CTX_set_default_verify_paths");
        void *ctx = init(0, NULL) == 1 ? ctx_new(method()) : NULL;
        if (!ctx || (store && paths(ctx) != 1))
                exit(1);
}

/* mbedTLS's structures are the caller's: zeroed room larger than either
 * (mbedtls_ssl_config, mbedtls_x509_crt of 2.28 are a few hundred bytes). */
static _Alignas(16) unsigned char mbed_conf[16384], mbed_crt[16384];

static void mbedtls(bool store)
{
        void *h = lib("libmbedtls.so.14"); /* pulls libmbedx509.so.1, libmbedcrypto.so.7 */
        void *x = lib("libmbedx509.so.1");
        void (*conf_init)(void *) = (void (*)(void *))sym(h, "mbedtls_ssl_config_init");
        int (*defaults)(void *, int, int, int) =
            (int (*)(void *, int, int, int))sym(h, "mbedtls_ssl_config_defaults");
        void (*crt_init)(void *) = (void (*)(void *))sym(x, "mbedtls_x509_crt_init");
        int (*parse_file)(void *, const char *) =
            (int (*)(void *, const char *))sym(x, "mbedtls_x509_crt_parse_file");
        conf_init(mbed_conf);
        /* MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT:
         * all 0 (mbedtls/ssl.h 2.28) */
        if (defaults(mbed_conf, 0, 0, 0) != 0)
                exit(1);
        crt_init(mbed_crt);
        /* Debian's bundle (ca-certificates); a positive result counts certificates it
         * could not parse, which a client skips. */
        if (store && parse_file(mbed_crt, "/etc/ssl/certs/ca-certificates.crt") < 0)
                exit(1);
}

/* BearSSL reads no files: a client decodes the PEM bundle into trust anchors with its
 * own code (br_pem_decoder, br_x509_decoder), so only the library's mapping is
 * measured, with the minimal X.509 engine initialised on no anchors. */
static void bearssl(void)
{
        void *h = lib("libbearssl.so.0");
        static _Alignas(16) unsigned char cc[65536]; /* br_ssl_client_context: ~3.7 kB */
        static _Alignas(16) unsigned char xc[16384]; /* br_x509_minimal_context */
        void (*full)(void *, void *, const void *, size_t) =
            (void (*)(void *, void *, const void *, size_t))sym(h, "br_ssl_client_init_full");
        full(cc, xc, NULL, 0);
}

static void gnutls(bool store)
{
        void *h = lib("libgnutls.so.30");
        int (*init)(void) = (int (*)(void))sym(h, "gnutls_global_init");
        int (*alloc)(void **) = (int (*)(void **))sym(h, "gnutls_certificate_allocate_credentials");
        int (*trust)(void *) = (int (*)(void *))sym(h, "gnutls_certificate_set_x509_system_trust");
        void *cred = NULL;
        if (init() < 0 || alloc(&cred) < 0 || (store && trust(cred) < 0))
                exit(1);
}

int main(int argc, char **argv)
{
        if (argc != 2) {
                fprintf(stderr,
                        "usage: push_tls_rss curl-openssl|curl-gnutls|openssl|gnutls"
                        "|openssl-nostore|gnutls-nostore|mbedtls|mbedtls-nostore|bearssl\n");
                return 2;
        }
        long base = vm_rss_kb();
        if (!strcmp(argv[1], "curl-openssl"))
                curl("libcurl.so.4");
        else if (!strcmp(argv[1], "curl-gnutls"))
                curl("libcurl-gnutls.so.4");
        else if (!strcmp(argv[1], "openssl") || !strcmp(argv[1], "openssl-nostore"))
                openssl(!strcmp(argv[1], "openssl"));
        else if (!strcmp(argv[1], "gnutls") || !strcmp(argv[1], "gnutls-nostore"))
                gnutls(!strcmp(argv[1], "gnutls"));
        else if (!strcmp(argv[1], "mbedtls") || !strcmp(argv[1], "mbedtls-nostore"))
                mbedtls(!strcmp(argv[1], "mbedtls"));
        else if (!strcmp(argv[1], "bearssl"))
                bearssl();
        else
                return 2;
        long after = vm_rss_kb();
        printf("base_kb %ld\nafter_kb %ld\ngrowth_kb %ld\n", base, after, after - base);
        return 0;
}
