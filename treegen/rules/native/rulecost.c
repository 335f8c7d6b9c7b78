/* c4.5rules' descent over one class's rule subsets (treegen/rules/subsets.py:
 * SubsetCosts.descend): each step costs every subset one drop or addition
 * away, from counts of the chosen rules covering each case that the step's
 * toggle updates only where its rule covers cases.
 * The description length is treegen/rules/mdl.py's exception_bits plus the
 * theory weight times the rules' bits, computed here with the same double
 * operations in the same order and libm's log2 (the function Python's
 * math.log2 calls), the bits summed exactly and rounded once as math.fsum
 * does, so the floats are the Python path's (tested equal in
 * tests/rules/test_rules_subsets.py). */
#include "native.h"

#include <math.h>
#include <string.h>

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

/* Shewchuk's exact partials of a sum, kept as math.fsum keeps them: p[0..n)
 * non-overlapping and increasing in magnitude.  Adds the finite x; returns the
 * new count (at most n + 1). */
static Py_ssize_t partials_add(double *p, Py_ssize_t n, double x)
{
    Py_ssize_t i = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        double y = p[j];
        if (fabs(x) < fabs(y)) {
            const double t = x;
            x = y;
            y = t;
        }
        const double hi = x + y;
        const double lo = y - (hi - x);
        if (lo != 0.0)
            p[i++] = lo;
        x = hi;
    }
    if (x != 0.0)
        p[i++] = x;
    return i;
}

/* The exact sum held by partials p[0..n), rounded to nearest even once, as
 * math.fsum rounds it. */
static double partials_round(const double *p, Py_ssize_t n)
{
    double hi = 0.0, lo = 0.0;
    if (n > 0) {
        hi = p[--n];
        while (n > 0) {
            const double x = hi, y = p[--n];
            hi = x + y;
            lo = y - (hi - x);
            if (lo != 0.0)
                break;
        }
        /* Half-way between two doubles: the partials below decide the side. */
        if (n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0))) {
            const double y = lo * 2.0, x = hi + y;
            if (y == x - hi)
                hi = x;
        }
    }
    return hi;
}

/* The exception bits of the trials of one step, by (chosen, moved, moved_neg): the
 * rules that move the same cases' counts have the same bits, and a step costs every
 * rule.  Open addressing over a power-of-two table; an entry belongs to the step
 * whose stamp it holds, so a new step starts empty without clearing. */
typedef struct {
    Py_ssize_t moved, moved_neg;
    uint64_t stamp; /* step number * 2 + chosen; 0: never used */
    double bits;
} exc_entry;

static exc_entry *exc_slot(exc_entry *t, size_t mask, uint64_t stamp, Py_ssize_t moved,
                           Py_ssize_t moved_neg, int *found)
{
    size_t h = ((size_t)moved * 0x9E3779B97F4A7C15u) ^ ((size_t)moved_neg * 0xC2B2AE3D27D4EB4Fu) ^
               (size_t)stamp;
    for (h &= mask;; h = (h + 1) & mask) {
        exc_entry *e = &t[h];
        if (e->stamp != stamp) {
            *found = 0;
            return e;
        }
        if (e->moved == moved && e->moved_neg == moved_neg) {
            *found = 1;
            return e;
        }
    }
}

/* How far, relative to its magnitude, a trial's rough cost may be from its exact
 * cost: a thousand times the few units in the last place it can be off. */
#define APPROX_MARGIN 1e-12

/* Room for the partials of any sum of finite doubles: non-overlapping, each
 * holds a bit position of its own among the 2098 a double can have. */
#define PARTIALS_ROOM 2100

/* The descent's state: which rules are chosen, how many chosen rules cover each
 * case, and per rule the cases that move if it is toggled (for a chosen rule
 * the cases only it covers, for another the cases no chosen rule covers), and
 * how many of those are negative. */
typedef struct {
    const int64_t *cover_ptr, *case_ptr;
    const int32_t *cover_idx, *case_rules;
    const unsigned char *negative;
    unsigned char *member;
    int32_t *count;
    Py_ssize_t *moved, *moved_neg;
    Py_ssize_t n_fired, fp;
} descent;

/* Recount rule i's moving cases from scratch. */
static void recount(descent *d, Py_ssize_t i)
{
    const int32_t want = d->member[i] ? 1 : 0;
    Py_ssize_t moved = 0, moved_neg = 0;
    for (int64_t q = d->cover_ptr[i]; q < d->cover_ptr[i + 1]; q++) {
        const int32_t c = d->cover_idx[q];
        if (d->count[c] == want) {
            moved++;
            moved_neg += d->negative[c];
        }
    }
    d->moved[i] = moved;
    d->moved_neg[i] = moved_neg;
}

/* Rule s joins or leaves the chosen rules.  A case it covers changes the moving
 * cases of the other rules covering it only when its count crosses 0/1 (the
 * others are not chosen: they gain it when it is no longer fired, lose it when
 * it fires) or 1/2 (the one other chosen rule gains it as its own, or loses it). */
