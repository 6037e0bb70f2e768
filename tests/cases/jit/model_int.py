"""The wave model and case rendering behind gen_int.py: lane formulas written from the YAML `en` text of groups
1, 2 and 4 (independently of the interpreter), with Python integers masked to 32 bits, and the loop skeleton
that runs a block under test in both of its compiled variants (see gen_int.py)."""
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
