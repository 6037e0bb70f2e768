"""f32 and f64 arithmetic (opcodes 0x21, 0x23): every rounding mode, dyn, flush, specials, min/max, modifiers."""
from common import *  # noqa: F401,F403

T24, T25 = p32(-24), p32(-25)

ADD32 = [
    (ONE32, T24), (ONE32, p32(-24, 1 + Fr(1, 1 << 23))), (ONE32, p32(-25, 3)), (ONE32, T25),
    (0x3F800001, T24), (n32(ONE32), n32(T24)), (n32(0x3F800001), n32(T24)), (ONE32, n32(ONE32)),
    (0x80000000, 0x80000000), (0, 0x80000000), (0x80000000, 0), (INF32, n32(INF32)), (INF32, ONE32),
    (n32(INF32), n32(INF32)), (QNAN32, ONE32), (SNAN32, ONE32), (ONE32, NNAN32), (MAX32, MAX32),
    (n32(MAX32), n32(MAX32)), (MAX32, p32(103)), (SUB32, SUB32), (MIN32, n32(SUB32)), (0x00800001, n32(MIN32)),
    (n32(0x00800001), MIN32), (f32(1.5), f32(2.25)), (f32(1e30), ONE32), (n32(f32(1e-30)), ONE32),
    (f32(0.1), f32(0.2)), (0x007FFFFF, SUB32), (n32(SUB32), 0),
]
MUL32 = [
    (p32(0, 1 + Fr(1, 4096)), p32(0, 1 + Fr(1, 4096))), (p32(0, 1 + Fr(1, 4096)), n32(p32(0, 1 + Fr(1, 4096)))),
    (f32(3.0), f32(1 / 3)), (f32(0.1), f32(0.1)), (0, INF32), (n32(INF32), 0), (0x80000000, f32(5.0)),
    (0x80000000, f32(-5.0)), (n32(INF32), f32(-2.0)), (INF32, f32(-2.0)), (p32(-75), p32(-75)),
    (n32(p32(-75)), p32(-75)), (p32(-100), p32(-30)), (MIN32, 0x3F7FFFFF), (n32(MIN32), 0x3F7FFFFF),
    (p32(127), f32(2.0)), (n32(p32(127)), f32(2.0)), (MAX32, 0x3F800001), (QNAN32, 0), (SUB32, p32(20)),
    (f32(1.5), f32(-2.5)), (p32(-149, 3), f32(0.5)), (SNAN32, ONE32), (f32(7.0), f32(1 / 7)),
]
DIV32 = [
    (ONE32, f32(3.0)), (f32(2.0), f32(3.0)), (n32(ONE32), f32(3.0)), (ONE32, f32(-3.0)), (ONE32, 0),
    (n32(ONE32), 0), (ONE32, 0x80000000), (0, 0), (INF32, INF32), (0x80000000, 0x80000000), (f32(5.0), INF32),
    (f32(-5.0), INF32), (INF32, f32(5.0)), (INF32, 0x80000000), (0, f32(5.0)), (0x80000000, f32(5.0)),
    (ONE32, SUB32), (p32(-100), p32(30)), (MIN32, f32(3.0)), (QNAN32, ONE32), (ONE32, SNAN32),
    (f32(7.0), f32(2.0)), (MAX32, f32(0.5)), (ONE32, f32(10.0)), (SUB32, f32(2.0)), (n32(SUB32), f32(4.0)),
]
FMA32 = [
    (ONE32, ONE32, T24), (ONE32, ONE32, n32(T24)), (ONE32, ONE32, p32(-24, -1 - Fr(1, 1 << 23))),
    (p32(0, 1 + Fr(1, 4096)), p32(0, 1 + Fr(1, 4096)), n32(p32(0, 1 + Fr(1, 2048)))),
    (0x3F800001, 0x3F7FFFFF, n32(ONE32)), (ONE32, ONE32, n32(ONE32)), (0x80000000, f32(5.0), 0x80000000),
    (0, f32(5.0), 0x80000000), (0x80000000, f32(-5.0), 0), (0, INF32, QNAN32), (INF32, ONE32, n32(INF32)),
    (INF32, ONE32, INF32), (ONE32, ONE32, n32(INF32)), (p32(-75), p32(-75), 0), (p32(-75), p32(-75), 0x80000000),
    (n32(p32(-75)), p32(-75), 0), (MAX32, f32(2.0), n32(MAX32)), (MAX32, f32(2.0), 0), (MIN32, f32(0.5), 0),
    (SUB32, p32(30), 0), (f32(0.1), f32(10.0), n32(ONE32)), (QNAN32, 0, ONE32), (ONE32, ONE32, SNAN32),
    (f32(3.0), f32(5.0), f32(7.0)), (MIN32, f32(-0.5), SUB32), (MAX32, MAX32, n32(INF32)),
]
SQRT32 = [
    (f32(2.0),), (f32(3.0),), (f32(4.0),), (f32(0.25),), (SUB32,), (n32(SUB32),), (0x80000000,), (0,),
    (n32(ONE32),), (n32(INF32),), (INF32,), (QNAN32,), (SNAN32,), (MAX32,), (MIN32,), (ONE32,), (0x3F800001,),
    (0x3F7FFFFF,), (f32(1e-40),), (f32(10.0),), (p32(-148, 3),), (NNAN32,),
]

