/* The pruning walk over a flat tree (Release 8's EstimateErrors, prune.py) for one
 * flavour, written once over a weight type and compiled twice into cprune.c: it
 * includes this file with REAL (float for c45, double for j48), FN (the names'
 * suffix), ESTIMATE (the bound's estimate, bound.h), LE (the flavour's <=) and J48
 * defined.  No include guard: it is meant to be included once per flavour. */

/* The leaf class of a distribution (prune._label).  c45: Release 8 keeps the
 * current class unless another is strictly larger.  j48: numpy's argmax,
 * the first largest (a NaN, were there one, counting as largest). */
static Py_ssize_t FN(label)(int64_t current, const REAL *d, Py_ssize_t C)
{
#if !J48
    Py_ssize_t best = (Py_ssize_t)current;
#else
    Py_ssize_t best = 0;
    (void)current;
#endif
    for (Py_ssize_t c = 0; c < C; c++) {
#if J48
        if (isnan(d[c]))
            return c;
#endif
        if (d[c] > d[best])
            best = c;
    }
    return best;
}

/* The byte address of row r's value at a test of kind k on column col
 * (the row of cvals, or the column of ncodes). */
static const char *FN(value_at)(const Prune *p, int64_t k, Py_ssize_t col, int64_t r)
{
    if (k == CONTINUOUS)
        return p->cvals + ((Py_ssize_t)col * p->n1 + (Py_ssize_t)r) * (Py_ssize_t)sizeof(REAL);
    return p->ncodes + ((Py_ssize_t)r * p->n_nom + col) * p->code_size;
}

/* Outcome of row r at a test of kind k on column col, with cut
 * (continuous) or subset table tab (-1: unknown), as route.branch_of. */
static Py_ssize_t FN(branch)(const Prune *p, int64_t k, Py_ssize_t col, REAL cut,
                             const int32_t *tab, int64_t r)
{
    if (k == CONTINUOUS) {
        REAL v;
        memcpy(&v, FN(value_at)(p, k, col, r), sizeof v);
        if (isnan(v))
            return -1;
        return v <= cut ? 0 : 1;
    }
    int32_t code = code_at(p, col, r);
    if (k == SUBSET)
        return tab[code];
    return (Py_ssize_t)code - 1;
}

static void FN(copy_record)(Prune *p, Py_ssize_t to, Py_ssize_t from)
{
    REAL *dist = p->dist;
    p->kind[to] = p->kind[from];
    p->src[to] = p->src[from];
    p->cls[to] = p->cls[from];
    p->items[to] = p->items[from];
    p->errors[to] = p->errors[from];
    memcpy(dist + to * p->C, dist + from * p->C, (size_t)p->C * sizeof(REAL));
    p->updated[to] = p->updated[from];
}

/* A leaf's estimate from its cases (prune._leaf_estimate), updating its record. */
static double FN(leaf_errors)(Prune *p, Py_ssize_t t, const int32_t *rows, const REAL *w,
                              Py_ssize_t n, int update)
{
    const Py_ssize_t C = p->C;
    REAL local[64];
    REAL *dist = C <= 64 ? local : malloc((size_t)C * sizeof(REAL));
    if (dist == NULL) {
        p->failed = 1;
        return 0.0;
    }
    memset(dist, 0, (size_t)C * sizeof(REAL));
    REAL cases = 0; /* CountItems: one case at a time */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i + AHEAD < n)
            PREFETCH(p->rcls + rows[i + AHEAD]);
        cases += w[i];
        dist[class_of(p, rows[i])] += w[i];
    }
    Py_ssize_t best = FN(label)(p->cls[t], dist, C);
    double est = ESTIMATE(&p->bd, cases, (REAL)(cases - dist[best]));
    if (update) {
        p->items[t] = cases;
        p->cls[t] = (int32_t)best;
        memcpy((REAL *)p->dist + t * C, dist, (size_t)C * sizeof(REAL));
        p->errors[t] = est;
        p->updated[t] = 1;
    }
    if (dist != local)
        free(dist);
    return est;
}

/* EstimateErrors(t, cases, update) as prune.estimate_errors, the cases given
 * as rows with weights; returns t's estimate.  Rows are always in
 * increasing order (the root's are 0..n-1 and every branch takes an ordered
 * merge of a subsequence), so "row order" and "case order" agree.
 * Recursion depth is the tree's depth (the caller bounds it). */
