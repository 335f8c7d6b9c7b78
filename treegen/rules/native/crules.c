/* c4.5rules' hot loops in C (module _crules): the generalisation of one leaf's path
 * over packed bitsets (rpaths.c), the walk over every path (rwalk.c) and the
 * class-subset search (rsearch.c, its steps; rclimb.c, its climb; rtheory.h and
 * rtheory.c, its theory bits' sum; rcases.c, its cases' numbering; rlists.c
 * and rpack.c, the rules' case lists unpacked and packed; rkeys.c, the walk's rule
 * keys; rorder.c, the cases' walk down the tree for their order).  This file is the module's
 * table; crules.h says what every kernel promises. */
#include "crules.h"

static PyMethodDef methods[] = {
    {"prune_path", tg_prune_path, METH_VARARGS,
     "prune_path(sat, wrong, k, n, log_cf, coeff, default_error, alive, levels): "
     "paths._prune over packed bitsets."},
    {"fold_levels", tg_fold_levels, METH_VARARGS,
     "fold_levels(levels, rows, d, n, sat): row d set, the failure counts with it."},
    {"subsets_toggle", tg_subsets_toggle, METH_VARARGS,
     "subsets_toggle(state, r): ClassSearch.toggle, keeping the subset's counts."},
    {"subsets_set", tg_subsets_set, METH_VARARGS,
     "subsets_set(state, chosen): ClassSearch.set_subset in one call."},
    {"subsets_prep", tg_subsets_prep, METH_VARARGS,
     "subsets_prep(state, logs_in): the values whose logs every rule's change of cost needs."},
    {"subsets_finish", tg_subsets_finish, METH_VARARGS,
     "subsets_finish(state, log2s, log2_items, theory, base, item_in, item_out, bits32, "
     "gain): ClassSearch.values into gain; the index of the first largest change."},
    {"subsets_climb", tg_subsets_climb, METH_VARARGS,
     "subsets_climb(state, bits32, fact, item, log2_items, logs_in, logs_out, take_logs, "
     "best_cost, best) -> best_cost: ClassSearch.climb from the current subset."},
    {"check_memo", tg_check_memo, METH_VARARGS,
     "check_memo(on): the climb costs the groups its memo holds too, and checks the memo's "
     "bits against them (tests)."},
    {"theory_sums", tg_theory_sums, METH_VARARGS,
     "theory_sums(bits32, chosen, toggles, out): the climb's sums of the chosen rules' "
     "bits, at the start and after each toggle."},
    {"number_cases", tg_number_cases, METH_VARARGS,
     "number_cases(rule_ptr, rule_cases, positive, order, positive_out): the search's "
     "cases numbered in the order the rules first reach them."},
    {"and_rows", tg_and_rows, METH_VARARGS,
     "and_rows(sat, kept, n, out[, levels, removed[, order]]) -> count: the cases "
     "satisfying every kept condition (with order: their rows, not sorted)."},
    {"pack_le", tg_pack_le, METH_VARARGS,
     "pack_le(col, t, out, n): the cases whose float32 value is at most t, packed."},
    {"walk_new", tg_walk_new, METH_VARARGS,
     "walk_new(kind, attr, thr, kid_at, kids, ok, cls, ekey, sub_tab, sub_at, sub_n, eq, "
     "eq_at, cols, col_at, known, wrong, wrong_at, default_err, places, edges, n, depth, "
     "cap, log_cf, coeff) -> walk: the tree's paths, walked by walk_next."},
    {"walk_next", tg_walk_next, METH_VARARGS,
     "walk_next(walk) -> None or (leaf, k, count, error, leaves): the next leaf "
     "whose path gives a new rule."},
    {"walk_errors", tg_walk_errors, METH_VARARGS,
     "walk_errors(walk) -> bytes: each rule's error rate (float64), the highest of its leaves."},
    {"walk_memo", tg_walk_memo, METH_VARARGS,
     "walk_memo(walk) -> (hits, clears): the leaves stopped at an earlier leaf's state."},
    {"walk_rows", tg_walk_rows, METH_VARARGS,
     "walk_rows(walk, out[, order]) -> count: the last rule's cases."},
    {"walk_many", tg_walk_many, METH_VARARGS,
     "walk_many(walk, order, rows, marks, block, fill, most, pack_min, made, condition, info, "
     "errors) -> (rules, fill, leaves, pending, conds): walk_next's next rules, their "
     "conditions, and their cases packed into block, in one call."},
    {"sort_kept", tg_sort_kept, METH_VARARGS,
     "sort_kept(orders, alive, k, out) -> count: the kept conditions in Release 8's order."},
    {"case_lists", tg_case_lists, METH_VARARGS,
     "case_lists(rule_ptr, rule_cases, positive, case_ptr, case_rules, right): each "
     "case's rules (a counting sort) and each rule's cases of the class."},
    {"unpack_lists", tg_unpack_lists, METH_VARARGS,
     "unpack_lists(blocks, block, at, size, kind, which, ptr, rows): CaseLists' packed "
     "lists which[k] unpacked into rows[ptr[k]:ptr[k + 1]] (which[k] < 0: none)."},
    {"pack_rows", tg_pack_rows, METH_VARARGS,
     "pack_rows(rows, count, marks, block, at, most, pack_min) -> (kind, items, written): "
     "a rule's cases sorted and packed as caselists.pack packs them, into block at at."},
    {"leaf_step", tg_leaf_step, METH_VARARGS,
     "leaf_step(x, rows, at, end, count, kind, cut, kid_at, kids, table_at, n_values, "
     "value_branch) -> count: one level of roworder.leaf_order's walk down the tree."},
    {"order_by_node", tg_order_by_node, METH_VARARGS,
     "order_by_node(end, m, out): np.argsort(end, kind='stable') into out, by counting."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_crules", "treegen's C accelerator for c4.5rules.", -1, methods,
    NULL, NULL, NULL, NULL,
};

/* TG_CONSTANTS with c4.5rules' own numbers added (tests/trainer/test_trainer_constants.py
 * compares them with constants.py: a stale build is caught). */
static int add_rules_constants(PyObject *m)
{
    if (tg_add_constants(m) < 0)
        return -1;
    PyObject *d = PyObject_GetAttrString(m, "TG_CONSTANTS");
    if (d == NULL)
        return -1;
    PyObject *own = Py_BuildValue("{s:d,s:d,s:d,s:i}", "CERTAIN", TG_CERTAIN, "IMPOSSIBLE_BITS",
                                  TG_IMPOSSIBLE_BITS, "THEORY_WEIGHT", TG_THEORY_WEIGHT,
                                  "FAIL_LEVELS", TG_FAIL_LEVELS);
    const int rc = own == NULL ? -1 : PyDict_Update(d, own);
    Py_XDECREF(own);
    Py_DECREF(d);
    return rc;
}

PyMODINIT_FUNC PyInit__crules(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && add_rules_constants(m) < 0)
        Py_CLEAR(m);
    return m;
}
