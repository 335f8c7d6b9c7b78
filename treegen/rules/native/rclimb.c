/* The class-subset search's climb (ClassSearch.climb) in one call (module _crules). */
#include "crules.h"
#include "rtheory.h"

/* ---- The climb (ClassSearch.climb) in one call, over groups of rules ----
 *
 * A rule's change of cost depends on the subset and on the rule's key (chosen or
 * not, its right and wrong cases) and theory bits only.  The rules of one key share
 * their exception bits, and within a key the change of cost is monotone in the bits
 * (float rounding is monotone): a chosen rule's gain of dropping grows with its bits,
 * an unchosen rule's gain of adding shrinks.  So each step costs the exception bits
 * of each key once and the best of each key at its extreme bits; only the keys that
 * reach the largest change are scanned rule by rule for the first rule reaching it,
 * which is numpy's argmax over every rule.  Toggling a rule changes the keys of the
 * rules that share its cases only, which move between groups.
 *
 * A key's exception bits depend on the subset only through its counts (cases covered,
 * false positives, false negatives), which most steps leave as they are (a rule that
 * decides no case alone comes or goes): each group keeps its bits with the epoch of
 * the counts they were worked out for, and only the groups of another epoch are
 * costed again (the same inputs to the same logarithms: the same bits).  The theory
 * bits, a float sum over the chosen rules in rule order, are kept in blocks of rules
 * (rtheory.h).  What a step's scan reads of each live group sits in arrays by live
 * slot, beside each other. */

/* A group's rules are a binary heap, its top the rule of the extreme bits (the largest
 * of a chosen key, the smallest of another; of equal bits the lowest rule): a step
 * reads the extreme at the top, and the first rule reaching the largest change is
 * found among the rules reaching it alone (their change is monotone in the bits, so
 * no rule below one that falls short reaches it). */
typedef struct {
    uint64_t key;
    int32_t count, live_at;
    int32_t *heap, cap; /* the group's rules (count of cap), kept across rebuilds */
    float ex;         /* while not live (a live group's are its slot's) */
    int64_t ex_epoch; /* the counts' epoch ex was worked out for (-1: none) */
} Group;

/* A case as the climb's toggles read it, in one 16-byte entry (one cache line a case
 * instead of four: coverage, XOR, class and case_ptr): how many chosen rules fire on
 * it, with its class's flag in the top bit (coverage is at most the number of rules,
 * below 2^31), the XOR of their numbers, and where its rules start in case_rules
 * (case_ptr[c]; the next entry's is where they end, one more entry at the end).  Made
 * from the search's arrays when the climb starts and written back to them (coverage
 * and XOR) when it ends. */
typedef struct {
    uint32_t cov_pos;
    int32_t xor;
    int64_t rules;
} CaseState;

#define COV_MASK 0x7FFFFFFFu
#define PREFETCH_FAR 16
#define PREFETCH_NEAR 8

typedef struct {
    Search *s;
    CaseState *cases; /* per case, while the climb runs (the search's arrays meanwhile stale) */
    Py_ssize_t m;
    const float *bits;
    Group *g;
    Py_ssize_t n_groups, cap_groups;
    int32_t *table; /* open addressing: group index + 1, 0 empty */
    Py_ssize_t table_size;
    int32_t *group_of, *pos, *live, *stamp, *touched; /* pos: a rule's place in its heap */
    /* per live slot (live[i]'s group): what a step's scan for the largest change reads,
     * side by side (not through the group and its heap): chosen key or not, the
     * exception bits and their epoch, the top rule's bits */
    char *live_in;
    uint64_t *live_key;
    float *live_ex, *live_top;
    int64_t *live_epoch;
    int32_t *stack;                                   /* the search of a heap's top rules */
    TheorySum theory; /* the chosen rules' bits summed in rule order (rtheory.h) */
    Py_ssize_t n_live, n_touched, n_chosen;
    int32_t clock;
} Groups;

