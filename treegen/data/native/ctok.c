/* treegen's C tokenizer for data files (module treegen.data.native._ctok).
 *
 * One pass over the bytes of a data section (CSV rows after the header, ARFF
 * rows after @data, a C4.5 .data/.test file) that writes the float64 value
 * matrix and the int32 class vector directly: no Python object per row or
 * per cell.  The Python readers (treegen/data/readers/) stay the reference.
 *
 * Design: this code accepts only text whose meaning it is sure of, and it
 * never reports an error itself.  On anything else (a quote or escape it
 * does not handle, a sparse ARFF row, a C4.5 continuation line, a control
 * character, a cell that is not a number, an undeclared value, a row of the
 * wrong width, a value out of range, ...) it returns a short reason string
 * and the caller runs the Python reader on the whole file, which gives the
 * same Dataset or the exact one-line error.  So the errors have one
 * implementation, and the fast path can only be slower, never different.
 *
 * Numbers: the cell must match the readers' grammar
 *     [+-]? (digits [. digits*] | . digits) ([eE] [+-]? digits)?
 * and is converted with correct rounding (the same double as Python's
 * float()): exactly with one IEEE multiplication or division when the
 * mantissa has at most 19 digits, fits 2^53 and the exponent is within
 * 10^22 (Clinger's fast path), otherwise with strtod, which glibc, musl and
 * the BSDs round correctly; the caller checks that the locale's decimal
 * point is '.'. */
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
};

typedef struct {
    const char *p;
    Py_ssize_t n;
    int quoted;
} cell_t;

/* A string -> code table (open addressing, FNV-1a).  Keys point into bytes
 * objects held by `values` (declared: the caller's; first-seen: our own). */
typedef struct {
    PyObject *values; /* list of bytes, index = code */
    Py_ssize_t *slots; /* code + 1, 0 = empty */
    Py_ssize_t mask;
    Py_ssize_t count;
} dict_t;

typedef struct {
    int kind;
    int out;          /* X column, -1 = none */
    Py_ssize_t limit; /* K_OPEN: at most this many values, 0 = no limit */
    dict_t d;
    int has_dict;
} col_t;

static uint64_t hash_bytes(const char *p, Py_ssize_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static int dict_resize(dict_t *d, Py_ssize_t size)
{
    Py_ssize_t *slots = PyMem_Calloc((size_t)size, sizeof(Py_ssize_t));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t c = 0; c < d->count; c++) {
        PyObject *v = PyList_GET_ITEM(d->values, c);
        uint64_t h = hash_bytes(PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v));
        Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)(size - 1));
        while (slots[i])
            i = (i + 1) & (size - 1);
        slots[i] = c + 1;
    }
    PyMem_Free(d->slots);
    d->slots = slots;
    d->mask = size - 1;
    return 0;
}

/* Code of (p, n), or -1 when absent. */
static Py_ssize_t dict_find(const dict_t *d, const char *p, Py_ssize_t n, Py_ssize_t *slot)
{
    Py_ssize_t i = (Py_ssize_t)(hash_bytes(p, n) & (uint64_t)d->mask);
    for (;;) {
        Py_ssize_t s = d->slots[i];
        if (!s) {
            *slot = i;
            return -1;
        }
        PyObject *v = PyList_GET_ITEM(d->values, s - 1);
        if (PyBytes_GET_SIZE(v) == n && memcmp(PyBytes_AS_STRING(v), p, (size_t)n) == 0)
            return s - 1;
        i = (i + 1) & d->mask;
    }
}

/* Code of (p, n), adding it when absent; -2 on a Python error. */
static Py_ssize_t dict_intern(dict_t *d, const char *p, Py_ssize_t n)
{
    Py_ssize_t slot;
    Py_ssize_t code = dict_find(d, p, n, &slot);
    if (code >= 0)
        return code;
    PyObject *v = PyBytes_FromStringAndSize(p, n);
    if (!v || PyList_Append(d->values, v) < 0) {
        Py_XDECREF(v);
        return -2;
    }
    Py_DECREF(v);
    code = d->count++;
    d->slots[slot] = code + 1;
    if (2 * d->count > d->mask + 1 && dict_resize(d, 2 * (d->mask + 1)) < 0)
        return -2;
    return code;
}

