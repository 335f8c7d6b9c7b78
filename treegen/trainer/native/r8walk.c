/* Release 8's pruning in its case order: the walk (release8/prune.py's _estimate, step
 * for step) over the R8 record r8prune.c sets up.  The case array is reordered in place
 * as the Python walk reorders it (Release 8's swaps to the front), every count and
 * class sum runs in position order in float, the Factor round trip multiplies and
 * divides the unknown cases' weights in float, and the bound is bound.h's add_errs.
 * One translation unit: the recursion and its helpers stay static together. */
#include "r8order.h"
#include "r8prune.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether the case at row r takes branch v (-1: the unknown value) of the test
 * with grown structure s (release8/grow.py passes_branch). */
static int r8_passes(const R8 *p, Py_ssize_t s, Py_ssize_t v, Py_ssize_t r)
{
    const int64_t k = p->okind[s];
    if (k == CONTINUOUS) {
        const float x = p->cvals[p->attr_pos[s] * p->n1 + r];
        if (v < 0)
            return isnan(x);
        const int below = x <= (float)p->thresh[s];
        return v == 0 ? below : !below && !isnan(x);
    }
    const int32_t code = r8_code(p, (Py_ssize_t)p->attr_pos[s], r);
    if (v < 0)
        return code == 0;
    if (k == SUBSET)
        return p->tab[p->tab_start[s] + code] == v;
    return code == v + 1;
}

/* Cases.to_front: the segment's cases at fp..lp taking branch v of s swapped to its
 * front one by one; the position after them.  Position i still holds the case it
 * held before the scan when the scan reaches it (earlier swaps touch only
 * positions before i), so testing it there is testing the segment as it was. */
static Py_ssize_t r8_front(R8 *p, Py_ssize_t s, Py_ssize_t v, Py_ssize_t fp, Py_ssize_t lp)
{
    Py_ssize_t k = fp;
    for (Py_ssize_t i = fp; i <= lp; i++)
        if (r8_passes(p, s, v, p->order[i])) {
            r8_to_front(p->order, p->weight, k, i);
            k++;
        }
    return k;
}

/* Cases.count: the number of cases while AllKnown, else their weights' float sum
 * in position order. */
static double r8_count(const R8 *p, Py_ssize_t fp, Py_ssize_t lp)
{
    if (p->all_known)
        return lp >= fp ? (double)(lp - fp + 1) : 0.0;
    float s = 0;
    for (Py_ssize_t i = fp; i <= lp; i++)
        s += p->weight[i];
    return s;
}

/* Cases.scale: the weights at fp..kp-1 multiplied (or divided) by factor in float. */
static void r8_scale(R8 *p, Py_ssize_t fp, Py_ssize_t kp, float factor, int divide)
{
    for (Py_ssize_t i = fp; i < kp; i++)
        p->weight[i] = divide ? p->weight[i] / factor : p->weight[i] * factor;
}

/* Cases.class_freq over fp..lp into acc (the classes present listed in touched,
 * in the order met); returns how many are present. */
static Py_ssize_t r8_class_freq(R8 *p, Py_ssize_t fp, Py_ssize_t lp)
{
    Py_ssize_t m = 0;
    p->now++;
    for (Py_ssize_t i = fp; i <= lp; i++) {
        const int64_t c = p->y[p->order[i]];
        if (p->stamp[c] != p->now) {
            p->stamp[c] = p->now;
            p->acc[c] = 0;
            p->touched[m++] = (int32_t)c;
        }
        p->acc[c] += p->weight[i];
    }
    return m;
}

/* A node's new dist: the classes present now, as a snapshot; its number or -1. */
static int64_t r8_snapshot(R8 *p, Py_ssize_t m)
{
    if (p->n_snap + 2 > p->snap_cap) {
        Py_ssize_t cap = 2 * p->snap_cap + 64;
        int64_t *st = realloc(p->s_start, (size_t)cap * sizeof(int64_t));
        if (st == NULL)
            return -1;
        p->s_start = st;
        p->snap_cap = cap;
    }
    if (p->s_len + m > p->s_cap || p->s_cls == NULL) {
        Py_ssize_t cap = 2 * p->s_cap + m + 256;
        int32_t *sc = realloc(p->s_cls, (size_t)cap * sizeof(int32_t));
        if (sc == NULL)
            return -1;
        p->s_cls = sc;
        float *sw = realloc(p->s_w, (size_t)cap * sizeof(float));
        if (sw == NULL)
            return -1;
        p->s_w = sw;
        p->s_cap = cap;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        p->s_cls[p->s_len + j] = p->touched[j];
        p->s_w[p->s_len + j] = p->acc[p->touched[j]];
    }
    p->s_start[p->n_snap] = p->s_len;
    p->s_len += m;
    p->s_start[p->n_snap + 1] = p->s_len;
    return p->n_snap++;
}