A64 = p64(-53)
ADD64 = [
    (ONE64, A64), (ONE64, p64(-53, 1 + Fr(1, 1 << 52))), (ONE64, p64(-54)), (0x3FF0000000000001, A64),
    (n64(ONE64), n64(A64)), (ONE64, n64(ONE64)), (n64(0), n64(0)), (0, n64(0)), (INF64, n64(INF64)),
    (INF64, ONE64), (QNAN64, ONE64), (SNAN64, ONE64), (ONE64, NNAN64), (MAX64, MAX64), (n64(MAX64), n64(MAX64)),
    (SUB64, SUB64), (MIN64, n64(SUB64)), (f64(1.5), f64(2.25)), (f64(0.1), f64(0.2)), (f64(1e300), ONE64),
    (n64(f64(1e-300)), ONE64), (0x000FFFFFFFFFFFFF, SUB64), (f64(2.0 ** 60), f64(-1.0)),
]
MUL64 = [
    (p64(0, 1 + Fr(1, 1 << 26)), p64(0, 1 + Fr(1, 1 << 26))), (f64(3.0), f64(1 / 3)), (f64(0.1), f64(0.1)),
    (0, INF64), (n64(0), f64(5.0)), (n64(INF64), f64(-2.0)), (p64(-537), p64(-538)), (p64(-1000), p64(-60)),
    (MIN64, 0x3FEFFFFFFFFFFFFF), (p64(1023), f64(2.0)), (n64(p64(1023)), f64(2.0)), (QNAN64, 0),
    (f64(1.5), f64(-2.5)), (SUB64, f64(0.5)), (p64(-1074, 3), f64(0.5)),
]
DIV64 = [
    (ONE64, f64(3.0)), (f64(2.0), f64(3.0)), (n64(ONE64), f64(3.0)), (ONE64, 0), (ONE64, n64(0)), (0, 0),
    (INF64, INF64), (f64(5.0), INF64), (f64(-5.0), INF64), (INF64, f64(5.0)), (n64(0), f64(5.0)),
    (ONE64, SUB64), (p64(-1000), p64(70)), (QNAN64, ONE64), (f64(7.0), f64(2.0)), (MAX64, f64(0.5)),
    (ONE64, f64(10.0)), (SUB64, f64(2.0)),
]
FMA64 = [
    (ONE64, ONE64, A64), (ONE64, ONE64, n64(A64)),
    (p64(0, 1 + Fr(1, 1 << 26)), p64(0, 1 + Fr(1, 1 << 26)), n64(p64(0, 1 + Fr(1, 1 << 25)))),
    (ONE64, ONE64, n64(ONE64)), (n64(0), f64(5.0), n64(0)), (0, f64(5.0), n64(0)), (0, INF64, QNAN64),
    (INF64, ONE64, n64(INF64)), (p64(-538), p64(-537), 0), (MAX64, f64(2.0), n64(MAX64)), (MAX64, f64(2.0), 0),
    (f64(0.1), f64(10.0), n64(ONE64)), (f64(3.0), f64(5.0), f64(7.0)), (QNAN64, 0, ONE64), (SUB64, f64(0.5), 0),
]
SQRT64 = [
    (f64(2.0),), (f64(3.0),), (f64(4.0),), (SUB64,), (n64(SUB64),), (n64(0),), (0,), (n64(ONE64),),
    (n64(INF64),), (INF64,), (QNAN64,), (MAX64,), (0x3FF0000000000001,), (f64(10.0),), (p64(-1073),),
]
MINMAX32 = [
    (ONE32, f32(2.0)), (f32(2.0), ONE32), (QNAN32, ONE32), (ONE32, QNAN32), (SNAN32, f32(-3.0)),
    (n32(ONE32), NNAN32), (QNAN32, SNAN32), (0, 0x80000000), (0x80000000, 0), (n32(INF32), INF32),
    (INF32, MAX32), (SUB32, 0x80000000), (n32(SUB32), 0), (SUB32, 0x00000002), (f32(-1.5), f32(-1.25)),
    (f32(-0.0), f32(-0.0)), (f32(0.5), f32(0.5)), (QNAN32, INF32), (f32(1.5), f32(-2.5)), (MIN32, SUB32),
]
MINMAX64 = [
    (ONE64, f64(2.0)), (QNAN64, ONE64), (ONE64, SNAN64), (NNAN64, f64(-3.0)), (QNAN64, SNAN64), (0, n64(0)),
    (n64(0), 0), (n64(INF64), INF64), (SUB64, n64(0)), (f64(-1.5), f64(-1.25)), (0x3FF0000000000001, ONE64),
    (f64(1.5), f64(-2.5)),
]

