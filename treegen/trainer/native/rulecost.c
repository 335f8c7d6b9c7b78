/* The cost of every rule subset one drop or addition away from a chosen one
 * (c4.5rules' descent, treegen/rules/subsets.py: SubsetCosts.toggled).
 * The description length is treegen/rules/mdl.py's exception_bits plus the
 * theory weight times the rules' bits, computed here with the same double
 * operations in the same order and libm's log2 (the function Python's
 * math.log2 calls), so the floats are the Python path's (tested equal in
 * tests/test_rules_subsets.py). */
#include "cscan.h"

#include <math.h>

#if defined(__GNUC__) || defined(__clang__)
#define POPCOUNT64(x) ((Py_ssize_t)__builtin_popcountll(x))
#else
static Py_ssize_t POPCOUNT64(uint64_t x)
{
    Py_ssize_t n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}
#endif

/* mdl.py's numbers, passed in by treegen/rules/subsets.py (their one home is
 * mdl.py): CERTAIN, IMPOSSIBLE_BITS and the expected share of the errors. */
typedef struct {
    double certain, impossible, share;
} mdl_numbers;

/* mdl.subset_bits: bits to name k of t items, each one with probability p. */
static double subset_bits(const mdl_numbers *c, double t, double k, double p)
{
    if (p <= c->certain)
        return k == 0 ? 0.0 : c->impossible;
    if (p >= 1.0 - c->certain)
        return k == t ? 0.0 : c->impossible;
    return -k * log2(p) - (t - k) * log2(1.0 - p);
}

/* mdl.exception_bits. */
static double exception_bits(const mdl_numbers *c, Py_ssize_t covered, Py_ssize_t uncovered,
                             Py_ssize_t fp, Py_ssize_t fn)
{
    const double expected = c->share * (double)(fp + fn);
    if (covered > uncovered) {
        const double own = uncovered ? subset_bits(c, (double)uncovered, (double)fn,
                                                   (double)fn / (double)uncovered)
                                     : 0.0;
        return subset_bits(c, (double)covered, (double)fp, expected / (double)covered) + own;
    }
    const double own =
        covered ? subset_bits(c, (double)covered, (double)fp, (double)fp / (double)covered) : 0.0;
    return own + subset_bits(c, (double)uncovered, (double)fn, expected / (double)uncovered);
}

/* rule_toggles(cover, negative, only, none, member, bits, n, positives, n_fired, fp,
 *              certain, impossible, share, weight, out)
 *
 * m rules, W 64-bit words per bitset: cover (m x W) the cases each rule
 * covers, negative the cases of other classes, only / none the cases that
 * exactly one / no rule of the chosen subset covers; member[i] whether rule i
 * is chosen, bits[i] its theory bits; the chosen subset fires n_fired of the
 * n cases, fp of them negative, and the class has positives cases;
 * certain, impossible, share: mdl_numbers; weight: mdl.THEORY_WEIGHT.
 * out[i] = the cost of the subset with rule i toggled:
 * exception_bits(...) + weight * (rule bits summed in rule order from 0.0). */
PyObject *tg_rule_toggles(PyObject *self, PyObject *args)
{
    enum { NB = 7 };
    PyObject *o[NB];
    Py_ssize_t n, positives, n_fired, fp;
    mdl_numbers c;
    double weight;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOnnnnddddO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &n,
                          &positives, &n_fired, &fp, &c.certain, &c.impossible, &c.share,
                          &weight, &o[6]))
        return NULL;
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t W, m;
    if ((W = tg_items(o[1], sizeof(uint64_t))) < 0 || (m = tg_items(o[4], 1)) < 0)
        return NULL;
    if (n < 0 || W * 64 < n || positives < 0 || n_fired < 0 || n_fired > n || fp < 0 ||
        fp > n_fired) {
        PyErr_SetString(PyExc_ValueError, "rule_toggles: bad sizes");
        return NULL;
    }
    const tg_spec spec[NB] = {
        {0, sizeof(uint64_t), m * W, "cover"}, {0, sizeof(uint64_t), W, "negative"},
        {0, sizeof(uint64_t), W, "only"},      {0, sizeof(uint64_t), W, "none"},
        {0, 1, m, "member"},                   {0, sizeof(double), m, "bits"},
        {1, sizeof(double), m, "out"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const uint64_t *cover = b[0].buf, *neg = b[1].buf, *only = b[2].buf, *none = b[3].buf;
        const unsigned char *member = b[4].buf;
        const double *bits = b[5].buf;
        double *out = b[6].buf;
        /* The chosen rules' bits in rule order: trial i's theory bits are the
         * running sum of those before i (kept in before), then i's own when it
         * is added, then those after i -- the order Python's sum takes. */
        double *chosen = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(double));
        if (chosen == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        Py_ssize_t k = 0, next = 0;
        double before = 0.0;
        for (Py_ssize_t j = 0; j < m; j++)
            if (member[j])
                chosen[k++] = bits[j];
        for (Py_ssize_t i = 0; i < m; i++) {
            /* Dropping rule i unfires the cases only it covers; adding it fires
             * the cases none covers. */
            const uint64_t *row = cover + i * W, *moving = member[i] ? only : none;
            Py_ssize_t moved = 0, moved_neg = 0;
            for (Py_ssize_t w = 0; w < W; w++) {
                const uint64_t x = row[w] & moving[w];
                moved += POPCOUNT64(x);
                moved_neg += POPCOUNT64(x & neg[w]);
            }
            const Py_ssize_t f = member[i] ? n_fired - moved : n_fired + moved;
            const Py_ssize_t e = member[i] ? fp - moved_neg : fp + moved_neg;
            double theory = member[i] ? before : before + bits[i];
            const Py_ssize_t after = next + (member[i] ? 1 : 0);
            for (Py_ssize_t q = after; q < k; q++)
                theory += chosen[q];
            if (member[i]) {
                before += bits[i];
                next++;
            }
            const Py_ssize_t fn = positives - (f - e);
            out[i] = exception_bits(&c, f, n - f, e, fn) + weight * theory;
        }
        PyMem_Free(chosen);
    }
    result = Py_NewRef(Py_None);
done:
    tg_release(b, got);
    return result;
}
