/* The pessimistic error bound AddErrs (treegen/trainer/stats.py, ErrorBound) in C, for
 * pruning (cprune.c, its walk in cprunewalk.h, r8prune.c) and c4.5rules: the same libm
 * calls and operations in the same order as Python, results stored as float where the
 * c45 flavour stores them; and a leaf's estimate, the errors plus the bound
 * (ErrorBound.estimate; cestimate.c runs it over arrays). */
#ifndef TREEGEN_NATIVE_BOUND_H
#define TREEGEN_NATIVE_BOUND_H

#include "common.h"
#include <math.h>

typedef struct {
    double log_cf; /* c45: ErrorBound.log_cf, log of CF as a float, hoisted */
    double cf;     /* j48 */
    double coeff;  /* z^2 as coeff_c45 gives it (c45), the exact z^2 (j48) */
} Bound;

/* A double stored into a C float and read back (stats.to_f32). */
static inline double f32(double x)
{
    return (double)(float)x;
}

/* Release 8's float arithmetic: n, e and coeff are float values, and the steps
 * Release 8 keeps in float variables round to float (stats.ErrorBound.add_errs). */
static inline double add_errs(const Bound *b, double n, double e)
{
    if (e < TG_ADD_ERRS_ZERO)
        return f32(n * (1 - exp(b->log_cf / n)));
    if (e < 0.9999) {
        double val0 = f32(n * (1 - exp(b->log_cf / n)));
        return f32(val0 + f32(e * f32(add_errs(b, n, 1.0) - val0)));
    }
    if (e + 0.5 >= n)
        return f32(0.67 * f32(n - e));
    double coeff = b->coeff;
    double pr = f32((e + 0.5 + coeff / 2 + sqrt(coeff * ((e + 0.5) * (1 - (e + 0.5) / n) + coeff / 4))) /
                    f32(n + coeff));
    return f32(f32(n * pr) - e);
}

/* ErrorBound(cf, "j48").add_errs: double throughout; Python's max(n - e, 0.0)
 * keeps n - e unless 0.0 is larger. */
static inline double add_errs_j48(const Bound *b, double n, double e)
{
    if (b->cf > 0.5)
        return 0.0; /* Weka: confidence too high, no extra errors */
    if (e < 1) {
        double base = n * (1 - pow(b->cf, 1 / n));
        if (e == 0)
            return base;
        return base + e * (add_errs_j48(b, n, 1.0) - base);
    }
    if (e + 0.5 >= n) {
        double d = n - e;
        return 0.0 > d ? 0.0 : d;
    }
    double coeff = b->coeff;
    double pr =
        (e + 0.5 + coeff / 2 + sqrt(coeff * ((e + 0.5) * (1 - (e + 0.5) / n) + coeff / 4))) /
        (n + coeff);
    return n * pr - e;
}

/* ErrorBound(cf, "c45").estimate: the errors plus AddErrs, stored as float. */
static inline double estimate_c45_one(const Bound *b, double n, double e)
{
    if (n <= 0)
        return f32(e);
    return f32(e + add_errs(b, n, e));
}

/* ErrorBound(cf, "j48").estimate. */
static inline double estimate_j48_one(const Bound *b, double n, double e)
{
    if (n <= TG_J48_TOL && n >= -TG_J48_TOL) /* J48: Utils.eq(total, 0) */
        return 0.0;
    return e + add_errs_j48(b, n, e);
}

#endif
