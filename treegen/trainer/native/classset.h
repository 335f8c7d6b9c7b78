/* The classes whose current TotalInfo term is not zero, ascending: a sorted array the
 * many-class scans (sparseinfo.c, r8score.c) keep while they move cases across a cut,
 * so each cut sums only those classes' terms, in class order as numpy's path does;
 * the sum and a term, as both compute them; and the order of class codes, by which
 * r8prep.c and r8score.c sort the classes a segment holds. */
#ifndef TREEGEN_CLASSSET_H
#define TREEGEN_CLASSSET_H

#include "common.h"
#include <string.h>

typedef struct {
    int32_t *at;
    Py_ssize_t n;
} class_set;

/* qsort's comparison of two int32 class codes, ascending. */
static inline int class_cmp(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Put class c in or out of the set. */
static inline void set_mark(class_set *s, int32_t c, int on)
{
    Py_ssize_t lo = 0, hi = s->n;
    while (lo < hi) {
        const Py_ssize_t mid = (lo + hi) / 2;
        if (s->at[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    const int there = lo < s->n && s->at[lo] == c;
    if (on && !there) {
        memmove(s->at + lo + 1, s->at + lo, (size_t)(s->n - lo) * sizeof(int32_t));
        s->at[lo] = c;
        s->n++;
    } else if (!on && there) {
        memmove(s->at + lo, s->at + lo + 1, (size_t)(s->n - lo - 1) * sizeof(int32_t));
        s->n--;
    }
}

/* The float sum of the set's terms in class order (TotalInfo's accumulator). */
static inline float set_sum(const class_set *s, const double *terms)
{
    float acc = 0.0f;
    for (Py_ssize_t k = 0; k < s->n; k++)
        acc = (float)((double)acc + terms[s->at[k]]);
    return acc;
}

/* One TotalInfo term from the log input and numpy's log of it (scan.c's xlog2x). */
static inline double term(double x, double lg)
{
    return (lg / TG_LN2) * x;
}

#endif
