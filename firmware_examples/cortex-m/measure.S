/* measure.S -- the instruction-count window and its self-check (Thumb; runs on
   ARMv6-M, so on every Cortex-M).

   int tg_call(const void *x, int (*fn)(const void *)) returns fn(x).  The TCG
   plugin (icount.c) counts from the instruction at tg_open (the BLX, counted) to
   the one at tg_close (not counted): the call, everything fn executes and its
   return -- no argument set-up, no bookkeeping.  tg_nop10 is ten NOPs and a
   return: through tg_call it must count 12 (BLX + 10 NOP + BX LR). */
    .syntax unified
    .thumb
    .text

    .global tg_call
    .type tg_call, %function
    .thumb_func
tg_call:
    push {r4, lr}           /* r4 keeps the stack 8-byte aligned for the callee */
    .global tg_open
tg_open:
    blx r1
    .global tg_close
tg_close:
    pop {r4, pc}
    .size tg_call, . - tg_call

    /* The same code under a second name, so C can declare it with a second type. */
    .global tg_call_check
    .thumb_set tg_call_check, tg_call

    .global tg_nop10
    .type tg_nop10, %function
    .thumb_func
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
    bx lr
    .size tg_nop10, . - tg_nop10