static inline uint64_t key_of(const Search *s, Py_ssize_t r)
{
    return ((uint64_t)(s->chosen[r] != 0) << 62) | ((uint64_t)s->right[r] << 31) |
           (uint64_t)s->wrong[r];
}

static inline int chosen_key(uint64_t k)
{
    return (int)(k >> 62);
}

static inline int64_t key_right(uint64_t k)
{
    return (int64_t)((k >> 31) & 0x7FFFFFFFu);
}

static inline int64_t key_wrong(uint64_t k)
{
    return (int64_t)(k & 0x7FFFFFFFu);
}

static inline size_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

static int groups_rebuild(Groups *G);

/* The group of key k, made (empty) if new; -1 out of memory. */
static int32_t group_find(Groups *G, uint64_t k)
{
    size_t mask = (size_t)G->table_size - 1, i = hash64(k) & mask;
    while (G->table[i]) {
        const int32_t gi = G->table[i] - 1;
        if (G->g[gi].key == k)
            return gi;
        i = (i + 1) & mask;
    }
    if (G->n_groups >= G->cap_groups)
        return -1;
    const int32_t gi = (int32_t)G->n_groups++;
    G->table[i] = gi + 1;
    Group *g = &G->g[gi];
    g->key = k;
    g->count = 0;
    g->live_at = -1;
    g->ex_epoch = -1;
    return gi;
}

/* Whether rule a comes before rule b in a heap of a chosen key (in) or another. */
static inline int heap_before(const float *bits, int in, int32_t a, int32_t b)
{
    if (bits[a] != bits[b])
        return in ? bits[a] > bits[b] : bits[a] < bits[b];
    return a < b;
}

static void heap_up(Groups *G, Group *g, int32_t i)
{
    const int in = chosen_key(g->key);
    const int32_t r = g->heap[i];
    while (i > 0) {
        const int32_t parent = (i - 1) / 2;
        if (!heap_before(G->bits, in, r, g->heap[parent]))
            break;
        g->heap[i] = g->heap[parent];
        G->pos[g->heap[i]] = i;
        i = parent;
    }
    g->heap[i] = r;
    G->pos[r] = i;
}

static void heap_down(Groups *G, Group *g, int32_t i)
{
    const int in = chosen_key(g->key);
    const int32_t r = g->heap[i];
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= g->count)
            break;
        if (c + 1 < g->count && heap_before(G->bits, in, g->heap[c + 1], g->heap[c]))
            c++;
        if (!heap_before(G->bits, in, g->heap[c], r))
            break;
        g->heap[i] = g->heap[c];
        G->pos[g->heap[i]] = i;
        i = c;
    }
    g->heap[i] = r;
    G->pos[r] = i;
}

/* Rule r into group gi.  0, or -1 out of memory. */
static int group_add(Groups *G, int32_t gi, int32_t r)
{
    Group *g = &G->g[gi];
    if (g->count == g->cap) {
        const int32_t cap = g->cap ? 2 * g->cap : 4;
        int32_t *heap = PyMem_Realloc(g->heap, (size_t)cap * sizeof(int32_t));
        if (heap == NULL)
            return -1;
        g->heap = heap;
        g->cap = cap;
    }
    G->group_of[r] = gi;
    if (g->count == 0) {
        g->live_at = (int32_t)G->n_live;
        G->live_in[G->n_live] = (char)chosen_key(g->key);
        G->live_key[G->n_live] = g->key;
        G->live_ex[G->n_live] = g->ex; /* current if costed in this epoch (ex_epoch) */
        G->live_epoch[G->n_live] = g->ex_epoch;
        G->live[G->n_live++] = gi;
    }
    g->heap[g->count++] = r;
    heap_up(G, g, g->count - 1);
    G->live_top[g->live_at] = G->bits[g->heap[0]];
    return 0;
}

