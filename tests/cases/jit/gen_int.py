#!/usr/bin/env python3
"""Regenerates vint.yaml, uniform.yaml and cmp.yaml in this directory: JIT-focused cases for the integer groups.

Every case runs a loop of three trips over the same block of instructions under test (block A), so the compiled
code runs both block variants: trip 1 under a full EXEC (the full-EXEC variant), trips 2 and 3 under partial
masks (the EXEC-blending variant). Between trips a second block (B) runs under a full EXEC and xors the source
registers with lane patterns (values change from trip to trip and return to the edge values on trip 3), so a
write that ignored EXEC would leave a wrong value in some inactive lane. Some instructions write a register
another one reads (rd aliasing a source, values carried across trips).

    u.li u62, 3
  loop:
    <block A>
    exec.set u59             ; u59 = 0xffffffff
    <block B: sources ^= patterns>
    exec.set u58             ; trip 2: P, trip 3: P ^ Q
    u.xor u58, u58, u57
    u.add.i u62, u62, -1
    b.nz u62, loop
    end

Expected values come from the small wave model below, written from the YAML `en` text of groups 1, 2 and 4
(independently of the interpreter), with Python integers masked to 32 bits.

Run: python3 tests/cases/jit/gen_int.py   (rewrites the three yaml files beside it)
"""
import os
import random

L = 32
M = (1 << 32) - 1
HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(4242)
EDGE = [0, 1, 2, 31, 32, 33, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0x80000001,
        M, M - 1, 0x1F1F, 0x0804, 0x1F00, 0x2010, 0x55555555, 0xAAAAAAAA, 0x12345678, 0xDEADBEEF]
P_MASK, Q_MASK = 0xA5A5C3E1, 0x0FF0F00F


def sx(x, bits=32):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def val():
    return rng.choice(EDGE) if rng.random() < 0.45 else rng.getrandbits(32)


def vec():
    return [val() for _ in range(L)]


# ---------------------------------------------------------------- lane formulas (YAML `en`)

def bfe_u(a, p):
    off, w = p & 31, (p >> 8) & 31
    return 0 if w == 0 else (a >> off) & ((1 << w) - 1)


def bfe_s(a, p):
    off, w = p & 31, (p >> 8) & 31
    return 0 if w == 0 else sx((sx(a) >> off) & ((1 << w) - 1), w)


def ubfe(a, p, signed):
    """The uniform group's wording: n = min(w, 32 - off), the field cut at bit 31."""
    off, w = p & 31, (p >> 8) & 31
    n = min(w, 32 - off)
    if w == 0 or n == 0:
        return 0
    f = (a >> off) & ((1 << n) - 1)
    return sx(f, n) if signed else f


def bfi(field, base, p):
    off, w = p & 31, (p >> 8) & 31
    m = (((1 << w) - 1) << off) & M
    return (base & ~m) | ((field << off) & m)


def prmt(a, b, s):
    bs = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    d = 0
    for k in range(4):
        nib = (s >> (4 * k)) & 15
        byte = bs[nib & 7]
        if nib & 8:
            byte = 0xFF if byte & 0x80 else 0
        d |= byte << (8 * k)
    return d


def shf(mn, lo, hi, amount):
    """v.shf.{l,r}.{s,u}{32,64}[.w][.hi] from its `en` text."""
    parts = mn.split(".")[2:]
    width = 64 if parts[1].endswith("64") else 32
    nn = amount & (width - 1) if "w" in parts else min(amount, width)
    x = hi << 32 | lo
    if parts[0] == "l":
        y = (x << nn) & ((1 << 64) - 1)
    elif parts[1][0] == "s":
        y = sx(x, 64) >> nn
    else:
        y = x >> nn
    return y >> 32 if "hi" in parts else y


def lop3(a, b, c, lut):
    d = 0
    for k in range(8):
        if lut >> k & 1:
            d |= (a if k & 4 else ~a) & (b if k & 2 else ~b) & (c if k & 1 else ~c)
    return d


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def div_s(a, b):
    return M if b == 0 else tdiv(sx(a), sx(b))


def rem_s(a, b):
    return a if b == 0 else sx(a) - tdiv(sx(a), sx(b)) * sx(b)


def wqm(m):
    return sum(0xF << (4 * q) for q in range(8) if m >> (4 * q) & 0xF)