OPS32 = {"add": (add, 2), "sub": (sub, 2), "mul": (mul, 2), "div": (div, 2), "fma": (fma, 3), "sqrt": (sqrt, 1)}
EDGES32 = {"add": ADD32, "sub": ADD32, "mul": MUL32, "div": DIV32, "fma": FMA32, "sqrt": SQRT32}
EDGES64 = {"add": ADD64, "sub": ADD64, "mul": MUL64, "div": DIV64, "fma": FMA64, "sqrt": SQRT64}


def model(fmt, op, row, mode, fl, mods=None, sat_=False):
    """Result of f.<op> on one lane's (raw) sources: flush (f32 only), modifiers, the op, sat."""
    fn, n = OPS32[op]
    mods = mods or [(False, False)] * n
    if fmt is S:
        xs = [in32(x, fl, *m) for x, m in zip(row, mods)]
    else:
        xs = [in64(x, *m) for x, m in zip(row, mods)]
    d = fn(fmt, *xs, mode, fl and fmt is S)
    return sat(fmt, d) if sat_ else d


def insn(op, fmt, srcs, rm=None, sat_=False, dst=10):
    t = "f.%s.%s v%d, %s" % (op, "f32" if fmt is S else "f64", dst, ", ".join(s.text() for s in srcs))
    if sat_:
        t += ", sat"
    if rm:
        t += ", " + rm
    return t


def srcs_for(fmt, n, mods=None):
    w = 32 if fmt is S else 64
    regs = [1, 2, 3] if fmt is S else [2, 4, 6]
    mods = mods or [(False, False)] * n
    return [Src(regs[k], w, *mods[k]) for k in range(n)]