static void group_remove(Groups *G, int32_t r)
{
    const int32_t gi = G->group_of[r];
    Group *g = &G->g[gi];
    const int32_t i = G->pos[r], last = g->heap[--g->count];
    if (i < g->count) {
        g->heap[i] = last;
        G->pos[last] = i;
        heap_down(G, g, i);
        heap_up(G, g, G->pos[last]);
    }
    if (g->count == 0) {
        const int32_t tail = G->live[--G->n_live], at = g->live_at;
        g->ex = G->live_ex[at]; /* kept for the group's next life */
        g->ex_epoch = G->live_epoch[at];
        G->live[at] = tail;
        G->live_in[at] = G->live_in[G->n_live];
        G->live_key[at] = G->live_key[G->n_live];
        G->live_ex[at] = G->live_ex[G->n_live];
        G->live_epoch[at] = G->live_epoch[G->n_live];
        G->live_top[at] = G->live_top[G->n_live];
        G->g[tail].live_at = at;
        g->live_at = -1;
    } else
        G->live_top[g->live_at] = G->bits[g->heap[0]];
}

/* Every rule into the group of its key, from an empty table.  0, or -1. */
static int groups_rebuild(Groups *G)
{
    memset(G->table, 0, (size_t)G->table_size * sizeof(int32_t));
    G->n_groups = 0;
    G->n_live = 0;
    for (Py_ssize_t r = G->m - 1; r >= 0; r--) {
        const int32_t gi = group_find(G, key_of(G->s, r));
        if (gi < 0 || group_add(G, gi, (int32_t)r) < 0)
            return -1;
    }
    return 0;
}

static inline void touch(Groups *G, int64_t q)
{
    if (G->stamp[q] != G->clock) {
        G->stamp[q] = G->clock;
        G->touched[G->n_touched++] = (int32_t)q;
    }
}

/* toggle_case's note: a rule whose counts changed. */
static void note_touched(void *ctx, int64_t q)
{
    touch((Groups *)ctx, q);
}

/* crules.h's toggle_cases over the climb's case entries, each rule whose counts
 * change touched. */
static void toggle_climb(Groups *G, Py_ssize_t r)
{
    Search *s = G->s;
    CaseState *cases = G->cases;
    const int64_t step = s->chosen[r] ? 1 : -1;
    const int64_t lo = s->rule_ptr[r], hi = s->rule_ptr[r + 1];
    for (int64_t p = lo; p < hi; p++) {
        const int64_t c = s->rule_cases[p];
        if (p + PREFETCH_FAR < hi) {
            const int64_t f = s->rule_cases[p + PREFETCH_FAR];
            __builtin_prefetch(&cases[f], 1);
        }
        if (p + PREFETCH_NEAR < hi)
            __builtin_prefetch(&s->case_rules[cases[s->rule_cases[p + PREFETCH_NEAR]].rules]);
        CaseState *e = &cases[c];
        const uint32_t cp = e->cov_pos;
        const int64_t before = (int64_t)(cp & COV_MASK);
        e->cov_pos = (uint32_t)(before + step) | (cp & ~COV_MASK);
        const int32_t x = e->xor ^ (int32_t)r;
        e->xor = x;
        toggle_case(s, r, &e->rules, &e[1].rules, before, step, (int)(cp >> 31), x, note_touched,
                    G);
    }
}

static int toggle_grouped(Groups *G, Py_ssize_t r)
{
    Search *s = G->s;
    G->clock++;
    G->n_touched = 0;
    touch(G, r);
    s->chosen[r] = !s->chosen[r];
    G->n_chosen += s->chosen[r] ? 1 : -1;
    ts_toggled(&G->theory, r);
    toggle_climb(G, r);
    for (Py_ssize_t t = 0; t < G->n_touched; t++) {
        const int32_t q = G->touched[t];
        const uint64_t k = key_of(s, q);
        if (G->g[G->group_of[q]].key == k)
            continue;
        group_remove(G, q);
        if (2 * G->n_groups >= G->table_size || G->n_groups >= G->cap_groups) {
            /* the table is half full of keys, many of them empty: start again */
            if (groups_rebuild(G) < 0)
                return -1;
            continue; /* every rule is in its group now, the rest included */
        }
        const int32_t gi = group_find(G, k);
        if (gi < 0 || group_add(G, gi, q) < 0)
            return -1;
    }
    return 0;
}

