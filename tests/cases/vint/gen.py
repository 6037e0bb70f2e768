#!/usr/bin/env python3
"""Regenerates the group-2 (vector integer ALU) conformance cases in this directory.

Expected values are computed here, independently of the interpreter, from the YAML `en` text of
isa-spec/groups/2-vint.yaml, with Python's unbounded integers (results masked to 32 or 64 bits at the end).
A small model of the wave (registers, EXEC, read-all-sources-then-write) runs each case's instructions; the
instruction shapes (operand kinds) come from the YAML `syntax`, the lane formulas from SEM below.

Run: python3 tests/cases/vint/gen.py   (rewrites the *.yaml files beside it)
"""
import os
import random
import re

import yaml

L = 32
M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "..", "..", "..", "isa-spec", "groups", "2-vint.yaml")
rng = random.Random(2002)

EDGE_EXEC = 0x7FFFFFFE      # lanes 0 and 31 inactive: every edge value sits in an active lane
PARTIAL = [0x0F0F00FF, 0xA5A5C3E1]


def sx(x, bits=32):
    """Two's-complement value of the low `bits` bits of x."""
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def popc(x):
    return bin(x).count("1")


# ---------------------------------------------------------------- lane formulas, from the `en` text

def bfe_u(a, p):
    off, w = p & 31, (p >> 8) & 31
    return 0 if w == 0 else (a >> off) & ((1 << w) - 1)


def bfe_s(a, p):
    off, w = p & 31, (p >> 8) & 31
    if w == 0:
        return 0
    t = sx(a) >> off                      # arithmetic: bits above 31 read as a[31]
    return sx(t & ((1 << w) - 1), w)      # sign-extended from bit w-1


def bfi(field, base, p):
    off, w = p & 31, (p >> 8) & 31
    m = (((1 << w) - 1) << off) & M32
    return (base & ~m) | ((field << off) & m)


def prmt(a, b, s):
    bs = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    d = 0
    for k in range(4):
        n = (s >> (4 * k)) & 15
        byte = bs[n & 7]
        if n & 8:
            byte = 0xFF if byte & 0x80 else 0x00
        d |= byte << (8 * k)
    return d


def lop3(a, b, c, lut):
    d = 0
    for i in range(32):
        idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1)
        d |= ((lut >> idx) & 1) << i
    return d


def shf(mn):
    parts = mn.split(".")[2:]             # e.g. ['r', 's64', 'w', 'hi']
    left, ty = parts[0] == "l", parts[1]
    wrap, hi = "w" in parts, "hi" in parts
    width = 64 if ty.endswith("64") else 32

    def f(lo, hi_word, c):
        x = (hi_word << 32) | lo
        n = c & (width - 1) if wrap else min(c, width)
        if left:
            y = x << n
        elif ty.startswith("s"):
            y = sx(x, 64) >> n            # Python's >> is arithmetic on negatives; n = 64 gives -1 or 0
        else:
            y = x >> n
        y &= M64
        return y >> 32 if hi else y
    return f


def ctz(a):
    return 32 if a == 0 else (a & -a).bit_length() - 1


SEM = {
    "v.add": lambda a, b: a + b,
    "v.sub": lambda a, b: a - b,
    "v.mul": lambda a, b: a * b,
    "v.mulhi": lambda a, b: (sx(a) * sx(b)) >> 32,
    "v.mulhi.u": lambda a, b: (a * b) >> 32,
    "v.and": lambda a, b: a & b,
    "v.or": lambda a, b: a | b,
    "v.xor": lambda a, b: a ^ b,
    "v.andn": lambda a, b: a & ~b,
    "v.orn": lambda a, b: a | ~b,
    "v.shl": lambda a, b: a << (b & 31),
    "v.shr": lambda a, b: a >> (b & 31),
    "v.sra": lambda a, b: sx(a) >> (b & 31),
    "v.bfe.u": bfe_u,
    "v.bfe.s": bfe_s,
    "v.min": lambda a, b: min(sx(a), sx(b)),
    "v.max": lambda a, b: max(sx(a), sx(b)),
    "v.min.u": min,
    "v.max.u": max,
    "v.absdiff": lambda a, b: abs(sx(a) - sx(b)),
    "v.absdiff.u": lambda a, b: abs(a - b),
    "v.add.u64": lambda a, b: a + b,
    "v.sub.u64": lambda a, b: a - b,
    "v.add.u64.u32": lambda a, b: a + b,
    "v.add.u64.i32": lambda a, b: a + sx(b),
    "v.mul.wide.u32": lambda a, b: a * b,
    "v.mul.wide.i32": lambda a, b: sx(a) * sx(b),
    "v.rsub": lambda a, b: b - a,
    "v.mov": lambda a: a,
    "v.not": lambda a: ~a,
    "v.neg": lambda a: -a,
    "v.abs": lambda a: abs(sx(a)),
    "v.popc": popc,
    "v.clz": lambda a: 32 - a.bit_length(),
    "v.ctz": ctz,
    "v.brev": lambda a: int("{:032b}".format(a)[::-1], 2),
    "v.sext.b": lambda a: sx(a, 8),
    "v.sext.h": lambda a: sx(a, 16),
    "v.zext.b": lambda a: a & 0xFF,
    "v.zext.h": lambda a: a & 0xFFFF,
    "v.mov.u": lambda u: u,
    "v.mov.u.b64": lambda u: u,
    "v.li": lambda imm: imm,
    "v.lui": lambda imm: imm << 14,
    "v.mov.k": lambda imm: imm,
    "v.mad.u32": lambda a, b, c: a * b + c,
    "v.mad.hi.u32": lambda a, b, c: ((a * b) >> 32) + c,
    "v.mad.hi.i32": lambda a, b, c: ((sx(a) * sx(b)) >> 32) + c,
    "v.add3": lambda a, b, c: a + b + c,
    "v.bfi": bfi,
    "v.prmt": prmt,
    "v.lea": lambda a, b, sh: (a << sh) + b,
    "v.lea.u64.u32": lambda a, b, sh: b + (a << sh),
    "v.lea.u64.i32": lambda a, b, sh: b + (sx(a) << sh),
    "v.mad.wide.u32": lambda a, b, c: a * b + c,
    "v.mad.wide.i32": lambda a, b, c: sx(a) * sx(b) + c,
    "v.lop3": lop3,
}
# Formulas that see the lane index or the destination's old value: f(lane, old, *sources).
LANE_SEM = {
    "v.laneid": lambda lane, old: lane,
    "v.lanebit.u": lambda lane, old, u: (u >> lane) & 1,
    "v.mbcnt.u": lambda lane, old, u: popc(u & ((1 << lane) - 1)),
    "v.cndmask": lambda lane, old, a, u: a if (u >> lane) & 1 else old,
}


