/* icount.c -- a QEMU TCG plugin that counts the guest instructions executed inside a
   window, exactly.

   The window opens when the instruction at address 'open' executes (it is counted)
   and closes when the instruction at address 'close' executes (it is not): the
   firmware's tg_call (measure.S) puts the label tg_open on its BLX and tg_close on
   the instruction after it, so a window holds the call, everything the callee runs
   and its return.  The RISC-V firmware's measure.S (../riscv/) does the same with
   JALR, and the same plugin counts it in qemu-system-riscv32.  Each closed window writes its count, in decimal and nothing
   else, to stderr -- where qemu 7.2 also writes semihosting text, from the same
   vCPU thread, so the count lands in the middle of the firmware's output line.

   Every instruction gets an inline 64-bit add on one counter (exact: no callback,
   no sampling); only the two marker instructions get a callback.  The marker
   callbacks and the add on the same instruction always run in the same order, so
   close - open counts [open, close) whichever order that is.

   Debian's qemu-system-arm (and -riscv32) loads plugins but ships no qemu-plugin.h: the few
   declarations of plugin API version 1 (qemu 6.x to 7.x) used here are written out
   below.  Build: gcc -shared -fPIC -O2 -o libicount.so icount.c
   Run:   qemu-system-arm ... -plugin ./libicount.so,open=0x1234,close=0x1236  */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- plugin API version 1, as in qemu 7.2's include/qemu/qemu-plugin.h ---- */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; /* only passed through */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
/* ---- end of the API declarations ---- */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

static uint64_t executed;  /* every instruction, from the start */
static uint64_t opened_at; /* 'executed' when the window opened */
static int is_open;
static uint64_t open_addr, close_addr;

static void on_open(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    opened_at = executed;
    is_open = 1;
}

static void on_close(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (is_open) {
        fprintf(stderr, "%" PRIu64, executed - opened_at);
        is_open = 0;
    }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t i, n = qemu_plugin_tb_n_insns(tb);
    (void)id;
    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        if (pc == open_addr) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_open, QEMU_PLUGIN_CB_NO_REGS, NULL);
        } else if (pc == close_addr) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_close, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &executed, 1);
    }
}

static int parse_addr(const char *arg, const char *key, uint64_t *out)
{
    size_t k = strlen(key);
    char *end;
    if (strncmp(arg, key, k) != 0 || arg[k] != '=') {
        return 0;
    }
    *out = strtoull(arg + k + 1, &end, 0) & ~(uint64_t)1; /* Thumb bit off */
    return *end == '\0';
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    int i, have_open = 0, have_close = 0;
    (void)info;
    for (i = 0; i < argc; i++) {
        if (parse_addr(argv[i], "open", &open_addr)) {
            have_open = 1;
        } else if (parse_addr(argv[i], "close", &close_addr)) {
            have_close = 1;
        } else {
            fprintf(stderr, "icount: bad argument '%s' (want open=ADDR,close=ADDR)\n", argv[i]);
            return -1;
        }
    }
    if (!have_open || !have_close) {
        fprintf(stderr, "icount: need open=ADDR and close=ADDR\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    return 0;
}