static double FN(estimate_errors)(Prune *p, Py_ssize_t t, const int32_t *rows, const REAL *w,
                                  Py_ssize_t n, int update)
{
    const Py_ssize_t C = p->C;
    const int64_t k = p->kind[t];
    if (k == LEAF)
        return FN(leaf_errors)(p, t, rows, w, n, update);
    const Py_ssize_t s = (Py_ssize_t)p->src[t];
    const Py_ssize_t F = (Py_ssize_t)p->n_children[s];
    const Py_ssize_t col = (Py_ssize_t)p->attr_pos[s];
    /* numpy compares a float32 array with the Python float cut in float32
     * (c45), a float64 array in double (j48) */
    const REAL cut = (REAL)p->thresh[s];
    const int32_t *tab = k == SUBSET ? p->tab + p->tab_start[s] : NULL;

    /* The node's own numbers (8-byte arrays first, then REAL ones), and its
     * cases': each case's branch (int32, for the grouping pass only), the cases
     * grouped by branch (REAL weight and int32 row: 8 bytes a case in float32),
     * and where a case is unknown, one branch's cases with every unknown one
     * (sized to the widest branch).  Every level of the walk's current path
     * holds its cases' blocks, so a case costs what they take times the depth
     * it reaches (20 bytes a level when each block took n cases: 80 MB at
     * 1M rows).  The cases' blocks are freed once the branches are walked:
     * the update step below walks the largest branch with all n cases again,
     * and that walk's blocks then do not come on top of these. */
    char *block = malloc((2 * (size_t)F + 1) * sizeof(int64_t) +
                         ((size_t)C + 2 * (size_t)F) * sizeof(REAL) + 16);
    char *big = malloc((size_t)n * sizeof(REAL) + (size_t)n * sizeof(int32_t) + 16);
    int32_t *br = malloc((size_t)n * sizeof(int32_t) + 16);
    char *each = NULL; /* the branch-with-unknowns block */
    if (block == NULL || big == NULL || br == NULL) {
        free(block);
        free(big);
        free(br);
        p->failed = 1;
        return 0.0;
    }
    int64_t *off = (int64_t *)block; /* F + 1: branch v's known cases are [off[v], off[v+1]) */
    int64_t *fill = off + F + 1;
    REAL *dist = (REAL *)(fill + F);
    REAL *known_v = dist + C;
    REAL *factor = known_v + F;
    REAL *w_g = (REAL *)big;
    int32_t *rows_g = (int32_t *)(w_g + n); /* known cases grouped by branch, then the unknown ones */
    REAL *w_v = NULL;
    int32_t *rows_v = NULL;

    /* One pass in case order: the cases' weight (CountItems), the class sums
     * (update only), each case's branch, the known weight per branch and
     * the unknown weight; every sum in REAL, one case at a time. */
    REAL cases = 0, unk = 0;
    Py_ssize_t nu = 0;
    for (Py_ssize_t v = 0; v <= F; v++)
        off[v] = 0;
    for (Py_ssize_t v = 0; v < F; v++)
        known_v[v] = 0;
    memset(dist, 0, (size_t)C * sizeof(REAL));
    for (Py_ssize_t i = 0; i < n; i++) {
        const int32_t r = rows[i];
        if (i + AHEAD < n) {
            const int32_t ra = rows[i + AHEAD];
            PREFETCH(FN(value_at)(p, k, col, ra));
            if (update)
                PREFETCH(p->rcls + ra);
        }
        cases += w[i];
        if (update)
            dist[class_of(p, r)] += w[i];
        Py_ssize_t b = FN(branch)(p, k, col, cut, tab, r);
        br[i] = (int32_t)b;
        if (b < 0) {
            unk += w[i];
            nu++;
        } else {
            known_v[b] += w[i];
            off[b + 1]++;
        }
    }
    double leaf_est = 0.0;
    if (update) {
        Py_ssize_t best = FN(label)(p->cls[t], dist, C);
        leaf_est = ESTIMATE(&p->bd, cases, (REAL)(cases - dist[best]));
        p->items[t] = cases;
        p->cls[t] = (int32_t)best;
        memcpy((REAL *)p->dist + t * C, dist, (size_t)C * sizeof(REAL));
        p->updated[t] = 1;
    }
    for (Py_ssize_t v = 0; v < F; v++) {
        off[v + 1] += off[v];
        fill[v] = off[v];
    }
    const Py_ssize_t n_known = (Py_ssize_t)off[F];
    {
        Py_ssize_t u = n_known;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t q = br[i] < 0 ? u++ : (Py_ssize_t)fill[br[i]]++;
            rows_g[q] = rows[i];
            w_g[q] = w[i];
        }
    }
    free(br);
    if (nu) {
        Py_ssize_t widest = 0;
        for (Py_ssize_t v = 0; v < F; v++)
            if (off[v + 1] - off[v] > widest)
                widest = (Py_ssize_t)(off[v + 1] - off[v]);
        const size_t m = (size_t)(widest + nu);
        each = malloc(m * sizeof(REAL) + m * sizeof(int32_t) + 16);
        if (each == NULL) {
            free(big);
            free(block);
            p->failed = 1;
            return 0.0;
        }
        w_v = (REAL *)each;
        rows_v = (int32_t *)(w_v + m);
    }
    const int32_t *urows = rows_g + n_known;
    REAL *cur = w_g + n_known; /* the unknown cases' weights (c45: carried from branch to branch) */

    const REAL known_cases = nu ? (REAL)(cases - unk) : cases;
    Py_ssize_t max_br = 0;
