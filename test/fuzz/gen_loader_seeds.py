#!/usr/bin/python3
# gen_loader_seeds.py OBJ DIR: fuzz_loader seeds with a CO-RE relocation on
# every instruction kind (issue 25 class 7). OBJ is the build's
# test/unit/bpfvm/core_kinds.bpf.o; its first core_relo record (the field
# load of pkt.a) is moved onto one insn of each kind of section 'generic'
# and each variant written as DIR/core_at_<kind>.elf.
import struct, sys, os

KINDS = {  # insn index in core_kinds' section 'generic' -> kind
    1: 'ldx', 2: 'alu_k', 3: 'stx', 4: 'ldimm64_const', 5: 'ldimm64_hi', 6: 'stx_dw',
    9: 'ldimm64_map', 11: 'call_helper', 12: 'jmp', 14: 'atomic', 17: 'alu_x',
    23: 'ldimm64_func', 27: 'ldimm64_data', 35: 'call_subprog', 36: 'exit',
}

img = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', img, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', img, 0x3a)
def shdr(i):
    return struct.unpack_from('<IIQQQQIIQQ', img, shoff + i * shentsize)
stroff = shdr(shstrndx)[4]
def name(i):
    n = stroff + shdr(i)[0]
    return bytes(img[n:img.index(0, n)]).decode()
ext = next(shdr(i)[4] for i in range(shnum) if name(i) == '.BTF.ext')
hdr_len, = struct.unpack_from('<I', img, ext + 4)
core_off, = struct.unpack_from('<I', img, ext + 24)
sub = ext + hdr_len + core_off
first = sub + 4 + 8  # record size word, then {section name, count}
assert struct.unpack_from('<I', img, first)[0] == 8, 'the first record is not pkt.a at insn 1'
for pc, kind in KINDS.items():
    out = bytearray(img)
    struct.pack_into('<I', out, first, pc * 8)
    open(os.path.join(sys.argv[2], 'core_at_%s.elf' % kind), 'wb').write(out)