def arith(fmt, op, edges):
    out = []
    n = OPS32[op][1]
    w = 32 if fmt is S else 64
    fill = filler(n, w)
    for name, rm, fcsr, mode, fl, _ in mode_variants():
        for gi, rows in enumerate(chunks(edges, fill)):
            nm = "f.%s.%s edges, %s%s" % (op, "f32" if fmt is S else "f64", name, " (%d)" % gi if gi else "")
            out.append(case(nm, insn(op, fmt, srcs_for(fmt, n), rm), srcs_for(fmt, n), 10, rows,
                            lambda r, m=mode, f=fl: model(fmt, op, r, m, f), fcsr=fcsr, dst_width=w))
    rows = [fill() for _ in range(L)]
    out.append(case("f.%s.%s random values (EXEC 0x0f0f00ff)" % (op, "f32" if fmt is S else "f64"),
                    insn(op, fmt, srcs_for(fmt, n)), srcs_for(fmt, n), 10, rows,
                    lambda r: model(fmt, op, r, RNE, False), exec_=PART_EXEC, dst_width=w))
    return out


def minmax_cases():
    out = []
    for fmt, edges, w in ((S, MINMAX32, 32), (D, MINMAX64, 64)):
        t = "f32" if fmt is S else "f64"
        for want_max in (False, True):
            opn = "max" if want_max else "min"
            for fcsr in (0, FTZ32 | FRM[RUP]):
                fl = bool(fcsr & FTZ32) and fmt is S
                for rows in chunks(edges, filler(2, w)):
                    out.append(case("f.%s.%s edges (fcsr 0x%x)" % (opn, t, fcsr), insn(opn, fmt, srcs_for(fmt, 2)),
                                    srcs_for(fmt, 2), 10, rows,
                                    lambda r, fl=fl, wm=want_max: minmax(fmt, *[daz(fmt, x, fl) for x in r], wm),
                                    fcsr=fcsr, dst_width=w))
            mods = [(False, True), (True, False)]
            for rows in chunks(edges, filler(2, w)):
                def fn(r, wm=want_max):
                    xs = [modify(fmt, x, *m) for x, m in zip(r, mods)]
                    return sat(fmt, minmax(fmt, *xs, wm))
                out.append(case("f.%s.%s |a|, -b, sat" % (opn, t), insn(opn, fmt, srcs_for(fmt, 2, mods), sat_=True),
                                srcs_for(fmt, 2, mods), 10, rows, fn, dst_width=w))
    return out


SAT32 = [(f32(-1.0), 0), (f32(0.5), 0), (f32(0.75), f32(0.5)), (QNAN32, 0), (0x80000000, 0), (INF32, 0),
         (n32(INF32), 0), (SUB32, 0), (ONE32, 0), (0x3F800001, 0), (f32(0.5), f32(0.5)), (n32(SUB32), 0),
         (f32(-0.25), f32(0.25)), (MAX32, MAX32)]
SAT64 = [(f64(-1.0), 0), (f64(0.5), 0), (f64(0.75), f64(0.5)), (QNAN64, 0), (n64(0), 0), (INF64, 0),
         (n64(INF64), 0), (SUB64, 0), (ONE64, 0), (0x3FF0000000000001, 0), (f64(0.5), f64(0.5))]


