#!/usr/bin/env python3
"""Regenerates the group-1 (uniform ALU) conformance cases in this directory.

Expected values come from a small Python model of group 1 written here from the `en` text of
isa-spec/groups/1-uniform.yaml, independently of the interpreter: Python integers do not wrap, so every
"mod 2^32", "as i32", sign extension and field cut is spelled out below. Each case is straight-line code
ending in `end` (or trapping); the model runs it from the case's init state and the case expects every
register the code writes, EXEC, fcsr, the trap and the retired count.

Run: python3 tests/cases/uniform/gen.py   (rewrites the *.yaml files next to it)
"""
import json
import os
import re
import struct

L = 32
M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
HERE = os.path.dirname(os.path.abspath(__file__))
PARTIAL = 0x0F0F00FF
# The single wave of a `lanejit wave` run (src/wave.rs): wave 0 of 1, workgroup of LANES threads, grid 1x1x1.
ENV = {"wave_id": 0, "wave_count": 1, "wg_size_x": L, "wg_size_y": 1, "wg_size_z": 1,
       "grid_x": 1, "grid_y": 1, "grid_z": 1, "lane_count": L}
READ_ONLY = set(ENV) | {"cycle", "retired"}


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def sext(x, bits):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def trunc_div(a, b):
    """Signed division rounded toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# ---------------------------------------------------------------- group 1 semantics, from the `en` text

def div(a, b):
    if b == 0:
        return M32
    return trunc_div(s32(a), s32(b)) & M32  # INT_MIN / -1 = 2^31, which is 0x80000000 mod 2^32


def rem(a, b):
    if b == 0:
        return a
    return (s32(a) - trunc_div(s32(a), s32(b)) * s32(b)) & M32


def bfe_u(a, sel):
    off, w = sel & 31, (sel >> 8) & 31
    return (a >> off) & ((1 << w) - 1)


def bfe_s(a, sel):
    off, w = sel & 31, (sel >> 8) & 31
    if w == 0:
        return 0
    n = min(w, 32 - off)
    return sext(a >> off, n) & M32


def wqm(m):
    return sum(0xF << (4 * q) for q in range(L // 4) if (m >> (4 * q)) & 0xF)


BIN = {  # op(a, b) on u32 values; b is u[rs2], sext(imm10) & M32 or the literal k
    "add": lambda a, b: (a + b) & M32,
    "sub": lambda a, b: (a - b) & M32,
    "mul": lambda a, b: (a * b) & M32,
    "mulhi": lambda a, b: ((s32(a) * s32(b)) & M64) >> 32,
    "mulhi.u": lambda a, b: (a * b) >> 32,
    "div": div,
    "div.u": lambda a, b: M32 if b == 0 else a // b,
    "rem": rem,
    "rem.u": lambda a, b: a if b == 0 else a % b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "andn": lambda a, b: a & ~b & M32,
    "orn": lambda a, b: (a | ~b) & M32,
    "shl": lambda a, b: (a << (b & 31)) & M32,
    "shr": lambda a, b: a >> (b & 31),
    "sra": lambda a, b: (s32(a) >> (b & 31)) & M32,
    "min": lambda a, b: min(s32(a), s32(b)) & M32,
    "max": lambda a, b: max(s32(a), s32(b)) & M32,
    "min.u": min,
    "max.u": max,
    "seq": lambda a, b: int(a == b),
    "sne": lambda a, b: int(a != b),
    "slt": lambda a, b: int(s32(a) < s32(b)),
    "sle": lambda a, b: int(s32(a) <= s32(b)),
    "sgt": lambda a, b: int(s32(a) > s32(b)),
    "slt.u": lambda a, b: int(a < b),
    "sle.u": lambda a, b: int(a <= b),
    "sgt.u": lambda a, b: int(a > b),
    "bfe.u": bfe_u,
    "bfe.s": bfe_s,
}

UNARY = {
    "mov": lambda a: a,
    "not": lambda a: ~a & M32,
    "neg": lambda a: -a & M32,
    "popc": lambda a: bin(a).count("1"),
    "clz": lambda a: 32 - a.bit_length(),
    "ctz": lambda a: 32 if a == 0 else (a & -a).bit_length() - 1,
    "brev": lambda a: int(format(a, "032b")[::-1], 2),
    "sext.b": lambda a: sext(a, 8) & M32,
    "sext.h": lambda a: sext(a, 16) & M32,
    "zext.b": lambda a: a & 0xFF,
    "zext.h": lambda a: a & 0xFFFF,
    "wqm": wqm,
}

PAIR = {  # (a, b) -> 64-bit result; a is a pair value or u32 per the syntax
    "add.u64": ("pp", lambda a, b: (a + b) & M64),
    "sub.u64": ("pp", lambda a, b: (a - b) & M64),
    "add.u64.u32": ("pu", lambda a, b: (a + b) & M64),
    "add.u64.i32": ("pu", lambda a, b: (a + s32(b)) & M64),
    "shl.u64": ("pu", lambda a, b: (a << (b & 63)) & M64),
    "shr.u64": ("pu", lambda a, b: a >> (b & 63)),
    "mul.wide.u32": ("uu", lambda a, b: a * b),
    "mul.wide.i32": ("uu", lambda a, b: (s32(a) * s32(b)) & M64),
}


class Trap(Exception):
    def __init__(self, kind):
        self.kind = kind


class Wave:
    def __init__(self, u, exec_, fcsr):
        self.u = [0] * 64
        for r, x in u.items():
            self.u[r] = x & M32
        self.exec = exec_
        self.fcsr = fcsr
        self.retired = 0
        self.pc = 0

    def pair(self, r):
        assert r % 2 == 0
        return self.u[r] | self.u[r + 1] << 32


def reg(t):
    m = re.fullmatch(r"u(\d+)(?::u(\d+))?", t.strip())
    return int(m.group(1)) if m else None


def num(t):
    t = t.strip()
    if "." in t:  # a float literal of a UL form: its f32 bit pattern
        return struct.unpack("<I", struct.pack("<f", float(t)))[0]
    return int(t, 0)


def insn_len(mn):
    return 8 if mn.endswith(".k") else 4  # UL (64-bit) forms are the .k ones


def csr_value(w, name):
    if name == "fcsr":
        return w.fcsr
    if name in ("cycle", "retired"):
        return w.retired & M32  # see the cycle note in csr_cases()
    return ENV[name]


def csr_write(w, rd, name, new_of_old):
    """csr.rw/rs/rc(i): read-only CSRs and rm 5..7 trap with nothing written; else fcsr = new[4:0]."""
    if name in READ_ONLY:
        raise Trap("IllegalInsn")
    old = w.fcsr
    new = new_of_old(old)
    if new & 7 >= 5:
        raise Trap("IllegalInsn")
    w.fcsr = new & 0x1F
    w.u[rd] = old


def step(w, line, labels):
    mn, _, rest = line.partition(" ")
    ops = [o.strip() for o in rest.split(",")] if rest.strip() else []
    u = w.u
    if mn.startswith("u."):
        op = mn[2:]
        if op in PAIR:
            shape, f = PAIR[op]
            rd, a, b = reg(ops[0]), reg(ops[1]), reg(ops[2])
            x = w.pair(a) if shape[0] == "p" else u[a]
            y = w.pair(b) if shape[1] == "p" else u[b]
            r = f(x, y)
            u[rd], u[rd + 1] = r & M32, r >> 32
        elif op == "mov.u64":
            r = w.pair(reg(ops[1]))
            u[reg(ops[0])], u[reg(ops[0]) + 1] = r & M32, r >> 32
        elif op == "add.u64.k":
            rd, a, k = reg(ops[0]), reg(ops[1]), num(ops[2])
            r = (w.pair(a) + s32(k)) & M64
            u[rd], u[rd + 1] = r & M32, r >> 32
        elif op == "mov.k":
            u[reg(ops[0])] = num(ops[1]) & M32
        elif op == "li":
            u[reg(ops[0])] = num(ops[1]) & M32
        elif op == "lui":
            u[reg(ops[0])] = (sext(num(ops[1]), 17) << 15) & M32
        elif op == "pcrel":
            t = ops[1]
            off = labels[t] - w.pc if t in labels else num(t)
            u[reg(ops[0])] = (w.pc + off) & M32
        elif op in UNARY:
            u[reg(ops[0])] = UNARY[op](u[reg(ops[1])])
        elif op.endswith(".k"):
            u[reg(ops[0])] = BIN[op[:-2]](u[reg(ops[1])], num(ops[2]) & M32)
        elif op.endswith(".i"):
            base = op[:-2]
            imm = num(ops[2])
            if base in ("shl", "shr", "sra"):
                assert 0 <= imm <= 31
                b = imm
            else:
                b = sext(imm, 10) & M32
            u[reg(ops[0])] = BIN[base](u[reg(ops[1])], b)
        else:
            u[reg(ops[0])] = BIN[op](u[reg(ops[1])], u[reg(ops[2])])
    elif mn.startswith("exec."):
        op = mn[5:]
        old = w.exec
        if op == "get":
            u[reg(ops[0])] = old
        elif op == "set":
            w.exec = u[reg(ops[0])]
        elif op == "wqm":
            w.exec = wqm(old)
        elif op == "elect":
            u[reg(ops[0])] = old
            w.exec = old & (-old & M32)
        else:
            m = u[reg(ops[1])]
            w.exec = {"and.save": old & m, "andn.save": old & ~m & M32, "or.save": old | m}[op]
            u[reg(ops[0])] = old
    elif mn.startswith("csr."):
        op = mn[4:]
        rd, name = reg(ops[0]), ops[1]
        if op == "r":
            u[rd] = csr_value(w, name)
        else:
            x = num(ops[2]) if op.endswith("i") else u[reg(ops[2])]
            f = {"rw": lambda o: x, "rs": lambda o: o | x, "rc": lambda o: o & ~x & M32}[op.rstrip("i")]
            csr_write(w, rd, name, f)
    else:
        raise ValueError("model has no %s" % mn)


def run(code, init_u, exec_, fcsr):
    """Runs straight-line code; returns (wave, trap kind or None, trap pc)."""
    lines, labels, pc = [], {}, 0
    for raw in code:
        if raw.endswith(":"):
            labels[raw[:-1]] = pc
            continue
        mn = raw.split(" ")[0]
        lines.append((pc, raw))
        pc += insn_len(mn)
    w = Wave(init_u, exec_, fcsr)
    for pc, line in lines:
        w.pc = pc
        if line == "end":
            w.retired += 1
            return w, None, None
        try:
            step(w, line, labels)
        except Trap as t:
            return w, t.kind, pc
        w.retired += 1
    raise ValueError("code must end with `end`")


# ---------------------------------------------------------------- case emission

def hx(x):
    return "0x%08x" % (x & M32)


def case(name, code, u=None, exec_=None, fcsr=None, v=None):
    """Runs the model and renders one case. Registers named in init keep distinct values unless written."""
    u = dict(u or {})
    code = list(code) + ([] if code[-1] == "end" else ["end"])
    w, trap, tpc = run(code, u, M32 if exec_ is None else exec_, fcsr or 0)
    init_u = {r: x & M32 for r, x in u.items()}
    out = ["  - name: %s" % json.dumps(name), "    code: |"] + ["      %s" % c for c in code]
    init = []
    if exec_ is not None:
        init.append('exec: "%s"' % hx(exec_))
    if fcsr is not None:
        init.append("fcsr: %d" % fcsr)
    if init_u:
        init.append("u: {%s}" % ", ".join('%d: "%s"' % (r, hx(x)) for r, x in sorted(init_u.items())))
    if v:
        init.append("v: {%s}" % ", ".join('%d: "%s"' % (r, x) for r, x in sorted(v.items())))
    out.append("    init: {%s}" % ", ".join(init))
    exp = []
    changed = {r: w.u[r] for r in range(64) if w.u[r] != init_u.get(r, 0)}
    if w.exec != (M32 if exec_ is None else exec_):
        exp.append('exec: "%s"' % hx(w.exec))
    if w.fcsr != (fcsr or 0):
        exp.append("fcsr: %d" % w.fcsr)
    if changed:
        exp.append("u: {%s}" % ", ".join('%d: "%s"' % (r, hx(x)) for r, x in sorted(changed.items())))
    if trap:
        exp.append("trap: {kind: %s, pc: %d}" % (trap, tpc))
    exp.append("retired: %d" % w.retired)
    out.append("    expect: {%s}" % ", ".join(exp))
    return "\n".join(out)


def write(fname, header, cases):
    text = "# " + header + "\n# Generated by gen.py (expected values computed there, independently of the interpreter).\ncases:\n"
    text += "\n\n".join(cases) + "\n"
    with open(os.path.join(HERE, fname), "w") as f:
        f.write(text)
    return len(cases)


def rr_case(op, pairs, what=""):
    """One case per op: u[10+i] = op(u[2i+1]... ) over a list of operand pairs, sources in u1..u(2n)."""
    u, code = {}, []
    for i, (a, b) in enumerate(pairs):
        u[2 * i + 1], u[2 * i + 2] = a & M32, b & M32
        code.append("u.%s u%d, u%d, u%d" % (op, 32 + i, 2 * i + 1, 2 * i + 2))
    return case("u.%s %s" % (op, what or "table"), code, u=u, exec_=PARTIAL)


# ---------------------------------------------------------------- cases

def arith_cases():
    cs = []
    cs.append(rr_case("add", [(0xFFFFFFFF, 2), (0x7FFFFFFF, 1), (0x12345678, 0x9ABCDEF0), (0, 0)]))
    cs.append(rr_case("sub", [(2, 0xFFFFFFFF), (0, 1), (0x80000000, 1), (0x12345678, 0x12345678)]))
    big = [(0x12345678, 0x9ABCDEF0), (0xFFFFFFFF, 0xFFFFFFFF), (0x80000000, 0x80000000),
           (0x80000000, 0x7FFFFFFF), (0xFFFFFFFF, 2), (3, 5)]
    for op in ("mul", "mulhi", "mulhi.u"):
        cs.append(rr_case(op, big))
    signs = [(7, 2), (7, -2), (-7, 2), (-7, -2), (0xFFFFFFF9, 2), (100, 7), (5, 100), (-5, 100)]
    for op in ("div", "div.u", "rem", "rem.u"):
        cs.append(rr_case(op, signs, "signs and rounding toward zero"))
        cs.append(rr_case(op, [(7, 0), (-7, 0), (0, 0), (0x80000000, 0)], "by zero"))
        cs.append(rr_case(op, [(0x80000000, 0xFFFFFFFF), (0x80000000, 1), (0x80000001, 0xFFFFFFFF)],
                          "INT_MIN / -1"))
    cs.append(case("rd aliases both sources (u.add u1, u1, u1; u.sub u2, u3, u2)",
                   ["u.add u1, u1, u1", "u.sub u2, u3, u2", "u.div u4, u4, u5", "u.rem u5, u6, u5"],
                   u={1: 0x40000001, 2: 5, 3: 3, 4: 100, 5: 7, 6: 100}))
    cs.append(case("uniform ALU runs with EXEC = 0 and leaves EXEC alone",
                   ["u.add u3, u1, u2", "u.mul u4, u1, u2", "u.div.u u5, u1, u2"],
                   u={1: 1000, 2: 7}, exec_=0, v={1: "iota*3+1"}))
    cs.append(case("u.add.i / u.mul.i sign-extend imm10",
                   ["u.add.i u2, u1, -1", "u.add.i u3, u1, 511", "u.add.i u4, u1, -512",
                    "u.mul.i u5, u1, -3", "u.mul.i u6, u7, 511", "u.add.i u7, u7, 0"],
                   u={1: 0x10, 7: 0x80000001}, exec_=PARTIAL))
    return cs


def logic_cases():
    cs = []
    vals = [(0xF0F0F0F0, 0xFF00FF00), (0, 0xFFFFFFFF), (0x12345678, 0), (0xDEADBEEF, 0xDEADBEEF)]
    for op in ("and", "or", "xor", "andn", "orn"):
        cs.append(rr_case(op, vals))
    amounts = [(0x80000001, 0), (0x80000001, 1), (0x80000001, 31), (0x80000001, 32), (0x80000001, 33),
               (0xF0000000, 0xFFFFFFE4), (0x7FFFFFFF, 63), (0xC0000003, 0x100)]
    for op in ("shl", "shr", "sra"):
        cs.append(rr_case(op, amounts, "amounts 0, 1, 31 and >= 32 use the low 5 bits"))
    imm = ["u.and.i u2, u1, -256", "u.and.i u3, u1, 0x1ff", "u.or.i u4, u1, -512", "u.or.i u5, u9, 0x155",
           "u.xor.i u6, u1, -1", "u.xor.i u7, u1, 0x0f0"]
    cs.append(case("u.and.i / or.i / xor.i sign-extend imm10 (xor -1 is NOT)", imm,
                   u={1: 0x8765ABCD, 9: 0}, exec_=0x0F0F0F0F))
    sh = []
    for i, (op, amt) in enumerate([(o, a) for o in ("shl", "shr", "sra") for a in (0, 1, 4, 31)]):
        sh.append("u.%s.i u%d, u%d, %d" % (op, 10 + i, 1 + i % 2, amt))
    cs.append(case("u.shl.i / shr.i / sra.i amounts 0..31", sh, u={1: 0x80000001, 2: 0x7FFF00FF}))
    return cs


def compare_cases():
    cs = []
    vals = [(1, 2), (2, 1), (5, 5), (0xFFFFFFFF, 1), (1, 0xFFFFFFFF), (0x80000000, 0x7FFFFFFF),
            (0x7FFFFFFF, 0x80000000), (0, 0x80000000)]
    for op in ("min", "max", "min.u", "max.u", "seq", "sne", "slt", "sle", "slt.u", "sle.u"):
        cs.append(rr_case(op, vals))
    for op in ("seq", "sne", "slt", "slt.u", "sgt", "sgt.u", "min", "max"):
        code, u = [], {1: 0xFFFFFFFF, 2: 5, 3: 0x80000000, 4: 0x1FF, 5: 0xFFFFFE00, 6: 0}
        rd = 10
        for src in (1, 2, 3, 4, 5, 6):
            for imm in (-1, 5, 511, -512, 0):
                code.append("u.%s.i u%d, u%d, %d" % (op, rd, src, imm))
                rd += 1
        cs.append(case("u.%s.i against sext(imm10) (-1, 5, 511, -512, 0)" % op, code, u=u))
    return cs


def bfe_cases():
    cs = []
    sels = [(4, 8), (0, 0), (28, 8), (0, 31), (31, 1), (31, 31), (8, 16), (16, 16), (1, 30), (3, 0)]
    for op in ("bfe.u", "bfe.s"):
        for a in (0x8765F3A5, 0x7ACE1234):
            pairs = [(a, off | w << 8) for off, w in sels]
            pairs.append((a, 0xFFFFE0E4))  # other selector bits ignored: off 4, w 0
            pairs.append((a, 0x12340A63))  # off 3, w 10
            cs.append(rr_case(op, pairs, "source %s: w = 0, off + w > 32 cut at bit 31, other bits ignored"
                              % hx(a)))
        code = ["u.%s.k u%d, u1, %s" % (op, 10 + i, hx(off | w << 8)) for i, (off, w) in enumerate(sels)]
        code.append("u.%s.k u30, u1, 0xffffe0e4" % op)
        cs.append(case("u.%s.k literal selector" % op, code, u={1: 0x8765F3A5}))
    return cs


def pair_cases():
    cs = []
    u = {2: 0xFFFFFFFF, 3: 0x00000001, 4: 0x00000001, 5: 0xFFFFFFFF, 6: 0x80000000, 7: 0x7FFFFFFF,
         8: 0xFFFFFFF0, 9: 0x00000002}
    cs.append(case("u.add.u64 / u.sub.u64 carry and borrow across the words",
                   ["u.add.u64 u20, u2, u4", "u.add.u64 u22, u2:u3, u6:u7", "u.sub.u64 u24, u4, u2",
                    "u.sub.u64 u26, u6, u6", "u.sub.u64 u28, u8, u2"], u=u, exec_=PARTIAL))
    cs.append(case("u.add.u64.u32 zero-extends, u.add.u64.i32 sign-extends u[rs2]",
                   ["u.add.u64.u32 u20, u2, u8", "u.add.u64.i32 u22, u2, u8", "u.add.u64.u32 u24, u4, u9",
                    "u.add.u64.i32 u26, u4, u9", "u.add.u64.i32 u28, u8, u5", "u.add.u64.u32 u30, u8, u3"],
                   u=u))
    sh = []
    for i, amt in enumerate([0, 4, 31, 32, 40, 63, 64, 65, 0xFFFFFFC4]):
        sh.append("u.li u10, %d" % (amt if amt < 65536 else 0))
        if amt >= 65536:
            sh[-1] = "u.mov.k u10, %s" % hx(amt)
        sh.append("u.shl.u64 u%d, u6, u10" % (20 + 2 * (i % 4)))
        sh.append("u.shr.u64 u%d, u6, u10" % (30 + 2 * (i % 4)))
        sh.append("u.add u%d, u%d, u%d" % (40 + i, 20 + 2 * (i % 4), 31 + 2 * (i % 4)))
    cs.append(case("u.shl.u64 / u.shr.u64 amounts 0..63, 64 and beyond use the low 6 bits", sh,
                   u={6: 0x89ABCDEF, 7: 0x80000001}))
    cs.append(case("u.mul.wide.u32 / u.mul.wide.i32 exact 64-bit products",
                   ["u.mul.wide.u32 u20, u2, u2", "u.mul.wide.i32 u22, u2, u2", "u.mul.wide.u32 u24, u6, u7",
                    "u.mul.wide.i32 u26, u6, u7", "u.mul.wide.i32 u28, u6, u6", "u.mul.wide.i32 u30, u9, u5"],
                   u=u))
    cs.append(case("64-bit ops with rd aliasing sources (rd = rs1 pair, mul.wide into its own sources)",
                   ["u.add.u64 u2, u2, u2", "u.mul.wide.u32 u4, u5, u4", "u.shl.u64 u6, u6, u6",
                    "u.mov.u64 u8, u8"], u=u))
    cs.append(case("u.add.u64.k sign-extends k; u.mov.u64 copies a pair",
                   ["u.add.u64.k u20, u2, 1", "u.add.u64.k u22, u4, 0xffffffff", "u.add.u64.k u24, u8, 0x80000000",
                    "u.add.u64.k u26, u6, 0x7fffffff", "u.mov.u64 u28, u6:u7", "u.mov.u64 u30, u2"], u=u))
    return cs


def literal_cases():
    cs = []
    u = {1: 0x12345678, 2: 0xFFFFFFFF, 3: 0x80000000, 4: 7}
    code = ["u.mov.k u10, 0xdeadbeef", "u.mov.k u11, -1", "u.mov.k u12, 1.5", "u.add.k u13, u1, 0xedcba988",
            "u.mul.k u14, u1, 0x10001", "u.mulhi.k u15, u2, 0x80000000", "u.mulhi.u.k u16, u2, 0x80000000",
            "u.mulhi.k u17, u4, 0x92492493", "u.mulhi.u.k u18, u4, 0x92492493",
            "u.and.k u19, u1, 0xff00ff00", "u.or.k u20, u1, 0x0f0f0f0f", "u.xor.k u21, u1, 0xffffffff"]
    cs.append(case("u.mov.k / add.k / mul.k / mulhi(.u).k / and.k / or.k / xor.k", code, u=u, exec_=0))
    code = []
    rd = 10
    for op in ("min", "max", "min.u", "max.u", "seq", "sne", "slt", "sgt", "slt.u", "sgt.u"):
        for src, k in ((1, "0x12345678"), (2, "0x00000001"), (3, "0x7fffffff"), (4, "0xfffffff9")):
            code.append("u.%s.k u%d, u%d, %s" % (op, rd, src, k))
            rd += 1
    cs.append(case("u.min/max(.u).k and compares against a literal", code, u=u))
    cs.append(case("u.li sign-extends imm17; u.lui puts imm17 in bits [31:15]",
                   ["u.li u1, 65535", "u.li u2, -65536", "u.li u3, -1", "u.li u4, 0", "u.lui u5, 1",
                    "u.lui u6, -1", "u.lui u7, 65535", "u.lui u8, -65536", "u.lui u9, 0x2468"],
                   u={1: 0xAAAA, 4: 0x5555}))
    cs.append(case("u.pcrel: this instruction's address plus the offset, no range check",
                   ["u.pcrel u1, here", "here:", "u.pcrel u2, here", "u.mov.k u9, 7", "u.pcrel u3, there",
                    "u.pcrel u4, -4", "u.pcrel u5, -400", "there:", "u.pcrel u6, 1000"]))
    return cs


def unary_cases():
    cs = []
    srcs = {1: 0, 2: 0xFFFFFFFF, 3: 0x80000000, 4: 1, 5: 0x12345678, 6: 0x000080FF, 7: 0x00007F80}
    for op in UNARY:
        code = ["u.%s u%d, u%d" % (op, 10 + i, r) for i, r in enumerate(sorted(srcs))]
        cs.append(case("u.%s over 0, -1, INT_MIN, 1 and mixed bits" % op, code, u=srcs, exec_=PARTIAL))
    cs.append(case("u.wqm widens each quad with a set bit", ["u.wqm u10, u1", "u.wqm u11, u2", "u.wqm u1, u1"],
                   u={1: 0x0F0F00FF & 0x12481248, 2: 0x80000001}))
    cs.append(case("unary ops with rd = rs1", ["u.not u1, u1", "u.neg u2, u2", "u.brev u3, u3", "u.clz u4, u4"],
                   u={1: 0x0000FFFF, 2: 5, 3: 0x00000003, 4: 0x00010000}))
    return cs


def exec_cases():
    cs = []
    cs.append(case("exec.get reads a partial EXEC; exec.set writes any value (0, then non-thread lanes)",
                   ["exec.get u1", "exec.set u2", "exec.get u3", "exec.set u4", "exec.get u5"],
                   u={2: 0, 4: 0xDEADBEEF}, exec_=PARTIAL))
    for op in ("and.save", "andn.save", "or.save"):
        cs.append(case("exec.%s returns the old EXEC and combines it with u[rs1]" % op,
                       ["exec.%s u10, u1" % op, "exec.get u11"], u={1: 0x3C3C3C3C}, exec_=PARTIAL))
        cs.append(case("exec.%s with rd = rs1 reads the mask first" % op,
                       ["exec.%s u1, u1" % op, "exec.get u2"], u={1: 0xFFFF0000}, exec_=PARTIAL))
        cs.append(case("exec.%s from EXEC = 0" % op, ["exec.%s u10, u1" % op], u={1: 0x0000FF00}, exec_=0))
    cs.append(case("save/restore: and.save, andn.save, or.save, then exec.set restores the saved EXEC",
                   ["exec.and.save u10, u1", "exec.get u20", "exec.set u10", "exec.andn.save u11, u1",
                    "exec.get u21", "exec.set u11", "exec.or.save u12, u2", "exec.get u22", "exec.set u12",
                    "exec.get u23"], u={1: 0x00FF00FF, 2: 0xF0000000}, exec_=PARTIAL))
    cs.append(case("nested and.save: inner mask of the outer, restored in order",
                   ["exec.and.save u10, u1", "exec.and.save u11, u2", "exec.get u20", "exec.set u11",
                    "exec.get u21", "exec.set u10", "exec.get u22"],
                   u={1: 0xFFFF0000, 2: 0x0F0F0F0F}, exec_=0xFF0F00FF))
    for ex in (PARTIAL, 0x00100000, 0x80000000, 0x12481248, 0):
        cs.append(case("exec.wqm from %s" % hx(ex), ["exec.wqm", "exec.get u1"], exec_=ex))
    for ex in (PARTIAL, 0x80000000, 0xFFFF0000, 0):
        cs.append(case("exec.elect from %s keeps the lowest active lane" % hx(ex),
                       ["exec.elect u1", "exec.get u2"], u={1: 0x5555AAAA}, exec_=ex))
    return cs


def csr_cases():
    cs = []
    names = ["fcsr", "wave_id", "wave_count", "wg_size_x", "wg_size_y", "wg_size_z", "grid_x", "grid_y",
             "grid_z", "lane_count", "retired", "cycle"]
    code = ["csr.r u%d, %s" % (10 + i, n) for i, n in enumerate(names[:-1])]
    # `cycle` as the first instruction: 0 whether cycle sums latencies (the YAML) or counts instructions.
    cs.append(case("csr.r cycle at the start of the wave is 0", ["csr.r u1, cycle"], u={1: 0x77}))
    cs.append(case("csr.r of every id CSR (a lone wave: 0 of 1, workgroup of 32 threads, grid 1x1x1), "
                   "fcsr, retired counts earlier instructions", code, fcsr=0x1B, u={20: 0x99}))
    cs.append(case("csr.r retired after a few instructions", ["u.li u1, 1", "u.mul u2, u1, u1", "u.li u3, 3",
                                                              "csr.r u4, retired"]))
    cs.append(case("csr.rw fcsr: old value returned, bits [31:5] of the new value ignored",
                   ["csr.rw u2, fcsr, u1", "csr.r u3, fcsr", "csr.rw u4, fcsr, u5", "csr.r u6, fcsr"],
                   u={1: 0xFFFFFFE3, 5: 0x0000001C}, fcsr=0x0C))
    cs.append(case("csr.rw fcsr with rd = rs1", ["csr.rw u1, fcsr, u1"], u={1: 0x14}, fcsr=0x0A))
    cs.append(case("csr.rs / csr.rc fcsr set and clear bits",
                   ["csr.rs u2, fcsr, u1", "csr.rc u3, fcsr, u4", "csr.rs u5, fcsr, u6", "csr.r u7, fcsr"],
                   u={1: 0x18, 4: 0x09, 6: 0xFFFFFF00}, fcsr=0x01))
    cs.append(case("csr.rwi / rsi / rci fcsr (imm[5] ignored)",
                   ["csr.rwi u1, fcsr, 0x3b", "csr.rci u2, fcsr, 0x08", "csr.rsi u3, fcsr, 0x20",
                    "csr.rci u4, fcsr, 63", "csr.rsi u5, fcsr, 4", "csr.r u6, fcsr"], fcsr=0x10))
    for mn, val in (("csr.rw", "u1"), ("csr.rs", "u2"), ("csr.rc", "u2"), ("csr.rwi", "5"), ("csr.rsi", "0"),
                    ("csr.rci", "0")):
        for ro in ("wave_id", "lane_count", "retired", "cycle", "grid_z"):
            cs.append(case("%s %s traps IllegalInsn (read-only), nothing written" % (mn, ro),
                           ["u.li u3, 9", "%s u4, %s, %s" % (mn, ro, val), "u.li u5, 1"],
                           u={1: 7, 2: 0, 4: 0x4444}, fcsr=2))
    for mn, val, fc in (("csr.rw", "u1", 3), ("csr.rw", "u6", 0), ("csr.rw", "u7", 0x18), ("csr.rwi", "7", 0),
                        ("csr.rwi", "0x3d", 0), ("csr.rs", "u2", 2), ("csr.rsi", "1", 4), ("csr.rsi", "3", 4),
                        ("csr.rs", "u8", 0x1C)):
        cs.append(case("%s fcsr, %s from fcsr %d: rounding mode dyn/reserved traps IllegalInsn, nothing written"
                       % (mn, val, fc), ["u.li u3, 9", "%s u4, fcsr, %s" % (mn, val), "u.li u5, 1"],
                       u={1: 0xFFFFFFFF, 2: 5, 4: 0x4444, 6: 5, 7: 0x0E, 8: 1}, fcsr=fc))
    # The YAML's cycle (sum of fixed:N latencies) after u.mul (3) + u.li (1) would be 4 here, not 2: that
    # case waits until the wave state carries a cycle counter (see the lead's note); only cycle = 0 is tested.
    return cs


if __name__ == "__main__":
    n = 0
    n += write("arith.yaml", "Group 1 add/sub/mul/mulhi(.u)/div(.u)/rem(.u): wrap, signs, by zero, INT_MIN / -1.",
               arith_cases())
    n += write("logic.yaml", "Group 1 and/or/xor/andn/orn and shifts (register amounts >= 32, immediates).",
               logic_cases())
    n += write("compare.yaml", "Group 1 min/max and set-on-compare, register and imm10 forms.", compare_cases())
    n += write("bfe.yaml", "Group 1 bit-field extract u.bfe.u/s and .k: w = 0, fields cut at bit 31.", bfe_cases())
    n += write("pair.yaml", "Group 1 64-bit pair arithmetic.", pair_cases())
    n += write("literal.yaml", "Group 1 UL literal (.k) forms, u.li, u.lui, u.pcrel.", literal_cases())
    n += write("unary.yaml", "Group 1 unary ops and u.wqm.", unary_cases())
    n += write("exec.yaml", "Group 1 EXEC control: get/set, and/andn/or.save, wqm, elect, save/restore patterns.",
               exec_cases())
    n += write("csr.yaml", "Group 1 CSR read/write/set/clear, read-only and fcsr dyn traps.", csr_cases())
    print("%d cases" % n)
