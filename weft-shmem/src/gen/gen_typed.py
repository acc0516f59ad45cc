#!/usr/bin/env python3
"""Generates the typed OpenSHMEM families of weft.shmem (one line per C routine) from the type tables of
the OpenSHMEM 1.5 specification (plus 1.6's sum scans on the arithmetic reduction types).
Run from the repository root:  python3 weft-shmem/src/gen/gen_typed.py
It rewrites ShmemRma.java, ShmemAtomics.java, ShmemWaits.java and ShmemCollectives.java from the
templates in weft-shmem/src/gen/templates/ (the hand-written part of each class) plus the typed methods."""
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'main', 'java', 'weft', 'shmem')
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'templates')

# C type name -> (Java element type, size in bytes, reduction kind)
RMA = [
    ('float', 'float', 4, 'F32'), ('double', 'double', 8, 'F64'), ('char', 'byte', 1, 'S8'),
    ('schar', 'byte', 1, 'S8'), ('short', 'short', 2, 'S16'), ('int', 'int', 4, 'S32'), ('long', 'long', 8, 'S64'),
    ('longlong', 'long', 8, 'S64'), ('uchar', 'byte', 1, 'U8'), ('ushort', 'short', 2, 'U16'),
    ('uint', 'int', 4, 'U32'), ('ulong', 'long', 8, 'U64'), ('ulonglong', 'long', 8, 'U64'),
    ('int8', 'byte', 1, 'S8'), ('int16', 'short', 2, 'S16'), ('int32', 'int', 4, 'S32'),
    ('int64', 'long', 8, 'S64'), ('uint8', 'byte', 1, 'U8'), ('uint16', 'short', 2, 'U16'),
    ('uint32', 'int', 4, 'U32'), ('uint64', 'long', 8, 'U64'), ('size', 'long', 8, 'U64'),
    ('ptrdiff', 'long', 8, 'S64'),
]
T = {t[0]: t for t in RMA}
AMO_STANDARD = ['int', 'long', 'longlong', 'uint', 'ulong', 'ulonglong', 'int32', 'int64', 'uint32', 'uint64',
                'size', 'ptrdiff']
AMO_EXTENDED = ['float', 'double']
AMO_BITWISE = ['uint', 'ulong', 'ulonglong', 'int32', 'int64', 'uint32', 'uint64']
P2P = ['short', 'int', 'long', 'longlong', 'ushort', 'uint', 'ulong', 'ulonglong', 'int32', 'int64', 'uint32',
       'uint64', 'size', 'ptrdiff']
REDUCE_BITWISE = ['uchar', 'ushort', 'uint', 'ulong', 'ulonglong', 'int8', 'int16', 'int32', 'int64', 'uint8',
                  'uint16', 'uint32', 'uint64', 'size']
REDUCE_ARITH = ['char', 'schar', 'short', 'int', 'long', 'longlong', 'ptrdiff', 'uchar', 'ushort', 'uint', 'ulong',
                'ulonglong', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'size',
                'float', 'double']
SIZED = [8, 16, 32, 64, 128]


def bits(c, v):
    j = T[c][1]
    return {'float': f'Float.floatToRawIntBits({v})', 'double': f'Double.doubleToRawLongBits({v})'}.get(j, v)


def back(c, v):
    j = T[c][1]
    return {'float': f'Float.intBitsToFloat((int) {v})', 'double': f'Double.longBitsToDouble({v})',
            'byte': f'(byte) {v}', 'short': f'(short) {v}', 'int': f'(int) {v}', 'long': v}[j]


def cap(s):
    return s[0].upper() + s[1:]