/* _estimate(node t, fp, lp, update): t's estimated errors.  Recursion depth is the
 * tree's depth (the caller bounds it). */
static double r8_estimate(R8 *p, Py_ssize_t t, Py_ssize_t fp, Py_ssize_t lp, int update)
{
    const double n = r8_count(p, fp, lp);
    const Py_ssize_t m = r8_class_freq(p, fp, lp);
    /* The node's class unless a class is heavier: then the first of the largest
     * (numpy's argmax over every class; the absent ones weigh 0, no more than any). */
    Py_ssize_t best = (Py_ssize_t)p->cls[t];
    float top = 0, at_best = p->stamp[best] == p->now ? p->acc[best] : 0.0f;
    for (Py_ssize_t j = 0; j < m; j++)
        if (p->acc[p->touched[j]] > top)
            top = p->acc[p->touched[j]];
    if (at_best != top) {
        best = -1;
        for (Py_ssize_t j = 0; j < m; j++) {
            const int32_t c = p->touched[j];
            if (p->acc[c] == top && (best < 0 || c < best))
                best = c;
        }
        at_best = top;
    }
    const float leaf_errors = (float)n - at_best;
    const float leaf_est = leaf_errors + (float)add_errs(&p->bd, n, leaf_errors);
    if (update) {
        const int64_t k = r8_snapshot(p, m);
        if (k < 0) {
            p->failed = 1;
            return 0.0;
        }
        p->items[t] = n;
        p->cls[t] = best;
        p->snap[t] = k;
    }
    if (p->kind[t] == LEAF) {
        if (update)
            p->errors[t] = leaf_est;
        return leaf_est;
    }
    const Py_ssize_t s = (Py_ssize_t)p->src[t];
    const Py_ssize_t F = (Py_ssize_t)p->n_children[s];
    const int64_t *kids = p->child_idx + p->child_start[s];
    const Py_ssize_t kp = r8_front(p, s, -1, fp, lp);
    const float known_cases = (float)r8_count(p, kp, lp);
    const int was_known = p->all_known;
    if (kp != fp)
        p->all_known = 0;
    float tree_errors = 0, max_factor = 0;
    Py_ssize_t largest = -1;
    for (Py_ssize_t v = 0; v < F && !p->failed; v++) {
        const Py_ssize_t ep = r8_front(p, s, v, kp, lp) - 1;
        if (kp > ep)
            continue;
        const float factor = (float)r8_count(p, kp, ep) / known_cases;
        if (factor >= max_factor) {
            largest = v;
            max_factor = factor;
        }
        r8_scale(p, fp, kp, factor, 0);
        const double sub = r8_estimate(p, (Py_ssize_t)kids[v], fp, ep, update);
        tree_errors = tree_errors + (float)sub;
        r8_front(p, s, -1, fp, ep);
        r8_scale(p, fp, kp, factor, 1);
    }
    p->all_known = was_known;
    if (!update || p->failed)
        return tree_errors;
    /* Python's children[largest], -1 being the last. */
    const Py_ssize_t b = (Py_ssize_t)kids[largest < 0 ? F - 1 : largest];
    const double branch_errors = r8_estimate(p, b, fp, lp, 0);
    if (leaf_est <= branch_errors + R8_MARGIN && leaf_est <= (double)tree_errors + R8_MARGIN) {
        p->kind[t] = LEAF;
        p->errors[t] = leaf_est;
    } else if (branch_errors <= (double)tree_errors + R8_MARGIN) {
        r8_estimate(p, b, fp, lp, 1);
        p->kind[t] = p->kind[b];
        p->src[t] = p->src[b];
        p->cls[t] = p->cls[b];
        p->items[t] = p->items[b];
        p->errors[t] = p->errors[b];
        p->snap[t] = p->snap[b];
    } else {
        p->errors[t] = tree_errors;
    }
    p->all_known = was_known;
    return p->errors[t];
}

int tg_r8_walk(R8 *p, Py_ssize_t n_rows)
{
    if (n_rows > 0)
        r8_estimate(p, 0, 0, n_rows - 1, 1);
    if (p->failed || r8_snapshot(p, 0) < 0)
        return -1;
    return 0;
}