BIN = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "andn": lambda a, b: a & ~b, "orn": lambda a, b: a | ~b,
    "shl": lambda a, b: a << (b & 31), "shr": lambda a, b: a >> (b & 31), "sra": lambda a, b: sx(a) >> (b & 31),
    "bfe.u": bfe_u, "bfe.s": bfe_s, "rsub": lambda a, b: b - a,
    "min": lambda a, b: min(sx(a), sx(b)), "max": lambda a, b: max(sx(a), sx(b)),
    "min.u": min, "max.u": max,
    "absdiff": lambda a, b: abs(sx(a) - sx(b)), "absdiff.u": lambda a, b: abs(a - b),
    "mulhi": lambda a, b: (sx(a) * sx(b)) >> 32, "mulhi.u": lambda a, b: (a * b) >> 32,
}
UNARY = {
    "mov": lambda a: a, "not": lambda a: ~a, "neg": lambda a: -a, "abs": lambda a: abs(sx(a)),
    "sext.b": lambda a: sx(a, 8), "sext.h": lambda a: sx(a, 16), "zext.b": lambda a: a & 0xFF,
    "zext.h": lambda a: a & 0xFFFF, "popc": lambda a: bin(a).count("1"),
    "clz": lambda a: 32 - a.bit_length(), "ctz": lambda a: 32 if a == 0 else (a & -a).bit_length() - 1,
    "brev": lambda a: int(f"{a:032b}"[::-1], 2),
}
CMP = {
    "eq.i32": lambda a, b: a == b, "ne.i32": lambda a, b: a != b,
    "lt.i32": lambda a, b: sx(a) < sx(b), "le.i32": lambda a, b: sx(a) <= sx(b),
    "gt.i32": lambda a, b: sx(a) > sx(b), "ge.i32": lambda a, b: sx(a) >= sx(b),
    "lt.u32": lambda a, b: a < b, "le.u32": lambda a, b: a <= b,
    "gt.u32": lambda a, b: a > b, "ge.u32": lambda a, b: a >= b,
}
UBIN = dict(BIN)
UBIN.update({
    "mulhi": lambda a, b: (sx(a) * sx(b)) >> 32, "mulhi.u": lambda a, b: (a * b) >> 32,
    "div": div_s, "div.u": lambda a, b: M if b == 0 else a // b, "rem": rem_s,
    "rem.u": lambda a, b: a if b == 0 else a % b,
    "seq": lambda a, b: int(a == b), "sne": lambda a, b: int(a != b), "slt": lambda a, b: int(sx(a) < sx(b)),
    "sle": lambda a, b: int(sx(a) <= sx(b)), "slt.u": lambda a, b: int(a < b), "sle.u": lambda a, b: int(a <= b),
    "sgt": lambda a, b: int(sx(a) > sx(b)), "sgt.u": lambda a, b: int(a > b),
    "bfe.u": lambda a, p: ubfe(a, p, False), "bfe.s": lambda a, p: ubfe(a, p, True),
})
UUN = {
    "mov": lambda a: a, "not": lambda a: ~a, "neg": lambda a: -a, "popc": lambda a: bin(a).count("1"),
    "clz": lambda a: 32 - a.bit_length(), "ctz": lambda a: 32 if a == 0 else (a & -a).bit_length() - 1,
    "brev": lambda a: int(f"{a:032b}"[::-1], 2), "sext.b": lambda a: sx(a, 8), "sext.h": lambda a: sx(a, 16),
    "zext.b": lambda a: a & 0xFF, "zext.h": lambda a: a & 0xFFFF, "wqm": wqm,
}


# ---------------------------------------------------------------- the wave model

class Wave:
    def __init__(self, v, u, exec_):
        self.v = {r: list(x) for r, x in v.items()}
        self.u = dict(u)
        self.exec = exec_

    def vr(self, r):
        return list(self.v[r])

    def ur(self, r):
        return self.u.get(r, 0)

    def write(self, rd, vals, mask=None):
        mask = self.exec if mask is None else mask
        d = self.v[rd]
        for i in range(L):
            if mask >> i & 1:
                d[i] = vals[i] & M

    def set_u(self, rd, x):
        self.u[rd] = x & M

    def pair(self, r):
        return [a | b << 32 for a, b in zip(self.v[r], self.v[r + 1])]

    def write_pair(self, rd, vals):
        lo, hi = [x & M for x in vals], [(x >> 32) & M for x in vals]
        self.write(rd, lo)
        self.write(rd + 1, hi)

    def upair(self, r):
        return self.ur(r) | self.ur(r + 1) << 32

    def set_upair(self, rd, x):
        self.set_u(rd, x)
        self.set_u(rd + 1, x >> 32)


def fmt(i):
    """Assembly text of an instruction tuple (mnemonic, operands...): 'v3' vector, 'u3' uniform, ints plain."""
    mn, *ops = i
    text = [o if isinstance(o, str) else str(o) if o < 0x10000 else f"0x{o:x}" for o in ops]
    return f"{mn} " + ", ".join(text) if ops else mn


def n(reg):
    return int(reg[1:].split(":")[0])


def step(w, i):
    mn, *ops = i
    g, _, op = mn.partition(".")
    if g == "v":
        step_v(w, op, ops)
    elif g == "cmp":
        form = op.split(".")[-1]
        cond = ".".join(op.split(".")[:2])
        a = w.vr(n(ops[1]))
        b = w.vr(n(ops[2])) if form == "i32" or form == "u32" else (
            [w.ur(n(ops[2]))] * L if form == "vu" else [ops[2] & M] * L)
        m = sum(1 << l for l in range(L) if w.exec >> l & 1 and CMP[cond](a[l], b[l]))
        w.set_u(n(ops[0]), m)
    elif g == "u":
        step_u(w, op, ops)
    else:
        step_exec(w, op, ops)