static void toggle(descent *d, Py_ssize_t s)
{
    const int leaving = d->member[s];
    for (int64_t q = d->cover_ptr[s]; q < d->cover_ptr[s + 1]; q++) {
        const int32_t c = d->cover_idx[q];
        const int32_t now = leaving ? --d->count[c] : ++d->count[c];
        const Py_ssize_t sign = leaving ? 1 : -1, neg = d->negative[c];
        int chosen_only;
        if (now == (leaving ? 0 : 1)) {
            d->n_fired -= sign;
            d->fp -= sign * neg;
            chosen_only = 0;
        } else if (now == (leaving ? 1 : 2)) {
            chosen_only = 1;
        } else {
            continue;
        }
        for (int64_t r = d->case_ptr[c]; r < d->case_ptr[c + 1]; r++) {
            const int32_t j = d->case_rules[r];
            if (j != s && (d->member[j] != 0) == chosen_only) {
                d->moved[j] += sign;
                d->moved_neg[j] += sign * neg;
            }
        }
    }
    d->member[s] = (unsigned char)!leaving;
    recount(d, s);
}

/* CSR arrays: ptr[0] == 0, non-decreasing, ptr[rows] == len(idx), every index in
 * [0, bound). */
static int csr_ok(const int64_t *ptr, Py_ssize_t rows, const int32_t *idx, Py_ssize_t len,
                  Py_ssize_t bound)
{
    if (ptr[0] != 0 || ptr[rows] != len)
        return 0;
    for (Py_ssize_t i = 0; i < rows; i++)
        if (ptr[i + 1] < ptr[i])
            return 0;
    for (Py_ssize_t q = 0; q < len; q++)
        if (idx[q] < 0 || idx[q] >= bound)
            return 0;
    return 1;
}

/* rule_descend(cover_ptr, cover_idx, case_ptr, case_rules, negative, bits, member,
 *              n, positives, certain, impossible, share, weight, tie) -> cost
 *
 * m rules over n cases: rule i covers cover_idx[cover_ptr[i]:cover_ptr[i+1]],
 * case c is covered by case_rules[case_ptr[c]:case_ptr[c+1]] (int64 pointers,
 * int32 indices); negative[c] whether case c is of another class; bits[i] rule
 * i's theory bits; member (m bytes, written) the start, and on return the end
 * of the descent of SubsetCosts.descend: the single toggle that lowers the cost
 * most (by more than tie; the first of equal ones), until none does.  The cost
 * of a subset is exception_bits(...) + weight * (its rules' bits summed as
 * math.fsum sums them); certain, impossible, share: mdl_numbers.  Returns the
 * end's cost. */
