/* startup.c -- what the RISC-V test-vector firmware adds to picolibc: semihosting
   output and exit for main.c (startup.h, shared with the Cortex-M firmware), and a trap
   handler.

   picolibc's crt0 (crt0-hosted: -specs=picolibc.specs --crt0=hosted) sets up the stack
   and the global pointer, enables the FPU on cores that have one, copies .data, clears
   .bss, runs the constructors, calls main and passes its status to exit(); libsemihost
   (--oslib=semihost) carries the exit status to qemu.  qemu must run with
   -semihosting-config enable=on,target=native.

   A trap (an illegal instruction, such as a float instruction on rv32imc, or a bad
   access) prints a line and exits with status 3.  Out of reset mtvec is 0 on qemu's
   virt machine, where nothing is mapped: without the handler a trap would loop there
   until the timeout. */
#include <semihost.h>
#include <stdint.h>

#include "startup.h"

void tg_write(const char *text)
{
    sys_semihost_write0(text); /* SYS_WRITE0: a NUL-terminated string */
}

void tg_exit(int status)
{
    /* SYS_EXIT_EXTENDED: on RV32, as on 32-bit ARM, the plain SYS_EXIT reports only
       success or failure. */
    sys_semihost_exit_extended((uintptr_t)status);
}

/* Direct mode (the two low bits of mtvec are 0): the handler must be 4-byte aligned. */
__attribute__((aligned(4))) static void tg_trap(void)
{
    tg_write("\nfault: the firmware crashed\n");
    tg_exit(3);
}

/* Before main (a constructor: crt0 runs them first).  mtvec is a Zicsr CSR, which
   gcc 12's -march strings name separately; the instruction is allowed here only. */
__attribute__((constructor)) static void tg_install_trap(void)
{
    __asm__ volatile(".option push\n\t.option arch, +zicsr\n\t"
                     "csrw mtvec, %0\n\t.option pop"
                     :
                     : "r"((uintptr_t)tg_trap));
}