def modifier_cases():
    """neg/abs on each source (NaN and zeros included: the sign bit only), sat after every op, aliasing."""
    out = []
    combos2 = [[(True, False), (False, False)], [(False, False), (True, False)], [(False, True), (False, False)],
               [(True, True), (True, True)], [(False, True), (True, False)], [(True, False), (False, True)]]
    for fmt, edges, w in ((S, ADD32, 32), (D, ADD64, 64)):
        t = "f32" if fmt is S else "f64"
        for mods in combos2:
            for op in ("add", "sub", "mul", "div"):
                for rows in chunks(edges[:30], filler(2, w)):
                    s = srcs_for(fmt, 2, mods)
                    out.append(case("f.%s.%s %s" % (op, t, ", ".join(x.text() for x in s)), insn(op, fmt, s), s, 10,
                                    rows, lambda r, o=op, m=mods: model(fmt, o, r, RNE, False, m), dst_width=w))
        satrows = SAT32 if fmt is S else SAT64
        for op in ("add", "sub", "mul", "div", "fma", "sqrt"):
            n = OPS32[op][1]
            rows = chunks([(a, b, b)[:n] for a, b in satrows], filler(n, w))[0]
            for rm, mode in (("rne", RNE), ("rdn", RDN)):
                out.append(case("f.%s.%s sat (%s)" % (op, t, rm), insn(op, fmt, srcs_for(fmt, n), rm, True),
                                srcs_for(fmt, n), 10, rows, lambda r, o=op, m=mode: model(fmt, o, r, m, False, None, True),
                                dst_width=w))
        m3 = [(True, False), (False, True), (True, True)]
        fe = FMA32 if fmt is S else FMA64
        out.append(case("f.fma.%s -a, |b|, -|c|, sat" % t, insn("fma", fmt, srcs_for(fmt, 3, m3), None, True),
                        srcs_for(fmt, 3, m3), 10, chunks(fe[:30], filler(3, w))[0],
                        lambda r: model(fmt, "fma", r, RNE, False, m3, True), dst_width=w))
        for m1 in ([(True, False)], [(False, True)], [(True, True)]):
            s = srcs_for(fmt, 1, m1)
            se = SQRT32 if fmt is S else SQRT64
            out.append(case("f.sqrt.%s %s" % (t, s[0].text()), insn("sqrt", fmt, s), s, 10, chunks(se, filler(1, w))[0],
                            lambda r, m=m1: model(fmt, "sqrt", r, RNE, False, m), dst_width=w))
    # Under ftz32 the flush comes first: -|subnormal| is -0, and so on.
    m2 = [(True, True), (True, False)]
    s = srcs_for(S, 2, m2)
    out.append(case("f.add.f32 -|a|, -b with ftz32", insn("add", S, s), s, 10, chunks(ADD32, filler(2))[0],
                    lambda r: model(S, "add", r, RNE, True, m2), fcsr=FTZ32))
    # rd aliasing a source: every lane reads its sources before the write.
    rows = chunks(ADD32, filler(2))[0]
    out.append(case("f.mul.f32 v1, v1, v2 (rd = rs1)", "f.mul.f32 v1, v1, v2", [Src(1), Src(2)], 1, rows,
                    lambda r: mul(S, r[0], r[1], RNE, False)))
    rows = chunks(ADD64, filler(2, 64))[0]
    out.append(case("f.add.f64 v4, v2, v4 (rd = rs2)", "f.add.f64 v4, v2, v4", [Src(2, 64), Src(4, 64)], 4, rows,
                    lambda r: add(D, r[0], r[1], RNE, False), dst_width=64))
    # EXEC = 0: nothing is written.
    out.append(case("f.fma.f64 with EXEC = 0", "f.fma.f64 v10, v2, v4, v6", srcs_for(D, 3), 10,
                    [filler(3, 64)() for _ in range(L)], lambda r: 0, exec_=0, dst_width=64))
    out.append(case("f.div.f32 with EXEC = 0", "f.div.f32 v10, v1, v2", srcs_for(S, 2), 10,
                    [filler(2)() for _ in range(L)], lambda r: 0, exec_=0))
    return out


def build():
    a32, a64 = [], []
    for op in OPS32:
        a32 += arith(S, op, EDGES32[op])
        a64 += arith(D, op, EDGES64[op])
    return [("arith32.yaml", "Group 3, f32 arithmetic (opcode 0x21): every rounding mode, dyn, flush, specials.", a32),
            ("arith64.yaml", "Group 3, f64 arithmetic on pairs (opcode 0x23): rounding modes, specials.", a64),
            ("minmax.yaml", "Group 3, f.min / f.max (f32, f64): NaN, signed zeros, flush, modifiers, sat.",
             minmax_cases()),
            ("modifiers.yaml", "Group 3, source modifiers (neg, abs), sat, rd aliasing, EXEC = 0.", modifier_cases())]
