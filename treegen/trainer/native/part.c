/* Partitioning a batch of split nodes: the children's case lists
 * (emit_children) and their sorted arrays (part_sorted).  levelwise/partition.py
 * drives them. */
#include "cscan.h"

/* part_sorted(srt, task_srt_start, task_lens, task_off, task_row, dest, child_of, F,
 *             grows, u_slot, pos_unk, Kc, out_start, out_lens, child_n) -> bytearray
 *
 * The children's sorted arrays after a batch of splits (levelwise/partition.py's
 * _sorted_by_attribute computes the same).  Split task s keeps, per
 * continuous attribute k, its cases with a known value in value order:
 * task_lens[s * Kc + k] positions (into the task's cases) stored one
 * attribute after another from srt[task_srt_start[s]]; its cases are entries
 * task_off[s]... of the bucket and its branches row task_row[s] of child_of
 * (F columns: child id, or -1 for an empty branch).  Entry e with a known
 * outcome has dest[e] = child << 32 | its position in that child; one with
 * the tested value unknown has dest[e] = -1 and goes to every non-empty
 * branch v, as case pos_unk[u_slot[e] * F + v].  Only children with grows[c]
 * get arrays; child c has child_n[c] cases.  Walking each sorted array in order
 * keeps every child's arrays in value order.  Returns them as int32 in one buffer,
 * child after child and attribute after attribute; out_lens[c * Kc + k] gets the
 * lengths and out_start[c] the offsets (in items; out_start has n_child + 1
 * entries).  (One packed dest per entry: a single scattered read where a branch and
 * a position would be two.)
 *
 * One pass over the sorted arrays: child c's array of attribute k holds at most
 * min(child_n[c], task_lens[s * Kc + k]) positions, so each is written into a slot
 * of that size and the slots are then closed up (sequential moves), where a first
 * pass counted them with a second scattered read of dest per position. */