def sem(mn):
    """The lane formula of a mnemonic: the .vu / .i / .k forms share their base's formula."""
    if mn in LANE_SEM:
        return LANE_SEM[mn], True
    if mn.startswith("v.shf."):
        return shf(mn), False
    if mn in SEM:
        return SEM[mn], False
    base = re.sub(r"\.(vu|i|k)$", "", mn)
    return SEM[base], False


# ---------------------------------------------------------------- the spec and a model of the wave

SPEC_INSNS = yaml.safe_load(open(SPEC))["instructions"]
SYNTAX = {}
for e in SPEC_INSNS:
    ops = []
    for tok in e["syntax"].split():
        name, kind = tok.split(":", 1)
        ops.append((name, kind.split("@")[0]))
    SYNTAX[e["mnemonic"]] = ops
COVERED = set()


class Wave:
    def __init__(self, exec_):
        self.exec = exec_
        self.v = {}
        self.u = {}

    def copy(self):
        w = Wave(self.exec)
        w.v = {r: list(x) for r, x in self.v.items()}
        w.u = dict(self.u)
        return w

    def vr(self, r):
        return self.v.setdefault(r, [0] * L)

    def read(self, kind, x, lane):
        if kind == "v":
            return self.vr(x)[lane]
        if kind == "vp":
            assert x % 2 == 0
            return self.vr(x)[lane] | self.vr(x + 1)[lane] << 32
        if kind == "u":
            return self.u.get(x, 0)
        if kind == "up":
            return self.u.get(x, 0) | self.u.get(x + 1, 0) << 32
        return x                          # an immediate

    def step(self, mn, vals):
        """Executes one instruction: every lane's result is computed before any register is written."""
        COVERED.add(mn)
        ops = SYNTAX[mn]
        (_, dkind), srcs = ops[0], ops[1:]
        f, lane_form = sem(mn)
        rd = vals[0]
        res = []
        for lane in range(L):
            args = [self.read(k, v, lane) for (_, k), v in zip(srcs, vals[1:])]
            if lane_form:
                res.append(f(lane, self.vr(rd)[lane], *args))
            else:
                res.append(f(*args))
        for lane in range(L):
            if self.exec >> lane & 1:
                if dkind == "vp":
                    self.vr(rd)[lane] = res[lane] & M32
                    self.vr(rd + 1)[lane] = (res[lane] >> 32) & M32
                else:
                    self.vr(rd)[lane] = res[lane] & M32


def fmt_insn(mn, vals, short_pairs=False):
    out = []
    for (_, kind), v in zip(SYNTAX[mn], vals):
        if kind in ("v", "v*"):
            out.append("v%d" % v)
        elif kind == "vp":
            out.append("v%d" % v if short_pairs else "v%d:v%d" % (v, v + 1))
        elif kind == "u":
            out.append("u%d" % v)
        elif kind == "up":
            out.append("u%d" % v if short_pairs else "u%d:u%d" % (v, v + 1))
        elif kind in ("imm32", "u8", "u18"):
            out.append("0x%x" % v)
        else:
            out.append("%d" % v)
    return "%s %s" % (mn, ", ".join(out))


# ---------------------------------------------------------------- YAML emission

def hx(x):
    return "0x%08x" % (x & M32)


def vec_yaml(v):
    items = ['"%s"' % hx(x) for x in v]
    rows = [", ".join(items[i:i + 8]) for i in range(0, L, 8)]
    return "[" + (",\n            ").join(rows) + "]"


def state_yaml(w, regs_v, regs_u, with_exec, pad):
    out = []
    if with_exec:
        out.append('%sexec: "%s"' % (pad, hx(w.exec)))
    if regs_v:
        out.append("%sv:" % pad)
        for r in sorted(regs_v):
            out.append("%s  %d: %s" % (pad, r, vec_yaml(w.vr(r))))
    if regs_u:
        out.append("%su:" % pad)
        for r in sorted(regs_u):
            out.append('%s  %d: "%s"' % (pad, r, hx(w.u[r])))
    return out