static int dict_init(dict_t *d, PyObject *values)
{
    d->slots = NULL;
    d->mask = 0;
    d->count = 0;
    if (values == Py_None) {
        d->values = PyList_New(0);
        if (!d->values)
            return -1;
    } else {
        if (!PyList_Check(values)) {
            PyErr_SetString(PyExc_TypeError, "values must be a list of bytes");
            return -1;
        }
        Py_INCREF(values);
        d->values = values;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(values); i++)
            if (!PyBytes_Check(PyList_GET_ITEM(values, i))) {
                PyErr_SetString(PyExc_TypeError, "values must be a list of bytes");
                return -1;
            }
    }
    d->count = PyList_GET_SIZE(d->values);
    Py_ssize_t size = 16;
    while (size < 4 * d->count)
        size *= 2;
    return dict_resize(d, size);
}

/* ---- numbers ---------------------------------------------------------- */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The value of a number cell; 0 when the text is not in the grammar. */
static int parse_number(const char *p, Py_ssize_t n, double *out)
{
    Py_ssize_t i = 0;
    int neg = 0;
    if (i < n && (p[i] == '+' || p[i] == '-')) {
        neg = p[i] == '-';
        i++;
    }
    uint64_t m = 0;
    int sig = 0;          /* significant digits in m (leading zeros skipped) */
    int dropped = 0;      /* digits that did not fit in m */
    long e10 = 0;
    Py_ssize_t int_digits = 0, frac_digits = 0;
    while (i < n && is_digit(p[i])) {
        int d = p[i] - '0';
        if (sig < 19) {
            if (m || d) {
                m = m * 10 + (uint64_t)d;
                sig++;
            }
        } else {
            dropped = 1;
            e10++;
        }
        int_digits++;
        i++;
    }
    if (i < n && p[i] == '.') {
        i++;
        while (i < n && is_digit(p[i])) {
            int d = p[i] - '0';
            if (sig < 19) {
                if (m || d) {
                    m = m * 10 + (uint64_t)d;
                    sig++;
                }
                e10--;
            } else {
                dropped = 1;
            }
            frac_digits++;
            i++;
        }
    }
    if (int_digits == 0 && frac_digits == 0)
        return 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (p[i] == '+' || p[i] == '-')) {
            eneg = p[i] == '-';
            i++;
        }
        if (i >= n || !is_digit(p[i]))
            return 0;
        long ev = 0;
        while (i < n && is_digit(p[i])) {
            if (ev < 100000)
                ev = ev * 10 + (p[i] - '0');
            i++;
        }
        e10 += eneg ? -ev : ev;
    }
    if (i != n)
        return 0;
    if (!dropped && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)m; /* exact */
        v = e10 >= 0 ? v * POW10[e10] : v / POW10[-e10];
        *out = neg ? -v : v;
        return 1;
    }
    char small[128];
    char *buf = n < (Py_ssize_t)sizeof small ? small : PyMem_Malloc((size_t)n + 1);
    if (!buf)
        return 0; /* the Python reader will convert it */
    memcpy(buf, p, (size_t)n);
    buf[n] = '\0';
    *out = strtod(buf, NULL); /* overflow gives +-HUGE_VAL = inf, like float() */
    if (buf != small)
        PyMem_Free(buf);
    return 1;
}

/* ---- tokenizer -------------------------------------------------------- */

typedef struct {
    const char *p, *end;
    int fmt;
    char sep;
    char *scratch; /* decoded quoted ARFF cells (a line's worth at most) */
    Py_ssize_t scratch_len;
    const char *why; /* reason for falling back */
} tok_t;

#define FALLBACK(t, reason) \
    do {                    \
        (t)->why = (reason); \
        return -1;          \
    } while (0)

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_eol(char c)
{
    return c == '\n' || c == '\r';
}

/* Bytes the Python readers treat in ways this code does not (Unicode
 * whitespace that str.strip() removes, NUL, other control characters):
 * a cell that starts or ends with one falls back. */