def rma():
    out = []
    for bits_ in SIZED:
        s = bits_ // 8
        for op, nbi in (('put', 'false'), ('get', 'false'), ('put', 'true'), ('get', 'true')):
            name = f'{op}{bits_}' + ('Nbi' if nbi == 'true' else '')
            out.append(f'    public final void {name}(MemorySegment dest, MemorySegment source, long nelems, int pe) '
                       f'{{ {op}(dest, source, nelems, {s}, pe, {nbi}); }}')
        out.append(f'    public final void iput{bits_}(MemorySegment dest, MemorySegment source, long dst, long sst, '
                   f'long nelems, int pe) {{ ops.iput(dest, source, dst, sst, nelems, {s}, pe); }}')
        out.append(f'    public final void iget{bits_}(MemorySegment dest, MemorySegment source, long dst, long sst, '
                   f'long nelems, int pe) {{ ops.iget(dest, source, dst, sst, nelems, {s}, pe); }}')
        out.append(f'    public final void ibput{bits_}(MemorySegment dest, MemorySegment source, long dst, long sst, '
                   f'long bsize, long nblocks, int pe) {{ ops.ibput(dest, source, dst, sst, bsize, nblocks, {s}, pe); }}')
        out.append(f'    public final void ibget{bits_}(MemorySegment dest, MemorySegment source, long dst, long sst, '
                   f'long bsize, long nblocks, int pe) {{ ops.ibget(dest, source, dst, sst, bsize, nblocks, {s}, pe); }}')
    for c, j, s, _ in RMA:
        out.append(f'    // {c}: C {c}, Java {j}, {s} byte(s)')
        for op, nbi in (('Put', 'false'), ('PutNbi', 'true')):
            out.append(f'    public final void {c}{op}(MemorySegment dest, MemorySegment source, long nelems, int pe) '
                       f'{{ put(dest, source, nelems, {s}, pe, {nbi}); }}')
            out.append(f'    public final void {c}{op}(MemorySegment dest, {j}[] source, long nelems, int pe) '
                       f'{{ put(dest, MemorySegment.ofArray(source), nelems, {s}, pe, {nbi}); }}')
        for op, nbi in (('Get', 'false'), ('GetNbi', 'true')):
            out.append(f'    public final void {c}{op}(MemorySegment dest, MemorySegment source, long nelems, int pe) '
                       f'{{ get(dest, source, nelems, {s}, pe, {nbi}); }}')
            out.append(f'    public final void {c}{op}({j}[] dest, MemorySegment source, long nelems, int pe) '
                       f'{{ get(MemorySegment.ofArray(dest), source, nelems, {s}, pe, {nbi}); }}')
        out.append(f'    public final void {c}P(MemorySegment dest, {j} value, int pe) '
                   f'{{ ops.p(dest, {bits(c, "value")}, {s}, pe); }}')
        out.append(f'    public final {j} {c}G(MemorySegment source, int pe) {{ return {back(c, f"ops.g(source, {s}, pe)")}; }}')
        out.append(f'    public final void {c}Iput(MemorySegment dest, MemorySegment source, long dst, long sst, long nelems, '
                   f'int pe) {{ ops.iput(dest, source, dst, sst, nelems, {s}, pe); }}')
        out.append(f'    public final void {c}Iput(MemorySegment dest, {j}[] source, long dst, long sst, long nelems, '
                   f'int pe) {{ ops.iput(dest, MemorySegment.ofArray(source), dst, sst, nelems, {s}, pe); }}')
        out.append(f'    public final void {c}Iget(MemorySegment dest, MemorySegment source, long dst, long sst, long nelems, '
                   f'int pe) {{ ops.iget(dest, source, dst, sst, nelems, {s}, pe); }}')
        out.append(f'    public final void {c}Iget({j}[] dest, MemorySegment source, long dst, long sst, long nelems, '
                   f'int pe) {{ ops.iget(MemorySegment.ofArray(dest), source, dst, sst, nelems, {s}, pe); }}')
        out.append(f'    public final void {c}Ibput(MemorySegment dest, MemorySegment source, long dst, long sst, long bsize, '
                   f'long nblocks, int pe) {{ ops.ibput(dest, source, dst, sst, bsize, nblocks, {s}, pe); }}')
        out.append(f'    public final void {c}Ibget(MemorySegment dest, MemorySegment source, long dst, long sst, long bsize, '
                   f'long nblocks, int pe) {{ ops.ibget(dest, source, dst, sst, bsize, nblocks, {s}, pe); }}')
    return out


