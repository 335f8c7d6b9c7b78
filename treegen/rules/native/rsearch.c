/* The class-subset search's steps (subsets.ClassSearch: toggle, and the change of
 * cost of toggling each rule, around numpy's logs) and the per-case lists its state
 * holds (module _crules). */
#include "crules.h"

int tg_search_views(PyObject *state, Py_buffer *b, Py_ssize_t *m, Py_ssize_t *n, Search *s)
{
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != S_N) {
        PyErr_SetString(PyExc_TypeError, "state: a tuple of 11 arrays");
        return 0;
    }
    PyObject *o[S_N];
    for (int i = 0; i < S_N; i++)
        o[i] = PyTuple_GET_ITEM(state, i);
    *m = tg_items(o[S_CHOSEN], 1);
    *n = tg_items(o[S_POSITIVE], 1);
    if (*m < 0 || *n < 0)
        return 0;
    const tg_spec spec[S_N] = {
        {0, 8, *m + 1, "rule_ptr"}, {0, 4, 0, "rule_cases"}, {0, 8, *n + 1, "case_ptr"},
        {0, 4, 0, "case_rules"},    {0, 1, *n, "positive"},  {1, 4, *n, "covered"},
        {1, 1, *m, "chosen"},       {1, 8, *m, "right"},     {1, 8, *m, "wrong"},
        {1, 8, 3, "counts"},        {1, 4, *n, "chosen_xor"},
    };
    int got = tg_views(o, b, spec, S_N);
    if (got < S_N) {
        tg_release(b, got);
        return 0;
    }
    s->rule_ptr = b[S_RULE_PTR].buf;
    s->rule_cases = b[S_RULE_CASES].buf;
    s->case_ptr = b[S_CASE_PTR].buf;
    s->case_rules = b[S_CASE_RULES].buf;
    s->positive = b[S_POSITIVE].buf;
    s->covered = b[S_COVERED].buf;
    s->chosen = b[S_CHOSEN].buf;
    s->right = b[S_RIGHT].buf;
    s->wrong = b[S_WRONG].buf;
    s->counts = b[S_COUNTS].buf;
    s->chosen_xor = b[S_XOR].buf;
    s->m = *m;
    return 1;
}

/* Rule r into the subset, or out of it, with the counts kept. */
static void toggle_one(Search *s, Py_ssize_t r)
{
    s->chosen[r] = !s->chosen[r];
    toggle_cases(s, r, NULL, NULL);
}

PyObject *tg_subsets_toggle(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state;
    Py_ssize_t r, m, n;
    Py_buffer b[S_N];
    Search s;
    if (!PyArg_ParseTuple(args, "On", &state, &r) || !tg_search_views(state, b, &m, &n, &s))
        return NULL;
    if (r < 0 || r >= m) {
        tg_release(b, S_N);
        PyErr_SetString(PyExc_IndexError, "rule out of range");
        return NULL;
    }
    toggle_one(&s, r);
    tg_release(b, S_N);
    Py_RETURN_NONE;
}

/* The state of the subset want (m bytes) worked out afresh: each case's chosen rules
 * counted, then each rule's right and wrong cases that only it would decide, and the
 * subset's counts.  These are integers that the subset alone fixes, so they equal what
 * toggling each differing rule in turn leaves. */
static void set_afresh(Search *s, const char *want, Py_ssize_t m, Py_ssize_t n)
{
    for (Py_ssize_t c = 0; c < n; c++) {
        s->covered[c] = 0;
        s->chosen_xor[c] = 0;
    }
    for (Py_ssize_t r = 0; r < m; r++) {
        s->chosen[r] = want[r] != 0;
        s->right[r] = s->wrong[r] = 0;
        if (s->chosen[r])
            for (int64_t p = s->rule_ptr[r]; p < s->rule_ptr[r + 1]; p++) {
                const int32_t c = s->rule_cases[p];
                s->covered[c]++;
                s->chosen_xor[c] ^= (int32_t)r;
            }
    }
    int64_t fired = 0, fp = 0, fn = 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        const int64_t cov = s->covered[c];
        if (cov > 0) {
            fired++;
            fp += !s->positive[c];
        } else
            fn += s->positive[c] != 0;
        if (cov <= 1)
            count_case(s, c, 1);
    }
    s->counts[0] = fired;
    s->counts[1] = fp;
    s->counts[2] = fn;
}

