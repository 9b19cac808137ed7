/* Hand-assembled BPF instructions for hooks tests. */
#ifndef SKOPS_TEST_HK_INSN_H
#define SKOPS_TEST_HK_INSN_H

#include "bpfvm.h"

#define I_MOV64_IMM(d, v)  ((struct bpfvm_insn){.code = 0xb7, .dst = (d), .imm = (v)})
#define I_MOV64_REG(d, s)  ((struct bpfvm_insn){.code = 0xbf, .dst = (d), .src = (s)})
#define I_ADD64_REG(d, s)  ((struct bpfvm_insn){.code = 0x0f, .dst = (d), .src = (s)})
#define I_LDXW(d, s, o)	   ((struct bpfvm_insn){.code = 0x61, .dst = (d), .src = (s), .off = (o)})
#define I_LDXDW(d, s, o)   ((struct bpfvm_insn){.code = 0x79, .dst = (d), .src = (s), .off = (o)})
#define I_STXW(d, s, o)	   ((struct bpfvm_insn){.code = 0x63, .dst = (d), .src = (s), .off = (o)})
#define I_STW(d, o, v)	   ((struct bpfvm_insn){.code = 0x62, .dst = (d), .off = (o), .imm = (v)})
#define I_JEQ_IMM(d, v, o) ((struct bpfvm_insn){.code = 0x15, .dst = (d), .off = (o), .imm = (v)})
#define I_LD64_LO(d, lo)   ((struct bpfvm_insn){.code = 0x18, .dst = (d), .imm = (int32_t)(lo)})
#define I_LD64_HI(hi)	   ((struct bpfvm_insn){.imm = (int32_t)(hi)})
#define I_CALL(id)	   ((struct bpfvm_insn){.code = 0x85, .imm = (id)})
#define I_EXIT()	   ((struct bpfvm_insn){.code = 0x95})

#endif