def step_v(w, op, ops):
    rd, mn = n(ops[0]), "v." + op
    base, _, form = op.rpartition(".")
    if op in ("add.u64", "sub.u64", "add.u64.u32", "add.u64.i32"):
        a = w.pair(n(ops[1]))
        b = w.pair(n(ops[2])) if op.count("u64") == 1 and "32" not in op else [
            x if op.endswith("u32") else sx(x) for x in w.vr(n(ops[2]))]
        w.write_pair(rd, [x - y if op == "sub.u64" else x + y for x, y in zip(a, b)])
    elif op in ("lea.u64.u32", "lea.u64.i32"):
        a, b, sh = w.vr(n(ops[1])), w.pair(n(ops[2])), ops[3]
        w.write_pair(rd, [y + ((x if op.endswith("u32") else sx(x)) << sh) for x, y in zip(a, b)])
    elif op == "mov.u.b64":
        w.write_pair(rd, [w.upair(n(ops[1]))] * L)
    elif op == "lea":
        a, b = w.vr(n(ops[1])), w.vr(n(ops[2]))
        w.write(rd, [(x << ops[3]) + y for x, y in zip(a, b)])
    elif op in ("mul.wide.u32", "mul.wide.i32", "mad.wide.u32", "mad.wide.i32"):
        a, b = w.vr(n(ops[1])), w.vr(n(ops[2]))
        c = w.pair(n(ops[3])) if op.startswith("mad") else [0] * L
        ext = (lambda x: x) if op.endswith("u32") else sx
        w.write_pair(rd, [ext(x) * ext(y) + z for x, y, z in zip(a, b, c)])
    elif op in ("mad.u32", "add3", "lop3", "mad.hi.u32", "mad.hi.i32", "bfi", "prmt") or op.startswith("shf."):
        a, b, c = (w.vr(n(r)) for r in ops[1:4])
        f = {"mad.u32": lambda x, y, z: x * y + z, "add3": lambda x, y, z: x + y + z,
             "lop3": lambda x, y, z: lop3(x, y, z, ops[4]), "mad.hi.u32": lambda x, y, z: (x * y >> 32) + z,
             "mad.hi.i32": lambda x, y, z: (sx(x) * sx(y) >> 32) + z, "bfi": bfi, "prmt": prmt}.get(op)
        f = f or (lambda x, y, z: shf(mn, x, y, z))
        w.write(rd, [f(x, y, z) for x, y, z in zip(a, b, c)])
    elif op == "cndmask":
        w.write(rd, w.vr(n(ops[1])), w.ur(n(ops[2])) & w.exec)
    elif op == "laneid":
        w.write(rd, list(range(L)))
    elif op == "mov.u":
        w.write(rd, [w.ur(n(ops[1]))] * L)
    elif op == "mbcnt.u":
        u = w.ur(n(ops[1]))
        w.write(rd, [bin(u & ((1 << l) - 1)).count("1") for l in range(L)])
    elif op == "lanebit.u":
        w.write(rd, [w.ur(n(ops[1])) >> l & 1 for l in range(L)])
    elif op in ("li", "mov.k"):
        w.write(rd, [ops[1]] * L)
    elif op == "lui":
        w.write(rd, [ops[1] << 14] * L)
    elif op in UNARY:
        w.write(rd, [UNARY[op](x) for x in w.vr(n(ops[1]))])
    elif form == "vu":
        u = w.ur(n(ops[2]))
        w.write(rd, [BIN[base](x, u) for x in w.vr(n(ops[1]))])
    elif form in ("i", "k"):
        w.write(rd, [BIN[base](x, ops[2] & M) for x in w.vr(n(ops[1]))])
    else:
        a, b = w.vr(n(ops[1])), w.vr(n(ops[2]))
        w.write(rd, [BIN[op](x, y) for x, y in zip(a, b)])


def step_u(w, op, ops):
    rd = n(ops[0])
    base, _, form = op.rpartition(".")
    if op in ("add.u64", "sub.u64"):
        a, b = w.upair(n(ops[1])), w.upair(n(ops[2]))
        w.set_upair(rd, a - b if op == "sub.u64" else a + b)
    elif op in ("add.u64.u32", "add.u64.i32"):
        x = w.ur(n(ops[2]))
        w.set_upair(rd, w.upair(n(ops[1])) + (x if op.endswith("u32") else sx(x)))
    elif op in ("shl.u64", "shr.u64"):
        a, s = w.upair(n(ops[1])), w.ur(n(ops[2])) & 63
        w.set_upair(rd, a << s if op == "shl.u64" else a >> s)
    elif op in ("mul.wide.u32", "mul.wide.i32"):
        a, b = w.ur(n(ops[1])), w.ur(n(ops[2]))
        w.set_upair(rd, a * b if op.endswith("u32") else sx(a) * sx(b))
    elif op == "add.u64.k":
        w.set_upair(rd, w.upair(n(ops[1])) + sx(ops[2]))
    elif op == "mov.u64":
        w.set_upair(rd, w.upair(n(ops[1])))
    elif op in ("li", "mov.k"):
        w.set_u(rd, ops[1])
    elif op == "lui":
        w.set_u(rd, ops[1] << 15)
    elif op in UUN:
        w.set_u(rd, UUN[op](w.ur(n(ops[1]))))
    elif form in ("i", "k"):
        w.set_u(rd, UBIN[base](w.ur(n(ops[1])), ops[2] & M))
    else:
        w.set_u(rd, UBIN[op](w.ur(n(ops[1])), w.ur(n(ops[2]))))