/* subsets_set(state, chosen): ClassSearch.set_subset, chosen (m bytes) the subset
 * wanted: each rule where it differs toggled, in rule order, in one call; or, where
 * the toggles would visit more (rule, case) pairs than there are, the state worked
 * out afresh (the same state). */
PyObject *tg_subsets_set(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *oc;
    Py_ssize_t m, n;
    Py_buffer b[S_N], bc;
    Search s;
    if (!PyArg_ParseTuple(args, "OO", &state, &oc) || !tg_search_views(state, b, &m, &n, &s))
        return NULL;
    const tg_spec spec = {0, 1, m, "chosen"};
    if (tg_views(&oc, &bc, &spec, 1) < 1) {
        tg_release(b, S_N);
        return NULL;
    }
    const char *want = bc.buf;
    /* a toggle reads each of its rule's cases' rules twice */
    int64_t visits = 0;
    for (Py_ssize_t r = 0; r < m; r++)
        if ((want[r] != 0) != (s.chosen[r] != 0))
            for (int64_t p = s.rule_ptr[r]; p < s.rule_ptr[r + 1]; p++) {
                const int64_t c = s.rule_cases[p];
                visits += 2 * (s.case_ptr[c + 1] - s.case_ptr[c]);
            }
    if (visits > s.rule_ptr[m] + n)
        set_afresh(&s, want, m, n);
    else
        for (Py_ssize_t r = 0; r < m; r++)
            if ((want[r] != 0) != (s.chosen[r] != 0))
                toggle_one(&s, r);
    tg_release(&bc, 1);
    tg_release(b, S_N);
    Py_RETURN_NONE;
}

/* subsets_prep(state, logs_in): for every rule, the four values whose log2 its
 * exception bits need (covered side rate and 1 - rate, uncovered side the same; 1.0
 * where a side is a constant), into logs_in (4 m float64). */
PyObject *tg_subsets_prep(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *ol;
    Py_ssize_t m, n;
    Py_buffer b[S_N], bl;
    Search s;
    if (!PyArg_ParseTuple(args, "OO", &state, &ol) || !tg_search_views(state, b, &m, &n, &s))
        return NULL;
    const tg_spec spec = {1, sizeof(double), 4 * m, "logs_in"};
    if (tg_views(&ol, &bl, &spec, 1) < 1) {
        tg_release(b, S_N);
        return NULL;
    }
    double *out = bl.buf;
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t n0, e0, n1, e1;
        double x0, x1;
        float unused;
        sides(&s, r, n, &n0, &e0, &x0, &n1, &e1, &x1);
        double *o = out + 4 * r;
        o[0] = o[1] = o[2] = o[3] = 1.0;
        biased_side(n0, e0, x0, &o[0], &o[1], &unused);
        biased_side(n1, e1, x1, &o[2], &o[3], &unused);
    }
    tg_release(&bl, 1);
    tg_release(b, S_N);
    Py_RETURN_NONE;
}

static inline float side_bits(int64_t n, int64_t e, double expected, const double *lg)
{
    double rate, other;
    float bits;
    if (biased_side(n, e, expected, &rate, &other, &bits))
        return bits;
    /* log2_c45: 0 where the input is not positive */
    const double l0 = rate > 0 ? lg[0] : 0.0, l1 = other > 0 ? lg[1] : 0.0;
    return (float)((double)(-e) * l0 - (double)(n - e) * l1);
}

/* subsets_finish(state, log2s, log2_items, theory, base, item_in, item_out, bits32, gain)
 *   -> index of the first largest change of cost (ClassSearch.climb's argmax)
 * log2s: log2 of subsets_prep's values; theory: the subset's theory bits, base its
 * cost, item_in/out: Logs.item[selected] and [selected + 1]; writes gain (m float32),
 * ClassSearch.values(). */
