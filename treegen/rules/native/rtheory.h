/* The subset climb's theory bits: the float sum of the chosen rules' bits in rule order
 * (ClassSearch.values' np.cumsum in float32), kept from step to step in blocks of rules
 * (included by rclimb.c).
 *
 * A step toggles one rule, and a sum redone from the first place it changed read on
 * average half the chosen rules (at 1M rows 5.5e9 additions over the climbs, a sixth of
 * the search).  Each addition rounds, so the sum cannot be taken apart in general; but
 * while the partial sums stay in one binade [2^E, 2^(E+1)) they all lie on the grid of
 * that binade's spacing u = 2^(E-23), and adding b >= 0 to a sum s on the grid gives
 * s + u * round(b / u) exactly, unless b / u is halfway between two integers (a tie,
 * rounded to even: that depends on s).  So a block of rules whose own bits, each
 * rounded to the grid, sum to T units moves a sum s of that binade to s + T u when none
 * of its bits is a tie or negative and s + T u stays below 2^(E+1); the same float the
 * additions one by one give.  Every other block, and the toggled one, is added rule by
 * rule.  The sum before each block is kept up to the first block a toggle changed. */
#ifndef TREEGEN_RTHEORY_H
#define TREEGEN_RTHEORY_H

#include "crules.h" /* Python.h first */

#include <float.h>
#include <limits.h>
#include <math.h>

#define TS_BLOCK 128 /* rules a block */

typedef struct {
    const float *bits;  /* per rule */
    const char *chosen; /* per rule: the search's own flags */
    Py_ssize_t m, n_blocks;
    int32_t *count;   /* per block: its chosen rules */
    int *grid;        /* per block: the E its units are for (INT_MIN: none) */
    int64_t *units;   /* per block: its chosen bits rounded to that grid, summed, in u */
    char *jumpable;   /* per block: no tie and no negative bits at that grid */
    float *entry;     /* entry[k]: the sum of the chosen bits before block k */
    Py_ssize_t valid; /* entry[0..valid] hold */
} TheorySum;

/* 0, or -1 out of memory (ts_free frees what was made). */
static inline int ts_init(TheorySum *t, const float *bits, const char *chosen, Py_ssize_t m)
{
    t->bits = bits;
    t->chosen = chosen;
    t->m = m;
    t->n_blocks = (m + TS_BLOCK - 1) / TS_BLOCK;
    const size_t nb = (size_t)t->n_blocks + 1;
    t->count = PyMem_Calloc(nb, sizeof(int32_t));
    t->grid = PyMem_Malloc(nb * sizeof(int));
    t->units = PyMem_Malloc(nb * sizeof(int64_t));
    t->jumpable = PyMem_Malloc(nb);
    t->entry = PyMem_Malloc(nb * sizeof(float));
    if (!t->count || !t->grid || !t->units || !t->jumpable || !t->entry)
        return -1;
    for (Py_ssize_t k = 0; k < t->n_blocks; k++)
        t->grid[k] = INT_MIN;
    for (Py_ssize_t r = 0; r < m; r++)
        t->count[r / TS_BLOCK] += chosen[r] != 0;
    t->entry[0] = 0.0f;
    t->valid = 0;
    return 0;
}

static inline void ts_free(TheorySum *t)
{
    PyMem_Free(t->count);
    PyMem_Free(t->grid);
    PyMem_Free(t->units);
    PyMem_Free(t->jumpable);
    PyMem_Free(t->entry);
}

/* Rule r's chosen flag has just flipped. */
static inline void ts_toggled(TheorySum *t, Py_ssize_t r)
{
    const Py_ssize_t k = r / TS_BLOCK;
    t->count[k] += t->chosen[r] ? 1 : -1;
    t->grid[k] = INT_MIN;
    if (t->valid > k)
        t->valid = k;
}

/* Block k's units at grid E (u = 2^(E-23)). */
static inline void ts_units(TheorySum *t, Py_ssize_t k, int E)
{
    const Py_ssize_t lo = k * TS_BLOCK, hi = lo + TS_BLOCK < t->m ? lo + TS_BLOCK : t->m;
    int64_t units = 0;
    int ok = 1;
    for (Py_ssize_t r = lo; r < hi; r++)
        if (t->chosen[r]) {
            const float b = t->bits[r];
            if (!(b >= 0.0f)) { /* negative or NaN: the sums need not rise */
                ok = 0;
                break;
            }
            const double x = ldexp((double)b, 23 - E); /* b / u: exact */
            const double q = nearbyint(x);
            if (fabs(x - q) == 0.5 || !(q < 16777216.0)) { /* a tie; or past any binade */
                ok = 0;
                break;
            }
            units += (int64_t)q;
        }
    t->grid[k] = E;
    t->units[k] = units;
    t->jumpable[k] = (char)ok;
}

/* The chosen rules' bits summed in rule order, one float addition at a time. */
static inline float ts_sum(TheorySum *t)
{
    float s = t->entry[t->valid];
    /* the binade of s: [lo, hi) = [2^E, 2^(E+1)), grid u (the last one seen: most blocks
     * start in the binade the one before started in) */
    int E = INT_MIN;
    double lo = 0.0, hi = 0.0, u = 0.0;
    for (Py_ssize_t k = t->valid; k < t->n_blocks; k++) {
        if (t->count[k] > 0) {
            if (!((double)s >= lo && (double)s < hi)) {
                E = INT_MIN;
                lo = hi = 0.0;
                if (s >= FLT_MIN && s < FLT_MAX) {
                    int x;
                    (void)frexpf(s, &x); /* s = f 2^x, f in [0.5, 1) */
                    E = x - 1;
                    lo = ldexp(1.0, E);
                    hi = 2.0 * lo;
                    u = ldexp(1.0, E - 23);
                }
            }
            int jumped = 0;
            if (E != INT_MIN) {
                if (t->grid[k] != E)
                    ts_units(t, k, E);
                if (t->jumpable[k]) {
                    const double after = (double)s + (double)t->units[k] * u; /* exact */
                    if (after < hi) {
                        s = (float)after;
                        jumped = 1;
                    }
                }
            }
            if (!jumped) {
                const Py_ssize_t first = k * TS_BLOCK;
                const Py_ssize_t end = first + TS_BLOCK < t->m ? first + TS_BLOCK : t->m;
                for (Py_ssize_t r = first; r < end; r++)
                    if (t->chosen[r])
                        s = s + t->bits[r];
            }
        }
        t->entry[k + 1] = s;
    }
    t->valid = t->n_blocks;
    return s;
}

#endif