def case(name, code, init):
    """Runs `code` ([(mnemonic, operand values, short_pairs)]) on the model and emits the case."""
    assert '"' not in name and "\\" not in name
    w = init.copy()
    lines = ['  - name: "%s"' % name, "    code: |"]
    for insn in code:
        mn, vals = insn[0], insn[1]
        lines.append("      " + fmt_insn(mn, vals, len(insn) > 2 and insn[2]))
        w.step(mn, vals)
    lines.append("      end")
    lines.append("    init:")
    lines += state_yaml(init, [r for r in init.v if any(init.v[r])], [r for r in init.u if init.u[r]], True,
                        "      ")
    changed = [r for r in w.v if w.vr(r) != init.copy().vr(r)]
    if changed:
        lines.append("    expect:")
        lines += state_yaml(w, changed, [], False, "      ")
    else:
        lines.append("    expect: {}")
    return "\n".join(lines) + "\n"


def write(fname, title, cases):
    with open(os.path.join(HERE, fname), "w") as f:
        f.write("# %s\n# Generated by gen.py (expected values computed there from the YAML `en` text, independently of\n"
                "# the interpreter). Do not edit by hand: change gen.py and rerun it.\ncases:\n" % title)
        f.write("\n".join(cases))


# ---------------------------------------------------------------- input values

EDGE32 = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE, 0x0000FFFF, 0xFFFF0000,
          0x12345678, 0x9ABCDEF0, 0xDEADBEEF, 0x00000080, 0x0000007F, 0x00008000, 0x00007FFF, 0x55555555,
          0xAAAAAAAA, 31, 32, 33, 0x40000000, 0xC0000000, 0x00010000, 0xFEDCBA98, 0x0F0F0F0F, 0x7FFFFFFE,
          0x00000100, 0x000000FF]
# Pairs for two-source operations: corner crossings first (overflow of mul/mulhi/absdiff, equal values).
PAIRS32 = [(0xFFFFFFFF, 0xFFFFFFFF), (0x80000000, 0x80000000), (0x80000000, 0xFFFFFFFF), (0x7FFFFFFF, 0x80000000),
           (0x80000000, 0x7FFFFFFF), (0x7FFFFFFF, 0x7FFFFFFF), (0xFFFFFFFF, 1), (1, 0xFFFFFFFF), (0, 0xFFFFFFFF),
           (0x80000000, 1), (5, 5), (0xFFFFFFFE, 0xFFFFFFFF), (0x12345678, 0x9ABCDEF0), (0x9ABCDEF0, 0x12345678),
           (0x10000, 0x10000), (0xFFFF0000, 0x0000FFFF), (3, 0xFFFFFFFD), (0, 0), (0x7FFFFFFF, 0xFFFFFFFF),
           (0xDEADBEEF, 0xDEADBEEF), (0x80000001, 0x80000001), (100, 7), (0xFFFFFF9C, 7), (0xAAAAAAAA, 0x55555555)]
SHIFT_AMTS = [0, 1, 4, 15, 16, 31, 32, 33, 63, 64, 65, 0xFFFFFFFF, 0x80000000, 0x8000001F, 0xFFFFFFE1, 100,
              7, 0x3F, 0x40, 0x41, 0x7FFFFFFF, 2, 8, 24, 30, 0x1000001, 0x100, 0x11F, 29, 0xFFFFFFE0]
# bfe/bfi descriptors off | w << 8 | junk (junk in bits other than 4:0 and 12:8 must be ignored).
_FIELDS = [(0, 0), (5, 0), (31, 0), (0, 1), (0, 31), (1, 31), (31, 1), (16, 16), (17, 16), (28, 8), (24, 8),
           (8, 8), (4, 12), (31, 31), (20, 12), (3, 7), (30, 2), (15, 1), (0, 16), (16, 15), (7, 25), (1, 1),
           (12, 20), (13, 20), (31, 2), (0, 8), (9, 23), (24, 7), (2, 30), (10, 22)]
_JUNK = [0, 0xFFFFE0E0, 0x000000E0, 0x00002000, 0x80000000, 0x00E0E000]
BFE_DESCS = [off | w << 8 | _JUNK[i % len(_JUNK)] for i, (off, w) in enumerate(_FIELDS)]
PRMT_SELS = [0x3210, 0x7654, 0x0123, 0x4567, 0x8888, 0xFFFF, 0xCCCC, 0x89AB, 0xCDEF, 0x1111, 0x0000, 0x7777,
             0xBA98, 0xFEDC, 0xFFFF3210, 0x12345678, 0x5140, 0xF0E1, 0x9E3A, 0x0F0F, 0xABCDEF01, 0x3B2A,
             0x7F6E, 0x4C8D, 0x2222, 0xAAAA, 0xE6C4, 0x1357, 0x8F07, 0x6666]
SHF_AMTS = [0, 1, 8, 31, 32, 33, 63, 64, 65, 95, 96, 127, 128, 0xFFFFFFFF, 0x80000000, 0x80000020, 0x20, 0x3F,
            0x40, 0x41, 0x21, 0x1F, 16, 48, 0xFFFFFFC0, 0xFFFFFFE0, 0x1E, 0x5F, 0x100001F, 2]
