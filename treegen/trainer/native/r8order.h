/* Release 8's case order, one home for order.c (r8_sort and r8_front, called from
 * Python: trainer/release8/order.py) and r8prep.c (a node's continuous attribute
 * prepared in one call): the quicksort of a segment by a continuous value and the
 * swap that moves a case to the front.  order.py's _sort_python is the reference
 * (tests/trainer/test_release8_order.py and test_release8_segments.py hold them equal). */
#ifndef TREEGEN_R8ORDER_H
#define TREEGEN_R8ORDER_H

#include "common.h"

/* Swap cases a and b: their values v, their rows p and, where w is not NULL, their
 * weights. */
static inline void r8_swap(float *v, Py_ssize_t *p, float *w, Py_ssize_t a, Py_ssize_t b)
{
    const float tv = v[a];
    const Py_ssize_t tp = p[a];
    v[a] = v[b];
    p[a] = p[b];
    v[b] = tv;
    p[b] = tp;
    if (w != NULL) {
        const float tw = w[a];
        w[a] = w[b];
        w[b] = tw;
    }
}

/* Release 8's quicksort of v[0 .. n - 1], each swap made on p (and w) too.  The pivot
 * is the segment's last value; a Lomuto pass moves the values not above it to the
 * front, a pass from the end gathers those equal to it just below its place, and the
 * two sides are sorted the same way.  The sides wait on an explicit stack of 2n + 2
 * entries (a sorted segment would recurse as deep as it is long; each side holds
 * fewer cases than its segment, so at most n pairs wait). */
static inline void r8_quicksort(float *v, Py_ssize_t *p, float *w, Py_ssize_t n, Py_ssize_t *stack)
{
    Py_ssize_t top = 0;
    if (n > 1) {
        stack[top++] = 0;
        stack[top++] = n - 1;
    }
    while (top > 0) {
        const Py_ssize_t lp = stack[--top], fp = stack[--top];
        if (fp >= lp)
            continue;
        const float pivot = v[lp];
        Py_ssize_t middle = fp;
        for (Py_ssize_t i = fp; i < lp; i++)
            if (v[i] <= pivot) {
                if (i != middle)
                    r8_swap(v, p, w, middle, i);
                middle++;
            }
        Py_ssize_t lower = middle - 1;
        for (Py_ssize_t i = lower; i >= fp; i--)
            if (v[i] == pivot) {
                if (i != lower)
                    r8_swap(v, p, w, lower, i);
                lower--;
            }
        r8_swap(v, p, w, middle, lp);
        stack[top++] = middle + 1;
        stack[top++] = lp;
        stack[top++] = fp;
        stack[top++] = lower;
    }
}

/* Release 8's move of a passing case to the front: case i of the segment (its row in
 * order, its weight) swapped with case k, the first not yet moved. */
static inline void r8_to_front(Py_ssize_t *order, float *weight, Py_ssize_t k, Py_ssize_t i)
{
    const Py_ssize_t to = order[k];
    const float tw = weight[k];
    order[k] = order[i];
    weight[k] = weight[i];
    order[i] = to;
    weight[i] = tw;
}

#endif