PyObject *tg_part_sorted(PyObject *self, PyObject *args)
{
    enum { NB = 13 };
    PyObject *o[NB];
    Py_ssize_t F, Kc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOnOOOnOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &F, &o[7], &o[8], &o[9], &Kc, &o[10], &o[11], &o[12]))
        return NULL;
    if (F < 1 || Kc < 1) {
        PyErr_SetString(PyExc_ValueError, "F and Kc must be positive");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    Py_ssize_t S = 0, E = 0, NS = 0, NC = 0, NU = 0, NR = 0;
    PyObject *result = NULL;
    Py_ssize_t *ptr = NULL;
    /* Sizes come from these buffers; the others are checked against them. */
    if ((S = tg_items(o[1], sizeof(Py_ssize_t))) < 0 ||
        (E = tg_items(o[5], sizeof(int64_t))) < 0 ||
        (NS = tg_items(o[0], sizeof(int32_t))) < 0 ||
        (NC = tg_items(o[7], 1)) < 0 ||
        (NU = tg_items(o[9], sizeof(Py_ssize_t))) < 0 ||
        (NR = tg_items(o[6], sizeof(Py_ssize_t))) < 0)
        return NULL;
    NR /= F;
    const tg_spec spec[NB] = {
        {0, sizeof(int32_t), NS, "srt"},
        {0, sizeof(Py_ssize_t), S, "task_srt_start"},
        {0, sizeof(Py_ssize_t), S * Kc, "task_lens"},
        {0, sizeof(Py_ssize_t), S, "task_off"},
        {0, sizeof(Py_ssize_t), S, "task_row"},
        {0, sizeof(int64_t), E, "dest"},
        {0, sizeof(Py_ssize_t), NR * F, "child_of"},
        {0, 1, NC, "grows"},
        {0, sizeof(Py_ssize_t), E, "u_slot"},
        {0, sizeof(Py_ssize_t), NU, "pos_unk"},
        {1, sizeof(Py_ssize_t), NC + 1, "out_start"},
        {1, sizeof(Py_ssize_t), NC * Kc, "out_lens"},
        {0, sizeof(Py_ssize_t), NC, "child_n"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const int32_t *srt = b[0].buf;
        const Py_ssize_t *s_start = b[1].buf, *t_lens = b[2].buf, *t_off = b[3].buf;
        const Py_ssize_t *t_row = b[4].buf, *child_of = b[6].buf;
        const int64_t *dest = b[5].buf;
        const unsigned char *grows = b[7].buf;
        const Py_ssize_t *u_slot = b[8].buf, *pos_unk = b[9].buf;
        Py_ssize_t *o_start = b[10].buf, *o_lens = b[11].buf;
        const Py_ssize_t *child_n = b[12].buf;
        /* Each growing child's slots (o_lens holds their sizes until the end), child
         * after child and attribute after attribute; a child not of a split task, or
         * not growing, has none. */
        memset(o_lens, 0, (size_t)(NC * Kc) * sizeof(Py_ssize_t));
        for (Py_ssize_t s = 0; s < S; s++) {
            const Py_ssize_t row = t_row[s];
            if (row < 0 || row >= NR) goto bad;
            const Py_ssize_t *cof = child_of + row * F;
            for (Py_ssize_t v = 0; v < F; v++) {
                const Py_ssize_t c = cof[v];
                if (c >= NC) goto bad;
                if (c < 0 || !grows[c]) continue;
                for (Py_ssize_t k = 0; k < Kc; k++) {
                    const Py_ssize_t L = t_lens[s * Kc + k];
                    o_lens[c * Kc + k] = child_n[c] < L ? child_n[c] : L;
                }
            }
        }
        /* slot[j]: where slot j starts (NC * Kc + 1 of them); ptr[j]: its next free item */
        ptr = PyMem_Malloc((size_t)(2 * NC * Kc + 1) * sizeof(Py_ssize_t));
        if (ptr == NULL) { PyErr_NoMemory(); goto done; }
        Py_ssize_t *slot = ptr + NC * Kc;
        Py_ssize_t room = 0;
        for (Py_ssize_t j = 0; j < NC * Kc; j++) {
            if (o_lens[j] < 0) goto bad;
            slot[j] = ptr[j] = room;
            room += o_lens[j];
        }
        slot[NC * Kc] = room;
        result = PyByteArray_FromStringAndSize(NULL, room * (Py_ssize_t)sizeof(int32_t));
        if (result == NULL) goto done;
        int32_t *out = (int32_t *)PyByteArray_AS_STRING(result);
        /* The pass: every position to its child's slot (each write checked against
         * the slot's end: a bound that did not hold would be an index error). */
        for (Py_ssize_t s = 0; s < S; s++) {
            const Py_ssize_t *cof = child_of + t_row[s] * F;
            Py_ssize_t at = s_start[s];
            for (Py_ssize_t k = 0; k < Kc; k++) {
                const Py_ssize_t L = t_lens[s * Kc + k];
                if (at < 0 || L < 0 || at + L > NS) goto bad;
                for (Py_ssize_t i = 0; i < L; i++) {
                    const Py_ssize_t e = t_off[s] + srt[at + i];
                    if (i + AHEAD < L) {
                        const Py_ssize_t ea = t_off[s] + srt[at + i + AHEAD];
                        if (ea >= 0 && ea < E)
                            PREFETCH(dest + ea);
                    }
                    if (e < 0 || e >= E) goto bad;
                    const int64_t d = dest[e];
                    if (d >= 0) {
                        const int64_t c = d >> 32;
                        if (c >= NC) goto bad;
                        if (grows[c]) {
                            const Py_ssize_t j = (Py_ssize_t)c * Kc + k;
                            if (ptr[j] >= slot[j + 1]) goto bad;
                            out[ptr[j]++] = (int32_t)(d & 0xFFFFFFFF);
                        }
                    } else {
                        if (d != -1 || u_slot[e] < 0 || (u_slot[e] + 1) * F > NU) goto bad;
                        const Py_ssize_t *pu = pos_unk + u_slot[e] * F;
                        for (Py_ssize_t v = 0; v < F; v++) {
                            const Py_ssize_t c = cof[v];
                            if (c >= 0 && grows[c]) {
                                const Py_ssize_t j = c * Kc + k;
                                if (ptr[j] >= slot[j + 1]) goto bad;
                                out[ptr[j]++] = (int32_t)pu[v];
                            }
                        }
                    }
                }
                at += L;
            }
        }
        /* The slots closed up, in order (an item only moves down). */
        Py_ssize_t total = 0;
        for (Py_ssize_t c = 0; c < NC; c++) {
            o_start[c] = total;
            for (Py_ssize_t k = 0; k < Kc; k++) {
                const Py_ssize_t j = c * Kc + k, len = ptr[j] - slot[j];
                if (len && slot[j] != total)
                    memmove(out + total, out + slot[j], (size_t)len * sizeof(int32_t));
                o_lens[j] = len;
                total += len;
            }
        }
        o_start[NC] = total;
        if (total < room && PyByteArray_Resize(result, total * (Py_ssize_t)sizeof(int32_t)) < 0)
            goto done_err;
    }
    goto done;
done_err:
    Py_CLEAR(result);
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "part_sorted: index out of range");
    Py_CLEAR(result);
done:
    PyMem_Free(ptr);
    tg_release(b, got);
    return result;
}