EDGE64 = [0, 1, 0xFFFFFFFF, 0x1_00000000, M64, 0x7FFFFFFF_FFFFFFFF, 0x80000000_00000000, 0x80000000,
          0x12345678_9ABCDEF0, 0xFFFFFFFF_00000000, 0x00000001_FFFFFFFF, 0xDEADBEEF_CAFEF00D, 2, 0xFFFFFFFE]
PAIRS64 = [(0xFFFFFFFF, 1), (M64, 1), (0x1_00000000, 1), (0, 1), (0x7FFFFFFF_FFFFFFFF, 1),
           (0x80000000_00000000, 1), (0xFFFFFFFF, 0xFFFFFFFF), (M64, M64), (0x12345678_9ABCDEF0, 0x0FEDCBA9_87654321),
           (0x00000001_00000000, 0xFFFFFFFF), (0x80000000, 0x80000000), (0, M64), (5, 7), (7, 5)]
# 64-bit plus 32-bit operand pairs (carry into the high word, sign extension of the offset).
PAIRS64_32 = [(0xFFFFFFFF, 1), (M64, 1), (0x1_00000000, 0xFFFFFFFF), (0, 0xFFFFFFFF), (0x1_00000000, 0x80000000),
              (0x7FFFFFFF_FFFFFFFF, 1), (0x12345678_9ABCDEF0, 0x7FFFFFFF), (0x12345678_9ABCDEF0, 0x80000000),
              (0, 0), (0xFFFFFFFF, 0xFFFFFFFF), (5, 0xFFFFFFFB), (0x80000000_00000000, 0xFFFFFFFF)]


def rnd32():
    """Random operand biased toward small, negative and boundary values."""
    k = rng.randrange(8)
    if k == 0:
        return rng.randrange(64)
    if k == 1:
        return (-rng.randrange(1, 64)) & M32
    if k == 2:
        return rng.choice(EDGE32)
    return rng.getrandbits(32)


def place(values, exec_, gen):
    """A 32-lane vector holding `values` in the active lanes (in order) and gen() elsewhere."""
    vals = list(values)
    out = []
    for lane in range(L):
        if exec_ >> lane & 1 and vals:
            out.append(vals.pop(0))
        else:
            out.append(gen())
    assert not vals, "more edge values than active lanes"
    return out


def old_vec(r):
    """A destination's old value: recognisable (0xdd.., register and lane in the low bytes)."""
    return [0xDD000000 | (r & 0xFF) << 16 | lane * 0x0101 for lane in range(L)]


# ---------------------------------------------------------------- per-instruction cases

def kinds(mn):
    return [k for _, k in SYNTAX[mn]]


def edge_lanes(mn):
    """Edge values for the vector sources of `mn`, one list per vector source (lane order)."""
    base = re.sub(r"\.(vu|i|k)$", "", mn)
    srcs = [k for k in kinds(mn)[1:] if k in ("v", "vp")]
    n = len(srcs)
    if mn.startswith("v.shf."):
        his = [x ^ (0x80000000 if i % 2 else 0) for i, x in enumerate(EDGE32)]
        return [[0x89ABCDEF] * 8 + EDGE32[:22], [0xF0E1D2C3, 0x01234567] * 4 + his[:22], SHF_AMTS]
    if base in ("v.shl", "v.shr", "v.sra"):
        return [EDGE32[:len(SHIFT_AMTS)], SHIFT_AMTS][:n]
    if base in ("v.bfe.u", "v.bfe.s"):
        vals = [0x89ABCDEF, 0x7654321F, 0xFFFFFFFF, 0x80000000, 0x00000001, 0xF0F0F0F0]
        return [[vals[i % len(vals)] for i in range(len(BFE_DESCS))], BFE_DESCS][:n]
    if mn == "v.bfi":
        return [[0xFFFFFFFF, 0x12345678, 0xA5A5A5A5] * 10, [0x0F0F0F0F, 0x00000000, 0xDEADBEEF] * 10, BFE_DESCS]
    if mn == "v.prmt":
        return [[0x80FF7F01, 0x11223344, 0x00800080] * 10, [0x7F8081FE, 0xCAFEBABE, 0xFF000000] * 10, PRMT_SELS]
    if mn == "v.lop3":
        return [EDGE32, [rng.getrandbits(32) for _ in range(30)], [rng.getrandbits(32) for _ in range(30)]]
    if srcs == ["vp", "vp"]:
        return [[a for a, _ in PAIRS64], [b for _, b in PAIRS64]]
    if srcs == ["vp", "v"]:
        return [[a for a, _ in PAIRS64_32], [b for _, b in PAIRS64_32]]
    if srcs == ["v", "vp"]:             # lea.u64: index, 64-bit base
        return [[b for _, b in PAIRS64_32], [a for a, _ in PAIRS64_32]]
    if srcs == ["v", "v", "vp"]:        # mad.wide: the product corners, then a carrying addend
        return [[a for a, _ in PAIRS32], [b for _, b in PAIRS32], [EDGE64[i % len(EDGE64)] for i in range(len(PAIRS32))]]
    if n == 1:
        return [EDGE32]
    if n == 2:
        return [[a for a, _ in PAIRS32], [b for _, b in PAIRS32]]
    if n == 3:
        return [[a for a, _ in PAIRS32], [b for _, b in PAIRS32], [EDGE32[(i * 7) % 30] for i in range(len(PAIRS32))]]
    return []


