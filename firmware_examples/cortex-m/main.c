/* main.c -- test-vector firmware for Cortex-M (and, with ../riscv/startup.c, RISC-V)
   under qemu: runs a treegen predict.c over the vectors in vectors.c and prints one
   line per vector,

       index,class,instructions            (with -DTG_PROBA: ,p0,p1,... appended)

   on the semihosting console, then "#done,N" and exits with status 0.  The
   instruction count is not printed by the firmware: qemu has no cycle model, so the
   TCG plugin icount.c counts the instructions of one predict call (call and return
   included) inside the tg_call window and writes the number between the firmware's
   "index,class," and the rest of the line.  First comes "#nop10,N", the window's
   self-check: a 10-NOP function must count 12.

   Build flags: -DTG_P=prefix -DTG_U=PREFIX (the --prefix of the export, lower and
   upper case; default model / MODEL). */
#include <stdint.h>

#include "predict.h"
#include "startup.h"

#ifndef TG_P
#define TG_P model
#define TG_U MODEL
#endif
#define TG_CAT2(a, b) a##b
#define TG_CAT(a, b) TG_CAT2(a, b)
#define TG_PREDICT TG_CAT(TG_P, _predict)
#define TG_N_FEATURES TG_CAT(TG_U, _N_FEATURES)
#define TG_N_CLASSES TG_CAT(TG_U, _N_CLASSES)
/* The vector besides the class (-DTG_PROBA): a tree's fixed-point predict_proba by
   default; an ensemble's doubles with -DTG_PROBA_FN=_predict_proba or
   _decision_function -DTG_PROBA_T=double -DTG_N_PROBA=n -DTG_PROBA_HEX (each value's
   bytes in memory order, in hex). */
#ifndef TG_PROBA_FN
#define TG_PROBA_FN _predict_proba
#define TG_PROBA_T uint16_t
#define TG_N_PROBA TG_N_CLASSES
#endif
#define TG_PREDICT_PROBA TG_CAT(TG_P, TG_PROBA_FN)
typedef TG_CAT(TG_P, _input_t) tg_input_t;

/* A regressor (-DTG_REGRESS=n, its output count; the vector is then its predict_bits,
   -DTG_PROBA_FN=_predict_bits -DTG_PROBA_T=uint32_t -DTG_N_PROBA=2n): predict writes n
   doubles and returns nothing, so the call measured is this wrapper, whose class is 0;
   the doubles it wrote follow the vector, as bytes in hex, for the driver to compare with
   predict_bits (where double has 32 bits, with its nearest binary32). */
#ifdef TG_REGRESS
static double tg_y[TG_REGRESS];

static int tg_regress(const tg_input_t *x)
{
    TG_PREDICT(x, tg_y);
    return 0;
}
#define TG_MEASURED tg_regress
#else
#define TG_MEASURED TG_PREDICT
#endif

/* vectors.c (written by treegen's firmware driver, or by hand). */
extern const tg_input_t tg_vectors[][TG_N_FEATURES];
extern const uint16_t tg_n_vectors;
extern const uint32_t tg_first_index;

/* measure.S */
int tg_call(const tg_input_t *x, int (*fn)(const tg_input_t *));
void tg_call_check(const void *x, void (*fn)(void));
void tg_nop10(void);

static char *put_u32(char *p, uint32_t v)
{
    char digits[10];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0u);
    while (n > 0) {
        *p++ = digits[--n];
    }
    return p;
}

#if defined(TG_PROBA_HEX) || defined(TG_REGRESS)
/* n bytes at v, in memory order, two hex digits each. */
static char *put_bytes(char *p, const void *v, unsigned n)
{
    const unsigned char *b = (const unsigned char *)v;
    unsigned k;
    for (k = 0u; k < n; k++) {
        *p++ = "0123456789abcdef"[b[k] >> 4];
        *p++ = "0123456789abcdef"[b[k] & 15u];
    }
    return p;
}
#endif

int main(void)
{
#ifdef TG_REGRESS
    char line[16 + (2 * sizeof(TG_PROBA_T) + 6) * TG_N_PROBA + (2 * sizeof(double) + 1) * TG_REGRESS];
#else
    char line[16 + (2 * sizeof(TG_PROBA_T) + 6) * TG_N_PROBA];
#endif
    char *p;
    uint16_t i;
    int cls;
#ifdef TG_PROBA
    TG_PROBA_T proba[TG_N_PROBA];
    int c;
#endif

    tg_write("#nop10,");
    tg_call_check(0, tg_nop10);
    tg_write("\n");
    for (i = 0u; i < tg_n_vectors; i++) {
        /* Once for the class, once in the window: the count is printed when the
           window closes, after "index,class," is already out. */
        cls = TG_MEASURED(tg_vectors[i]);
        p = put_u32(line, tg_first_index + i);
        *p++ = ',';
        p = put_u32(p, (uint32_t)cls);
        *p++ = ',';
        *p = '\0';
        tg_write(line);
        if (tg_call(tg_vectors[i], TG_MEASURED) != cls) {
            tg_write("\n#error,the measured call returned another class\n");
            return 2;
        }
        p = line;
#ifdef TG_PROBA
        TG_PREDICT_PROBA(tg_vectors[i], proba);
        for (c = 0; c < TG_N_PROBA; c++) {
            *p++ = ',';
#ifdef TG_PROBA_HEX
            p = put_bytes(p, &proba[c], sizeof proba[c]);
#else
            p = put_u32(p, proba[c]);
#endif
        }
#endif
#ifdef TG_REGRESS
        for (c = 0; c < TG_REGRESS; c++) {
            *p++ = ',';
            p = put_bytes(p, &tg_y[c], sizeof tg_y[c]);
        }
#endif
        *p++ = '\n';
        *p = '\0';
        tg_write(line);
    }
    p = put_u32(line, tg_n_vectors);
    *p = '\0';
    tg_write("#done,");
    tg_write(line);
    tg_write("\n");
    return 0;
}