def atomics():
    out = []
    for c in AMO_STANDARD + AMO_EXTENDED:
        _, j, s, _ = T[c]
        out.append(f'    // {c}: {"standard" if c in AMO_STANDARD else "extended"}'
                   f'{" and bitwise" if c in AMO_BITWISE else ""} atomics, Java {j}')
        out.append(f'    public final {j} {c}AtomicFetch(MemorySegment source, int pe) '
                   f'{{ return {back(c, f"ops.fetch(source, {s}, pe)")}; }}')
        out.append(f'    public final void {c}AtomicSet(MemorySegment dest, {j} value, int pe) '
                   f'{{ ops.amo(AtomicOp.SWAP, dest, {bits(c, "value")}, {s}, pe, false); }}')
        swap = back(c, 'ops.amo(AtomicOp.SWAP, dest, ' + bits(c, 'value') + f', {s}, pe, true)')
        out.append(f'    public final {j} {c}AtomicSwap(MemorySegment dest, {j} value, int pe) {{ return {swap}; }}')
        out.append(f'    public final void {c}AtomicFetchNbi(MemorySegment fetch, MemorySegment source, int pe) '
                   f'{{ ops.amoNbi(AtomicOp.ADD, fetch, source, 0, {s}, pe); }}')
        out.append(f'    public final void {c}AtomicSwapNbi(MemorySegment fetch, MemorySegment dest, {j} value, int pe) '
                   f'{{ ops.amoNbi(AtomicOp.SWAP, fetch, dest, {bits(c, "value")}, {s}, pe); }}')
        if c in AMO_EXTENDED:
            continue
        out.append(f'    public final {j} {c}AtomicCompareSwap(MemorySegment dest, {j} cond, {j} value, int pe) '
                   f'{{ return {back(c, f"ops.cswap(dest, cond, value, {s}, pe)")}; }}')
        out.append(f'    public final void {c}AtomicCompareSwapNbi(MemorySegment fetch, MemorySegment dest, {j} cond, '
                   f'{j} value, int pe) {{ ops.cswapNbi(fetch, dest, cond, value, {s}, pe); }}')
        out.append(f'    public final {j} {c}AtomicFetchInc(MemorySegment dest, int pe) '
                   f'{{ return {back(c, f"ops.amo(AtomicOp.ADD, dest, 1, {s}, pe, true)")}; }}')
        out.append(f'    public final void {c}AtomicInc(MemorySegment dest, int pe) '
                   f'{{ ops.amo(AtomicOp.ADD, dest, 1, {s}, pe, false); }}')
        out.append(f'    public final void {c}AtomicFetchIncNbi(MemorySegment fetch, MemorySegment dest, int pe) '
                   f'{{ ops.amoNbi(AtomicOp.ADD, fetch, dest, 1, {s}, pe); }}')
        out.append(f'    public final {j} {c}AtomicFetchAdd(MemorySegment dest, {j} value, int pe) '
                   f'{{ return {back(c, f"ops.amo(AtomicOp.ADD, dest, value, {s}, pe, true)")}; }}')
        out.append(f'    public final void {c}AtomicAdd(MemorySegment dest, {j} value, int pe) '
                   f'{{ ops.amo(AtomicOp.ADD, dest, value, {s}, pe, false); }}')
        out.append(f'    public final void {c}AtomicFetchAddNbi(MemorySegment fetch, MemorySegment dest, {j} value, int pe) '
                   f'{{ ops.amoNbi(AtomicOp.ADD, fetch, dest, value, {s}, pe); }}')
        if c not in AMO_BITWISE:
            continue
        for op in ('And', 'Or', 'Xor'):
            u = op.upper()
            out.append(f'    public final void {c}Atomic{op}(MemorySegment dest, {j} value, int pe) '
                       f'{{ ops.amo(AtomicOp.{u}, dest, value, {s}, pe, false); }}')
            out.append(f'    public final {j} {c}AtomicFetch{op}(MemorySegment dest, {j} value, int pe) '
                       f'{{ return {back(c, f"ops.amo(AtomicOp.{u}, dest, value, {s}, pe, true)")}; }}')
            out.append(f'    public final void {c}AtomicFetch{op}Nbi(MemorySegment fetch, MemorySegment dest, {j} value, '
                       f'int pe) {{ ops.amoNbi(AtomicOp.{u}, fetch, dest, value, {s}, pe); }}')
    out.append('    // put with signal, typed and sized')
    for bits_ in SIZED:
        s = bits_ // 8
        for nbi in ('false', 'true'):
            name = f'put{bits_}Signal' + ('Nbi' if nbi == 'true' else '')
            out.append(f'    public final void {name}(MemorySegment dest, MemorySegment source, long nelems, '
                       f'MemorySegment sigAddr, long signal, int sigOp, int pe) '
                       f'{{ putSignal(dest, source, nelems, {s}, sigAddr, signal, sigOp, pe, {nbi}); }}')
    for c, j, s, _ in RMA:
        for nbi in ('false', 'true'):
            name = f'{c}PutSignal' + ('Nbi' if nbi == 'true' else '')
            out.append(f'    public final void {name}(MemorySegment dest, MemorySegment source, long nelems, '
                       f'MemorySegment sigAddr, long signal, int sigOp, int pe) '
                       f'{{ putSignal(dest, source, nelems, {s}, sigAddr, signal, sigOp, pe, {nbi}); }}')
            out.append(f'    public final void {name}(MemorySegment dest, {j}[] source, long nelems, '
                       f'MemorySegment sigAddr, long signal, int sigOp, int pe) '
                       f'{{ putSignal(dest, MemorySegment.ofArray(source), nelems, {s}, sigAddr, signal, sigOp, pe, {nbi}); }}')
    return out


