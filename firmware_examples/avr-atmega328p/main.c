/* main.c -- test-vector firmware for the ATmega328P (run under simavr): runs a
   treegen predict.c over the vectors in vectors.c (kept in flash, PROGMEM) and
   prints one line per vector on the UART,

       index,class,cycles                  (with -DTG_PROBA: ,p0,p1,... appended)

   then "#done,N", and stops with cli + sleep (simavr exits on that; returning
   from main would loop forever in avr-libc's exit).

   cycles is exact: one predict call, from the call instruction (ICALL, 3 cycles) to
   its RET included.  Timer1 runs free at prescaler 1 (one count per CPU cycle) and
   is read just before and after the call, in assembly (measure.S), so nothing else
   is in the window; an overflow interrupt counts the wraps, and the cost of the
   reads and of each overflow interrupt is measured at start-up and subtracted.  Two
   self-check lines come first: "#nop10,17" (ten NOPs and RET: 3 + 10 + 4 cycles)
   and "#delay,A,B" (_delay_loop_2 of 250 and of 65536 iterations, 4 cycles each:
   B - A must be 4 * 65286, across three timer wraps).

   Build flags: -DTG_P=prefix -DTG_U=PREFIX (the --prefix of the export, lower and
   upper case; default model / MODEL). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <stdint.h>
#include <util/delay_basic.h>

#include "predict.h"

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
extern const tg_input_t tg_vectors[][TG_N_FEATURES] PROGMEM;
extern const uint16_t tg_n_vectors;
extern const uint32_t tg_first_index;

/* measure.S */
int tg_time(const tg_input_t *x, int (*fn)(const tg_input_t *));
void tg_time_base(void);
int tg_nop10(const tg_input_t *x);
volatile uint16_t tg_t0, tg_t1; /* Timer1 before and after the call (measure.S) */

static volatile uint16_t tg_wraps; /* Timer1 overflows served during a measurement */
static uint16_t tg_base;           /* cycles of the reads alone */
static uint16_t tg_isr;            /* cycles one overflow interrupt adds */
static tg_input_t tg_x[TG_N_FEATURES];

ISR(TIMER1_OVF_vect)
{
    tg_wraps++;
}

/* Cycles of fn(tg_x) (or, with fn null, of the reads alone): start the timer at 0,
   count the wraps (also one that is pending but not yet served), take out the
   interrupts' own cycles and the cost of the reads. */
static uint32_t tg_measure(int (*fn)(const tg_input_t *), int *result)
{
    uint16_t served;
    uint8_t pending;
    int r = 0;
    cli();
    tg_wraps = 0u;
    TCNT1 = 0u;
    TIFR1 = (uint8_t)(1u << TOV1);
    sei();
    if (fn) {
        r = tg_time(tg_x, fn);
    } else {
        tg_time_base();
    }
    cli();
    served = tg_wraps;
    pending = (uint8_t)((TIFR1 & (1u << TOV1)) != 0u && tg_t1 < 0x8000u);
    sei();
    if (result) {
        *result = r;
    }
    return (uint32_t)tg_t1 - tg_t0 + ((uint32_t)(served + pending) << 16) -
           (uint32_t)served * tg_isr - tg_base;
}

static void tg_put(char c)
{
    /* Poll UDRE only: simavr slows down on every status read while TXC is clear. */
    while (!(UCSR0A & (1u << UDRE0))) {
    }
    UDR0 = (uint8_t)c;
}

static void tg_puts_P(const char *s)
{
    char c;
    while ((c = (char)pgm_read_byte(s++)) != '\0') {
        tg_put(c);
    }
}

static void tg_put_u32(uint32_t v)
{
    char digits[10];
    uint8_t n = 0u;
    do {
        digits[n++] = (char)('0' + (uint8_t)(v % 10u));
        v /= 10u;
    } while (v != 0u);
    while (n > 0u) {
        tg_put(digits[--n]);
    }
}

#if defined(TG_PROBA_HEX) || defined(TG_REGRESS)
/* n bytes at p, in memory order, two hex digits each. */
static void tg_put_bytes(const void *p, uint8_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    uint8_t k;
    for (k = 0u; k < n; k++) {
        tg_put("0123456789abcdef"[b[k] >> 4]);
        tg_put("0123456789abcdef"[b[k] & 15u]);
    }
}
#endif

static int tg_delay250(const tg_input_t *x)
{
    (void)x;
    _delay_loop_2(250u);
    return 0;
}

static int tg_delay65536(const tg_input_t *x)
{
    (void)x;
    _delay_loop_2(0u); /* 0 means 65536 iterations */
    return 0;
}

static int tg_delay20000(const tg_input_t *x)
{
    (void)x;
    _delay_loop_2(20000u);
    return 0;
}

/* The cost of the reads, then of one overflow interrupt: a delay that wraps the
   timer once, with the interrupt off (the pending flag counts the wrap) and on. */
static void tg_calibrate(void)
{
    uint32_t quiet, served;
    tg_base = 0u;
    tg_isr = 0u;
    tg_base = (uint16_t)tg_measure(0, 0);
    TIMSK1 = 0u;
    quiet = tg_measure(tg_delay20000, 0);
    TIMSK1 = (uint8_t)(1u << TOIE1);
    served = tg_measure(tg_delay20000, 0);
    tg_isr = (uint16_t)(served - quiet);
}

int main(void)
{
    uint16_t i;
    uint32_t cycles, a, b;
    int cls;
#ifdef TG_PROBA
    TG_PROBA_T proba[TG_N_PROBA];
    uint8_t c;
#endif

    UBRR0 = 0u; /* 2 Mbaud at 16 MHz with U2X0 */
    UCSR0A = (uint8_t)(1u << U2X0);
    UCSR0B = (uint8_t)(1u << TXEN0);
    TCCR1A = 0u;
    TCCR1B = (uint8_t)(1u << CS10); /* prescaler 1 */
    TIMSK1 = (uint8_t)(1u << TOIE1);
    sei();
    tg_calibrate();

    tg_puts_P(PSTR("#nop10,"));
    tg_put_u32(tg_measure(tg_nop10, 0));
    a = tg_measure(tg_delay250, 0);
    b = tg_measure(tg_delay65536, 0);
    tg_puts_P(PSTR("\n#delay,"));
    tg_put_u32(a);
    tg_put(',');
    tg_put_u32(b);
    tg_put('\n');

    for (i = 0u; i < tg_n_vectors; i++) {
        memcpy_P(tg_x, tg_vectors[i], sizeof tg_x);
        cycles = tg_measure(TG_MEASURED, &cls);
        tg_put_u32(tg_first_index + i);
        tg_put(',');
        tg_put_u32((uint32_t)cls);
        tg_put(',');
        tg_put_u32(cycles);
#ifdef TG_PROBA
        TG_PREDICT_PROBA(tg_x, proba);
        for (c = 0u; c < TG_N_PROBA; c++) {
            tg_put(',');
#ifdef TG_PROBA_HEX
            tg_put_bytes(&proba[c], sizeof proba[c]);
#else
            tg_put_u32(proba[c]);
#endif
        }
#endif
#ifdef TG_REGRESS
        for (c = 0u; c < TG_REGRESS; c++) {
            tg_put(',');
            tg_put_bytes(&tg_y[c], sizeof tg_y[c]);
        }
#endif
        tg_put('\n');
    }
    tg_puts_P(PSTR("#done,"));
    tg_put_u32(tg_n_vectors);
    tg_put('\n');
    cli();
    sleep_mode();
    return 0;
}