PyObject *tg_subsets_finish(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *o[3];
    double log2_items, theory_d, base_d, item_in_d, item_out_d;
    Py_ssize_t m, n;
    Py_buffer b[S_N], bb[3];
    Search s;
    if (!PyArg_ParseTuple(args, "OOdddddOO", &state, &o[0], &log2_items, &theory_d, &base_d,
                          &item_in_d, &item_out_d, &o[1], &o[2]) ||
        !tg_search_views(state, b, &m, &n, &s))
        return NULL;
    const tg_spec spec[3] = {
        {0, sizeof(double), 4 * m, "log2s"},
        {0, sizeof(float), m, "bits32"},
        {1, sizeof(float), m, "gain"},
    };
    int got = tg_views(o, bb, spec, 3);
    if (got < 3) {
        tg_release(bb, got);
        tg_release(b, S_N);
        return NULL;
    }
    const double *lg = bb[0].buf;
    const float *bits32 = bb[1].buf;
    float *gain = bb[2].buf;
    const float theory = (float)theory_d, base = (float)base_d;
    const float item_in = (float)item_in_d, item_out = (float)item_out_d;
    Py_ssize_t best = -1;
    float best_delta = 0.0f;
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t n0, e0, n1, e1;
        double x0, x1;
        sides(&s, r, n, &n0, &e0, &x0, &n1, &e1, &x1);
        const float cov = side_bits(n0, e0, x0, lg + 4 * r);
        const float unc = side_bits(n1, e1, x1, lg + 4 * r + 2);
        const float ex = (float)((log2_items + (double)cov) + (double)unc);
        const int in = s.chosen[r] != 0;
        float t;
        if (in) {
            const float a = theory - bits32[r];
            t = a + item_in;
        } else {
            const float a = theory + bits32[r];
            t = a - item_out;
        }
        const float half = (float)TG_THEORY_WEIGHT * t;
        const float nw = ex + half;
        const float g = in ? nw - base : base - nw;
        gain[r] = g;
        const float delta = in ? -g : g;
        /* numpy's argmax: the first NaN, else the first of the largest */
        if (best < 0 || (!isnan(best_delta) && (isnan(delta) || delta > best_delta))) {
            best = r;
            best_delta = delta;
        }
    }
    tg_release(bb, 3);
    tg_release(b, S_N);
    return PyLong_FromSsize_t(best);
}

/* case_lists(rule_ptr, rule_cases, positive, case_ptr, case_rules, right): the subset
 * search's per-case lists, by a counting sort: case_ptr (n + 1 int64) and case_rules
 * (int32, as many as rule_cases) list each case's rules in rule order; right (m
 * int64) counts each rule's cases of the class. */
PyObject *tg_case_lists(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5]))
        return NULL;
    const Py_ssize_t m1 = tg_items(o[0], sizeof(int64_t)), total = tg_items(o[1], sizeof(int32_t));
    const Py_ssize_t n = tg_items(o[2], 1);
    if (m1 < 1 || total < 0 || n < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "case_lists: empty rule_ptr");
        return NULL;
    }
    const Py_ssize_t m = m1 - 1;
    Py_buffer b[6];
    const tg_spec spec[6] = {
        {0, sizeof(int64_t), m1, "rule_ptr"},     {0, sizeof(int32_t), total, "rule_cases"},
        {0, 1, n, "positive"},                    {1, sizeof(int64_t), n + 1, "case_ptr"},
        {1, sizeof(int32_t), total, "case_rules"}, {1, sizeof(int64_t), m, "right"},
    };
    int got = tg_views(o, b, spec, 6);
    if (got < 6) {
        tg_release(b, got);
        return NULL;
    }
    const int64_t *rule_ptr = b[0].buf;
    const int32_t *rule_cases = b[1].buf;
    const char *positive = b[2].buf;
    int64_t *case_ptr = b[3].buf, *right = b[5].buf;
    int32_t *case_rules = b[4].buf;
    if (rule_ptr[0] != 0 || rule_ptr[m] != total) {
        tg_release(b, 6);
        PyErr_SetString(PyExc_ValueError, "case_lists: rule_ptr does not span rule_cases");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < total; i++)
        if (rule_cases[i] < 0 || rule_cases[i] >= n) {
            tg_release(b, 6);
            PyErr_SetString(PyExc_IndexError, "case_lists: case out of range");
            return NULL;
        }
    memset(case_ptr, 0, (size_t)(n + 1) * sizeof(int64_t));
    for (Py_ssize_t i = 0; i < total; i++)
        case_ptr[rule_cases[i] + 1]++;
    for (Py_ssize_t c = 0; c < n; c++)
        case_ptr[c + 1] += case_ptr[c];
    /* fill in rule order: each case's rules come out ascending */
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t hits = 0;
        for (int64_t p = rule_ptr[r]; p < rule_ptr[r + 1]; p++) {
            const int32_t c = rule_cases[p];
            hits += positive[c] != 0;
            case_rules[case_ptr[c]++] = (int32_t)r;
        }
        right[r] = hits;
    }
    for (Py_ssize_t c = n; c > 0; c--) /* case_ptr[c] was advanced to case c + 1's start */
        case_ptr[c] = case_ptr[c - 1];
    case_ptr[0] = 0;
    tg_release(b, 6);
    Py_RETURN_NONE;
}
