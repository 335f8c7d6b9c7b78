/* The subset climb's groups of rules: the key table, each group's heap, the moves
 * between groups and the toggles that cause them (rgroups.h; module _crules). */
#include "rgroups.h"

#define PREFETCH_FAR 16
#define PREFETCH_NEAR 8

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

int tg_toggle_grouped(Groups *G, Py_ssize_t r)
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

int tg_groups_init(Groups *G, Search *s, const float *bits, Py_ssize_t m, Py_ssize_t n)
{
    memset(G, 0, sizeof *G);
    G->s = s;
    G->m = m;
    G->bits = bits;
    G->cap_groups = 2 * m + 64;
    G->table_size = 1;
    while (G->table_size < 2 * G->cap_groups)
        G->table_size <<= 1;
    G->g = PyMem_Calloc((size_t)G->cap_groups, sizeof(Group)); /* no heaps yet */
    G->table = PyMem_Malloc((size_t)G->table_size * sizeof(int32_t));
    G->group_of = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G->pos = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G->stack = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G->live = PyMem_Malloc((size_t)G->cap_groups * sizeof(int32_t));
    G->live_in = PyMem_Malloc((size_t)G->cap_groups);
    G->live_ex = PyMem_Malloc((size_t)G->cap_groups * sizeof(float));
    G->live_key = PyMem_Malloc((size_t)G->cap_groups * sizeof(uint64_t));
    G->live_top = PyMem_Malloc((size_t)G->cap_groups * sizeof(float));
    G->live_epoch = PyMem_Malloc((size_t)G->cap_groups * sizeof(int64_t));
    G->stamp = PyMem_Calloc((size_t)m, sizeof(int32_t));
    G->touched = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G->cases = PyMem_Malloc((size_t)(n + 1) * sizeof(CaseState));
    if (!G->g || !G->table || !G->group_of || !G->pos || !G->stack || !G->live ||
        !G->live_in || !G->live_ex || !G->live_key || !G->live_top || !G->live_epoch ||
        !G->stamp || !G->touched || !G->cases || ts_init(&G->theory, bits, s->chosen, m) < 0 ||
        groups_rebuild(G) < 0)
        return -1;
    for (Py_ssize_t r = 0; r < m; r++)
        G->n_chosen += s->chosen[r] != 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        G->cases[c].cov_pos = (uint32_t)s->covered[c] | (s->positive[c] ? ~COV_MASK : 0u);
        G->cases[c].xor = s->chosen_xor[c];
        G->cases[c].rules = s->case_ptr[c];
    }
    G->cases[n].rules = s->case_ptr[n];
    G->cases_made = 1; /* the search's covered and chosen_xor stale until written back */
    return 0;
}

void tg_groups_free(Groups *G, Py_ssize_t n)
{
    if (G->cases_made)
        for (Py_ssize_t c = 0; c < n; c++) {
            G->s->covered[c] = (int32_t)(G->cases[c].cov_pos & COV_MASK);
            G->s->chosen_xor[c] = G->cases[c].xor;
        }
    PyMem_Free(G->cases);
    if (G->g != NULL)
        for (Py_ssize_t i = 0; i < G->cap_groups; i++)
            PyMem_Free(G->g[i].heap);
    PyMem_Free(G->g);
    PyMem_Free(G->table);
    PyMem_Free(G->group_of);
    PyMem_Free(G->pos);
    PyMem_Free(G->stack);
    PyMem_Free(G->live);
    PyMem_Free(G->live_in);
    PyMem_Free(G->live_ex);
    PyMem_Free(G->live_key);
    PyMem_Free(G->live_top);
    PyMem_Free(G->live_epoch);
    PyMem_Free(G->stamp);
    PyMem_Free(G->touched);
    ts_free(&G->theory);
}