def step_exec(w, op, ops):
    old = w.exec
    if op == "get":
        w.set_u(n(ops[0]), old)
    elif op == "set":
        w.exec = w.ur(n(ops[0]))
    elif op == "wqm":
        w.exec = wqm(old)
    elif op == "elect":
        w.set_u(n(ops[0]), old)
        w.exec = old & -old
    else:
        m = w.ur(n(ops[1]))
        w.set_u(n(ops[0]), old)
        w.exec = {"and.save": old & m, "andn.save": old & ~m & M, "or.save": old | m}[op]


# ---------------------------------------------------------------- cases

def regs(ops, kind):
    """Every register of `kind` ('v' or 'u') an instruction list names, pairs with both halves."""
    out = set()
    for i in ops:
        for o in i[1:]:
            if isinstance(o, str) and o[0] == kind:
                out |= {int(p[1:]) for p in o.split(":")}
    return out


def loop_case(name, a_ops, v_src, u_src, v_init=None, u_init=None, p=P_MASK, q=Q_MASK, trips=3):
    """The three-trip loop over block A; v_src/u_src are xored with patterns in block B, v_init/u_init override
    the random initial values."""
    v = {r: vec() for r in sorted(regs(a_ops, "v") | set(v_src))}
    u = {r: val() for r in sorted(regs(a_ops, "u") | set(u_src))}
    v.update(v_init or {})
    u.update(u_init or {})
    pats_v = {r: 40 + k % 4 for k, r in enumerate(v_src)}
    pats_u = {r: 40 + k % 4 for k, r in enumerate(u_src)}
    for r in range(40, 44):
        v[r] = vec()
        u[r] = rng.getrandbits(32)
    u.update({57: q, 58: p, 59: M})
    b_ops = [("v.xor", f"v{r}", f"v{r}", f"v{pats_v[r]}") for r in v_src] + \
            [("u.xor", f"u{r}", f"u{r}", f"u{pats_u[r]}") for r in u_src]
    code = [f"u.li u62, {trips}", "loop:"] + [fmt(i) for i in a_ops] + ["exec.set u59"] + \
           [fmt(i) for i in b_ops] + ["exec.set u58", "u.xor u58, u58, u57", "u.add.i u62, u62, -1",
                                      "b.nz u62, loop", "end"]
    w = Wave(v, u, M)
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
    return render(name, code, v, u, w)


def straight_case(name, ops, v, u, exec_):
    w = Wave(v, u, exec_)
    for i in ops:
        step(w, i)
    return render(name, [fmt(i) for i in ops] + ["end"], v, u, w, exec_)


def hx(x):
    return f'"0x{x & M:08x}"'


def vlist(x, indent):
    rows = [", ".join(hx(a) for a in x[i:i + 8]) for i in range(0, L, 8)]
    return "[" + (",\n" + " " * indent).join(rows) + "]"


def render(name, code, v, u, w, exec_=M):
    out = [f'  - name: "{name}"', "    code: |"] + [f"      {c}" for c in code] + ["    init:"]
    if exec_ != M:
        out.append(f"      exec: {hx(exec_)}")
    if v:
        out.append("      v:")
        out += [f"        {r}: {vlist(x, 12)}" for r, x in sorted(v.items())]
    if u:
        out.append("      u: {" + ", ".join(f"{r}: {hx(x)}" for r, x in sorted(u.items())) + "}")
    out.append("    expect:")
    if w.exec != exec_:
        out.append(f"      exec: {hx(w.exec)}")
    dv = {r: x for r, x in w.v.items() if x != v.get(r)}
    du = {r: x for r, x in w.u.items() if x != u.get(r, 0)}
    if dv:
        out.append("      v:")
        out += [f"        {r}: {vlist(x, 12)}" for r, x in sorted(dv.items())]
    if du:
        out.append("      u: {" + ", ".join(f"{r}: {hx(x)}" for r, x in sorted(du.items())) + "}")
    return "\n".join(out) + "\n"


def write(fname, header, cases):
    with open(os.path.join(HERE, fname), "w") as f:
        f.write(header + "# Generated by gen_int.py (model written from the YAML `en` text). Do not edit by hand.\n")
        f.write("cases:\n" + "\n".join(cases))


# ---------------------------------------------------------------- case lists

def same_some_lanes(a):
    """A copy of vector a with about half its lanes replaced (so compares see equal and unequal lanes)."""
    return [x if rng.random() < 0.5 else val() for x in a]


