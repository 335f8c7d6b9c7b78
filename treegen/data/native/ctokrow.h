/* The C tokenizer's rows: the next row's cells of a CSV, ARFF or C4.5 data section,
 * or a reason to fall back (tok_t.why) on text it does not handle; and what a cell
 * is (missing, non-ASCII).  Included by ctok.c alone; its functions static, in the
 * parse's translation unit. */
#ifndef TREEGEN_CTOKROW_H
#define TREEGEN_CTOKROW_H

#include "ctok.h"

typedef struct {
    const char *p, *end;
    int fmt;
    char sep;
    char *scratch; /* decoded quoted ARFF cells (a line's worth at most) */
    Py_ssize_t scratch_len;
    const char *why; /* reason for falling back */
    int weights;     /* an ARFF row's instance weight {w} is read (else it falls back) */
    double weight;   /* the last row's weight (1 without one) */
    int weighted;    /* whether some row gave one */
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
        t->weight = 1.0;
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
            if (t->fmt == FMT_ARFF && a < b && *a == '{') {
                /* An instance weight, the row's last token ({w}: as the Python reader's
                 * _weight takes it; any other form is that reader's). */
                double w;
                if (!t->weights || k != ncols || !done || b - a < 3 || b[-1] != '}')
                    FALLBACK(t, "'{' starts an ARFF cell");
                if (!parse_number(a + 1, (b - a) - 2, &w) || !(w >= 0.0) || isinf(w))
                    FALLBACK(t, "an instance weight that is no number at least 0");
                t->weight = w;
                t->weighted = 1;
                break;
            }
            if (t->fmt == FMT_ARFF) {
                /* Weka separates values by blanks as by commas, and a run of them is
                 * one separator: an empty cell or a blank inside one is the Python
                 * reader's (treegen/data/readers/arfftok.py). */
                if (a == b)
                    FALLBACK(t, "empty ARFF cell");
                for (const char *c = a; c < b; c++)
                    if ((unsigned char)*c <= ' ')
                        FALLBACK(t, "blank inside an ARFF cell");
            }
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

#endif