ELEM = {'S16': 'S16', 'U16': 'U16', 'S32': 'S32', 'U32': 'U32', 'S64': 'S64', 'U64': 'U64'}


def waits():
    out = []
    for c in P2P:
        _, j, s, kind = T[c]
        e = f'PointSync.Elem.{ELEM[kind]}'
        out.append(f'    // {c}: Java {j}')
        out.append(f'    public final void {c}WaitUntil(MemorySegment ivar, int cmp, {j} cmpValue) '
                   f'{{ sync.waitUntil(ivar, {e}, cmp, cmpValue); }}')
        out.append(f'    public final boolean {c}Test(MemorySegment ivar, int cmp, {j} cmpValue) '
                   f'{{ return sync.test(ivar, {e}, cmp, cmpValue); }}')
        for suffix, mode, ret in (('All', 0, 'void'), ('Any', 1, 'long'), ('Some', 2, 'long')):
            idx = 'long[] indices, ' if mode == 2 else ''
            idxArg = 'indices' if mode == 2 else 'null'
            body = f'sync.waitMany(ivars, nelems, {e}, status, {idxArg}, cmp, null, cmpValue, {mode}, true)'
            out.append(f'    public final {ret} {c}WaitUntil{suffix}(MemorySegment ivars, long nelems, {idx}int[] status, '
                       f'int cmp, {j} cmpValue) {{ {"" if ret == "void" else "return "}{body}; }}')
            body = f'sync.waitMany(ivars, nelems, {e}, status, {idxArg}, cmp, widen(cmpValues), 0, {mode}, true)'
            out.append(f'    public final {ret} {c}WaitUntil{suffix}Vector(MemorySegment ivars, long nelems, {idx}int[] status, '
                       f'int cmp, {j}[] cmpValues) {{ {"" if ret == "void" else "return "}{body}; }}')
            tret = 'boolean' if mode == 0 else 'long'
            conv = ' == 1' if mode == 0 else ''
            body = f'sync.waitMany(ivars, nelems, {e}, status, {idxArg}, cmp, null, cmpValue, {mode}, false){conv}'
            out.append(f'    public final {tret} {c}Test{suffix}(MemorySegment ivars, long nelems, {idx}int[] status, '
                       f'int cmp, {j} cmpValue) {{ return {body}; }}')
            body = f'sync.waitMany(ivars, nelems, {e}, status, {idxArg}, cmp, widen(cmpValues), 0, {mode}, false){conv}'
            out.append(f'    public final {tret} {c}Test{suffix}Vector(MemorySegment ivars, long nelems, {idx}int[] status, '
                       f'int cmp, {j}[] cmpValues) {{ return {body}; }}')
    return out


