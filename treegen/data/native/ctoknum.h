/* The C tokenizer's numbers: a cell's value, or that it is not a number.
 *
 * Numbers: the cell must match the readers' grammar
 *     [+-]? (digits [. digits*] | . digits) ([eE] [+-]? digits)?
 * and is converted with correct rounding (the same double as Python's
 * float()): exactly with one IEEE multiplication or division when the
 * mantissa has at most 19 digits, fits 2^53 and the exponent is within
 * 10^22 (Clinger's fast path), otherwise with strtod, which glibc, musl and
 * the BSDs round correctly; the caller checks that the locale's decimal
 * point is '.'.
 *
 * Included by ctok.c alone; its functions static, in the parse's translation unit. */
#ifndef TREEGEN_CTOKNUM_H
#define TREEGEN_CTOKNUM_H

#include "ctok.h"

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The value of a number cell; 0 when the text is not in the grammar. */
static int parse_number(const char *p, Py_ssize_t n, double *out)
{
    Py_ssize_t i = 0;
    int neg = 0;
    if (i < n && (p[i] == '+' || p[i] == '-')) {
        neg = p[i] == '-';
        i++;
    }
    uint64_t m = 0;
    int sig = 0;          /* significant digits in m (leading zeros skipped) */
    int dropped = 0;      /* digits that did not fit in m */
    long e10 = 0;
    Py_ssize_t int_digits = 0, frac_digits = 0;
    while (i < n && is_digit(p[i])) {
        int d = p[i] - '0';
        if (sig < 19) {
            if (m || d) {
                m = m * 10 + (uint64_t)d;
                sig++;
            }
        } else {
            dropped = 1;
            e10++;
        }
        int_digits++;
        i++;
    }
    if (i < n && p[i] == '.') {
        i++;
        while (i < n && is_digit(p[i])) {
            int d = p[i] - '0';
            if (sig < 19) {
                if (m || d) {
                    m = m * 10 + (uint64_t)d;
                    sig++;
                }
                e10--;
            } else {
                dropped = 1;
            }
            frac_digits++;
            i++;
        }
    }
    if (int_digits == 0 && frac_digits == 0)
        return 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (p[i] == '+' || p[i] == '-')) {
            eneg = p[i] == '-';
            i++;
        }
        if (i >= n || !is_digit(p[i]))
            return 0;
        long ev = 0;
        while (i < n && is_digit(p[i])) {
            if (ev < 100000)
                ev = ev * 10 + (p[i] - '0');
            i++;
        }
        e10 += eneg ? -ev : ev;
    }
    if (i != n)
        return 0;
    if (!dropped && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)m; /* exact */
        v = e10 >= 0 ? v * POW10[e10] : v / POW10[-e10];
        *out = neg ? -v : v;
        return 1;
    }
    char small[128];
    char *buf = n < (Py_ssize_t)sizeof small ? small : PyMem_Malloc((size_t)n + 1);
    if (!buf)
        return 0; /* the Python reader will convert it */
    memcpy(buf, p, (size_t)n);
    buf[n] = '\0';
    *out = strtod(buf, NULL); /* overflow gives +-HUGE_VAL = inf, like float() */
    if (buf != small)
        PyMem_Free(buf);
    return 1;
}

#endif