def scalar_edges(mn, kind):
    """Values for a uniform or immediate operand: one instruction per value."""
    base = re.sub(r"\.(vu|i|k)$", "", mn)
    if kind == "s8":
        if base in ("v.shl", "v.shr", "v.sra"):
            return [0, 1, 31, -1, 32, 33, 127, -128]
        return [0, 1, -1, 127, -128, 0x45, -100]
    if kind == "imm18":
        return [0, 1, -1, 131071, -131072, 12345, -77777]
    if kind == "u18":
        return [0, 1, 0x3FFFF, 0x20000, 0x1FFFF, 0x12345]
    if kind == "u5":
        return [0, 1, 3, 31]
    if kind == "u8":                      # lop3 truth tables
        return [0xF0, 0xCC, 0xAA, 0x96, 0xE8, 0x80, 0x01, 0x7F]
    if kind == "up":
        return [0x00000001_00000000, M64, 0x12345678_9ABCDEF0]
    if base in ("v.shl", "v.shr", "v.sra"):
        return [0, 5, 31, 32, 33, 0xFFFFFFFF, 0x80000001]
    if base in ("v.bfe.u", "v.bfe.s"):
        return [0x0000, 0x0804, 0x1F01, 0x081C, 0x1010, 0xFFFFE0E5, 0x1F1F, 0x0000001F]
    if mn == "v.cndmask":
        return [0xFFFFFFFF, 0x00000000, 0x12345678, 0x80000001]
    if mn in ("v.lanebit.u", "v.mbcnt.u"):
        return [0xFFFFFFFF, 0x00000000, 0x80000001, 0x12345678, 0xF0F0F0F0]
    return [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x12345678, 0xFFFF8000]


def alloc(mn):
    """Register numbers for rd and the sources: vector sources from v1 up (pairs even), uniforms from u5 up."""
    nv, nu = 1, 5
    regs = []
    for kind in kinds(mn)[1:]:
        if kind == "v":
            regs.append(nv)
            nv += 1
        elif kind == "vp":
            nv += nv % 2
            regs.append(nv)
            nv += 2
        elif kind == "u":
            regs.append(nu)
            nu += 1
        elif kind == "up":
            nu += nu % 2
            regs.append(nu)
            nu += 2
        else:
            regs.append(None)             # immediate
    return regs


def scalar_index(mn):
    ks = kinds(mn)[1:]
    idx = [i for i, k in enumerate(ks) if k not in ("v", "vp")]
    assert len(idx) <= 1, mn
    return idx[0] if idx else None


def build(mn, exec_, vec_values, scalar_values):
    """A case init and code: vector sources get `vec_values` (lists in active lanes), each scalar value its own
    instruction writing its own destination (v16, v18, ...)."""
    ks = kinds(mn)
    regs = alloc(mn)
    w = Wave(exec_)
    vi = 0
    for kind, r in zip(ks[1:], regs):
        if kind == "v":
            w.v[r] = place(vec_values[vi] if vi < len(vec_values) else [], exec_, rnd32)
            vi += 1
        elif kind == "vp":
            vals = vec_values[vi] if vi < len(vec_values) else []
            lo = place([x & M32 for x in vals], exec_, rnd32)
            hi = place([x >> 32 for x in vals], exec_, rnd32)
            w.v[r], w.v[r + 1] = lo, hi
            vi += 1
    si = scalar_index(mn)
    code = []
    scal = scalar_values if si is not None else [None]
    for j, s in enumerate(scal):
        rd = 16 + 2 * j
        w.v[rd] = old_vec(rd)
        if ks[0] == "vp":
            w.v[rd + 1] = old_vec(rd + 1)
        vals = [rd] + list(regs)
        if si is not None:
            kind = ks[1 + si]
            if kind in ("u", "up"):
                ur = regs[si] + (2 if kind == "up" else 1) * j
                if kind == "up":
                    w.u[ur], w.u[ur + 1] = s & M32, s >> 32
                else:
                    w.u[ur] = s & M32
                vals[1 + si] = ur
            else:
                vals[1 + si] = s
        code.append((mn, vals))
    return w, code


def std_cases(mn):
    """Edge values with lanes 0 and 31 inactive, then random values under two partial EXEC masks."""
    ks = kinds(mn)
    si = scalar_index(mn)
    skind = ks[1 + si] if si is not None else None
    out = []
    w, code = build(mn, EDGE_EXEC, edge_lanes(mn), scalar_edges(mn, skind) if skind else [])
    out.append(case("%s: edge values (EXEC %s)" % (mn, hx(EDGE_EXEC)), code, w))
    for ex in PARTIAL:
        if skind in ("u", "up"):
            sv = [rng.getrandbits(64 if skind == "up" else 32)]
        elif skind is not None:
            lo, hi = {"s8": (-128, 127), "imm18": (-131072, 131071), "u18": (0, 0x3FFFF), "u5": (0, 31),
                      "imm32": (0, M32), "u8": (0, 255)}[skind]
            sv = [rng.randint(lo, hi)]
        else:
            sv = []
        nsrc = len([k for k in ks[1:] if k in ("v", "vp")])
        rv = [[(rng.getrandbits(64) if k == "vp" else rnd32()) for _ in range(L)] for k in ks[1:] if k in ("v", "vp")]
        # random values are placed in active lanes first; the rest of each list is unused
        w, code = build(mn, ex, [v[:popc(ex)] for v in rv][:nsrc], sv)
        out.append(case("%s: random values (EXEC %s)" % (mn, hx(ex)), code, w))
    return out


