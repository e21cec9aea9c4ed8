/* SPDX-License-Identifier: Apache-2.0 */
/* The request-head parser. See http_request.h. Grammar from RFC 9110 (token, field
 * values) and RFC 9112 (request line, field lines, message body length). */
#include "web/http_request.h"

#include <string.h>
#include <strings.h>

#include "util/base64.h"
#include "util/parse.h"

#define MORE   0
#define PARSED 1

size_t http_unescape(char *str)
{
        char *w = str;
        for (const char *r = str; *r; r++) {
                int hi = r[0] == '%' ? parse_hex_digit(r[1]) : -1;
                int lo = hi >= 0 ? parse_hex_digit(r[2]) : -1;
                if (lo >= 0 && (hi | lo) != 0) {
                        *w++ = (char)(hi << 4 | lo);
                        r += 2;
                } else {
                        *w++ = *r;
                }
        }
        *w = '\0';
        return (size_t)(w - str);
}

/* RFC 9110, section 5.6.2: tchar. */
static bool is_tchar(unsigned char c)
{
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* A byte no line may hold: a control other than HT (a CR only before the LF). */
static bool is_ctl(unsigned char c)
{
        return (c < 0x20 && c != '\t') || c == 0x7f;
}

static size_t token_len(const char *s, size_t n)
{
        size_t i = 0;
        while (i < n && is_tchar((unsigned char)s[i]))
                i++;
        return i;
}

/* The line's length without its CR. */
static size_t line_len(const char *line, const char *nl)
{
        size_t n = (size_t)(nl - line);
        return n && line[n - 1] == '\r' ? n - 1 : n;
}

/* Check the request line buf[0..n) (no CR, no LF): 0, or the status to refuse with. */
static int check_request_line(const char *buf, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (is_ctl((unsigned char)buf[i]) || buf[i] == '\t')
                        return 400;
        size_t m = token_len(buf, n);
        if (!m || m == n || buf[m] != ' ')
                return 400;
        const char *target = buf + m + 1;
        const char *sp = memchr(target, ' ', n - m - 1);
        if (!sp || sp == target || *target != '/')
                return 400;
        const char *v = sp + 1;
        size_t vl = n - (size_t)(v - buf);
        if (vl != 8 || memcmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' || v[6] != '.' ||
            v[7] < '0' || v[7] > '9')
                return 400;
        return v[5] == '1' && (v[7] == '0' || v[7] == '1') ? 0 : 505;
}

/* Whether a partial request line (no LF yet) can still become a valid one. */
static bool partial_line_ok(const char *buf, size_t n)
{
        size_t m = token_len(buf, n);
        if (m == n)
                return true; /* still in the method */
        if (!m || buf[m] != ' ')
                return false;
        for (size_t i = m + 1; i < n; i++)
                if (is_ctl((unsigned char)buf[i]) && !(buf[i] == '\r' && i == n - 1))
                        return false;
        return n == m + 1 || buf[m + 1] == '/';
}

/* "Basic CREDENTIALS" into ret->rq.user and .password (RFC 7617); nothing when malformed. */
static void parse_basic(struct http_parsed *ret, const char *v, size_t n)
{
        if (n < 6 || strncasecmp(v, "Basic ", 6) != 0)
                return;
        v += 6;
        n -= 6;
        while (n && *v == ' ') {
                v++;
                n--;
        }
        int d = base64_decode(v, n, ret->cred, sizeof(ret->cred));
        char *colon = d > 0 ? memchr(ret->cred, ':', (size_t)d) : NULL;
        if (!colon || memchr(ret->cred, '\0', (size_t)d))
                return;
        *colon = '\0';
        ret->rq.user = ret->cred;
        ret->rq.password = colon + 1;
}

/* Whether the comma-separated list v[0..n) holds token tok (case-insensitive). */
static bool list_has(const char *v, size_t n, const char *tok)
{
        size_t tl = strlen(tok);
        for (size_t i = 0; i < n;) {
                while (i < n && (v[i] == ',' || v[i] == ' ' || v[i] == '\t'))
                        i++;
                size_t s = i;
                while (i < n && v[i] != ',' && v[i] != ' ' && v[i] != '\t')
                        i++;
                if (i - s == tl && !strncasecmp(v + s, tok, tl))
                        return true;
        }
        return false;
}

struct fields {
        unsigned hosts;
        bool have_length, chunked_or_te, close, keep_alive;
        unsigned long long length;
};

/* One field line buf[0..n) (no CR, no LF). 0, or 400. Values are NUL-terminated in
 * place (the byte after each is a CR or LF of the head). */
static int parse_field(char *line, size_t n, struct http_parsed *ret, struct fields *f)
{
        size_t nl = token_len(line, n);
        if (!nl || nl == n || line[nl] != ':')
                return 400; /* no name, a space before the colon, a folded line */
        char *v = line + nl + 1;
        char *end = line + n;
        for (char *p = v; p < end; p++)
                if (is_ctl((unsigned char)*p))
                        return 400;
        while (v < end && (*v == ' ' || *v == '\t'))
                v++;
        while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
        size_t vl = (size_t)(end - v);
        *end = '\0';
        if (nl == 4 && !strncasecmp(line, "Host", 4)) {
                f->hosts++;
        } else if (nl == 14 && !strncasecmp(line, "Content-Length", 14)) {
                unsigned long long x = 0;
                if (!vl || vl > 18)
                        return 400;
                for (size_t i = 0; i < vl; i++) {
                        if (v[i] < '0' || v[i] > '9')
                                return 400;
                        x = x * 10 + (unsigned)(v[i] - '0');
                }
                if (f->have_length && x != f->length)
                        return 400;
                f->have_length = true;
                f->length = x;
        } else if (nl == 17 && !strncasecmp(line, "Transfer-Encoding", 17)) {
                f->chunked_or_te = true;
        } else if (nl == 10 && !strncasecmp(line, "Connection", 10)) {
                f->close |= list_has(v, vl, "close");
                f->keep_alive |= list_has(v, vl, "keep-alive");
        } else if (nl == 15 && !strncasecmp(line, "Accept-Encoding", 15)) {
                if (!ret->rq.accept_encoding)
                        ret->rq.accept_encoding = v;
        } else if (nl == 13 && !strncasecmp(line, "Authorization", 13)) {
                if (!ret->rq.user)
                        parse_basic(ret, v, vl);
        }
        return 0;
}

/* The target's path (unescaped, in place) and its day= argument. */
static void parse_target(char *target, struct http_parsed *ret)
{
        char *q = strchr(target, '?');
        if (q)
                *q++ = '\0';
        http_unescape(target);
        ret->rq.path = target;
        while (q && *q) {
                char *amp = strchr(q, '&');
                if (amp)
                        *amp++ = '\0';
                char *eq = strchr(q, '=');
                if (eq)
                        *eq++ = '\0';
                http_unescape(q);
                if (!ret->rq.day && eq && !strcmp(q, "day")) {
                        http_unescape(eq);
                        ret->rq.day = eq;
                }
                q = amp;
        }
}

/* Where the head that starts at buf ends (just past its empty line), or NULL. */
static char *head_end(char *buf, size_t len)
{
        for (char *p = memchr(buf, '\n', len); p;
             p = memchr(p + 1, '\n', len - (size_t)(p + 1 - buf))) {
                size_t left = len - (size_t)(p + 1 - buf);
                if (left >= 1 && p[1] == '\n')
                        return p + 2;
                if (left >= 2 && p[1] == '\r' && p[2] == '\n')
                        return p + 3;
                if (left == 0)
                        return NULL;
        }
        return NULL;
}

int http_request_parse(char *buf, size_t len, size_t cap, struct http_parsed *ret, size_t *ret_used)
{
        char *nl = memchr(buf, '\n', len);
        if (!nl) {
                if (!partial_line_ok(buf, len))
                        return 400;
                return len >= cap ? (token_len(buf, len) < len ? 414 : 400) : MORE;
        }
        size_t rl = line_len(buf, nl);
        int st = check_request_line(buf, rl);
        if (st)
                return st;
        char *end = head_end(buf, len);
        if (!end)
                return len >= cap ? 431 : MORE;
        memset(ret, 0, sizeof(*ret));
        struct fields f = {0};
        for (char *line = nl + 1; line < end;) {
                char *lf = memchr(line, '\n', (size_t)(end - line));
                size_t n = line_len(line, lf);
                if (!n)
                        break; /* the empty line */
                if ((st = parse_field(line, n, ret, &f)) != 0)
                        return st;
                line = lf + 1;
        }
        bool v11 = buf[rl - 1] == '1';
        if (v11 && f.hosts != 1)
                return 400;
        /* The request line, NUL-terminated in place: METHOD\0TARGET\0HTTP/1.x */
        buf[rl] = '\0';
        char *sp1 = strchr(buf, ' ');
        char *sp2 = strchr(sp1 + 1, ' ');
        *sp1 = *sp2 = '\0';
        ret->rq.method = buf;
        parse_target(sp1 + 1, ret);
        ret->rq.has_body = f.chunked_or_te || (f.have_length && f.length > 0);
        ret->http10 = !v11;
        ret->keep_alive = !f.close && (v11 || f.keep_alive);
        *ret_used = (size_t)(end - buf);
        return PARSED;
}