def vint_cases():
    c = []
    V = lambda *i: i  # noqa: E731 (readability of the tables below)
    c.append(loop_case("vint: add sub mul and or xor andn orn, accumulators across trips", [
        V("v.add", "v10", "v1", "v2"), V("v.sub", "v11", "v1", "v2"), V("v.mul", "v12", "v1", "v3"),
        V("v.and", "v13", "v2", "v3"), V("v.or", "v14", "v3", "v4"), V("v.xor", "v15", "v4", "v5"),
        V("v.andn", "v16", "v5", "v6"), V("v.orn", "v17", "v6", "v1"), V("v.add", "v18", "v18", "v1"),
        V("v.mul", "v19", "v19", "v2"), V("v.sub", "v1", "v2", "v1")], [1, 2, 3, 4, 5, 6], []))
    c.append(loop_case("vint: min max min.u max.u absdiff absdiff.u (rd = rs1)", [
        V("v.min", "v10", "v1", "v2"), V("v.max", "v11", "v1", "v2"), V("v.min.u", "v12", "v1", "v2"),
        V("v.max.u", "v13", "v1", "v2"), V("v.absdiff", "v14", "v1", "v2"), V("v.absdiff.u", "v15", "v1", "v2"),
        V("v.absdiff", "v16", "v3", "v4"), V("v.absdiff.u", "v17", "v4", "v3"), V("v.min", "v3", "v3", "v4"),
        V("v.max.u", "v4", "v4", "v2")], [1, 2, 3, 4], []))
    c.append(loop_case("vint: per-lane shl shr sra, bfe.u bfe.s (amounts with high garbage)", [
        V("v.shl", "v10", "v1", "v2"), V("v.shr", "v11", "v1", "v2"), V("v.sra", "v12", "v1", "v2"),
        V("v.shl", "v13", "v3", "v3"), V("v.sra", "v14", "v3", "v4"), V("v.bfe.u", "v15", "v1", "v5"),
        V("v.bfe.s", "v16", "v1", "v5"), V("v.bfe.s", "v17", "v3", "v6"), V("v.shr", "v4", "v4", "v2")],
        [1, 2, 3, 4, 5, 6], [], v_init={2: [rng.getrandbits(27) << 5 | s for s in range(L)]}))
    vu = ["add", "sub", "mul", "and", "or", "xor", "andn", "orn", "shl", "shr", "sra", "bfe.u", "bfe.s", "rsub",
          "min", "max", "min.u", "max.u", "absdiff", "absdiff.u"]
    for part in (vu[:10], vu[10:]):
        ops = [V(f"v.{m}.vu", f"v{10 + k}", f"v{1 + k % 3}", f"u{1 + k % 4}") for k, m in enumerate(part)]
        ops.append(V(f"v.{part[0]}.vu", "v1", "v1", "u1"))
        c.append(loop_case(f"vint: .vu forms {part[0]}..{part[-1]}", ops, [1, 2, 3], [1, 2, 3, 4],
                           u_init={1: 0x0000081F, 2: 0x8000001F, 3: 33, 4: 0x0000100C}))
    imms = [("add", -128), ("add", 127), ("mul", -3), ("and", -16), ("or", 0x55), ("xor", -1), ("shl", 7),
            ("shl", -1), ("shr", 31), ("shr", 40), ("sra", 1), ("sra", -97), ("mul", 0)]
    ops = [V(f"v.{m}.i", f"v{10 + k}", f"v{1 + k % 3}", imm) for k, (m, imm) in enumerate(imms)]
    c.append(loop_case("vint: .i forms (imm sign-extended; shift amounts imm[4:0])", ops + [
        V("v.add.i", "v2", "v2", 5)], [1, 2, 3], []))
    ks = [("add", 0x9E3779B9), ("mul", 0x01000193), ("and", 0xFF00FF00), ("or", 0x80000001), ("xor", 0xDEADBEEF),
          ("min", 0x80000005), ("max", 0x7FFFFFF0), ("min.u", 0x10000), ("max.u", 0xFFFFFFFE), ("rsub", 0x1000),
          ("bfe.u", 0x1F08), ("bfe.s", 0x0C14), ("bfe.s", 0x1F1F), ("bfe.u", 0xFFFF0011)]
    ops = [V(f"v.{m}.k", f"v{10 + k}", f"v{1 + k % 3}", imm) for k, (m, imm) in enumerate(ks)]
    c.append(loop_case("vint: .k forms and v.mov.k", ops + [V("v.mov.k", "v30", 0x87654321),
                                                           V("v.rsub.k", "v3", "v3", 7)], [1, 2, 3], []))
    c.append(loop_case("vint: unary, laneid, mov.u, lanebit.u, li, lui, cndmask", [
        V("v.mov", "v10", "v1"), V("v.not", "v11", "v1"), V("v.neg", "v12", "v2"), V("v.abs", "v13", "v2"),
        V("v.sext.b", "v14", "v1"), V("v.sext.h", "v15", "v2"), V("v.zext.b", "v16", "v1"),
        V("v.zext.h", "v17", "v2"), V("v.laneid", "v18"), V("v.mov.u", "v19", "u1"), V("v.lanebit.u", "v20", "u2"),
        V("v.li", "v21", -131072), V("v.li", "v22", 131071), V("v.lui", "v23", 0x3FFFF), V("v.lui", "v24", 0x2A5),
        V("v.cndmask", "v25", "v1", "u2"), V("v.cndmask", "v2", "v1", "u3"), V("v.neg", "v1", "v1")],
        [1, 2], [1, 2, 3]))
    c.append(loop_case("vint: mad.u32 add3 lea, 64-bit add/sub/lea/mov.u.b64 on pairs (rd overlapping)", [
        V("v.mad.u32", "v10", "v1", "v2", "v3"), V("v.add3", "v11", "v1", "v2", "v3"),
        V("v.lea", "v12", "v1", "v2", 0), V("v.lea", "v13", "v1", "v2", 31), V("v.lea", "v14", "v3", "v1", 3),
        V("v.add.u64", "v16:v17", "v4:v5", "v6:v7"), V("v.sub.u64", "v18:v19", "v4:v5", "v6:v7"),
        V("v.add.u64.u32", "v20:v21", "v4:v5", "v1"), V("v.add.u64.i32", "v22:v23", "v6:v7", "v1"),
        V("v.lea.u64.u32", "v24:v25", "v2", "v4:v5", 0), V("v.lea.u64.u32", "v26:v27", "v2", "v6:v7", 13),
        V("v.lea.u64.i32", "v28:v29", "v3", "v4:v5", 31), V("v.lea.u64.i32", "v30:v31", "v3", "v6:v7", 0),
        V("v.lea.u64.i32", "v32:v33", "v1", "v4:v5", 7), V("v.mov.u.b64", "v34:v35", "u2:u3"),
        V("v.add.u64", "v6:v7", "v6:v7", "v6:v7"), V("v.sub.u64", "v4:v5", "v6:v7", "v4:v5"),
        V("v.mad.u32", "v1", "v1", "v1", "v1")], [1, 2, 3, 4, 5, 6, 7], [2, 3]))
    luts = [t * 0x11 for t in range(16)] + [0x80, 0x08, 0xF8, 0x8F, 0x96, 0xE8, 0xCA, 0x3C, 0x01, 0xFE, 0x7F,
                                              0x6A, 0xD8, 0x1B]
    for part in (luts[:15], luts[15:]):
        ops = [V("v.lop3", f"v{10 + k}", "v1", "v2", "v3", lut) for k, lut in enumerate(part)]
        ops.append(V("v.lop3", "v1", "v1", "v2", "v1", part[-1]))
        c.append(loop_case(f"vint: v.lop3 tables {part[0]:#x}..{part[-1]:#x}", ops, [1, 2, 3], []))
    c.append(loop_case("vint: mulhi (all forms), mad.hi, mul.wide, mad.wide (rd overlapping)", [
        V("v.mulhi", "v10", "v1", "v2"), V("v.mulhi.u", "v11", "v1", "v2"), V("v.mulhi.vu", "v12", "v2", "u1"),
        V("v.mulhi.u.vu", "v13", "v2", "u1"), V("v.mulhi.k", "v14", "v3", 0x80000000),
        V("v.mulhi.u.k", "v15", "v3", 0xAAAAAAAB), V("v.mad.hi.u32", "v16", "v1", "v3", "v2"),
        V("v.mad.hi.i32", "v17", "v1", "v3", "v2"), V("v.mul.wide.u32", "v18:v19", "v1", "v2"),
        V("v.mul.wide.i32", "v20:v21", "v1", "v2"), V("v.mad.wide.u32", "v22:v23", "v1", "v3", "v4:v5"),
        V("v.mad.wide.i32", "v24:v25", "v2", "v3", "v4:v5"), V("v.mul.wide.i32", "v2:v3", "v3", "v2"),
        V("v.mad.wide.u32", "v4:v5", "v5", "v4", "v4:v5")], [1, 2, 3, 4, 5], [1], u_init={1: 0xFFFFFFFF}))
    c.append(loop_case("vint: popc clz ctz brev, mbcnt.u", [
        V("v.popc", "v10", "v1"), V("v.clz", "v11", "v1"), V("v.ctz", "v12", "v1"), V("v.brev", "v13", "v1"),
        V("v.popc", "v14", "v2"), V("v.clz", "v15", "v2"), V("v.ctz", "v16", "v2"), V("v.brev", "v17", "v2"),
        V("v.mbcnt.u", "v18", "u1"), V("v.mbcnt.u", "v19", "u2"), V("v.clz", "v1", "v1")], [1, 2], [1, 2],
        v_init={1: [0, M, 1, 0x80000000] + [1 << k for k in range(28)]}, u_init={1: M, 2: 0x80000001}))
    c.append(loop_case("vint: bfi and prmt (descriptors and selectors with high garbage; rd = a source)", [
        V("v.bfi", "v10", "v1", "v2", "v3"), V("v.bfi", "v11", "v2", "v1", "v4"), V("v.prmt", "v12", "v1", "v2", "v3"),
        V("v.prmt", "v13", "v2", "v1", "v4"), V("v.prmt", "v14", "v1", "v1", "v5"), V("v.bfi", "v3", "v1", "v3", "v3"),
        V("v.prmt", "v4", "v4", "v2", "v4")], [1, 2, 3, 4, 5], [],
        v_init={5: [rng.choice([0x3210, 0x7654, 0x0123, 0x89AB, 0xFEDC, 0x4444, 0x8888]) | rng.getrandbits(16) << 16
                    for _ in range(L)]}))
    c.append(loop_case("vint: native ops around interpreter-executed ones (v.shf) in one block", [
        V("v.add", "v10", "v1", "v2"), V("v.shf.l.u32.w.hi", "v11", "v10", "v10", "v3"),
        V("v.xor", "v12", "v11", "v1"), V("v.shf.r.s64", "v13", "v12", "v2", "v3"), V("v.add", "v14", "v13", "v10"),
        V("v.add", "v2", "v2", "v14")], [1, 2, 3], []))
    c.append(loop_case("vint: trip 2 under EXEC = 0", [
        V("v.add", "v10", "v1", "v2"), V("v.shl", "v11", "v1", "v2"), V("v.cndmask", "v12", "v1", "u1"),
        V("v.mov.u", "v13", "u1"), V("v.add.u64", "v14:v15", "v2:v3", "v2:v3")], [1, 2, 3], [1], p=0, q=0x0000FFFF))
    return c