def mnemonics(pred):
    return [e["mnemonic"] for e in SPEC_INSNS if pred(e)]


def group_cases(pred):
    out = []
    for mn in mnemonics(pred):
        out += std_cases(mn)
    return out


# ---------------------------------------------------------------- hand-written sequences

def seq_case(name, exec_, vregs, uregs, code):
    """A case from explicit register contents ({reg: list or value}) and code [(mn, vals[, short_pairs])]."""
    w = Wave(exec_)
    for r, v in vregs.items():
        w.v[r] = list(v) if isinstance(v, list) else [v] * L
    w.u.update(uregs)
    return case(name, code, w)


def rv():
    return [rnd32() for _ in range(L)]


def special_cases():
    out = []
    a, b, c = rv(), rv(), rv()
    # rd aliasing a source: every source is read in full before rd is written
    out.append(seq_case("v.add rd = rs1 = rs2 (partial EXEC)", 0x0F0F00FF, {1: a}, {}, [("v.add", [1, 1, 1])]))
    out.append(seq_case("v.sub rd = rs2", 0xA5A5C3E1, {1: a, 2: b}, {}, [("v.sub", [2, 1, 2])]))
    out.append(seq_case("v.mulhi rd = rs1 = rs2", 0xFFFFFFFF, {3: EDGE32 + [0x80000000, 0xFFFFFFFF]}, {},
                        [("v.mulhi", [3, 3, 3]), ("v.mulhi.u", [4, 3, 3])]))
    out.append(seq_case("v.bfi rd = rs2 (the base)", 0x7FFF7FFF, {1: a, 3: b, 2: BFE_DESCS + [0x0808, 0x1004]},
                        {}, [("v.bfi", [3, 1, 3, 2])]))
    out.append(seq_case("v.prmt rd = rs1 = rs2", 0x0F0F00FF, {1: a, 2: PRMT_SELS + [0x3210, 0x89AB]}, {},
                        [("v.prmt", [1, 1, 1, 2])]))
    out.append(seq_case("v.lop3 rd = rs3, majority", 0xFFFF0FFF, {1: a, 2: b, 3: c}, {},
                        [("v.lop3", [3, 1, 2, 3, 0xE8])]))
    out.append(seq_case("v.mad.u32 rd = rs1 = rs3", 0xFFFFFFFE, {1: a, 2: b}, {}, [("v.mad.u32", [1, 1, 2, 1])]))
    out.append(seq_case("v.cndmask rd = rs1 (no change), then into another register", 0x0F0F00FF,
                        {1: a, 2: old_vec(2)}, {5: 0x3C3C3C3C}, [("v.cndmask", [1, 1, 5]), ("v.cndmask", [2, 1, 5])]))
    # pairs overlapping their sources
    p, q = [rng.getrandbits(32) for _ in range(L)], [rng.getrandbits(32) for _ in range(L)]
    carry = [0xFFFFFFFF] * 16 + p[16:]
    out.append(seq_case("v.add.u64 rd = rs1 = rs2 (carry from the low word)", 0xFFFF00FF,
                        {4: carry, 5: q}, {}, [("v.add.u64", [4, 4, 4], True)]))
    out.append(seq_case("v.sub.u64 rd = rs2, borrow", 0xFF00FFFF, {4: [0] * 8 + p[8:], 5: q, 6: [1] * L, 7: [0] * L},
                        {}, [("v.sub.u64", [6, 4, 6], True)]))
    out.append(seq_case("v.add.u64.u32 rd pair overlaps rs2 (the high word of rd)", 0x0F0F00FF,
                        {4: [0xFFFFFFFF] * L, 5: q, 7: p}, {}, [("v.add.u64.u32", [6, 4, 7])]))
    out.append(seq_case("v.add.u64.i32 rd = rs1, negative offset borrows", 0xFFFFFFFF,
                        {4: [0, 1, 0x80000000] * 10 + [0, 5], 5: q, 1: [0xFFFFFFFF, 0xFFFFFFFE, 0x80000000] * 10 + [1, 0xFFFFFFFB]},
                        {}, [("v.add.u64.i32", [4, 4, 1])]))
    out.append(seq_case("v.mul.wide.i32 rd pair = rs1:rs2", 0xA5A5C3E1, {4: a, 5: b}, {},
                        [("v.mul.wide.i32", [4, 4, 5])]))
    out.append(seq_case("v.mul.wide.u32 rd pair high word = rs1", 0x7FFFFFFE, {5: a, 6: b}, {},
                        [("v.mul.wide.u32", [4, 5, 6])]))
    out.append(seq_case("v.mad.wide.u32 rd = rs3 pair, rs2 = high word of rd", 0xFFFFFFFF,
                        {4: [0xFFFFFFFF] * L, 5: [0xFFFFFFFF] * 16 + b[16:], 1: [0xFFFFFFFF] * 8 + a[8:]}, {},
                        [("v.mad.wide.u32", [4, 1, 5, 4])]))
    out.append(seq_case("v.mad.wide.i32 rd = rs3 pair, rs1 = low word of rd", 0x0F0F00FF,
                        {4: a, 5: b, 6: c}, {}, [("v.mad.wide.i32", [4, 4, 6, 4])]))
    out.append(seq_case("v.lea.u64.u32 rd = rs2 pair, rs1 = high word", 0xFFFFFFFF, {4: a, 5: b}, {},
                        [("v.lea.u64.u32", [4, 5, 4, 4], True)]))
    out.append(seq_case("v.lea.u64.i32 rd = rs2 pair, rs1 = low word, shift 31", 0xFFFF0000, {4: a, 5: b}, {},
                        [("v.lea.u64.i32", [4, 4, 4, 31], True)]))
    out.append(seq_case("v.mov.u.b64 into a pair under partial EXEC", 0x0F0F00FF, {6: old_vec(6), 7: old_vec(7)},
                        {2: 0x89ABCDEF, 3: 0x01234567}, [("v.mov.u.b64", [6, 2])]))
    # 64-bit shifts built from two funnel shifts, in place (the yaml header's recipe)
    lo, hi = rv(), [x | 0x80000000 if i % 2 else x for i, x in enumerate(rv())]
    n = [i * 2 for i in range(L)]
    n[31] = 64
    out.append(seq_case("64-bit logical right shift in place: shf.r.u64 then shf.r.u64.hi", 0xFFFFFFFF,
                        {1: lo, 2: hi, 3: n}, {}, [("v.shf.r.u64", [1, 1, 2, 3]), ("v.shf.r.u64.hi", [2, 1, 2, 3])]))
    out.append(seq_case("64-bit arithmetic right shift in place: shf.r.s64 then shf.r.s64.hi", 0xFFFFFFFF,
                        {1: lo, 2: hi, 3: n}, {}, [("v.shf.r.s64", [1, 1, 2, 3]), ("v.shf.r.s64.hi", [2, 1, 2, 3])]))
    out.append(seq_case("64-bit left shift in place: shf.l.u64.hi then shf.l.u64", 0xFFFFFFFF,
                        {1: lo, 2: hi, 3: n}, {}, [("v.shf.l.u64.hi", [2, 1, 2, 3]), ("v.shf.l.u64", [1, 1, 2, 3])]))
    out.append(seq_case("32-bit rotate left: shf.l.w.u32.hi d, x, x, n (n = 0..63)", 0xFFFFFFFF,
                        {1: lo, 3: [i * 2 + 1 if i % 3 else i for i in range(L)]}, {},
                        [("v.shf.l.u32.w.hi", [4, 1, 1, 3]), ("v.shf.r.u32.w", [5, 1, 1, 3])]))
    # lop3 tables, the named ones and a few more, on one set of inputs
    a3, b3, c3 = [0xF0F0F0F0] + rv()[1:], [0xCCCCCCCC] + rv()[1:], [0xAAAAAAAA] + rv()[1:]
    luts = [0xF0, 0xCC, 0xAA, 0x96, 0xE8, 0x80, 0xFE, 0x00, 0xFF, 0x1E, 0x6A, 0xCA]
    out.append(seq_case("v.lop3 truth tables 0xF0 0xCC 0xAA 0x96 0xE8 0x80 0xFE 0x00 0xFF 0x1E 0x6A 0xCA", 0x7FFFFFFF,
                        {1: a3, 2: b3, 3: c3}, {}, [("v.lop3", [20 + i, 1, 2, 3, t]) for i, t in enumerate(luts)]))
    # EXEC = 0: nothing is written, whatever the instruction
    zero = [("v.add", [10, 1, 2]), ("v.add.u64", [12, 4, 6]), ("v.mov.k", [14, 0x12345678]),
            ("v.laneid", [15]), ("v.cndmask", [16, 1, 5]), ("v.shf.l.u32.hi", [17, 1, 2, 3]),
            ("v.mov.u.b64", [18, 6]), ("v.lop3", [20, 1, 2, 3, 0xFF]), ("v.mad.wide.u32", [22, 1, 2, 4]),
            ("v.li", [24, -1]), ("v.lanebit.u", [25, 5])]
    out.append(seq_case("EXEC = 0: no lane of any destination is written", 0,
                        {1: a, 2: b, 3: c, 4: p, 5: q, 6: c, 7: a, 10: old_vec(10), 12: old_vec(12)},
                        {5: M32, 6: 0xCAFE, 7: 0xBEEF}, zero))
    # clz/ctz/popc of 0 and of all ones, in every lane
    out.append(seq_case("clz/ctz/popc/brev of 0 and of 0xffffffff", 0xFFFF0000 | 0x00FF,
                        {1: [0] * 16 + [M32] * 16}, {},
                        [("v.clz", [2, 1]), ("v.ctz", [3, 1]), ("v.popc", [4, 1]), ("v.brev", [5, 1])]))
    return out