def collectives():
    out = []
    for c, j, s, kind in RMA:
        out.append(f'    // {c}: Java {j}, {s} byte(s)')
        out.append(f'    public final void {c}Broadcast(ShmemTeam team, MemorySegment dest, MemorySegment source, long nelems, '
                   f'int peRoot) {{ coll.broadcast(teams.resolve(team), dest, source, bytes(nelems, {s}), peRoot); }}')
        out.append(f'    public final void {c}Collect(ShmemTeam team, MemorySegment dest, MemorySegment source, long nelems) '
                   f'{{ coll.collect(teams.resolve(team), dest, source, bytes(nelems, {s})); }}')
        out.append(f'    public final void {c}Fcollect(ShmemTeam team, MemorySegment dest, MemorySegment source, long nelems) '
                   f'{{ coll.fcollect(teams.resolve(team), dest, source, bytes(nelems, {s})); }}')
        out.append(f'    public final void {c}Alltoall(ShmemTeam team, MemorySegment dest, MemorySegment source, long nelems) '
                   f'{{ coll.alltoall(teams.resolve(team), dest, source, bytes(nelems, {s})); }}')
        out.append(f'    public final void {c}Alltoalls(ShmemTeam team, MemorySegment dest, MemorySegment source, long dst, '
                   f'long sst, long nelems) {{ coll.alltoalls(teams.resolve(team), dest, source, dst, sst, nelems, {s}); }}')
        ops = (['And', 'Or', 'Xor'] if c in REDUCE_BITWISE else []) + \
              (['Max', 'Min', 'Sum', 'Prod'] if c in REDUCE_ARITH else [])
        for op in ops:
            out.append(f'    public final void {c}{op}Reduce(ShmemTeam team, MemorySegment dest, MemorySegment source, '
                       f'long nreduce) {{ coll.reduce(teams.resolve(team), dest, source, nreduce, Reduction.Kind.{kind}, '
                       f'Reduction.Op.{op.upper()}); }}')
        if c in REDUCE_ARITH:
            for scan, inclusive in (('Inscan', 'true'), ('Exscan', 'false')):
                out.append(f'    public final void {c}Sum{scan}(ShmemTeam team, MemorySegment dest, MemorySegment source, '
                           f'long nelems) {{ coll.scan(teams.resolve(team), dest, source, nelems, Reduction.Kind.{kind}, '
                           f'Reduction.Op.SUM, {inclusive}); }}')
    return out


HEADER = ('// GENERATED by weft-shmem/src/gen/gen_typed.py from weft-shmem/src/gen/templates/{0}: edit those, then run\n'
          '// python3 weft-shmem/src/gen/gen_typed.py\n')

for name, gen in (('ShmemRma', rma), ('ShmemAtomics', atomics), ('ShmemWaits', waits),
                  ('ShmemCollectives', collectives)):
    with open(os.path.join(TEMPLATES, name + '.java.in')) as f:
        template = f.read()
    body = '\n'.join(gen()) + '\n'
    text = HEADER.format(name + '.java.in') + template.replace('    // @TYPED@\n', body)
    with open(os.path.join(ROOT, name + '.java'), 'w') as f:
        f.write(text)
    print(name, len(text.splitlines()), 'lines')