static int odd_edge(char c)
{
    unsigned char u = (unsigned char)c;
    return u >= 0x80 || (u < 0x20 && c != '\t');
}

/* A line ends at \n, \r\n or \r, as read_text() normalises them. */
static void skip_eol(tok_t *t)
{
    if (t->p < t->end && *t->p == '\r') {
        t->p++;
        if (t->p < t->end && *t->p == '\n')
            t->p++;
    } else if (t->p < t->end && *t->p == '\n') {
        t->p++;
    }
}

/* Trim blanks; falls back on odd edge bytes.  0 ok, -1 fallback. */
static int trim(tok_t *t, const char **a, const char **b)
{
    while (*a < *b && is_blank(**a))
        (*a)++;
    while (*b > *a && is_blank((*b)[-1]))
        (*b)--;
    if (*a < *b && (odd_edge(**a) || odd_edge((*b)[-1])))
        FALLBACK(t, "unusual character at the edge of a cell");
    return 0;
}

/* One row's cells.  Returns the number of cells (> 0), 0 at the end of the
 * data, -1 to fall back.  Blank and comment lines are skipped; *lines counts
 * the physical lines consumed. */
static Py_ssize_t next_row(tok_t *t, cell_t *cells, Py_ssize_t ncols, Py_ssize_t *lines)
{
    for (;;) {
        if (t->p >= t->end)
            return 0;
        const char *ls = t->p;
        const char *le = ls;
        while (le < t->end && !is_eol(*le))
            le++;
        t->p = le;
        skip_eol(t);
        (*lines)++;
        /* Blank line (C4.5 and CSV strip blanks; odd bytes fall back below). */
        const char *q = ls;
        while (q < le && is_blank(*q))
            q++;
        if (q == le)
            continue;
        if (t->fmt == FMT_ARFF && *q == '%')
            continue;
        if (t->fmt == FMT_ARFF && *q == '{')
            FALLBACK(t, "sparse ARFF row");
        if (t->fmt == FMT_C45 && *q == '|')
            continue;
        Py_ssize_t k = 0;
        char *sp = t->scratch;
        const char *s = ls;
        int done = 0;
        while (!done) {
            const char *a = s, *b;
            if (t->fmt == FMT_ARFF) {
                while (a < le && is_blank(*a))
                    a++;
            }
            if (t->fmt == FMT_ARFF && a < le && (*a == '\'' || *a == '"')) {
                const char qc = *a;
                const char *r = a + 1;
                char *start = sp;
                for (;;) {
                    if (r >= le)
                        FALLBACK(t, "unterminated quote");
                    if (*r == '\\') {
                        if (r + 1 >= le)
                            FALLBACK(t, "backslash at the end of a line");
                        char e = r[1];
                        *sp++ = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
                        r += 2;
                        continue;
                    }
                    if (*r == qc)
                        break;
                    *sp++ = *r++;
                }
                r++;
                while (r < le && is_blank(*r))
                    r++;
                if (r < le && *r != ',' && *r != '%')
                    FALLBACK(t, "text after a closing quote");
                if (k >= ncols)
                    FALLBACK(t, "too many cells");
                cells[k].p = start;
                cells[k].n = sp - start;
                cells[k].quoted = 1;
                k++;
                if (r >= le || *r == '%')
                    done = 1;
                s = r + 1;
                continue;
            }
            b = a;
            if (t->fmt == FMT_CSV) {
                while (b < le && *b != t->sep) {
                    if (*b == '"')
                        FALLBACK(t, "quoted CSV field");
                    b++;
                }
            } else if (t->fmt == FMT_ARFF) {
                while (b < le && *b != ',' && *b != '%') {
                    if (*b == '\'' || *b == '"')
                        FALLBACK(t, "quote inside an ARFF cell");
                    b++;
                }
            } else {
                while (b < le && *b != ',' && *b != '|') {
                    if (*b == '\\')
                        FALLBACK(t, "backslash in a C4.5 cell");
                    b++;
                }
            }
            const char *next = b;
            done = b >= le || *b != (t->fmt == FMT_CSV ? t->sep : ',');
            if (trim(t, &a, &b) < 0)
                return -1;
            if (t->fmt == FMT_ARFF && a < b && *a == '{')
                FALLBACK(t, "'{' starts an ARFF cell");
            if (t->fmt == FMT_C45) {
                if (done && k > 0 && a == b)
                    FALLBACK(t, "C4.5 continuation line");
                if (done && b > a && b[-1] == '.') {
                    b--; /* the case-ending period */
                    while (b > a && is_blank(b[-1]))
                        b--;
                }
                for (const char *c = a; c + 1 < b; c++)
                    if ((c[0] == '\t') || (c[0] == ' ' && c[1] == ' '))
                        FALLBACK(t, "run of blanks inside a C4.5 cell");
                if (b > a && b[-1] == '\t')
                    FALLBACK(t, "tab inside a C4.5 cell");
                if (a == b && !(k == 0 && done))
                    FALLBACK(t, "empty C4.5 cell");
            }
            if (k >= ncols)
                FALLBACK(t, "too many cells");
            cells[k].p = a;
            cells[k].n = b - a;
            cells[k].quoted = 0;
            k++;
            s = next + 1;
        }
        if (t->fmt == FMT_C45 && k == 1 && cells[0].n == 0)
            continue; /* a line holding only "." */
        return k;
    }
}

