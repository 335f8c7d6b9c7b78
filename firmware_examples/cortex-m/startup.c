/* startup.c -- vector table, reset handler and semihosting for the test-vector
   firmware on qemu's Cortex-M machines (no libc: only libgcc, for soft-float
   compares and division on the cores without hardware for them).

   Semihosting (BKPT 0xAB) carries the output and the exit status: qemu must run
   with -semihosting-config enable=on,target=native.  The exit is the extended one
   (SYS_EXIT_EXTENDED), because on 32-bit ARM the plain SYS_EXIT only reports
   success or failure.  A fault prints a line and exits with status 3. */
#include <stddef.h>
#include <stdint.h>

#include "startup.h"

extern uint32_t tg_data_start, tg_data_end, tg_data_load, tg_bss_start, tg_bss_end;
extern uint32_t tg_stack_top;
int main(void);

static uint32_t tg_semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void tg_write(const char *text)
{
    (void)tg_semihost(0x04u, text); /* SYS_WRITE0: a NUL-terminated string */
}

void tg_exit(int status)
{
    /* ADP_Stopped_ApplicationExit and the status, for SYS_EXIT_EXTENDED. */
    uint32_t block[2];
    block[0] = 0x20026u;
    block[1] = (uint32_t)status;
    (void)tg_semihost(0x20u, block);
    for (;;) {
    }
}

static void tg_fault(void)
{
    tg_write("\nfault: the firmware crashed\n");
    tg_exit(3);
}

void tg_reset(void)
{
    uint32_t *src = &tg_data_load, *dst = &tg_data_start;
    while (dst < &tg_data_end) {
        *dst++ = *src++;
    }
    for (dst = &tg_bss_start; dst < &tg_bss_end; dst++) {
        *dst = 0u;
    }
#if defined(__ARM_FP)
    /* Full access to coprocessors 10 and 11 (the FPU) before the first float
       instruction; without it that instruction faults. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    tg_exit(main());
}

/* The initial stack pointer, then reset and the 14 system exceptions. */
__attribute__((section(".vectors"), used))
static void (*const tg_vectors_table[16])(void) = {
    (void (*)(void))(uintptr_t)&tg_stack_top,
    tg_reset, tg_fault, tg_fault, tg_fault, tg_fault, tg_fault, 0, 0, 0, 0,
    tg_fault, tg_fault, 0, tg_fault, tg_fault,
};

/* gcc may emit calls to these even in freestanding code (struct copies). */
void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--) {
        *d++ = (unsigned char)c;
    }
    return dst;
}