# ---------------------------------------------------------------- encodings the decoder must refuse

def enc_r(op, f4, rd, rs1, rs2):
    return [f4 << 28 | rs2 << 21 | rs1 << 14 | rd << 7 | op]


def enc_r1(op, f11, rd, rs1):
    return [f11 << 21 | rs1 << 14 | rd << 7 | op]


def enc_x(op, f10, rd, rs1, rs2, rs3, sat=0, abs_=0, neg=0, rm=0, z=0):
    x = (z << 55 | sat << 54 | abs_ << 51 | neg << 48 | rm << 45 | f10 << 35 | rs3 << 28 | rs2 << 21 | rs1 << 14
         | rd << 7 | op)
    return [x & M32, x >> 32]


def word_case(name, words, init, trap):
    """A case whose code is raw words: an IllegalInsn trap at pc 0 (no effect), or the modelled effect."""
    lines = ['  - name: "%s"' % name, "    code: |", "      .word %s" % ", ".join("0x%08x" % x for x in words),
             "      end", "    init:"]
    lines += state_yaml(init, list(init.v), [], True, "      ")
    if trap:
        lines.append("    expect: {trap: {kind: IllegalInsn, pc: 0}}")
    return "\n".join(lines) + "\n"


def encoding_cases():
    w = Wave(0xFFFFFFFF)
    w.v = {1: rv(), 2: rv(), 3: rv(), 10: old_vec(10)}
    out = []
    # control: the hand encoding of v.lea v10, v1, v2, 3 runs (checks the encoders above)
    ok = word_case("raw encoding of v.lea v10, v1, v2, 3 executes", enc_x(0x13, 6, 10, 1, 2, 3), w, False)
    w2 = w.copy()
    w2.step("v.lea", [10, 1, 2, 3])
    ok += "    expect:\n" + "\n".join(state_yaml(w2, [10], [], False, "      ")) + "\n"
    out.append(ok)
    bad = [
        ("v.lea with rs3 bit 5 set (sh is u5, bits 6:5 of the field must be zero)", enc_x(0x13, 6, 10, 1, 2, 0x23)),
        ("v.lea.u64.u32 with rs3 bit 6 set", enc_x(0x13, 7, 10, 1, 2, 0x43)),
        ("v.lop3 with f10 bit 8 set (lut is f10[7:0], f10[9:8] must be zero)", enc_x(0x17, 0x196, 10, 1, 2, 3)),
        ("v.mad.u32 with sat set (float modifiers must be zero)", enc_x(0x13, 0, 10, 1, 2, 3, sat=1)),
        ("v.add3 with rm non-zero", enc_x(0x13, 3, 10, 1, 2, 3, rm=1)),
        ("v.shf.l.u32 with neg non-zero", enc_x(0x15, 6, 10, 1, 2, 3, neg=1)),
        ("v.prmt with a z bit set", enc_x(0x13, 5, 10, 1, 2, 3, z=1)),
        ("opcode 0x13 with unassigned f10 = 0xb", enc_x(0x13, 0xB, 10, 1, 2, 3)),
        ("v.add.u64 with an odd rd pair", enc_r(0x12, 6, 11, 2, 4)),
        ("v.add.u64 with an odd rs1 pair", enc_r(0x12, 6, 10, 3, 4)),
        ("v.add.u64.u32 with an odd rs1 pair (rs2 is single)", enc_r(0x12, 8, 10, 5, 3)),
        ("v.mul.wide.u32 with an odd rd pair", enc_r(0x12, 0xA, 9, 1, 2)),
        ("v.mad.wide.u32 with an odd rs3 pair", enc_x(0x13, 9, 10, 1, 2, 5)),
        ("v.lea.u64.i32 with an odd rs2 pair", enc_x(0x13, 8, 10, 1, 3, 2)),
        ("opcode 0x12 with unassigned f4 = 0xc", enc_r(0x12, 0xC, 10, 1, 2)),
        ("v.laneid with a non-zero rs1 field", enc_r1(0x18, 0xC, 10, 1)),
    ]
    for name, words in bad:
        out.append(word_case(name, words, w, True))
    return out


