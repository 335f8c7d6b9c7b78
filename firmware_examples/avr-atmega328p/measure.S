/* measure.S -- the cycle-count window of the ATmega328P firmware (main.c).

   int tg_time(const void *x, int (*fn)(const void *)) calls fn(x) and stores Timer1
   (TCNT1) read just before the call in tg_t0 and just after it in tg_t1.  Between
   the two reads of the low byte run: the read of the high byte, ICALL (3 cycles),
   fn and its RET; tg_time_base makes the same two reads with nothing but the first
   high-byte read between them, so tg_t1 - tg_t0 of tg_time minus that of tg_time_base
   is ICALL + fn + RET.  Written in assembly so that no compiler can move anything
   into the window.  Self-check (main.c): a function of ten NOPs and RET counts
   3 + 10 + 4 = 17.

   avr-gcc's calling convention: x in r25:r24, fn in r23:r22, the result in r25:r24;
   r16 and r17 are callee-saved (pushed here), r1 is zero on every return. */
#include <avr/io.h>

    .text

    .global tg_time
    .type tg_time, @function
tg_time:
    push r16
    push r17
    movw r30, r22           /* Z = fn (a word address, what ICALL takes) */
    lds r16, TCNT1L         /* reading the low byte latches the high byte */
    lds r17, TCNT1H
    icall
    lds r18, TCNT1L
    lds r19, TCNT1H
    sts tg_t0, r16
    sts tg_t0 + 1, r17
    sts tg_t1, r18
    sts tg_t1 + 1, r19
    pop r17
    pop r16
    ret                     /* fn's result is still in r25:r24 */
    .size tg_time, . - tg_time

    .global tg_time_base
    .type tg_time_base, @function
tg_time_base:
    lds r18, TCNT1L
    lds r19, TCNT1H
    lds r20, TCNT1L
    lds r21, TCNT1H
    sts tg_t0, r18
    sts tg_t0 + 1, r19
    sts tg_t1, r20
    sts tg_t1 + 1, r21
    ret
    .size tg_time_base, . - tg_time_base

    .global tg_nop10
    .type tg_nop10, @function
tg_nop10:
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    ret
    .size tg_nop10, . - tg_nop10
