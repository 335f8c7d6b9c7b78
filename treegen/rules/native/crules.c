/* c4.5rules' C accelerator (module treegen.rules.native._crules): rulegen.c
 * generalises one rule (treegen.rules.paths), rulecost.c runs the descents over a
 * class's rule subsets (treegen.rules.subsets).  Both compute what the numpy code
 * computes; the pessimistic bound AddErrs is the trainer's (bound.h), so the
 * trainer's TG_* macros are passed here too. */
#include "common.h"

PyObject *tg_rule_generalise(PyObject *self, PyObject *args); /* rulegen.c */
PyObject *tg_rule_descend(PyObject *self, PyObject *args);    /* rulecost.c */

static PyMethodDef methods[] = {
    {"rule_generalise", tg_rule_generalise, METH_VARARGS,
     "rule_generalise(fails, missed, wrong, alive, log_cf, coeff[, cover]): c4.5rules' "
     "generalisation of one rule, and with cover the rows it covers (see rulegen.c)."},
    {"rule_descend", tg_rule_descend, METH_VARARGS, "A descent over one class's rule subsets."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_crules", "treegen's C accelerator for c4.5rules.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__crules(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && tg_add_constants(m) < 0)
        Py_CLEAR(m);
    return m;
}
