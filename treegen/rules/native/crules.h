/* Shared by c4.5rules' C files (module _crules): the packed-bitset word, the subset
 * search's state and the small helpers both its step kernels and its climb use, and
 * the kernels' declarations (the buffer helpers are native.h's).
 *
 * Each kernel computes the same numbers as the Python it stands in for, bit for bit:
 * counts are exact integers, the error bound is bound.h's (the same libm calls as
 * stats.ErrorBound), and every logarithm the subset search needs is numpy's
 * (subsets_prep writes the inputs, numpy takes their logs, subsets_finish uses them),
 * as the trainer's kernels do.  The Python sides are treegen/rules/paths.py (_prune)
 * and treegen/rules/subsets.py (ClassSearch); the equality tests are in
 * tests/rules/test_rules_native.py. */
#ifndef TREEGEN_CRULES_H
#define TREEGEN_CRULES_H

#include "bound.h"

/* A case's bit: word i / 64, bit i % 64 (np.packbits(..., bitorder="little") read as
 * little-endian 64-bit words). */
typedef uint64_t word;

static inline int popcount(word x)
{
    /* SWAR: without -mpopcnt, __builtin_popcountll is a library call */
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

#ifndef TG_FAIL_LEVELS
#error "TG_FAIL_LEVELS missing: build through setup.py (treegen/rules/constants.py)"
#endif
/* How many of a path's conditions a case fails is counted up to this (saturating):
 * the cases that matter after r conditions are dropped fail at most r + 1 of them, so
 * each step visits only the words holding such a case. */
#define FAIL_LEVELS TG_FAIL_LEVELS

/* A held case list's kind, numbered as rules/caselists.py's _KINDS: rows as int32,
 * or the first row and the gaps in uint8 or uint16; and the bytes of one item. */
enum { KIND_INT32, KIND_UINT8, KIND_UINT16, KIND_N };

static inline int tg_kind_item(int kind)
{
    return kind == KIND_INT32 ? 4 : kind == KIND_UINT8 ? 1 : 2;
}

/* The subset search's state (subsets.ClassSearch), as buffers: per rule its cases
 * (rule_ptr, rule_cases), per case its rules (case_ptr, case_rules), the cases of
 * the class (positive), how many chosen rules fire on each case (covered), the
 * chosen rules, each rule's right and wrong cases that only it would decide,
 * counts = (cases covered, false positives, false negatives) of the subset, and per
 * case the XOR of its chosen rules' numbers (where one chosen rule fires, that rule). */
enum { S_RULE_PTR, S_RULE_CASES, S_CASE_PTR, S_CASE_RULES, S_POSITIVE, S_COVERED, S_CHOSEN,
       S_RIGHT, S_WRONG, S_COUNTS, S_XOR, S_N };

typedef struct {
    const int64_t *rule_ptr, *case_ptr;
    const int32_t *rule_cases, *case_rules;
    const char *positive;
    int64_t *right, *wrong, *counts;
    char *chosen;
    int32_t *covered, *chosen_xor; /* per case: int32, half the bytes a toggle reads */
    Py_ssize_t m;                  /* the rules (chosen_xor's values are below it) */
} Search;

/* All n views of o as spec says (1), or none, with an exception set (0): the views a
 * failed call acquired are released. */
static inline int tg_all_views(PyObject **o, Py_buffer *b, const tg_spec *spec, int n)
{
    const int got = tg_views(o, b, spec, n);
    if (got < n) {
        tg_release(b, got);
        return 0;
    }
    return 1;
}

/* The state's buffers viewed (b: S_N views, released by the caller); 0 with an
 * exception set when the state is malformed. */
int tg_search_views(PyObject *state, Py_buffer *b, Py_ssize_t *m, Py_ssize_t *n, Search *s);

/* Add (sign 1) or take away (-1) case c's pairs where the rule alone decides it. */
static inline void count_case(Search *s, int64_t c, int sign)
{
    const int64_t cov = s->covered[c];
    if (cov > 1)
        return;
    int64_t *side = s->positive[c] ? s->right : s->wrong;
    for (int64_t p = s->case_ptr[c]; p < s->case_ptr[c + 1]; p++) {
        const int64_t q = s->case_rules[p];
        if (cov == 0 || s->chosen[q])
            side[q] += sign;
    }
}

/* What a toggle of rule r (step 1: now chosen; -1: dropped) changes through case c,
 * whose coverage went from before to before + step (pos: c is of the class; x: its
 * chosen XOR after the toggle; its rules case_rules[*from .. *to), read only where
 * they change, from wherever the caller keeps case_ptr): the subset's counts and the
 * right and wrong cases of the rules whose count changes, each such rule passed to
 * note (when not NULL) with ctx.  A case decided by no rule or by r alone (covered
 * 0 <-> 1) changes every other rule of the case (not r: it decides the case alone
 * either way); a case decided by r and one other chosen rule o (covered 1 <-> 2)
 * changes o alone, found as the case's chosen XOR; the others none.  These are the
 * changes count_case's before-and-after recount gives, with one pass over the rules of
 * the first kind of case and none over the second. */
static inline void toggle_case(Search *s, Py_ssize_t r, const int64_t *from, const int64_t *to,
                               int64_t before, int64_t step, int pos, int32_t x,
                               void (*note)(void *, int64_t), void *ctx)
{
    const int64_t after = before + step;
    int64_t *side = pos ? s->right : s->wrong;
    if (before == 0 || after == 0) { /* fired <-> not fired */
        s->counts[0] += step;
        if (pos)
            s->counts[2] -= step;
        else
            s->counts[1] += step;
        for (int64_t q = *from; q < *to; q++) {
            const int64_t o = s->case_rules[q];
            if (o != r) {
                side[o] -= step;
                if (note != NULL)
                    note(ctx, o);
            }
        }
    } else if (before == 1 || after == 1) {
        /* the other chosen rule: the XOR before r came in, or after it left */
        const int64_t o = step > 0 ? (x ^ (int32_t)r) : x;
        if (o < 0 || o >= s->m)
            return; /* a state changed behind the kernels' back: no write outside */
        side[o] -= step;
        if (note != NULL)
            note(ctx, o);
    }
}

/* The rest of a toggle of rule r, whose chosen flag has just flipped: its cases'
 * coverage and chosen XOR, and toggle_case's changes through each. */
static inline void toggle_cases(Search *s, Py_ssize_t r, void (*note)(void *, int64_t),
                                void *ctx)
{
    const int64_t step = s->chosen[r] ? 1 : -1;
    for (int64_t p = s->rule_ptr[r]; p < s->rule_ptr[r + 1]; p++) {
        const int64_t c = s->rule_cases[p];
        const int64_t before = s->covered[c];
        s->covered[c] = (int32_t)(before + step);
        const int32_t x = s->chosen_xor[c] ^ (int32_t)r;
        s->chosen_xor[c] = x;
        toggle_case(s, r, &s->case_ptr[c], &s->case_ptr[c + 1], before, step, s->positive[c] != 0,
                    x, note, ctx);
    }
}

/* One side of mdl.biased_many for a rule: n items, e errors, expected errors exp_e
 * (as a float) and quotient = exp_e / n (in double; read only when not a constant).
 * Its kind: 0 computed from logs (rate, other written), else the constant in *bits. */
static inline int biased_rated(int64_t n, int64_t e, float exp_e, double quotient, double *rate,
                               double *other, float *bits)
{
    if (exp_e <= (float)TG_CERTAIN) { /* numpy: a float32 array against a Python float */
        *bits = e == 0 ? 0.0f : (float)TG_IMPOSSIBLE_BITS;
        return 1;
    }
    if ((double)exp_e >= (double)n - TG_CERTAIN) {
        *bits = e == n ? 0.0f : (float)TG_IMPOSSIBLE_BITS;
        return 1;
    }
    const float rt = (float)quotient;
    *rate = rt;
    *other = (float)(1.0f - rt);
    return 0;
}

/* biased_rated of expected as a double. */
static inline int biased_side(int64_t n, int64_t e, double expected, double *rate, double *other,
                              float *bits)
{
    const float exp_e = (float)expected;
    return biased_rated(n, e, exp_e, (double)exp_e / (double)n, rate, other, bits);
}

/* The exception-bit arguments of toggling a rule that is chosen (in) or not, with right
 * and wrong cases only it decides: the two sides of mdl.exception_bits_many as (n, e,
 * expected). */
static inline void sides_of(const Search *s, int in, int64_t right, int64_t wrong,
                            int64_t n_items, int64_t *n0, int64_t *e0, double *x0, int64_t *n1,
                            int64_t *e1, double *x1)
{
    const int64_t sign = in ? -1 : 1;
    const int64_t fires = s->counts[0] + sign * (right + wrong);
    const int64_t fp = s->counts[1] + sign * wrong;
    const int64_t fn = s->counts[2] - sign * right;
    const double half = 0.5 * (double)(fp + fn);
    const int big = (double)fires > 0.5 * (double)n_items;
    *n0 = fires;
    *e0 = fp;
    *x0 = big ? half : (double)fp;
    *n1 = n_items - fires;
    *e1 = fn;
    *x1 = big ? (double)fn : half;
}

/* sides_of for rule r of the search. */
static inline void sides(const Search *s, Py_ssize_t r, int64_t n_items, int64_t *n0, int64_t *e0,
                         double *x0, int64_t *n1, int64_t *e1, double *x1)
{
    sides_of(s, s->chosen[r] != 0, s->right[r], s->wrong[r], n_items, n0, e0, x0, n1, e1, x1);
}

/* Two doubles in one register (GCC's vector extension): the divider takes two lanes at
 * about the cost of one. */
typedef double tg_v2d __attribute__((vector_size(16)));

/* One side of a cost as the climb keeps it between taking its logs and using them:
 * its items and errors, and whether its bits are a constant (and which). */
typedef struct {
    int64_t n, e;
    int fixed;
    float bits;
} Side;

/* A kept side's bits from the natural logs of its rate and 1 - rate (divided by ln 2
 * here, as log2_c45 divides; an input that was not positive was replaced by 1, whose
 * log is log2_c45's 0). */
static inline float side_kept(const Side *sd, const double *ln)
{
    if (sd->fixed)
        return sd->bits;
    tg_v2d l;
    memcpy(&l, ln, sizeof l);
    l = l / (tg_v2d){TG_LN2, TG_LN2}; /* two lanes, each the same IEEE division */
    return (float)((double)(-sd->e) * l[0] - (double)(sd->n - sd->e) * l[1]);
}

/* rkeys.c: the walk's SameRule keys, each rule's once with its highest error rate; the
 * same table holds its memo of PruneRule's states. */
typedef struct {
    int32_t *arena;              /* the keys, one after another */
    Py_ssize_t used, arena_cap;  /* ints of arena used and held */
    Py_ssize_t *at, *len;        /* per rule: its key's start in arena and its ints */
    double *err;                 /* per rule: the highest error rate of its leaves */
    Py_ssize_t rules, rules_cap;
    Py_ssize_t *slot;            /* the table: a rule + 1, or 0 (free) */
    size_t slots;                /* a power of two, or 0 (none yet) */
} KeySet;

/* The rule whose key is key (len ints), its rate raised to err if higher; or, a new key,
 * -1 and a new rule of rate err (numbered in the order added); -2 with an exception set
 * (no memory). */
Py_ssize_t tg_keys_add(KeySet *s, const int32_t *key, Py_ssize_t len, double err);
void tg_keys_free(KeySet *s);
/* The walk's memo of PruneRule's states (rwalk.c): whether key is in s (1), else it is
 * added, memory allowing (0); and s emptied. */
int tg_keys_seen(KeySet *s, const int32_t *key, Py_ssize_t len);
void tg_keys_clear(KeySet *s);

/* The walk's memo of PruneRule's states, as rpaths.c's search reads it. */
typedef struct {
    KeySet *set;        /* the states so far (rpaths.c's memo_seen says what one is) */
    const int32_t *ids; /* per depth of the path: its condition's id (the edge's xkey) */
    int32_t *key;       /* scratch, k + 1 ints */
    int32_t cls;        /* the leaf's class */
} Memo;

/* rpaths.c's and rfold.c's loops, for their kernels and the walk (rwalk.c). */
void tg_fold_row(word *levels, word *rows, Py_ssize_t d, Py_ssize_t W, const word *sat);
void tg_fold_into(const word *in, word *out, Py_ssize_t W, const word *sat);
void tg_pack_le_row(const float *col, float cut, word *out, Py_ssize_t n);
double tg_prune_run(const Bound *bd, const word *const *sat, const word *wrong,
                    const word *levels, Py_ssize_t k, Py_ssize_t n, double default_error,
                    char *alive, long long *tot, long long *err, Py_ssize_t *al,
                    const word **arow, int32_t *list, const Memo *memo, int *met);
Py_ssize_t tg_sort_places(const double *ord, const char *alive, Py_ssize_t k, int64_t *idx,
                          char *done);
Py_ssize_t tg_rows_of(const word *const *rows, Py_ssize_t k, Py_ssize_t n, const word *more,
                      Py_ssize_t from, Py_ssize_t to, const int32_t *order, int32_t *out);
void tg_span(const word *fail, Py_ssize_t n, Py_ssize_t *from, Py_ssize_t *to);
/* rpack.c: a rule's cases sorted and packed as caselists.pack packs them (pack_rows). */
int tg_pack_into(int32_t *rows, Py_ssize_t count, word *marks, Py_ssize_t W, unsigned char *block,
                 Py_ssize_t len, Py_ssize_t at, Py_ssize_t most, Py_ssize_t pack_min, int *kind_out,
                 Py_ssize_t *items_out);

/* The kernels (METH_VARARGS functions), one file per concern. */
PyObject *tg_fold_levels(PyObject *self, PyObject *args);    /* rfold.c */
PyObject *tg_prune_path(PyObject *self, PyObject *args);     /* rpaths.c */
PyObject *tg_and_rows(PyObject *self, PyObject *args);       /* rpaths.c */
PyObject *tg_sort_kept(PyObject *self, PyObject *args);      /* rpaths.c */
PyObject *tg_pack_le(PyObject *self, PyObject *args);        /* rpaths.c */
PyObject *tg_walk_new(PyObject *self, PyObject *args);       /* rwalk.c */
PyObject *tg_walk_next(PyObject *self, PyObject *args);      /* rwalk.c */
PyObject *tg_walk_rows(PyObject *self, PyObject *args);      /* rwalk.c */
PyObject *tg_walk_many(PyObject *self, PyObject *args);      /* rwalk.c */
PyObject *tg_walk_errors(PyObject *self, PyObject *args);    /* rwalk.c */
PyObject *tg_walk_memo(PyObject *self, PyObject *args);      /* rwalk.c */
PyObject *tg_subsets_toggle(PyObject *self, PyObject *args); /* rsearch.c */
PyObject *tg_subsets_set(PyObject *self, PyObject *args);    /* rsearch.c */
PyObject *tg_subsets_prep(PyObject *self, PyObject *args);   /* rsearch.c */
PyObject *tg_subsets_finish(PyObject *self, PyObject *args); /* rsearch.c */
PyObject *tg_case_lists(PyObject *self, PyObject *args);     /* rsearch.c */
PyObject *tg_subsets_climb(PyObject *self, PyObject *args);  /* rclimb.c */
PyObject *tg_check_memo(PyObject *self, PyObject *args);     /* rclimb.c */
PyObject *tg_theory_sums(PyObject *self, PyObject *args);    /* rtheory.c */
PyObject *tg_number_cases(PyObject *self, PyObject *args);   /* rcases.c */
PyObject *tg_unpack_lists(PyObject *self, PyObject *args);   /* rlists.c */
PyObject *tg_pack_rows(PyObject *self, PyObject *args);      /* rpack.c */
PyObject *tg_leaf_step(PyObject *self, PyObject *args);      /* rorder.c */
PyObject *tg_order_by_node(PyObject *self, PyObject *args);  /* rorder.c */

#endif