static int non_ascii(const cell_t *c)
{
    for (Py_ssize_t i = 0; i < c->n; i++)
        if ((unsigned char)c->p[i] >= 0x80)
            return 1;
    return 0;
}

static int is_missing(int fmt, const cell_t *c)
{
    if (c->quoted)
        return 0;
    if (c->n == 1 && c->p[0] == '?')
        return 1;
    return fmt == FMT_CSV && c->n == 0;
}

/* ---- the parse -------------------------------------------------------- */

typedef struct {
    tok_t t;
    col_t *cols;
    Py_ssize_t ncols, n_attr, max_rows;
    double *X;
    int32_t *y;
    int float32;
    Py_ssize_t data_start;
} parse_t;

/* Turn an infer column into a first-seen one: re-read rows [0, upto) and
 * intern their cells; then re-read row `upto` into cells for the caller. */
static int reopen(parse_t *ps, Py_ssize_t j, Py_ssize_t upto, const char *base, cell_t *cells)
{
    col_t *c = &ps->cols[j];
    c->kind = K_OPEN;
    if (dict_init(&c->d, Py_None) < 0)
        return -2;
    c->has_dict = 1;
    tok_t t = ps->t;
    t.p = base + ps->data_start;
    Py_ssize_t lines = 0;
    for (Py_ssize_t r = 0; r < upto; r++) {
        Py_ssize_t k = next_row(&t, cells, ps->ncols, &lines);
        assert(k == ps->ncols);
        (void)k;
        double *x = ps->X + r * ps->n_attr + c->out;
        if (is_missing(t.fmt, &cells[j]))
            continue;
        Py_ssize_t code = dict_intern(&c->d, cells[j].p, cells[j].n);
        if (code < 0)
            return -2;
        *x = (double)code;
    }
    Py_ssize_t k = next_row(&t, cells, ps->ncols, &lines);
    assert(k == ps->ncols);
    (void)k;
    return 0;
}

