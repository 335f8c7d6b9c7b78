/* treegen's C accelerator for growth (module treegen.trainer._cscan): the
 * loops that numpy can only do with large temporaries or one call per node.
 * The kernels are in scan.c, scanj48.c, nominal.c, part.c, route.c and counts.c; see
 * cscan.h.  The buffer helpers are model/native/buffers.c, compiled in.
 * order.c sorts cases in Release 8's order for treegen.trainer.release8, and in
 * J48's for treegen.trainer.j48order;
 * sparse.c scores continuous attributes over the classes present (many classes),
 * r8prep.c and r8score.c those of one node in Release 8's case order in a few calls, r8node.c
 * that order's class sums and grouping by a continuous test;
 * cuts.c places thresholds through the presorted rows, or in one scan of a column;
 * presort.c sorts a float32 column's known rows by value (Context.presort). */
#include "cscan.h"

static PyMethodDef methods[] = {
    {"part_sorted", tg_part_sorted, METH_VARARGS, "Children's sorted arrays after a batch of splits."},
    {"add_at", tg_add_at, METH_VARARGS, "np.add.at for float32, sequential."},
    {"emit_children", tg_emit_children, METH_VARARGS, "Children's case lists after splits."},
    {"route_branches", tg_route_branches, METH_VARARGS, "Each entry's branch at its task's test."},
    {"branch_sums", tg_branch_sums, METH_VARARGS, "Known and unknown weight per task and branch."},
    {"part_dest", tg_part_dest, METH_VARARGS, "Each entry's child and position for part_sorted."},
    {"scan_best", tg_scan_best, METH_VARARGS, "Each sorted continuous segment's best cut (c45)."},
    {"approx_terms", tg_approx_terms, METH_VARARGS, "v times scan_best's approximate log2 (tests)."},
    {"check_bounds", tg_check_bounds, METH_VARARGS, "scan_best checks every cut's bounds (tests)."},
    {"gather_values", tg_gather_values, METH_VARARGS, "Bucket values and unknown weights."},
    {"nominal_counts", tg_nominal_counts, METH_VARARGS, "Freq[v][c] of nominal attributes."},
    {"scan_cont_j48", tg_scan_cont_j48, METH_VARARGS, "Candidate cuts of sorted continuous segments (j48)."},
    {"nominal_prep", tg_nominal_prep, METH_VARARGS, "Nominal scores, step 1: log inputs."},
    {"nominal_finish", tg_nominal_finish, METH_VARARGS, "Nominal scores, step 2: gain, info."},
    {"nominal_prep_j48", tg_nominal_prep_j48, METH_VARARGS, "nominal_prep with J48's rules, in double."},
    {"nominal_finish_j48", tg_nominal_finish_j48, METH_VARARGS, "nominal_finish in double."},
    {"best_cuts_j48", tg_best_cuts_j48, METH_VARARGS, "Gains of scan_cont_j48's cuts and the best per segment."},
    {"r8_sort", tg_r8_sort, METH_VARARGS, "Release 8's quicksort of a segment, as a permutation."},
    {"r8_front", tg_r8_front, METH_VARARGS, "Release 8's swap of passing cases to the front."},
    {"weka_sort", tg_weka_sort, METH_VARARGS, "J48's quicksort of a node's cases, as a permutation."},
    {"sparse_scan", tg_sparse_scan, METH_VARARGS, "Candidate cuts over the classes present."},
    {"sparse_info", tg_sparse_info, METH_VARARGS, "TotalInfo of candidate cuts, non-zero terms."},
    {"sparse_pick", tg_sparse_pick, METH_VARARGS, "Gains of sparse_scan's cuts, the best per segment."},
    {"r8_cont_prep", tg_r8_cont_prep, METH_VARARGS, "A continuous attribute's segment set aside and sorted (Release 8)."},
    {"r8_cont_score", tg_r8_cont_score, METH_VARARGS, "Release 8's continuous scores of a node's segments."},
    {"r8_class_pairs", tg_r8_class_pairs, METH_VARARGS, "A segment's class sums as SparseDist pairs."},
    {"r8_cont_front", tg_r8_cont_front, METH_VARARGS, "A continuous branch's cases to the front (Release 8)."},
    {"r8_cont_sides", tg_r8_cont_sides, METH_VARARGS, "Cases on each side of a continuous test."},
    {"cuts_below", tg_cuts_below, METH_VARARGS, "Thresholds below midpoints, by the presorted rows."},
    {"cuts_by_scan", tg_cuts_by_scan, METH_VARARGS, "Largest values below midpoints, one scan."},
    {"stable_order", tg_stable_order, METH_VARARGS, "A float32 column's known rows by value."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cscan", "treegen's C accelerator for tree growth.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cscan(void)
{
    PyObject *m = PyModule_Create(&module);
    /* The scratch's bytes per case for float weights, the one size Python allocates
     * by (levelwise/score.py's scan_scratch). */
    if (m != NULL && (tg_add_constants(m) < 0 ||
                      PyModule_AddIntConstant(m, "SCAN_SCRATCH_FLOAT", (long)SCAN_SCRATCH(float)) < 0))
        Py_CLEAR(m);
    return m;
}
