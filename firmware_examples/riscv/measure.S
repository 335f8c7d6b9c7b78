/* measure.S -- the instruction-count window and its self-check (RV32, any of the
   extensions: the assembler compresses where -march has C).

   int tg_call(const void *x, int (*fn)(const void *)) returns fn(x).  The TCG
   plugin (../cortex-m/icount.c) counts from the instruction at tg_open (the JALR,
   counted) to the one at tg_close (not counted): the call, everything fn executes
   and its return -- no argument set-up, no bookkeeping.  tg_nop10 is ten NOPs and a
   return: through tg_call it must count 12 (JALR + 10 NOP + RET). */
    .text

    .global tg_call
    .type tg_call, @function
    .balign 4
tg_call:
    addi sp, sp, -16        /* the ABI's 16-byte stack alignment for the callee */
    sw ra, 12(sp)
    .global tg_open
tg_open:
    jalr a1
    .global tg_close
tg_close:
    lw ra, 12(sp)
    addi sp, sp, 16
    ret
    .size tg_call, . - tg_call

    /* The same code under a second name, so C can declare it with a second type. */
    .global tg_call_check
    .set tg_call_check, tg_call

    .global tg_nop10
    .type tg_nop10, @function
    .balign 4
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