def cmp_cases():
    c = []
    conds = ["eq.i32", "ne.i32", "lt.i32", "le.i32", "gt.i32", "ge.i32", "lt.u32", "le.u32", "gt.u32", "ge.u32"]
    v1 = vec()
    ops = [("cmp." + cc, f"u{10 + k}", "v1", "v2") for k, cc in enumerate(conds)]
    ops += [("cmp.eq.i32", "u20", "v3", "v3"), ("cmp.lt.u32", "u21", "v3", "v1"), ("v.add.i", "v3", "v3", 1)]
    c.append(loop_case("cmp: vector-vector integer compares (equal lanes, same register, source changing)", ops,
                       [1, 2], [], v_init={1: v1, 2: same_some_lanes(v1)}))
    ops = [("cmp." + cc + ".vu", f"u{10 + k}", "v1", f"u{1 + k % 2}") for k, cc in enumerate(conds)]
    ops += [("cmp.ne.i32.vu", "u2", "v1", "u2")]
    c.append(loop_case("cmp: vector-uniform compares (rd = the uniform source)", ops, [1], [1, 2],
                       v_init={1: [rng.choice([5, 0x80000000, M, 7]) for _ in range(L)]},
                       u_init={1: 5, 2: 0x80000000}))
    imms = {"i32": [-128, -1, 0, 5, 127], "u32": [0, 1, 5, 128, 255]}
    ops = []
    for k, cc in enumerate(conds):
        for j, imm in enumerate(imms[cc[-3:]][k % 2::2]):
            ops.append(("cmp." + cc + ".vi", f"u{10 + 3 * k + j}", "v1", imm))
    c.append(loop_case("cmp: vector-immediate compares (sign- and zero-extended)", ops, [1], [],
                       v_init={1: [rng.choice([-128 & M, M, 0, 1, 5, 127, 128, 255, 256, 0x80000000, 0x7FFFFFFF])
                                   for _ in range(L)]}))
    c.append(loop_case("cmp: trip 2 under EXEC = 0 gives 0", [("cmp.ne.i32", "u10", "v1", "v2"),
                                                            ("cmp.ge.u32.vi", "u11", "v1", 0)],
                       [1], [], p=0, q=0xF0F0F0F0))
    return c


