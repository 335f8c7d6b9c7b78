/* treegen's C accelerator for pruning (placeholder: filled in by the pruning work). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyMethodDef methods[] = {
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cprune", "treegen's C accelerator for pruning.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cprune(void)
{
    return PyModule_Create(&module);
}