PyObject *tg_rule_descend(PyObject *self, PyObject *args)
{
    enum { NB = 7 };
    PyObject *o[NB];
    Py_ssize_t n, positives;
    mdl_numbers c;
    double weight, tie;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOnnddddd", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &n, &positives, &c.certain, &c.impossible, &c.share, &weight,
                          &tie))
        return NULL;
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t m, covers, cases;
    if ((m = tg_items(o[6], 1)) < 0 || (covers = tg_items(o[1], sizeof(int32_t))) < 0 ||
        (cases = tg_items(o[3], sizeof(int32_t))) < 0)
        return NULL;
    if (n < 0 || n > INT32_MAX || m > INT32_MAX || positives < 0 || positives > n ||
        covers != cases) {
        PyErr_SetString(PyExc_ValueError, "rule_descend: bad sizes");
        return NULL;
    }
    const tg_spec spec[NB] = {
        {0, sizeof(int64_t), m + 1, "cover_ptr"}, {0, sizeof(int32_t), covers, "cover_idx"},
        {0, sizeof(int64_t), n + 1, "case_ptr"},  {0, sizeof(int32_t), cases, "case_rules"},
        {0, 1, n, "negative"},                    {0, sizeof(double), m, "bits"},
        {1, 1, m, "member"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        descent d;
        d.cover_ptr = b[0].buf;
        d.cover_idx = b[1].buf;
        d.case_ptr = b[2].buf;
        d.case_rules = b[3].buf;
        d.negative = b[4].buf;
        d.member = b[6].buf;
        d.count = NULL;
        d.moved = d.moved_neg = NULL;
        d.n_fired = d.fp = 0;
        const double *bits = b[5].buf;
        if (!csr_ok(d.cover_ptr, m, d.cover_idx, covers, n) ||
            !csr_ok(d.case_ptr, n, d.case_rules, cases, m)) {
            PyErr_SetString(PyExc_ValueError, "rule_descend: bad cover lists");
            goto done;
        }
        for (Py_ssize_t i = 0; i < m; i++)
            d.member[i] = d.member[i] != 0;
        for (Py_ssize_t q = 0; q < n; q++)
            if (d.negative[q] > 1) {
                PyErr_SetString(PyExc_ValueError, "rule_descend: negative must be 0 or 1");
                goto done;
            }
        d.count = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int32_t));
        d.moved = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(Py_ssize_t));
        d.moved_neg = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(Py_ssize_t));
        double *base = PyMem_Malloc(2 * PARTIALS_ROOM * sizeof(double));
        size_t mask = 1;
        while (mask < 2 * (size_t)m)
            mask <<= 1; /* at most m entries a step: the table stays at most half full */
        exc_entry *table = PyMem_Calloc(mask, sizeof(exc_entry));
        mask -= 1;
        uint64_t steps = 0;
        if (d.count == NULL || d.moved == NULL || d.moved_neg == NULL || base == NULL ||
            table == NULL) {
            PyErr_NoMemory();
        } else {
            double *trial = base + PARTIALS_ROOM;
            Py_ssize_t k = 0;
            double cost;
            /* The descent touches only this call's memory and buffers it holds, so
             * descents from other starts can run in other threads meanwhile
             * (treegen/rules/subsets.py). */
            Py_BEGIN_ALLOW_THREADS
            for (Py_ssize_t i = 0; i < m; i++) {
                if (!d.member[i])
                    continue;
                k = partials_add(base, k, bits[i]);
                for (int64_t q = d.cover_ptr[i]; q < d.cover_ptr[i + 1]; q++)
                    d.count[d.cover_idx[q]]++;
            }
            for (Py_ssize_t q = 0; q < n; q++)
                if (d.count[q] > 0) {
                    d.n_fired++;
                    d.fp += d.negative[q];
                }
            for (Py_ssize_t i = 0; i < m; i++)
                recount(&d, i);
            cost = exception_bits(&c, d.n_fired, n - d.n_fired, d.fp,
                                  positives - (d.n_fired - d.fp)) +
                   weight * partials_round(base, k);
            for (;;) {
                Py_ssize_t step = -1;
                double best = 0.0;
                steps++;
                /* Each trial is first costed roughly, from the chosen rules' rounded
                 * theory sum plus or minus the rule's bits in plain doubles: within a
                 * few units in the last place of the exact cost (the exact sum is
                 * within half a unit of the rounded one, and each operation rounds
                 * once).  Only a trial whose rough cost is within APPROX_MARGIN of its
                 * magnitude of the bar it must pass is costed exactly, as before: the
                 * same step, by the same comparisons, far fewer exact sums. */
                const double sum = partials_round(base, k);
                const double e_now = exception_bits(&c, d.n_fired, n - d.n_fired, d.fp,
                                                    positives - (d.n_fired - d.fp));
                for (Py_ssize_t i = 0; i < m; i++) {
                    const int in = d.member[i];
                    double e_bits;
                    if (d.moved[i] == 0) {
                        e_bits = e_now; /* the same counts: the same call's value */
                    } else {
                        int found;
                        exc_entry *slot = exc_slot(table, mask, steps * 2 + (uint64_t)in,
                                                   d.moved[i], d.moved_neg[i], &found);
                        if (!found) {
                            const Py_ssize_t f =
                                in ? d.n_fired - d.moved[i] : d.n_fired + d.moved[i];
                            const Py_ssize_t e = in ? d.fp - d.moved_neg[i] : d.fp + d.moved_neg[i];
                            slot->stamp = steps * 2 + (uint64_t)in;
                            slot->moved = d.moved[i];
                            slot->moved_neg = d.moved_neg[i];
                            slot->bits = exception_bits(&c, f, n - f, e, positives - (f - e));
                        }
                        e_bits = slot->bits;
                    }
                    const double bar = step < 0 ? cost - tie : fmin(cost - tie, best - tie);
                    const double rough = e_bits + weight * (in ? sum - bits[i] : sum + bits[i]);
                    const double size = fabs(e_bits) + weight * (fabs(sum) + fabs(bits[i])) + 1.0;
                    if (rough > bar + APPROX_MARGIN * size)
                        continue;
                    memcpy(trial, base, (size_t)k * sizeof(double));
                    const double theory =
                        partials_round(trial, partials_add(trial, k, in ? -bits[i] : bits[i]));
                    const double ci = e_bits + weight * theory;
                    /* ci < cost - tie && (step < 0 || ci < best - tie), as one bar. */
                    if (ci < bar) {
                        step = i;
                        best = ci;
                    }
                }
                if (step < 0)
                    break;
                cost = best;
                k = partials_add(base, k, d.member[step] ? -bits[step] : bits[step]);
                toggle(&d, step);
            }
            Py_END_ALLOW_THREADS
            result = PyFloat_FromDouble(cost);
        }
        PyMem_Free(d.count);
        PyMem_Free(d.moved);
        PyMem_Free(d.moved_neg);
        PyMem_Free(base);
        PyMem_Free(table);
    }
done:
    tg_release(b, got);
    return result;
}
