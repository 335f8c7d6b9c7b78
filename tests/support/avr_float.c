/* avr_float.c -- firmware for the ATmega328P (run under simavr) that applies floating
   point operations to the operand pairs in cases.c (kept in flash) and prints every
   result as hex on the UART, one line per pair; tests/support/avr_float.py builds it,
   runs it and reads the lines.

   -DTG_F64: the binary64 routines of treegen/codegen/f64.py (f64.c, prefix tg) on
   pairs of binary64 bit patterns:
       i,add,sub,div,neg(a),from_f32(low half of a),from_u32(low half of a),
       add_pos,div_pos,to_f32(a),lt le eq isnan sign(a)+1,cycles of add,cycles of div
   (add_pos and div_pos are defined only on their domain: the tests read them there)
   otherwise avr-libc's own float (binary32) on pairs of binary32 bit patterns:
       i,a+b,a-b,a*b,a/b,lt le eq gt ge
   then "#done,N", and cli + sleep (simavr exits on that). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <stdint.h>
#include <string.h>

#ifdef TG_F64
#include "f64.c"
#define TG_WORDS 4 /* a.hi, a.lo, b.hi, b.lo */
#else
#define TG_WORDS 2 /* a, b */
#endif

extern const uint32_t tg_cases[][TG_WORDS] PROGMEM;
extern const uint16_t tg_n_cases;
extern const uint16_t tg_first;

static void tg_put(char c)
{
    /* Poll UDRE only: simavr slows down on every status read while TXC is clear. */
    while (!(UCSR0A & (1u << UDRE0))) {
    }
    UDR0 = (uint8_t)c;
}

static void tg_hex(uint32_t v, uint8_t digits)
{
    while (digits > 0u) {
        digits--;
        tg_put("0123456789abcdef"[(uint8_t)(v >> (4u * digits)) & 15u]);
    }
}

static void tg_dec(uint32_t v)
{
    char d[10];
    uint8_t n = 0u;
    do {
        d[n++] = (char)('0' + (uint8_t)(v % 10u));
        v /= 10u;
    } while (v != 0u);
    while (n > 0u) {
        tg_put(d[--n]);
    }
}

#ifdef TG_F64
static void tg_put64(tg_f64 v)
{
    tg_put(',');
    tg_hex(v.hi, 8u);
    tg_hex(v.lo, 8u);
}

/* Timer1 at prescaler 1 counts CPU cycles (one operation takes far fewer than 65536).
   Called through volatile pointers, so the compiler can neither reuse the results above
   nor move the work out of the window between the timer reads. */
static volatile tg_f64 tg_sink;
static tg_f64 (*volatile tg_add)(tg_f64, tg_f64) = tg_f64_add;
static tg_f64 (*volatile tg_div)(tg_f64, tg_f64) = tg_f64_div;

static void tg_case(uint16_t i, const uint32_t *w)
{
    tg_f64 a, b;
    uint16_t t0, t1, t2;
    a.hi = w[0];
    a.lo = w[1];
    b.hi = w[2];
    b.lo = w[3];
    tg_dec((uint32_t)tg_first + i);
    tg_put64(tg_f64_add(a, b));
    tg_put64(tg_f64_sub(a, b));
    tg_put64(tg_f64_div(a, b));
    tg_put64(tg_f64_neg(a));
    tg_put64(tg_f64_from_f32(a.lo));
    tg_put64(tg_f64_from_u32(a.lo));
    tg_put64(tg_f64_add_pos(a, b));
    tg_put64(tg_f64_div_pos(a, b));
    tg_put(',');
    tg_hex(tg_f64_to_f32(a), 8u);
    tg_put(',');
    tg_put((char)('0' + tg_f64_lt(a, b)));
    tg_put((char)('0' + tg_f64_le(a, b)));
    tg_put((char)('0' + tg_f64_eq(a, b)));
    tg_put((char)('0' + tg_f64_isnan(a)));
    tg_put((char)('1' + tg_f64_sign(a)));
    t0 = TCNT1;
    tg_sink = tg_add(a, b);
    t1 = TCNT1;
    tg_sink = tg_div(a, b);
    t2 = TCNT1;
    tg_put(',');
    tg_dec((uint16_t)(t1 - t0));
    tg_put(',');
    tg_dec((uint16_t)(t2 - t1));
}
#else
static float tg_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static void tg_put32(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    tg_put(',');
    tg_hex(bits, 8u);
}

static void tg_case(uint16_t i, const uint32_t *w)
{
    /* volatile: the operations happen here, at run time, in avr-libc's routines. */
    volatile float a = tg_float(w[0]), b = tg_float(w[1]);
    tg_dec((uint32_t)tg_first + i);
    tg_put32(a + b);
    tg_put32(a - b);
    tg_put32(a * b);
    tg_put32(a / b);
    tg_put(',');
    tg_put((char)('0' + (a < b)));
    tg_put((char)('0' + (a <= b)));
    tg_put((char)('0' + (a == b)));
    tg_put((char)('0' + (a > b)));
    tg_put((char)('0' + (a >= b)));
}
#endif

int main(void)
{
    uint16_t i;
    uint32_t w[TG_WORDS];
    UBRR0 = 0u; /* 2 Mbaud at 16 MHz with U2X0 */
    UCSR0A = (uint8_t)(1u << U2X0);
    UCSR0B = (uint8_t)(1u << TXEN0);
    TCCR1A = 0u;
    TCCR1B = (uint8_t)(1u << CS10);
    for (i = 0u; i < tg_n_cases; i++) {
        memcpy_P(w, tg_cases[i], sizeof w);
        tg_case(i, w);
        tg_put('\n');
    }
    tg_put('#');
    tg_put('d');
    tg_put('o');
    tg_put('n');
    tg_put('e');
    tg_put(',');
    tg_dec(tg_n_cases);
    tg_put('\n');
    cli();
    sleep_mode();
    return 0;
}