def uniform_cases():
    c = []
    rr = ["add", "sub", "mul", "mulhi", "mulhi.u", "and", "or", "xor", "andn", "orn", "shl", "shr", "sra", "min",
          "max", "min.u", "max.u"]
    ops = [(f"u.{m}", f"u{10 + k}", f"u{1 + k % 4}", f"u{1 + (k + 1) % 4}") for k, m in enumerate(rr)]
    c.append(loop_case("uniform: register-register arithmetic, logic, shifts (amount garbage), min/max", ops + [
        ("u.add", "u30", "u30", "u1"), ("u.shl", "u31", "u31", "u2")], [1, 2, 3, 4], [],
        u_init={1: 0x80000000, 2: M, 3: 0x23, 4: 0x7FFFFFFF, 30: 0, 31: 1}))
    ops = [(f"u.{m}", f"u{10 + 4 * k + j}", f"u{a}", f"u{b}") for k, m in enumerate(["div", "div.u", "rem", "rem.u"])
           for j, (a, b) in enumerate([(1, 2), (3, 4), (5, 6), (2, 1)])]
    c.append(loop_case("uniform: div/rem (zero divisor, INT_MIN / -1, signs) without host traps", ops + [
        ("u.div", "u1", "u1", "u5")], [1, 2, 3, 4, 5, 6], [],
        u_init={1: 0x80000000, 2: M, 3: 12345, 4: 0, 5: -7 & M, 6: 3}))
    sc = ["seq", "sne", "slt", "sle", "slt.u", "sle.u", "bfe.u", "bfe.s"]
    ops = [(f"u.{m}", f"u{10 + 2 * k + j}", f"u{a}", f"u{b}") for k, m in enumerate(sc)
           for j, (a, b) in enumerate([(1, 2), (3, 4)])]
    c.append(loop_case("uniform: set-on-compare and bfe register forms", ops, [1, 2, 3, 4], [],
                       u_init={1: 0x80000000, 2: 0x80000000, 3: 0xFFFFF0F0, 4: 0x1F14}))
    ri = [("add.i", -512), ("mul.i", -3), ("and.i", 0x1F0), ("or.i", -2), ("xor.i", -1), ("shl.i", 31),
          ("shr.i", 1), ("sra.i", 17), ("seq.i", 5), ("sne.i", 5), ("slt.i", -1), ("slt.u.i", -1), ("sgt.i", -512),
          ("sgt.u.i", 511), ("min.i", -7), ("max.i", 300)]
    ops = [(f"u.{m}", f"u{10 + k}", f"u{1 + k % 3}", imm) for k, (m, imm) in enumerate(ri)]
    c.append(loop_case("uniform: immediate forms", ops, [1, 2, 3], [], u_init={1: 5, 2: M, 3: 0x80000000}))
    uk = [("add.k", 0x9E3779B9), ("mul.k", 0x01000193), ("mulhi.k", 0x80000000), ("mulhi.u.k", 0xAAAAAAAB),
          ("and.k", 0xFF00FF00), ("or.k", 0x0F0F0F0F), ("xor.k", M), ("min.k", 0x80000001), ("max.k", 0x7FFFFFFF),
          ("min.u.k", 0x10000), ("max.u.k", 0x80000000), ("seq.k", 0x12345678), ("sne.k", 0x12345678),
          ("slt.k", 0xFFFFFFF0), ("sgt.k", 0xFFFFFFF0), ("slt.u.k", 0x80000000), ("sgt.u.k", 0x80000000),
          ("bfe.u.k", 0x0804), ("bfe.s.k", 0x1F1C), ("bfe.s.k", 0x0007)]
    ops = [(f"u.{m}", f"u{10 + k}", f"u{1 + k % 3}", imm) for k, (m, imm) in enumerate(uk)]
    c.append(loop_case("uniform: literal forms, mov.k, li, lui", ops + [
        ("u.mov.k", "u30", 0xDEADBEEF), ("u.li", "u31", -65536), ("u.li", "u32", 65535), ("u.lui", "u33", -1),
        ("u.lui", "u34", 0xFFFF)], [1, 2, 3], [], u_init={1: 0x12345678, 2: 0xFFFFFFF0, 3: 0x80000000}))
    un = ["mov", "not", "neg", "popc", "clz", "ctz", "brev", "sext.b", "sext.h", "zext.b", "zext.h", "wqm"]
    ops = [(f"u.{m}", f"u{10 + 2 * k + j}", f"u{1 + j}") for k, m in enumerate(un) for j in range(2)]
    c.append(loop_case("uniform: unary (zero and sign edges)", ops + [("u.neg", "u1", "u1")], [1, 2], [],
                       u_init={1: 0, 2: 0x80000080}))
    c.append(loop_case("uniform: 64-bit pairs (carries, shifts by 0..63 with garbage, overlapping rd)", [
        ("u.add.u64", "u10:u11", "u2:u3", "u4:u5"), ("u.sub.u64", "u12:u13", "u2:u3", "u4:u5"),
        ("u.add.u64.u32", "u14:u15", "u2:u3", "u1"), ("u.add.u64.i32", "u16:u17", "u4:u5", "u1"),
        ("u.shl.u64", "u18:u19", "u2:u3", "u6"), ("u.shr.u64", "u20:u21", "u2:u3", "u6"),
        ("u.shl.u64", "u22:u23", "u4:u5", "u7"), ("u.mul.wide.u32", "u24:u25", "u1", "u6"),
        ("u.mul.wide.i32", "u26:u27", "u1", "u6"), ("u.add.u64.k", "u28:u29", "u2:u3", 0xFFFFFFFF),
        ("u.add.u64.k", "u30:u31", "u4:u5", 0x7FFFFFFF), ("u.mov.u64", "u32:u33", "u4:u5"),
        ("u.add.u64", "u2:u3", "u2:u3", "u2:u3"), ("u.mul.wide.i32", "u6:u7", "u7", "u6"),
        ("u.mov.u64", "u4:u5", "u2:u3")], [1, 2, 3, 4, 5, 6, 7], [],
        u_init={1: 0x80000000, 2: M, 3: 0x7FFFFFFF, 4: 1, 5: 0, 6: 0xFFFFFFE0 | 33, 7: 31}))
    return c