static PyObject *tg_parse(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer data, xb, yb;
    Py_ssize_t start, n_attr, max_rows;
    int fmt, sep, float32;
    PyObject *specs;
    if (!PyArg_ParseTuple(args, "y*niCO!w*w*npn", &data, &start, &fmt, &sep, &PyList_Type,
                          &specs, &xb, &yb, &n_attr, &float32, &max_rows))
        return NULL;
    PyObject *result = NULL;
    parse_t ps;
    memset(&ps, 0, sizeof ps);
    cell_t *cells = NULL;
    const Py_ssize_t ncols = PyList_GET_SIZE(specs);
    ps.ncols = ncols;
    ps.n_attr = n_attr;
    ps.max_rows = max_rows;
    ps.float32 = float32;
    ps.data_start = start;
    ps.X = xb.buf;
    ps.y = yb.buf;
    if (start < 0 || start > data.len || ncols < 1 || fmt < 0 || fmt > 2 ||
        xb.len < max_rows * n_attr * (Py_ssize_t)sizeof(double) ||
        yb.len < max_rows * (Py_ssize_t)sizeof(int32_t)) {
        PyErr_SetString(PyExc_ValueError, "parse: bad arguments");
        goto out;
    }
    ps.cols = PyMem_Calloc((size_t)ncols, sizeof(col_t));
    cells = PyMem_Calloc((size_t)ncols, sizeof(cell_t));
    ps.t.scratch = PyMem_Malloc((size_t)(data.len - start) + 1);
    if (!ps.cols || !cells || !ps.t.scratch) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t j = 0; j < ncols; j++) {
        PyObject *spec = PyList_GET_ITEM(specs, j);
        PyObject *values;
        col_t *c = &ps.cols[j];
        if (!PyArg_ParseTuple(spec, "iiOn", &c->kind, &c->out, &values, &c->limit))
            goto out;
        if (c->out >= n_attr || (c->out < 0 && c->kind != K_IGNORE && c->kind < K_CLASS)) {
            PyErr_SetString(PyExc_ValueError, "parse: bad column spec");
            goto out;
        }
        if (c->kind == K_NOM || c->kind == K_NOM_UNK || c->kind == K_OPEN ||
            c->kind >= K_CLASS) {
            if (dict_init(&c->d, values) < 0)
                goto out;
            c->has_dict = 1;
        }
    }
    ps.t.p = (const char *)data.buf + start;
    ps.t.end = (const char *)data.buf + data.len;
    ps.t.fmt = fmt;
    ps.t.sep = (char)sep;
    const char *why = NULL;
    Py_ssize_t rows = 0, lines = 0;
    for (;;) {
        Py_ssize_t k = next_row(&ps.t, cells, ncols, &lines);
        if (k == 0)
            break;
        if (k < 0) {
            why = ps.t.why;
            break;
        }
        if (k != ncols) {
            why = "row of the wrong width";
            break;
        }
        if (rows >= max_rows) {
            why = "more rows than expected";
            break;
        }
        double *x = ps.X + rows * n_attr;
        for (Py_ssize_t j = 0; j < ncols && !why; j++) {
            col_t *c = &ps.cols[j];
            const cell_t *cell = &cells[j];
            const int missing = is_missing(fmt, cell);
            Py_ssize_t code;
            switch (c->kind) {
            case K_IGNORE:
                if (c->out >= 0)
                    x[c->out] = Py_NAN;
                break;
            case K_INFER:
            case K_CONT:
                if (missing) {
                    x[c->out] = Py_NAN;
                    break;
                }
                if (!parse_number(cell->p, cell->n, &x[c->out])) {
                    if (c->kind == K_CONT || cell->quoted || non_ascii(cell)) {
                        /* (Python's \d also takes other scripts' digits.) */
                        why = "a cell is not a number";
                        break;
                    }
                    /* Re-reads rows 0..rows, leaving this row in cells. */
                    if (reopen(&ps, j, rows, data.buf, cells) < 0)
                        goto out;
                    j--; /* and encode this cell again, as K_OPEN */
                    continue;
                }
                /* float32: the value that rounds to inf as float (ties to even). */
                if (float32 ? fabs(x[c->out]) >= 0x1.ffffffp127 : isinf(x[c->out]))
                    why = "a value is out of range";
                break;
            case K_NOM:
            case K_NOM_UNK:
                if (missing) {
                    x[c->out] = Py_NAN;
                    break;
                }
                {
                    Py_ssize_t slot;
                    code = dict_find(&c->d, cell->p, cell->n, &slot);
                }
                if (code < 0) {
                    if (c->kind == K_NOM)
                        why = "an undeclared value";
                    else
                        x[c->out] = Py_NAN;
                    break;
                }
                x[c->out] = (double)code;
                break;
            case K_OPEN:
                if (missing) {
                    x[c->out] = Py_NAN;
                    break;
                }
                code = dict_intern(&c->d, cell->p, cell->n);
                if (code < -1)
                    goto out;
                if (c->limit && c->d.count > c->limit) {
                    why = "more values than 'discrete N' allows";
                    break;
                }
                x[c->out] = (double)code;
                break;
            default: /* the class */
                if (missing) {
                    if (c->kind != K_CLASS_MISS)
                        why = "a missing class";
                    else
                        ps.y[rows] = -1;
                    break;
                }
                if (c->kind == K_CLASS_OPEN) {
                    code = dict_intern(&c->d, cell->p, cell->n);
                    if (code < -1)
                        goto out;
                } else {
                    Py_ssize_t slot;
                    code = dict_find(&c->d, cell->p, cell->n, &slot);
                    if (code < 0) {
                        why = "an undeclared class";
                        break;
                    }
                }
                if (code > INT32_MAX) {
                    why = "too many classes";
                    break;
                }
                ps.y[rows] = (int32_t)code;
                break;
            }
        }
        if (why)
            break;
        rows++;
    }
    if (why) {
        result = PyUnicode_FromString(why);
        goto out;
    }
    PyObject *opened = PyList_New(ncols);
    if (!opened)
        goto out;
    for (Py_ssize_t j = 0; j < ncols; j++) {
        PyObject *v = Py_None;
        if (ps.cols[j].kind == K_OPEN || ps.cols[j].kind == K_CLASS_OPEN)
            v = ps.cols[j].d.values;
        Py_INCREF(v);
        PyList_SET_ITEM(opened, j, v);
    }
    result = Py_BuildValue("(nnN)", rows, lines, opened);