/* The change of cost of toggling a rule of bits b and exception bits ex, as the
 * climb compares them (ClassSearch.values, then the sign of climb's delta). */
static inline float delta_of(int in, float ex, float b, float theory, float base, float item_in,
                             float item_out)
{
    float t;
    if (in) {
        const float a = theory - b;
        t = a + item_in;
    } else {
        const float a = theory + b;
        t = a - item_out;
    }
    const float half = (float)TG_THEORY_WEIGHT * t;
    const float nw = ex + half;
    const float g = in ? nw - base : base - nw;
    return in ? -g : g;
}

/* subsets_climb(state, bits32, fact, item, log2_items, logs_in, logs_out, take_logs,
 *               best_cost, best) -> best_cost
 * ClassSearch.climb from the current subset: every subset costed on the way that is
 * cheaper than best_cost (and every one before) is copied into best (m bytes).
 * fact, item: Logs.fact and Logs.item (at least m + 2 entries); take_logs(k) sets
 * logs_out[:k] to numpy's natural logarithms of logs_in[:k] (all positive). */
PyObject *tg_subsets_climb(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *o[6], *take_logs;
    double log2_items, best_cost;
    Py_ssize_t m, n;
    Py_buffer b[S_N], bb[6];
    Search s;
    if (!PyArg_ParseTuple(args, "OOOOdOOOdO", &state, &o[0], &o[1], &o[2], &log2_items, &o[3],
                          &o[4], &take_logs, &best_cost, &o[5]) ||
        !tg_search_views(state, b, &m, &n, &s))
        return NULL;
    const tg_spec spec[6] = {
        {0, sizeof(float), m, "bits32"},
        {0, sizeof(double), m + 2, "fact"},
        {0, sizeof(double), m + 2, "item"},
        {1, sizeof(double), 4 * (m + 1), "logs_in"},
        {0, sizeof(double), 4 * (m + 1), "logs_out"},
        {1, 1, m, "best"},
    };
    int got = tg_views(o, bb, spec, 6);
    PyObject *result = NULL;
    Groups G;
    Side *sides_kept = NULL; /* each costed group's two sides, then the subset's */
    int32_t *slot_group = NULL; /* each costed group's live slot; then the groups reaching M */
    int cases_made = 0; /* the search's covered and chosen_xor stale until written back */
    memset(&G, 0, sizeof G);
    if (got < 6)
        goto done;
    G.s = &s;
    G.m = m;
    G.bits = bb[0].buf;
    G.cap_groups = 2 * m + 64;
    G.table_size = 1;
    while (G.table_size < 2 * G.cap_groups)
        G.table_size <<= 1;
    G.g = PyMem_Calloc((size_t)G.cap_groups, sizeof(Group)); /* no heaps yet */
    G.table = PyMem_Malloc((size_t)G.table_size * sizeof(int32_t));
    G.group_of = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G.pos = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G.stack = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G.live = PyMem_Malloc((size_t)G.cap_groups * sizeof(int32_t));
    G.live_in = PyMem_Malloc((size_t)G.cap_groups);
    G.live_ex = PyMem_Malloc((size_t)G.cap_groups * sizeof(float));
    G.live_key = PyMem_Malloc((size_t)G.cap_groups * sizeof(uint64_t));
    G.live_top = PyMem_Malloc((size_t)G.cap_groups * sizeof(float));
    G.live_epoch = PyMem_Malloc((size_t)G.cap_groups * sizeof(int64_t));
    G.stamp = PyMem_Calloc((size_t)m, sizeof(int32_t));
    G.touched = PyMem_Malloc((size_t)m * sizeof(int32_t));
    slot_group = PyMem_Malloc((size_t)(m + 1) * sizeof(int32_t));
    G.cases = PyMem_Malloc((size_t)(n + 1) * sizeof(CaseState));
    sides_kept = PyMem_Malloc((size_t)(2 * (m + 1)) * sizeof(Side));
    if (!G.g || !G.table || !G.group_of || !G.pos || !G.stack || !G.live || !G.live_in ||
        !G.live_ex || !G.live_key || !G.live_top || !G.live_epoch || !G.stamp || !G.touched || !slot_group || !sides_kept || !G.cases ||
        ts_init(&G.theory, G.bits, s.chosen, m) < 0 || groups_rebuild(&G) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < m; r++)
        G.n_chosen += s.chosen[r] != 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        G.cases[c].cov_pos = (uint32_t)s.covered[c] | (s.positive[c] ? ~COV_MASK : 0u);
        G.cases[c].xor = s.chosen_xor[c];
        G.cases[c].rules = s.case_ptr[c];
    }
    G.cases[n].rules = s.case_ptr[n];
    cases_made = 1;
    {
        const double *fact = bb[1].buf, *item = bb[2].buf;
        double *lin = bb[3].buf;
        const double *lout = bb[4].buf;
        char *best = bb[5].buf;
        int64_t epoch = 0, last_counts[3] = {-1, -1, -1};
        float cov = 0.0f, unc = 0.0f; /* the subset's sides' bits, for epoch */
        for (;;) {
            /* the subset's theory bits and cost (ClassSearch.values) */
            const Py_ssize_t selected = G.n_chosen;
            const float sum = ts_sum(&G.theory);
            const float theory = (float)((double)(selected ? sum : 0.0f) - fact[selected]);
            const int fresh = s.counts[0] != last_counts[0] || s.counts[1] != last_counts[1] ||
                              s.counts[2] != last_counts[2];
            if (fresh) {
                epoch++;
                for (int j = 0; j < 3; j++)
                    last_counts[j] = s.counts[j];
            }
            /* log inputs: the two sides of each live group not costed for these counts,
             * then (new counts) the subset's own */
            const Py_ssize_t L = G.n_live;
            Py_ssize_t J = 0;
            int64_t n0, e0, n1, e1;
            double x0, x1;
            for (Py_ssize_t i = 0; i <= L; i++) {
                if (i < L && G.live_epoch[i] == epoch)
                    continue;
                if (i == L && !fresh)
                    break;
                /* from the key (neither the group nor its rules are read); the subset's
                 * own sides are those of a key of no right or wrong cases */
                const uint64_t k = i < L ? G.live_key[i] : 0;
                sides_of(&s, chosen_key(k), key_right(k), key_wrong(k), n, &n0, &e0, &x0, &n1,
                         &e1, &x1);
                slot_group[J] = i < L ? (int32_t)i : -1; /* the live slot */
                double *in = lin + 4 * J;
                in[0] = in[1] = in[2] = in[3] = 1.0;
                Side *sd = sides_kept + 2 * J;
                sd[0].n = n0;
                sd[0].e = e0;
                sd[1].n = n1;
                sd[1].e = e1;
                /* the two sides' rates in one division of two lanes (each lane the same
                 * IEEE division): a side of no items is a constant, its lane unread */
                const float xe0 = (float)x0, xe1 = (float)x1;
                const tg_v2d q = (tg_v2d){(double)xe0, (double)xe1} / (tg_v2d){(double)n0, (double)n1};
                sd[0].fixed = biased_rated(n0, e0, xe0, q[0], &in[0], &in[1], &sd[0].bits);
                sd[1].fixed = biased_rated(n1, e1, xe1, q[1], &in[2], &in[3], &sd[1].bits);
                for (int j = 0; j < 4; j++)
                    if (!(in[j] > 0))
                        in[j] = 1.0; /* log 0: log2_c45's 0 where not positive */
                J++;
            }
            if (J > 0) {
                PyObject *ok = PyObject_CallFunction(take_logs, "n", 4 * J);
                if (ok == NULL)
                    goto done;
                Py_DECREF(ok);
            }
            for (Py_ssize_t j = 0; j < J; j++) {
                const float c0 = side_kept(sides_kept + 2 * j, lout + 4 * j);
                const float c1 = side_kept(sides_kept + 2 * j + 1, lout + 4 * j + 2);
                if (slot_group[j] < 0) {
                    cov = c0;
                    unc = c1;
                } else {
                    G.live_ex[slot_group[j]] = (float)((log2_items + (double)c0) + (double)c1);
                    G.live_epoch[slot_group[j]] = epoch;
                }
            }
            /* the subset's cost: remembered when cheaper than every one before */
            {
                const float ex = (float)((log2_items + (double)cov) + (double)unc);
                const float tw = (float)(TG_THEORY_WEIGHT * (double)theory);
                const float base = (float)((double)tw + (double)ex);
                if ((double)base < best_cost) {
                    best_cost = base;
                    /* the flags are 0 or 1 (numpy's bools, and the toggles' !) */
                    memcpy(best, s.chosen, (size_t)m);
                }
                const float item_in = (float)item[selected], item_out = (float)item[selected + 1];
                /* each group at its extreme bits: the largest change M, and the groups
                 * reaching it (a larger one starts the list again) */
                float M = 0.0f;
                int any = 0;
                Py_ssize_t n_top = 0;
                for (Py_ssize_t i = 0; i < L; i++) {
                    const float d = delta_of(G.live_in[i], G.live_ex[i], G.live_top[i], theory,
                                             base, item_in, item_out);
                    if (!any || d > M) {
                        M = d;
                        any = 1;
                        n_top = 0;
                    }
                    if (d == M)
                        slot_group[n_top++] = G.live[i];
                }
                if (!(M > 0.0f))
                    break;
                /* the first rule reaching M */
                Py_ssize_t pick = m;
                for (Py_ssize_t i = 0; i < n_top; i++) {
                    const Group *g = &G.g[slot_group[i]];
                    const int in = chosen_key(g->key);
                    const float ex_g = G.live_ex[g->live_at];
                    /* the rules reaching M: the top, and below each one that does */
                    Py_ssize_t top = 0;
                    G.stack[top++] = 0;
                    while (top > 0) {
                        const int32_t at = G.stack[--top], r = g->heap[at];
                        if (delta_of(in, ex_g, G.bits[r], theory, base, item_in, item_out) != M)
                            continue;
                        if (r < pick)
                            pick = r;
                        for (int32_t c = 2 * at + 1; c <= 2 * at + 2 && c < g->count; c++)
                            G.stack[top++] = c;
                    }
                }
                if (toggle_grouped(&G, pick) < 0) {
                    PyErr_NoMemory();
                    goto done;
                }
            }
        }
        result = PyFloat_FromDouble(best_cost);
    }
done:
    if (cases_made)
        for (Py_ssize_t c = 0; c < n; c++) {
            s.covered[c] = (int32_t)(G.cases[c].cov_pos & COV_MASK);
            s.chosen_xor[c] = G.cases[c].xor;
        }
    PyMem_Free(G.cases);
    if (G.g != NULL)
        for (Py_ssize_t i = 0; i < G.cap_groups; i++)
            PyMem_Free(G.g[i].heap);
    PyMem_Free(G.g);
    PyMem_Free(G.table);
    PyMem_Free(G.group_of);
    PyMem_Free(G.pos);
    PyMem_Free(G.stack);
    PyMem_Free(G.live);
    PyMem_Free(G.live_in);
    PyMem_Free(G.live_ex);
    PyMem_Free(G.live_key);
    PyMem_Free(G.live_top);
    PyMem_Free(G.live_epoch);
    PyMem_Free(G.stamp);
    PyMem_Free(G.touched);
    ts_free(&G.theory);
    PyMem_Free(slot_group);
    PyMem_Free(sides_kept);
    tg_release(bb, got > 0 ? got : 0);
    tg_release(b, S_N);
    return result;
}