def exec_cases():
    """EXEC writers end their blocks, so a straight run of them visits many blocks, each entered under the EXEC
    the previous one left (both variants)."""
    ops = [("exec.get", "u1"), ("exec.and.save", "u2", "u10"), ("v.add.i", "v1", "v1", 1), ("exec.get", "u3"),
           ("cmp.ne.i32.vi", "u4", "v1", 0), ("exec.or.save", "u5", "u11"), ("v.add.i", "v1", "v1", 2),
           ("exec.andn.save", "u6", "u12"), ("v.add.i", "v1", "v1", 3), ("exec.and.save", "u13", "u13"),
           ("exec.get", "u7"), ("exec.or.save", "u14", "u14"), ("exec.andn.save", "u15", "u15"),
           ("exec.set", "u16"), ("exec.wqm",), ("exec.get", "u8"), ("v.lanebit.u", "v2", "u8"),
           ("exec.elect", "u9"), ("v.laneid", "v3"), ("exec.set", "u18"), ("exec.elect", "u19"),
           ("v.add.i", "v1", "v1", 4), ("exec.set", "u20"), ("v.add.i", "v1", "v1", 5), ("exec.get", "u21")]
    u = {10: P_MASK, 11: 0x00FF0000, 12: 0x0000F0F0, 13: 0xFFFF00FF, 14: 0x0000000F, 15: 0x80000000,
         16: 0x10200401, 18: 0, 20: M}
    out = []
    for e in (M, 0xF0FF0F0F):
        v = {1: vec(), 2: vec(), 3: vec()}
        out.append(straight_case(f"uniform: exec.* sequence from EXEC {e:#010x}", ops, v, u, e))
    return out


if __name__ == "__main__":
    hdr = "# JIT-focused cases: each block under test runs in its full-EXEC and its EXEC-blending variant.\n"
    write("vint.yaml", hdr, vint_cases())
    write("cmp.yaml", hdr, cmp_cases())
    write("uniform.yaml", hdr, uniform_cases() + exec_cases())