/* emit_children(tid, br, w, child_of, F, u_slot, cw, wsize, out_start, out_ent,
 *               out_w, pos_known, pos_unk)
 *
 * The children's case lists after a batch of splits (levelwise/partition.py's numpy
 * code: a stable sort of (child, entry) pairs computes the same).  Entry e
 * of the bucket belongs to task tid[e]; br[e] is its branch (-1 unknown,
 * -2 for a task that does not split).  A known entry goes to child
 * child_of[tid * F + br] with its weight w[e]; an unknown one to the child of
 * every non-empty branch v (child_of >= 0) with weight cw[u_slot[e] * F + v].
 * Within a child, entries keep their order.  Weights are copied as they are
 * (wsize bytes: float32 or double).  Writes each child's start (n_child + 1
 * entries), the entries and weights, and the position of each case inside its
 * child: pos_known[e] for a known entry, pos_unk[u_slot[e] * F + v] for the
 * copy of an unknown one in branch v.
 *
 * With the optional (rows, y, C, out_rows, out_cases, out_freq): each listed
 * case's row rows[e] goes to out_rows (beside out_ent), and every child's weight
 * (out_cases) and class weights (out_freq[c * C + y[e]]) are summed in its list's
 * order, in the weights' type: partition.py's _child_stats sums the lists so
 * (np.add.at in float32, bincount in double). */
#define CHILD_SUMS(REAL)                                                                    \
    do {                                                                                    \
        const REAL *lw = (const REAL *)ow;                                                  \
        REAL *cases = b[14].buf, *freq = b[15].buf;                                         \
        for (Py_ssize_t c = 0; c < NC; c++) {                                               \
            REAL s = 0;                                                                     \
            REAL *fc = freq + c * C;                                                        \
            for (Py_ssize_t k = 0; k < C; k++)                                              \
                fc[k] = 0;                                                                  \
            for (Py_ssize_t i = start[c]; i < start[c + 1]; i++) {                          \
                s += lw[i];                                                                 \
                fc[y[ent[i]]] += lw[i];                                                     \
            }                                                                               \
            cases[c] = s;                                                                   \
        }                                                                                   \
    } while (0)