out:
    if (ps.cols) {
        for (Py_ssize_t j = 0; j < ncols; j++)
            if (ps.cols[j].has_dict) {
                Py_XDECREF(ps.cols[j].d.values);
                PyMem_Free(ps.cols[j].d.slots);
            }
        PyMem_Free(ps.cols);
    }
    PyMem_Free(cells);
    PyMem_Free(ps.t.scratch);
    PyBuffer_Release(&data);
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    return result;
}

static PyObject *tg_parse_number(PyObject *self, PyObject *arg)
{
    (void)self;
    char *p;
    Py_ssize_t n;
    double v;
    if (PyBytes_AsStringAndSize(arg, &p, &n) < 0)
        return NULL;
    if (!parse_number(p, n, &v))
        Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

/* line_ends(buffer, n): how many CR and LF bytes buffer[:n] holds.  memchr, not
 * bytes.count's byte loop: the reader counts a file's line ends before it parses
 * (readers/fast.py _line_ends), about 1 ms instead of 16 for a 14 MB file. */
static Py_ssize_t count_byte(const char *p, const char *end, int c)
{
    Py_ssize_t k = 0;
    while (p < end && (p = memchr(p, c, (size_t)(end - p))) != NULL) {
        k++;
        p++;
    }
    return k;
}

static PyObject *tg_line_ends(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*n", &b, &n))
        return NULL;
    if (n < 0 || n > b.len) {
        PyBuffer_Release(&b);
        PyErr_SetString(PyExc_ValueError, "line_ends: n out of range");
        return NULL;
    }
    const char *p = b.buf;
    const Py_ssize_t k = count_byte(p, p + n, '\n') + count_byte(p, p + n, '\r');
    PyBuffer_Release(&b);
    return PyLong_FromSsize_t(k);
}

static PyObject *tg_decimal_point(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(localeconv()->decimal_point);
}

static PyMethodDef methods[] = {
    {"parse", tg_parse, METH_VARARGS, "Fill X and y from a data section; a str means fall back."},
    {"parse_number", tg_parse_number, METH_O, "One number cell's value (None: not a number)."},
    {"decimal_point", tg_decimal_point, METH_NOARGS, "The C library's decimal point."},
    {"line_ends", tg_line_ends, METH_VARARGS, "How many CR and LF bytes buffer[:n] holds."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ctok", "treegen's C tokenizer for data files.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ctok(void)
{
    return PyModule_Create(&module);
}
