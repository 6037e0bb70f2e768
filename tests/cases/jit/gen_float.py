#!/usr/bin/env python3
"""Regenerates vfloat.yaml in this directory: JIT-focused cases for group 3.

The JIT runs a float instruction natively only when fcsr allows (rne without f32 flush, checked at run time
per instruction; f64 depends on the rounding mode only) and calls the interpreter otherwise. So every case
here is the three-trip loop of model_int.py (trip 1 under a full EXEC, trips 2 and 3 under partial masks;
block B xors the sources with lane patterns between trips) plus an fcsr schedule: block B also writes fcsr,
so the same compiled instructions run under up to three modes (e.g. rne, then rtz, then rne + ftz32) and
must match on both paths:

    u.li u62, 3
  loop:
    <block A>
    exec.set u59
    <block B: sources ^= patterns>
    csr.rw u49, fcsr, u50    ; next trip's mode
    u.xor u50, u50, u51
    exec.set u58
    u.xor u58, u58, u57
    u.add.i u62, u62, -1
    b.nz u62, loop
    end

Block B xors the sources twice with the same pattern, so trip 3 sees the edge values again; instructions
whose rd is one of their sources write a register no other instruction of the block reads. Sources hold
edge values (±0, ±inf, quiet, signalling and negative NaNs, subnormals, ties, values near the integer limits)
in about half the lanes. Expected values come from ../vfloat/fmodel.py (exact Fraction
arithmetic, written from the YAML `en` text, independent of the interpreter) and the wave model of
model_int.py.

Run: python3 tests/cases/jit/gen_float.py   (rewrites vfloat.yaml beside it)
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "vfloat"))
import fmodel as fm  # noqa: E402
import model_int as gi  # noqa: E402
from fmodel import D, S, Fr  # noqa: E402

L, M = gi.L, gi.M
rng = random.Random(3131)
SIGN, ONE, INF, QNAN = S.SIGN, S.ONE, S.INF, S.QNAN
EDGE = [0, SIGN, ONE, ONE | SIGN, INF, INF | SIGN, QNAN, 0x7F800001, 0xFFC12345, 0x7FBFFFFF, 1, 0x80000001,
        0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F000000, 0xBF000000,
        0x3FC00000, 0x40200000, 0xC0200000, 0x3F7FFFFF, 0x3F800001, 0x33800000, 0xB3800000, 0x4EFFFFFF,
        0x4F000000, 0xCF000000, 0xCF000001, 0x4F7FFFFF, 0x4F800000, 0x0C000000, 0x1F800000, 0xB0800000]
INT_EDGE = [0, 1, M, 0x80000000, 0x7FFFFFFF, 0x80000001, 0x01000001, 0x01000003, 0xFEFFFFFF, 0x7FFFFFBF,
            0x7FFFFFC0, 0xFFFFFF7F, 0xFFFFFF80, 0x00FFFFFF, 0x12345678]
EDGE64 = [0, D.SIGN, D.ONE, D.ONE | D.SIGN, D.INF, D.INF | D.SIGN, D.QNAN, 0x7FF0000000000001,
          0xFFF8000000012345, 1, D.SIGN | 1, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
          0x36A0000000000000, 0x3690000000000000, 0xB6A8000000000000, 0x47EFFFFFE0000000, 0x47EFFFFFF0000000,
          0x3FF0000010000000, 0x3FF0000030000000, 0xBFF0000010000001, 0x3E70000000000000, 0x380FFFFFC0000000]
MODE_NAMES = fm.MODES                 # fcsr[2:0] -> name
FTZ32 = fm.FTZ32


def rnd(lo=-30, hi=30):
    e = rng.randint(lo, hi)
    return rng.getrandbits(1) << 31 | (e + 127) << 23 | rng.getrandbits(23)


def fval():
    r = rng.random()
    return rng.choice(EDGE) if r < 0.5 else rnd() if r < 0.9 else rng.getrandbits(32)


def fvec():
    return [fval() for _ in range(L)]


def dval():
    r = rng.random()
    if r < 0.45:
        return rng.choice(EDGE64)
    e = rng.randint(-40, 40) if r < 0.9 else rng.randint(-1022, 1023)
    return rng.getrandbits(1) << 63 | (e + 1023) << 52 | rng.getrandbits(52)


def pairs_init(r, vals):
    """v_init entries for the pair r:r+1 holding the 64-bit `vals`."""
    return {r: [x & M for x in vals], r + 1: [x >> 32 for x in vals]}


def ivec():
    return [rng.choice(INT_EDGE) if rng.random() < 0.5 else rng.getrandbits(32) for _ in range(L)]


def halves():
    """Integers plus 0, 1/4, 1/2 or 3/4 (ties for to-int rounding), up to 2^22, and f32 edges."""
    def one():
        r = rng.random()
        if r < 0.35:
            return rng.choice(EDGE)
        n = rng.randint(-(1 << 22), 1 << 22) if r < 0.7 else rng.randint(-40, 40)
        frac = rng.choice([Fr(1, 2), Fr(1, 4), Fr(3, 4), Fr(0)])
        v = Fr(n) + frac
        return fm.round_val(S, v, fm.RNE, False, 0) if v else rng.choice([0, SIGN])
    return [one() for _ in range(L)]


# ---------------------------------------------------------------- model of the float instructions and csr.rw

def src(tok):
    """('-|v3|' ->) register number, neg, abs."""
    neg = tok.startswith("-")
    t = tok.lstrip("-")
    ab = t.startswith("|")
    return int(t.strip("|")[1:]), neg, ab


def mode_of(w, rm):
    return MODE_NAMES[w.fcsr & 7] if rm in (None, "rm=dyn") else rm


def lane_in(w, tok, l):
    r, neg, ab = src(tok)
    return fm.modify(S, fm.daz(S, w.v[r][l], bool(w.fcsr & FTZ32)), neg, ab)


def pair_slots(mn):
    """Operand positions (0 = rd) that name register pairs."""
    if mn.endswith(".f64") and not mn.startswith("f.cvt."):
        return {0, 1, 2, 3}
    return {"f.cvt.f64.f32": {0}, "f.cvt.f64.i32": {0}, "f.cvt.f64.u32": {0}, "f.cvt.f32.f64": {1},
            "f.cvt.i32.f64": {1}, "f.cvt.u32.f64": {1}}.get(mn, set())


def step_f64(w, mn, ops, rest, sat, md, fl):
    rd, op = gi.n(ops[0]), mn[2:]
    srcs = []
    for t in rest:
        r, neg, ab = src(t)
        srcs.append([fm.modify(D, x, neg, ab) for x in w.pair(r)])
    one32 = [[w.v[src(t)[0]][l] for l in range(L)] for t in rest]
    out = []
    for l in range(L):
        xs = [c[l] for c in srcs]
        if op == "cvt.f64.f32":
            r = fm.convert(S, D, lane_in(w, rest[0], l), fm.RNE, False)
        elif op in ("cvt.f64.i32", "cvt.f64.u32"):
            x = one32[0][l]
            r = fm.from_int(D, gi.sx(x) if op.endswith("i32") else x, fm.RNE)
        elif op == "cvt.f32.f64":
            r = fm.convert(D, S, xs[0], md, fl)
        elif op in ("cvt.i32.f64", "cvt.u32.f64"):
            lo, hi = (-(1 << 31), (1 << 31) - 1) if op.startswith("cvt.i32") else (0, M)
            r = fm.to_int(D, xs[0], md, lo, hi)
        else:
            r = {"add.f64": lambda: fm.add(D, xs[0], xs[1], md, False),
                 "sub.f64": lambda: fm.sub(D, xs[0], xs[1], md, False),
                 "mul.f64": lambda: fm.mul(D, xs[0], xs[1], md, False),
                 "div.f64": lambda: fm.div(D, xs[0], xs[1], md, False),
                 "fma.f64": lambda: fm.fma(D, xs[0], xs[1], xs[2], md, False),
                 "sqrt.f64": lambda: fm.sqrt(D, xs[0], md, False),
                 "min.f64": lambda: fm.minmax(D, xs[0], xs[1], False),
                 "max.f64": lambda: fm.minmax(D, xs[0], xs[1], True)}[op]()
            if sat:
                r = fm.sat(D, r)
        out.append(r)
    if 0 in pair_slots(mn):
        w.write_pair(rd, out)
    else:
        w.write(rd, out)


def recip(x, root, fl):
    """f.rcp.f32 / f.rsq.f32 from the `en` text: 1/x as an f32 division (rne); 1/sqrt(f64(x)) in f64 rounded
    once to f32."""
    x = fm.daz(S, x, fl)
    if not root:
        return fm.div(S, ONE, x, fm.RNE, fl)
    d = fm.convert(S, D, x, fm.RNE, False)
    q = fm.div(D, D.ONE, fm.sqrt(D, d, fm.RNE, False), fm.RNE, False)
    return fm.convert(D, S, q, fm.RNE, fl)


def step_f(w, mn, ops):
    fl = bool(w.fcsr & FTZ32)
    rd = gi.n(ops[0])
    rest = [o for o in ops[1:] if not (isinstance(o, str) and (o in MODE_NAMES or o in ("rm=dyn", "sat")))]
    sat = "sat" in ops
    rm = next((o for o in ops if isinstance(o, str) and (o in MODE_NAMES or o == "rm=dyn")), None)
    md = mode_of(w, rm)
    op = mn[2:]
    if pair_slots(mn):
        return step_f64(w, mn, ops, rest, sat, md, fl)
    out = []
    for l in range(L):
        if op in ("rcp.f32", "rsq.f32"):
            r = recip(w.v[gi.n(rest[0])][l], op == "rsq.f32", fl)
        elif op in ("add.k.f32", "mul.k.f32", "fma.k.f32", "fma.ka.f32"):
            a = fm.daz(S, w.v[gi.n(rest[0])][l], fl)
            k = fm.daz(S, rest[1] & M, fl)
            d = fm.daz(S, w.v[rd][l], fl)
            dm = MODE_NAMES[w.fcsr & 7]
            r = {"add.k.f32": lambda: fm.add(S, a, k, dm, fl), "mul.k.f32": lambda: fm.mul(S, a, k, dm, fl),
                 "fma.k.f32": lambda: fm.fma(S, a, k, d, dm, fl),
                 "fma.ka.f32": lambda: fm.fma(S, d, a, k, dm, fl)}[op]()
        elif op in ("cvt.f32.i32", "cvt.f32.u32"):
            x = w.v[gi.n(rest[0])][l]
            r = fm.from_int(S, gi.sx(x) if op.endswith("i32") else x, md)
        elif op in ("cvt.i32.f32", "cvt.u32.f32"):
            a = lane_in(w, rest[0], l)
            lo, hi = (-(1 << 31), (1 << 31) - 1) if op.startswith("cvt.i32") else (0, M)
            r = fm.to_int(S, a, md, lo, hi)
        elif op in ("floor.f32", "ceil.f32", "trunc.f32", "round.f32"):
            rmode = {"floor.f32": fm.RDN, "ceil.f32": fm.RUP, "trunc.f32": fm.RTZ, "round.f32": fm.RNE}[op]
            r = fm.to_integral(w.v[gi.n(rest[0])][l], rmode, fl)
        elif op == "fract.f32":
            r = fm.fract(w.v[gi.n(rest[0])][l], fl)
        elif op == "exp2.f32":
            # Only used on integral inputs in [-20, 20] (exact: 2^n).
            x = w.v[gi.n(rest[0])][l]
            n = fm.val(S, x)
            assert n.denominator == 1 and -20 <= n <= 20
            r = fm.encode(S, 0, Fr(2) ** int(n))
        else:
            xs = [lane_in(w, t, l) for t in rest]
            r = {"add.f32": lambda: fm.add(S, xs[0], xs[1], md, fl), "sub.f32": lambda: fm.sub(S, xs[0], xs[1], md, fl),
                 "mul.f32": lambda: fm.mul(S, xs[0], xs[1], md, fl), "div.f32": lambda: fm.div(S, xs[0], xs[1], md, fl),
                 "fma.f32": lambda: fm.fma(S, xs[0], xs[1], xs[2], md, fl),
                 "sqrt.f32": lambda: fm.sqrt(S, xs[0], md, fl),
                 "min.f32": lambda: fm.minmax(S, xs[0], xs[1], False),
                 "max.f32": lambda: fm.minmax(S, xs[0], xs[1], True)}[op]()
            if sat:
                r = fm.sat(S, r)
        out.append(r)
    w.write(rd, out)


def step(w, i):
    mn, *ops = i
    if mn.startswith("f."):
        step_f(w, mn, ops)
    elif mn in ("csr.rw", "csr.rwi"):
        old = w.fcsr
        new = w.ur(gi.n(ops[2])) if mn == "csr.rw" else ops[2]
        assert new & 7 <= 4
        w.fcsr = new & 0x1F
        w.set_u(gi.n(ops[0]), old)
    elif mn == "wait":
        pass
    else:
        gi.step(w, i)


# ---------------------------------------------------------------- the loop case, with an fcsr schedule

def regs(ops, kind):
    """Registers of `kind` ('v' or 'u') an instruction list names (modifier marks stripped; pairs whole)."""
    out = set()
    for i in ops:
        for pos, o in enumerate(i[1:]):
            t = o.strip("-|") if isinstance(o, str) else ""
            if t[:1] == kind and t[1:].isdigit():
                out |= {int(t[1:]), int(t[1:]) + 1} if pos in pair_slots(i[0]) else {int(t[1:])}
    return out


def loop_case(name, a_ops, v_src, v_init, fcsrs=(0, 1, FTZ32), p=gi.P_MASK, q=gi.Q_MASK, trips=3):
    """Block A runs `trips` times; trip t under fcsr = fcsrs[t] (block B writes it at the end of each trip)."""
    v = {r: fvec() for r in sorted(regs(a_ops, "v") | set(v_src))}
    v.update(v_init)
    u = {r: rng.getrandbits(32) for r in sorted(regs(a_ops, "u"))}
    pats = {r: 40 + k % 4 for k, r in enumerate(v_src)}
    for r in range(40, 44):
        v[r] = [rng.getrandbits(32) for _ in range(L)]
    u.update({57: q, 58: p, 59: M, 50: fcsrs[1], 51: fcsrs[1] ^ fcsrs[2]})
    b_ops = [("v.xor", f"v{r}", f"v{r}", f"v{pats[r]}") for r in v_src] + [("csr.rw", "u49", "fcsr", "u50"),
                                                                          ("u.xor", "u50", "u50", "u51")]
    code = [f"u.li u62, {trips}", "loop:"] + [gi.fmt(i) for i in a_ops] + ["exec.set u59"] + \
           [gi.fmt(i) for i in b_ops] + ["exec.set u58", "u.xor u58, u58, u57", "u.add.i u62, u62, -1",
                                         "b.nz u62, loop", "end"]
    w = gi.Wave(v, u, M)
    w.fcsr = fcsrs[0]
    w.set_u(62, trips)
    for _ in range(trips):
        for i in a_ops:
            step(w, i)
        w.exec = w.ur(59)
        for i in b_ops:
            step(w, i)
        w.exec = w.ur(58)
        w.set_u(58, w.ur(58) ^ w.ur(57))
        w.set_u(62, w.ur(62) - 1)
    text = gi.render(name, code, v, u, w)
    # fcsr lines: the start value under init, the final one under expect.
    text = text.replace("    init:\n", f"    init:\n      fcsr: {gi.hx(fcsrs[0])}\n", 1)
    if w.fcsr != fcsrs[0]:
        text = text.replace("    expect:\n", f"    expect:\n      fcsr: {gi.hx(w.fcsr)}\n", 1)
    return text


# ---------------------------------------------------------------- cases

def F(*i):
    return i


def with_ties(a, b):
    """b with some lanes set so that a + b is a tie or an exact cancellation (the rounding mode shows)."""
    out = list(b)
    for l in range(L):
        r = rng.random()
        if r < 0.15 and not fm.is_nan(S, a[l]) and not fm.is_inf(S, a[l]) and a[l] & S.EXPM > 24 << 23:
            out[l] = ((a[l] & S.EXPM) - (24 << 23)) | (a[l] & SIGN)       # half an ulp of a: a tie
        elif r < 0.25:
            out[l] = a[l] ^ SIGN                                             # a - a: +0 or -0 (rdn)
    return out


def arith_cases():
    c = []
    a = fvec()
    c.append(loop_case("vfloat jit: add sub mul div sqrt with modifiers and sat; trips rne, rtz, rne+ftz32", [
        F("f.add.f32", "v10", "v1", "v2", "rne"), F("f.sub.f32", "v11", "-v1", "|v2|", "rne"),
        F("f.mul.f32", "v12", "v1", "-|v2|", "sat", "rne"), F("f.div.f32", "v13", "v1", "v2", "rne"),
        F("f.div.f32", "v14", "-|v2|", "v1", "sat", "rne"), F("f.sqrt.f32", "v15", "|v1|", "rne"),
        F("f.sqrt.f32", "v16", "-v2", "sat", "rne"), F("f.add.f32", "v17", "v1", "v2", "rm=dyn"),
        F("f.mul.f32", "v18", "v1", "v2", "rm=dyn"), F("f.sub.f32", "v19", "v1", "v2", "rtz"),
        F("f.add.f32", "v20", "v20", "v1", "rne"), F("f.mul.f32", "v3", "v3", "v1", "rne")],
        [1, 2], {1: a, 2: with_ties(a, fvec())}, fcsrs=(0, 1, FTZ32)))
    a = fvec()
    c.append(loop_case("vfloat jit: rm=dyn arithmetic; trips rne, rdn+ftz32, rup", [
        F("f.add.f32", "v10", "v1", "v2", "rm=dyn"), F("f.sub.f32", "v11", "v1", "-v2", "sat", "rm=dyn"),
        F("f.mul.f32", "v12", "|v1|", "v2", "rm=dyn"), F("f.div.f32", "v13", "v2", "-v1", "rm=dyn"),
        F("f.sqrt.f32", "v14", "v1", "rm=dyn"), F("f.sub.f32", "v15", "v1", "v1", "rm=dyn"),
        F("f.add.f32", "v3", "v3", "v2", "rm=dyn")],
        [1, 2], {1: a, 2: with_ties(a, fvec())}, fcsrs=(0, 2 | FTZ32, 3)))
    # fma: products cancelled by c (exact zeros, tiny residuals), 0 * inf with NaN c.
    a, b = fvec(), fvec()
    cc = fvec()
    for l in range(0, L, 3):
        if not (fm.is_nan(S, a[l]) or fm.is_nan(S, b[l]) or fm.is_inf(S, a[l]) or fm.is_inf(S, b[l])):
            cc[l] = fm.mul(S, a[l], b[l], fm.RNE, False) ^ SIGN
    a[4], b[4], cc[4] = INF, 0, QNAN
    a[5], b[5], cc[5] = 0, SIGN | ONE, SIGN
    c.append(loop_case("vfloat jit: fma with modifiers, sat, cancellation, rd = source; trips rne, rtz, rne+ftz32", [
        F("f.fma.f32", "v10", "v1", "v2", "v3", "rne"), F("f.fma.f32", "v11", "-v1", "|v2|", "-|v3|", "sat", "rne"),
        F("f.fma.f32", "v12", "v1", "v2", "v3", "rm=dyn"), F("f.fma.f32", "v13", "v1", "-v2", "-v3", "rne"),
        F("f.fma.f32", "v14", "v1", "v1", "v2", "rne"), F("f.fma.f32", "v15", "v1", "v2", "v3", "rmm"),
        F("f.fma.f32", "v4", "v4", "v1", "v4", "rne")],
        [1, 2, 3], {1: a, 2: b, 3: cc}, fcsrs=(0, 1, FTZ32)))
    return c


def minmax_cases():
    a = fvec()
    b = [x ^ SIGN if rng.random() < 0.3 else x if rng.random() < 0.2 else fval() for x in a]
    zeros = [(0, SIGN), (SIGN, 0), (QNAN, 1), (0x7F800001, SIGN), (0xFFC12345, 0x7F800001), (QNAN, QNAN),
             (1, 0x80000001), (INF, 0x7F800001), (0xFFC12345, INF | SIGN)]
    for l, (x, y) in enumerate(zeros):
        a[2 * l + 1], b[2 * l + 1] = x, y
    name = "vfloat jit: min/max (minimumNumber: NaN ignored, -0 < +0), modifiers, sat; trips rne, rtz, ftz32"
    return [loop_case(name, [
        F("f.min.f32", "v10", "v1", "v2"), F("f.max.f32", "v11", "v1", "v2"),
        F("f.min.f32", "v12", "-v1", "|v2|", "sat"), F("f.max.f32", "v13", "|v1|", "-v2"),
        F("f.min.f32", "v14", "v1", "v1"), F("f.max.f32", "v15", "-|v1|", "-|v2|", "sat"),
        F("f.max.f32", "v3", "v3", "v1")], [1, 2], {1: a, 2: b}, fcsrs=(0, 1, FTZ32))]


def literal_cases():
    ops = [F("f.add.k.f32", "v10", "v1", ONE), F("f.add.k.f32", "v11", "v1", 0x80000001),
           F("f.mul.k.f32", "v12", "v1", INF | SIGN), F("f.mul.k.f32", "v13", "v1", SIGN),
           F("f.add.k.f32", "v14", "v1", 0xFFC12345), F("f.fma.k.f32", "v15", "v1", 0x40490FDB),
           F("f.fma.ka.f32", "v16", "v1", 0xBF000000), F("f.fma.k.f32", "v17", "v1", 1),
           F("f.fma.ka.f32", "v18", "v1", 0x7F800001), F("f.mul.k.f32", "v2", "v2", 0x3F800001)]
    return [loop_case("vfloat jit: literal forms add.k mul.k fma.k fma.ka (rd accumulates); trips rne, rup, rne+ftz32",
                      ops, [1], {}, fcsrs=(0, 3, FTZ32)),
            loop_case("vfloat jit: literal forms; trips rtz, rne, rdn", ops, [1], {}, fcsrs=(1, 0, 2))]


def convert_cases():
    x = halves()
    ops = [F("f.cvt.f32.i32", "v10", "v3", "rne"), F("f.cvt.f32.u32", "v11", "v3", "rne"),
           F("f.cvt.f32.i32", "v12", "v3", "rm=dyn"), F("f.cvt.f32.u32", "v13", "v3", "rm=dyn"),
           F("f.cvt.f32.i32", "v14", "v3", "rtz"),
           F("f.cvt.i32.f32", "v15", "v1", "rne"), F("f.cvt.i32.f32", "v16", "-v1", "rtz"),
           F("f.cvt.i32.f32", "v17", "v1", "rdn"), F("f.cvt.i32.f32", "v18", "|v1|", "rup"),
           F("f.cvt.i32.f32", "v19", "v1", "rm=dyn"), F("f.cvt.i32.f32", "v20", "v1", "rmm"),
           F("f.cvt.u32.f32", "v21", "v1", "rne"), F("f.cvt.u32.f32", "v22", "-v1", "rtz"),
           F("f.cvt.u32.f32", "v23", "v1", "rdn"), F("f.cvt.u32.f32", "v24", "-|v1|", "rup"),
           F("f.cvt.u32.f32", "v25", "v1", "rm=dyn"), F("f.cvt.i32.f32", "v4", "v4", "rne")]
    return [loop_case("vfloat jit: int <-> f32 conversions, every static rm, dyn; trips rne, rup, rdn+ftz32", ops,
                      [1, 3], {1: x, 3: ivec()}, fcsrs=(0, 3, 2 | FTZ32)),
            loop_case("vfloat jit: int <-> f32 conversions; trips rne+ftz32, rtz, rne", ops,
                      [1, 3], {1: halves(), 3: ivec()}, fcsrs=(FTZ32, 1, 0))]


def round_cases():
    x = halves()
    for l, e in enumerate([1, 0x80000001, 0xB0800000, 0x807FFFFF, 0xBF7FFFFF, 0xB3800000, 0x33800000, INF | SIGN]):
        x[2 * l + 1] = e
    return [loop_case("vfloat jit: floor ceil trunc round fract (subnormals, fract clamp); trips rne, rtz, ftz32", [
        F("f.floor.f32", "v10", "v1"), F("f.ceil.f32", "v11", "v1"), F("f.trunc.f32", "v12", "v1"),
        F("f.round.f32", "v13", "v1"), F("f.fract.f32", "v14", "v1"), F("f.fract.f32", "v2", "v2")],
        [1], {1: x}, fcsrs=(0, 1, FTZ32))]


def switch_cases():
    """fcsr written inside block A: the instructions after it must see the new mode (run-time check)."""
    a = [rng.choice([1, 0x80000001, 0x00800000, 0x007FFFFF, 0x1F800000, 0x9F800000, ONE, 0x33800000])
         if rng.random() < 0.6 else fval() for _ in range(L)]
    b = with_ties(a, fvec())
    ops = [F("f.add.f32", "v10", "v1", "v2", "rm=dyn"), F("csr.rwi", "u45", "fcsr", 1),
           F("f.add.f32", "v11", "v1", "v2", "rm=dyn"), F("f.mul.f32", "v12", "v1", "v2", "rne"),
           F("csr.rwi", "u46", "fcsr", 8), F("f.mul.f32", "v13", "v1", "v2", "rne"), F("f.min.f32", "v14", "v1", "v2"),
           F("f.floor.f32", "v15", "v1"), F("csr.rwi", "u47", "fcsr", 0), F("f.add.f32", "v16", "v1", "v2", "rm=dyn"),
           F("f.mul.f32", "v17", "v1", "v2", "rne")]
    return [loop_case("vfloat jit: fcsr changed inside the block between f32 ops", ops, [1, 2], {1: a, 2: b},
                      fcsrs=(0, 2, 3))]


def f64_cases():
    a, b, c = [dval() for _ in range(L)], [dval() for _ in range(L)], [dval() for _ in range(L)]
    for l in range(1, L, 4):
        b[l] = a[l] ^ D.SIGN if rng.random() < 0.5 else a[l]        # equal magnitudes: ±0 sums, min/max ties
    for l, (x, y) in zip(range(2, L, 4), [(0, D.SIGN), (D.SIGN, 0), (D.QNAN, D.ONE), (0x7FF0000000000001, D.SIGN),
                                          (0xFFF8000000012345, D.QNAN), (D.INF, 0x7FF0000000000001),
                                          (1, D.SIGN | 1), (D.SIGN, D.SIGN)]):
        a[l], b[l] = x, y
    init = {**pairs_init(2, a), **pairs_init(4, b), **pairs_init(6, c)}
    ops = [F("f.add.f64", "v10", "v2", "v4", "rne"), F("f.sub.f64", "v12", "-v2", "|v4|", "rne"),
           F("f.mul.f64", "v14", "v2", "v4", "sat", "rne"), F("f.div.f64", "v16", "v4", "-v2", "rm=dyn"),
           F("f.fma.f64", "v18", "v2", "v4", "v6", "rne"), F("f.fma.f64", "v20", "-|v2|", "v4", "-v6", "sat", "rne"),
           F("f.sqrt.f64", "v22", "|v2|", "rne"), F("f.min.f64", "v24", "v2", "v4"),
           F("f.max.f64", "v26", "-v2", "v4", "sat"), F("f.min.f64", "v28", "|v4|", "-|v2|"),
           F("f.add.f64", "v30", "v2", "v4", "rtz"), F("f.mul.f64", "v8", "v8", "v4", "rne")]
    x = fvec()
    cv = [F("f.cvt.f64.f32", "v10", "v1"), F("f.cvt.f64.f32", "v12", "-|v1|"), F("f.cvt.f32.f64", "v14", "v2", "rne"),
          F("f.cvt.f32.f64", "v15", "-v2", "rm=dyn"), F("f.cvt.f64.i32", "v16", "v3"), F("f.cvt.f64.u32", "v18", "v3"),
          F("f.cvt.i32.f64", "v20", "v2", "rne"), F("f.cvt.f32.f64", "v21", "|v2|", "rtz"),
          F("f.cvt.f64.f32", "v22", "v22")]
    return [loop_case("vfloat jit: f64 on pairs (modifiers on bit 63, sat, min/max ±0 and NaN, rd = source); "
                      "trips rne, rtz, rne+ftz32", ops, [2, 3, 4, 5, 6, 7], init, fcsrs=(0, 1, FTZ32)),
            loop_case("vfloat jit: f32 <-> f64 and int -> f64 conversions; trips rne, ftz32, rtz", cv, [1, 2, 3, 4],
                      {1: x, 3: ivec(), **pairs_init(2, [dval() for _ in range(L)])}, fcsrs=(0, FTZ32, 1))]


def recip_cases():
    x = fvec()
    for l, e in enumerate([0x7F000000, 0x7E800001, 0xFEFFFFFF, 1, 0x80000001, 0x40400000, SIGN]):
        x[2 * l + 1] = e
    return [loop_case("vfloat jit: rcp rsq (f64-evaluated; subnormal results, ±0, negatives); trips rne, rtz, ftz32", [
        F("f.rcp.f32", "v10", "v1"), F("f.rsq.f32", "v11", "v1"), F("wait", "sfu=0"), F("f.rcp.f32", "v2", "v2"),
        F("wait", "sfu=0")], [1], {1: x}, fcsrs=(0, 1, FTZ32))]


def mixed_cases():
    e = [fm.encode(S, 1 if k < 0 else 0, Fr(abs(k))) if k else 0 for k in (rng.randint(-20, 20) for _ in range(L))]
    return [
        loop_case("vfloat jit: native f32 ops around interpreter-executed ones (exp2, f64) in one block", [
            F("f.add.f32", "v10", "v1", "v2", "rne"), F("f.exp2.f32", "v11", "v3"), F("wait", "sfu=0"),
            F("f.mul.f32", "v12", "v11", "v10", "rne"), F("f.cvt.f32.i32", "v13", "v12", "rtz"),
            F("f.fma.f32", "v14", "v12", "v13", "v10", "rne"), F("f.add.f32", "v1", "v14", "v1", "rne")],
            [1, 2], {3: e}, fcsrs=(0, 0, 0)),
        loop_case("vfloat jit: trip 2 under EXEC = 0", [
            F("f.fma.f32", "v10", "v1", "v2", "v10", "rne"), F("f.min.f32", "v11", "v1", "v2"),
            F("f.cvt.i32.f32", "v12", "v1", "rne"), F("f.add.k.f32", "v13", "v1", ONE)],
            [1, 2], {}, fcsrs=(0, 0, 1), p=0, q=0x0000FFFF),
    ]


if __name__ == "__main__":
    cases = arith_cases() + minmax_cases() + literal_cases() + convert_cases() + round_cases() + switch_cases() + \
        f64_cases() + recip_cases() + mixed_cases()
    hdr = ("# JIT-focused cases for f32: each block runs in its full-EXEC and its EXEC-blending variant, and under\n"
           "# several fcsr modes (native path and interpreter path of the same compiled instruction).\n")
    with open(os.path.join(HERE, "vfloat.yaml"), "w") as f:
        f.write(hdr + "# Generated by gen_float.py (model: ../vfloat/fmodel.py, from the YAML `en` text). "
                      "Do not edit by hand.\ncases:\n" + "\n".join(cases))