def main():
    def is_(*ops):
        return lambda e: e["opcode"] in ops
    write("arith.yaml", "Group 2, R format (opcodes 0x10, 0x12): vector op vector, 64-bit pair arithmetic.",
          group_cases(is_(0x10, 0x12)))
    write("vu.yaml", "Group 2, RU format (opcode 0x14): vector op uniform, v.cndmask.", group_cases(is_(0x14)))
    write("imm.yaml", "Group 2, I8 / LI / XL formats: immediates (8-bit, 18-bit, 32-bit literal).",
          group_cases(is_(0x16, 0x1C, 0x1E, 0x11)))
    write("unary.yaml", "Group 2, R1 / R1U formats: unary, lane index, from uniform.", group_cases(is_(0x18, 0x1A)))
    write("three.yaml", "Group 2, X format (opcodes 0x13, 0x17): three sources, lea, lop3.",
          group_cases(is_(0x13, 0x17)))
    write("shf.yaml", "Group 2, v.shf funnel shift (opcode 0x15, seed 004).", group_cases(is_(0x15)))
    write("special.yaml", "Group 2: aliasing, EXEC = 0, multi-instruction recipes, lop3 tables.", special_cases())
    write("encoding.yaml", "Group 2: raw encodings the decoder must refuse (IllegalInsn, no effect).", encoding_cases())
    missing = [e["mnemonic"] for e in SPEC_INSNS if e["mnemonic"] not in COVERED]
    assert not missing, "mnemonics without a case: %s" % missing
    print("%d mnemonics covered" % len(COVERED))


if __name__ == "__main__":
    main()
