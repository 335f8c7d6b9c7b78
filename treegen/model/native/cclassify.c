/* The model's C accelerator (module treegen.model.native._cclassify): classify.c
 * classifies rows for treegen.model.classify.predict, the same classes as its numpy
 * code; wekaprobs.c computes J48's class distributions for
 * treegen.committee.weka.distribution, the same bits as its numpy code; libm.c
 * applies the C library's exp to an array for treegen.ensemble.libm.  The
 * node-kind codes come from treegen/model/constants.py (setup.py passes them as
 * TG_KIND_* macros). */
#include "native.h"

#if !defined(TG_KIND_LEAF) || !defined(TG_KIND_CONTINUOUS) || !defined(TG_KIND_NOMINAL) ||   \
    !defined(TG_KIND_SUBSET) || !defined(TG_J48_TOL)
#error "model macros missing: build through setup.py (they come from treegen/model/constants.py)"
#endif

PyObject *tg_classify(PyObject *self, PyObject *args);         /* classify.c */
PyObject *tg_j48_distribution(PyObject *self, PyObject *args); /* wekaprobs.c */
PyObject *tg_libm_exp(PyObject *self, PyObject *args);         /* libm.c */

static PyMethodDef methods[] = {
    {"classify", tg_classify, METH_VARARGS, "A model's class for every row (model/classify.py)."},
    {"j48_distribution", tg_j48_distribution, METH_VARARGS,
     "J48's class distribution of every row (committee/weka.py)."},
    {"libm_exp", tg_libm_exp, METH_VARARGS,
     "The C library's expf (float32) or exp (float64) of every item, in place."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cclassify", "treegen's C accelerator for classification.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cclassify(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* The values this build was compiled with (tests compare them with constants.py,
     * which catches a stale build). */
    PyObject *d = Py_BuildValue("{s:i,s:i,s:i,s:i,s:d}", "KIND_LEAF", TG_KIND_LEAF,
                                "KIND_CONTINUOUS", TG_KIND_CONTINUOUS, "KIND_NOMINAL",
                                TG_KIND_NOMINAL, "KIND_SUBSET", TG_KIND_SUBSET, "J48_TOL",
                                TG_J48_TOL);
    if (d == NULL || PyModule_AddObjectRef(m, "TG_CONSTANTS", d) < 0)
        Py_CLEAR(m);
    Py_XDECREF(d);
    return m;
}
