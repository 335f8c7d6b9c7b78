/* What the C tokenizer's parts share (ctok.c, the value table ctokdict.h, the
 * numbers ctoknum.h, the rows ctokrow.h, all one translation unit): Python.h, the
 * float-evaluation guard, the formats, the column kinds and a cell. */
#ifndef TREEGEN_CTOK_H
#define TREEGEN_CTOK_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "double arithmetic must be evaluated in double (FLT_EVAL_METHOD == 0)"
#endif

enum { FMT_CSV = 0, FMT_ARFF = 1, FMT_C45 = 2 };

/* Column kinds, as treegen/data/readers/fast.py passes them. */
enum {
    K_IGNORE = 0,     /* tokenized; NaN into X[:, out] when out >= 0 */
    K_CONT = 1,       /* a number */
    K_NOM = 2,        /* declared values; an unknown one is an error */
    K_NOM_UNK = 3,    /* declared values; an unknown one is missing */
    K_OPEN = 4,       /* values in first-seen order, at most `limit` (0: any) */
    K_INFER = 5,      /* CSV: numbers until a cell is not one, then K_OPEN */
    K_CLASS = 6,      /* the class, declared; missing is an error */
    K_CLASS_MISS = 7, /* the class, declared; missing is -1 */
    K_CLASS_OPEN = 8, /* the class, first-seen; missing is an error */
    K_WEIGHT = 9,     /* CSV --weights: the row's weight, a number at least 0 */
};

typedef struct {
    const char *p;
    Py_ssize_t n;
    int quoted;
} cell_t;

#endif
