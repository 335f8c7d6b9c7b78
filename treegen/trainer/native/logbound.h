/* Bounds on a TotalInfo term v * (log(v) / ln 2) without numpy's log, for scan.c's
 * pick_block: it takes numpy's log only for the cuts these bounds cannot rule out
 * (numpy's log is libm's scalar one on machines without AVX-512, about 10 ns a value,
 * where this is a few).
 *
 * approx_log2(x): log2(x) from a table of 2^LOG_TBITS centres c (1/c and log2(c),
 * filled once with libm's log) and a degree-2 polynomial of r = x / (c 2^e) - 1,
 * |r| <= 2^-9: the truncation is at most |r|^3 / (3 (1 - |r|)) < 2.5e-9 in ln, 3.6e-9
 * in log2.  tests/trainer/test_scan_info.py checks approx_terms2 against numpy's log for
 * every float mantissa.  Outside [1e-30, 1e30] (or NaN) it gives NaN, which the caller
 * takes as "no bound". */
#ifndef TREEGEN_LOGBOUND_H
#define TREEGEN_LOGBOUND_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define LOG_TBITS 8
#define LOG_TN (1 << LOG_TBITS)
/* The bound on |approx_log2(v) - lg / ln 2| and on |v * approx_log2(v) - xlog2x(v, lg)|
 * per unit of v, for any lg within 45 ulps of log(v) and v in [1e-30, 1e30]
 * (|log2(v)| < 100): the truncation's 3.6e-9 and the roundings' 1e-13 (a few ulps of
 * 100, and of the products), 2.7 times over. */
#define LOG_ERR 1e-8

static double log_invc[LOG_TN], log_log2c[LOG_TN];
static int log_ready = 0;

static void log_table(void)
{
    int i;
    for (i = 0; i < LOG_TN; i++) {
        const double c = 1.0 + ((double)i + 0.5) / LOG_TN;
        log_invc[i] = 1.0 / c;
        log_log2c[i] = log(c) / TG_LN2;
    }
    log_ready = 1;
}

/* log2(x) to within 3.6e-9 + 1e-16 |log2(x)|; NaN outside [1e-30, 1e30] (and for NaN). */
static inline double approx_log2(double x)
{
    uint64_t u, mu;
    double m, r;
    int e, i;
    if (!(x >= 1e-30 && x <= 1e30))
        return NAN;
    memcpy(&u, &x, sizeof u);
    e = (int)((u >> 52) & 0x7ff) - 1023;
    i = (int)((u >> (52 - LOG_TBITS)) & (LOG_TN - 1));
    mu = (u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL; /* x / 2^e, in [1, 2) */
    memcpy(&m, &mu, sizeof m);
    r = m * log_invc[i] - 1.0;
    /* ln(1 + r) ~ r - r^2 / 2, in units of log2 */
    return ((double)e + log_log2c[i]) + r * ((1.0 / TG_LN2) - r * (0.5 / TG_LN2));
}

/* w[a] and w[b]: v[0] and v[1] (two doubles, not necessarily aligned) times their
 * approx_log2, each within LOG_ERR times v of xlog2x(v, lg) for any lg within 45 ulps
 * of log(v); NaN where approx_log2 has no value.  With SSE2 two at a time (each packed
 * operation rounds as the scalar one does, so the same values), the table's entries
 * loaded one by one. */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline void approx_terms2(const double *v, double *w, Py_ssize_t a, Py_ssize_t b)
{
    const __m128d x = _mm_loadu_pd(v);
    const __m128i u = _mm_castpd_si128(x);
    /* the exponent as a double: 2^52 + its bits, less 2^52 + 1023 (both exact) */
    const __m128d e = _mm_sub_pd(
        _mm_castsi128_pd(_mm_or_si128(_mm_srli_epi64(u, 52), _mm_set1_epi64x(0x4330000000000000LL))),
        _mm_set1_pd(4503599627370496.0 + 1023.0));
    const __m128i ix = _mm_and_si128(_mm_srli_epi64(u, 52 - LOG_TBITS), _mm_set1_epi64x(LOG_TN - 1));
    const long long i0 = _mm_cvtsi128_si64(ix), i1 = _mm_cvtsi128_si64(_mm_unpackhi_epi64(ix, ix));
    const __m128d invc = _mm_loadh_pd(_mm_load_sd(&log_invc[i0]), &log_invc[i1]);
    const __m128d l2c = _mm_loadh_pd(_mm_load_sd(&log_log2c[i0]), &log_log2c[i1]);
    const __m128d m = _mm_castsi128_pd(_mm_or_si128(
        _mm_and_si128(u, _mm_set1_epi64x(0x000fffffffffffffLL)), _mm_set1_epi64x(0x3ff0000000000000LL)));
    const __m128d r = _mm_sub_pd(_mm_mul_pd(m, invc), _mm_set1_pd(1.0));
    const __m128d p = _mm_mul_pd(
        r, _mm_sub_pd(_mm_set1_pd(1.0 / TG_LN2), _mm_mul_pd(r, _mm_set1_pd(0.5 / TG_LN2))));
    __m128d la = _mm_add_pd(_mm_add_pd(e, l2c), p);
    /* NaN outside [1e-30, 1e30], as approx_log2 */
    const __m128d in = _mm_and_pd(_mm_cmpge_pd(x, _mm_set1_pd(1e-30)), _mm_cmple_pd(x, _mm_set1_pd(1e30)));
    la = _mm_or_pd(_mm_and_pd(in, la), _mm_andnot_pd(in, _mm_set1_pd(NAN)));
    const __m128d t = _mm_mul_pd(la, x);
    _mm_storel_pd(&w[a], t);
    _mm_storeh_pd(&w[b], t);
}
#else
static inline void approx_terms2(const double *v, double *w, Py_ssize_t a, Py_ssize_t b)
{
    w[a] = approx_log2(v[0]) * v[0];
    w[b] = approx_log2(v[1]) * v[1];
}
#endif

#endif