#if J48
    /* J48's Distribution.maxBag over the branches' weights (Factor times cases):
     * a branch less than 1e-6 lighter than the heaviest so far replaces it
     * (prune._largest_branch). */
    double top = 0.0;
    for (Py_ssize_t v = 0; v < F; v++) {
        factor[v] = known_v[v] / known_cases;
        if (off[v + 1] > off[v] && top - (double)factor[v] * (double)cases < TG_J48_TOL) {
            max_br = v;
            top = (double)factor[v] * (double)cases;
        }
    }
#else
    double max_factor = -1.0;
    for (Py_ssize_t v = 0; v < F; v++) {
        factor[v] = known_v[v] / known_cases; /* Factor, stored as REAL */
        if (off[v + 1] > off[v] && (double)factor[v] >= max_factor) {
            max_br = v; /* ties go to the later branch */
            max_factor = factor[v];
        }
    }
#endif

    /* Each non-empty branch in order: its known cases and every unknown one,
     * whose weight is scaled by the branch's Factor and, for c45, divided
     * back (the round trip; prune.estimate_errors' cw). */
    const int64_t kids0 = p->child_start[s]; /* branch v's node: kids0 + v */
    REAL tree_est = 0;
    for (Py_ssize_t v = 0; v < F && !p->failed; v++) {
        Py_ssize_t a = (Py_ssize_t)off[v], ae = (Py_ssize_t)off[v + 1];
        if (a == ae)
            continue;
        double est;
        if (nu == 0) {
            est = FN(estimate_errors)(p, (Py_ssize_t)(kids0 + v), rows_g + a, w_g + a, ae - a, update);
        } else {
            const REAL f = factor[v];
            Py_ssize_t m = 0, j = 0;
            while (a < ae || j < nu) {
                if (j == nu || (a < ae && rows_g[a] < urows[j])) {
                    rows_v[m] = rows_g[a];
                    w_v[m++] = w_g[a++];
                } else {
                    REAL val = cur[j] * f;
#if !J48 /* Release 8 divides back; J48 scales a copy */
                    cur[j] = val / f;
#endif
                    rows_v[m] = urows[j++];
                    w_v[m++] = val;
                }
            }
            est = FN(estimate_errors)(p, (Py_ssize_t)(kids0 + v), rows_v, w_v, m, update);
        }
        tree_est = (REAL)((double)tree_est + est); /* Context.add_all */
    }
    free(each);
    free(big);
    if (!update || p->failed) {
        free(block);
        return tree_est;
    }

    /* The update step: leaf, largest branch (subtree raising) or subtree. */
    const Py_ssize_t b = (Py_ssize_t)(kids0 + max_br);
    double branch_est;
    if (p->kind[b] == LEAF) {
        Py_ssize_t bl = FN(label)(p->cls[b], dist, C);
        branch_est = ESTIMATE(&p->bd, cases, (REAL)(cases - dist[bl]));
    } else {
        branch_est = FN(estimate_errors)(p, b, rows, w, n, 0);
    }
    if (LE(leaf_est, branch_est + 0.1) && LE(leaf_est, (double)tree_est + 0.1)) {
        p->kind[t] = LEAF;
        p->errors[t] = leaf_est;
    } else if (LE(branch_est, (double)tree_est + 0.1)) {
        FN(estimate_errors)(p, b, rows, w, n, 1);
        FN(copy_record)(p, t, b);
    } else {
        p->errors[t] = tree_est;
    }
    free(block);
    return p->errors[t];
}
