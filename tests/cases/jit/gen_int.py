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

Expected values come from the wave model in model_int.py, written from the YAML `en` text of groups 1, 2 and 4
(independently of the interpreter), with Python integers masked to 32 bits.

Run: python3 tests/cases/jit/gen_int.py   (rewrites the three yaml files beside it)
"""
from model_int import L, M, P_MASK, loop_case, rng, straight_case, val, vec, write

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
