#!/usr/bin/env python3
"""instr_mix.py: the executed x86 instructions of one function, by kind, per unit of work.

Reads a callgrind profile taken with --dump-instr=yes, maps each executed address to its
mnemonic with objdump, and prints how many instructions of each kind (multiply-adds,
multiplies, adds, shuffles, loads, stores, scalar ...) the function ran, divided by UNITS
(for the blend benchmark: calls x groups of 8 joints). Counts, not times: repeatable
whatever else the machine does. FUNCTION is a regular expression matched at the start of
each symbol: `mb_blend_kernel_avx2_` takes the AVX2 kernel with its phase functions
(mb_blend_kernel_avx2__head_phase_k4 ...), `mb_blend_kernel_avx2__tail` one of them, a
trailing `$` the dispatcher alone. Usage (tools/bench/README_blend.md, "What bounds the
kernel"):

  valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out \\
      build/tools/bench/bench_blend --only clustered --k 4 --joints 256 --loop logexp 2000
  tools/bench/instr_mix.py cg.out build/tools/bench/bench_blend mb_blend_kernel_avx2_ 64000
"""
import collections
import re
import subprocess
import sys

NAMED = re.compile(r'(c?ob|c?fl|fi|fe|cfi|c?fn)=\((\d+)\)(?: (.*))?')


def executed(profile, binary_suffix):
    """Address -> self count of the instructions of the object whose path ends with
    binary_suffix (callgrind compresses names: '(id) name' once, then '(id)')."""
    names, counts = {}, collections.Counter()
    obj, addr, after_calls = None, 0, False
    with open(profile) as f:
        for line in f:
            m = NAMED.match(line)
            if m:
                key = (m.group(1).lstrip('c'), m.group(2))
                if m.group(3):
                    names[key] = m.group(3).strip()
                if m.group(1) == 'ob':
                    obj = names.get(key)
                continue
            if line.startswith('calls='):
                after_calls = True  # the next cost line is the call's inclusive cost
                continue
            if not line or line[0] not in '0123456789+-*':
                continue
            parts = line.split()
            a = parts[0]
            if a.startswith('0x'):
                addr = int(a, 16)
            elif a[0] == '+':
                addr += int(a[1:])
            elif a[0] == '-':
                addr -= int(a[1:])
            if after_calls:
                after_calls = False
                continue
            if obj and obj.endswith(binary_suffix) and len(parts) >= 3:
                counts[addr] += int(parts[2])
    return counts


def disassembly(binary):
    """Address -> (function, mnemonic, operands)."""
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', binary], capture_output=True,
                         text=True, check=True).stdout
    table, fn = {}, None
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.*)>:', line)
        if m:
            fn = m.group(2)
            continue
        m = re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*(.*)', line)
        if m:
            table[int(m.group(1), 16)] = (fn, m.group(2), m.group(3))
    return table


ARITH = {'mulps': 'mul', 'addps': 'add', 'subps': 'add', 'divps': 'div/sqrt',
         'sqrtps': 'div/sqrt', 'rsqrtps': 'div/sqrt', 'rcpps': 'div/sqrt', 'andps': 'logic',
         'andnps': 'logic', 'orps': 'logic', 'xorps': 'logic', 'minps': 'min/max',
         'maxps': 'min/max', 'blendvps': 'blend'}
SHUFFLE = ('unpcklps', 'unpckhps', 'shufps', 'insertf128', 'extractf128', 'permps',
           'perm2f128', 'permilps', 'broadcastss')


def kind(op, args):
    """The kind of one instruction (SSE and AVX spellings alike)."""
    base = op[1:] if op.startswith('v') else op
    if re.match(r'v?f(n?)m(add|sub)', op):
        return 'multiply-add'
    if base in ARITH:
        return ARITH[base]
    if base.startswith('cmp') and base.endswith('ps'):
        return 'compare'
    if base in SHUFFLE:
        return 'shuffle'
    if base in ('movaps', 'movups'):
        src = args.split(',')[0]
        return 'load' if '(' in src else ('store' if '(' in args else 'register move')
    if base.startswith('movmsk'):
        return 'mask to integer'
    if op.startswith('v') or base.endswith('ps') or base.endswith('ss'):
        return 'other vector'
    return 'scalar (integer, branches)'


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    profile, binary, function, units = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    counts = executed(profile, binary.split('/')[-1])
    table = disassembly(binary)
    kinds, memory_operands, total = collections.Counter(), 0, 0
    for addr, n in counts.items():
        if addr not in table or not re.match(function, table[addr][0]):
            continue
        _, op, args = table[addr]
        k = kind(op, args)
        kinds[k] += n
        total += n
        if '(' in args and k not in ('load', 'store', 'scalar (integer, branches)'):
            memory_operands += n
    if not total:
        sys.exit(f'instr_mix: no executed instruction of {function} in {profile}')
    print(f'{function}: {total / units:.1f} instructions per unit')
    for k, n in kinds.most_common():
        print(f'  {k:28s} {n / units:8.1f}')
    print(f'  {"(vector ops with a memory operand)":28s} {memory_operands / units:8.1f}')
    mul = kinds['multiply-add'] + kinds['mul']
    print(f'  {"multiply-add pipe ops":28s} {mul / units:8.1f}')


if __name__ == '__main__':
    main()