PyObject *tg_emit_children(PyObject *self, PyObject *args)
{
    enum { NB = 16 };
    PyObject *o[NB] = {NULL};
    Py_ssize_t F, wsize, C = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOnOOnOOOOO|OOnOOO", &o[0], &o[1], &o[2], &o[3], &F, &o[4],
                          &o[5], &wsize, &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &C,
                          &o[13], &o[14], &o[15]))
        return NULL;
    const int nb = o[15] != NULL ? NB : 11; /* with the stats' buffers or without */
    if (F < 1 || (wsize != 4 && wsize != 8) || (nb == NB && (C < 1 || C > (1 << 24)))) {
        PyErr_SetString(PyExc_ValueError, "emit_children: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t *fill = NULL;
    Py_ssize_t E = 0, NR = 0, NU = 0, NC = 0, T = 0;
    /* Sizes come from these buffers; the others are checked against them. */
    if ((E = tg_items(o[0], sizeof(Py_ssize_t))) < 0 ||
        (NR = tg_items(o[3], sizeof(Py_ssize_t))) < 0 ||
        (NU = tg_items(o[5], wsize)) < 0 ||
        (NC = tg_items(o[6], sizeof(Py_ssize_t))) < 0 ||
        (T = tg_items(o[7], sizeof(Py_ssize_t))) < 0)
        return NULL;
    NC -= 1; /* out_start has n_child + 1 entries */
    if (NC < 0) {
        PyErr_SetString(PyExc_ValueError, "emit_children: out_start is empty");
        return NULL;
    }
    const tg_spec spec[NB] = {
        {0, sizeof(Py_ssize_t), E, "tid"},
        {0, sizeof(Py_ssize_t), E, "br"},
        {0, wsize, E, "w"},
        {0, sizeof(Py_ssize_t), NR, "child_of"},
        {0, sizeof(Py_ssize_t), E, "u_slot"},
        {0, wsize, NU, "cw"},
        {1, sizeof(Py_ssize_t), NC + 1, "out_start"},
        {1, sizeof(Py_ssize_t), T, "out_ent"},
        {1, wsize, T, "out_w"},
        {1, sizeof(Py_ssize_t), E, "pos_known"},
        {1, sizeof(Py_ssize_t), NU, "pos_unk"},
        {0, sizeof(Py_ssize_t), E, "rows"},
        {0, sizeof(Py_ssize_t), E, "y"},
        {1, sizeof(Py_ssize_t), T, "out_rows"},
        {1, wsize, NC, "out_cases"},
        {1, wsize, NC * C, "out_freq"},
    };
    if ((got = tg_views(o, b, spec, nb)) < nb)
        goto done;
    {
        const Py_ssize_t *tid = b[0].buf, *br = b[1].buf, *child_of = b[3].buf;
        const Py_ssize_t *u_slot = b[4].buf;
        const char *w = b[2].buf, *cw = b[5].buf;
        Py_ssize_t *start = b[6].buf, *ent = b[7].buf, *pos_known = b[9].buf;
        Py_ssize_t *pos_unk = b[10].buf;
        char *ow = b[8].buf;
        fill = PyMem_Calloc((size_t)NC + 1, sizeof(Py_ssize_t));
        if (fill == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        /* Pass 1: count per child (and check every index once). */
        for (Py_ssize_t e = 0; e < E; e++) {
            const Py_ssize_t v = br[e];
            if (v == -2)
                continue;
            const Py_ssize_t t = tid[e];
            if (v < -2 || v >= F || t < 0 || (t + 1) * F > NR)
                goto bad;
            if (v >= 0) {
                const Py_ssize_t c = child_of[t * F + v];
                if (c < 0 || c >= NC)
                    goto bad;
                fill[c]++;
            } else {
                if (u_slot[e] < 0 || (u_slot[e] + 1) * F > NU)
                    goto bad;
                for (Py_ssize_t k = 0; k < F; k++) {
                    const Py_ssize_t c = child_of[t * F + k];
                    if (c >= NC)
                        goto bad;
                    if (c >= 0)
                        fill[c]++;
                }
            }
        }
        Py_ssize_t total = 0;
        for (Py_ssize_t c = 0; c < NC; c++) {
            start[c] = total;
            total += fill[c];
            fill[c] = start[c];
        }
        start[NC] = total;
        if (total > T)
            goto bad;
        if (nb == NB) {
            const Py_ssize_t *y = b[12].buf;
            for (Py_ssize_t e = 0; e < E; e++)
                if (br[e] != -2 && (y[e] < 0 || y[e] >= C))
                    goto bad;
        }
        /* Pass 2: place, entries in order. */
        for (Py_ssize_t e = 0; e < E; e++) {
            const Py_ssize_t v = br[e], t = tid[e];
            pos_known[e] = -1;
            if (v == -2)
                continue;
            if (v >= 0) {
                const Py_ssize_t c = child_of[t * F + v];
                const Py_ssize_t at = fill[c]++;
                ent[at] = e;
                memcpy(ow + at * wsize, w + e * wsize, (size_t)wsize);
                pos_known[e] = at - start[c];
            } else {
                const Py_ssize_t u = u_slot[e] * F;
                for (Py_ssize_t k = 0; k < F; k++) {
                    const Py_ssize_t c = child_of[t * F + k];
                    if (c < 0)
                        continue;
                    const Py_ssize_t at = fill[c]++;
                    ent[at] = e;
                    memcpy(ow + at * wsize, cw + (u + k) * wsize, (size_t)wsize);
                    pos_unk[u + k] = at - start[c];
                }
            }
        }
        if (nb == NB) {
            /* The rows and the sums, child after child in list order. */
            const Py_ssize_t *rows = b[11].buf, *y = b[12].buf;
            Py_ssize_t *orows = b[13].buf;
            for (Py_ssize_t i = 0; i < total; i++)
                orows[i] = rows[ent[i]];
            if (wsize == 4)
                CHILD_SUMS(float);
            else
                CHILD_SUMS(double);
        }
    }
    result = Py_NewRef(Py_None);
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "emit_children: index out of range");
done:
    PyMem_Free(fill);
    tg_release(b, got);
    return result;
}
#undef CHILD_SUMS
