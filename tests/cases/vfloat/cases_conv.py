"""Conversions (opcode 0x25): int <-> float with rounding and saturation, f16 <-> f32, f64 <-> f32/f16/int."""
from common import *  # noqa: F401,F403

I32S = [0, 1, -1, (1 << 24) + 1, (1 << 24) + 3, -(1 << 24) - 1, -(1 << 31), (1 << 31) - 1, 0x7FFFFFC0,
        123456789, -123456789, (1 << 25) + 2, (1 << 25) + 6, (1 << 24) - 1, 0x7FFFFF80, -0x7FFFFFC0, 5, -7,
        (1 << 24) + 5, 0x40000001]
U32S = [0, 1, 0xFFFFFFFF, 0x80000000, 0x80000080, 0x80000180, (1 << 24) + 1, 0xFFFFFE80, 0xFFFFFF7F,
        0x7FFFFFFF, 0xC0000040, 3000000001, 16777217, 7]
F2I32 = [f32(0.5), f32(1.5), f32(2.5), f32(-0.5), f32(-1.5), f32(-2.5), f32(0.4), f32(-0.4), p32(31),
         n32(p32(31)), 0xCF000001, 0x4EFFFFFF, INF32, n32(INF32), QNAN32, NNAN32, 0x80000000, SUB32, n32(SUB32),
         f32(1e10), f32(-1e10), f32(3.7), f32(-3.7), 0x4B000001, p32(32), 0x4F7FFFFF, f32(-1.0), f32(0.7),
         SNAN32, 0]
F2F16 = [ONE32, f32(65504.0), f32(65520.0), 0x477FEFFF, f32(-65520.0), f32(-65504.0), p32(0, 1 + Fr(1, 2048)),
         p32(0, 1 + Fr(1, 2048) + Fr(1, 1 << 20)), p32(0, -1 - Fr(1, 2048)), p32(-24), p32(-25), p32(-26, 3),
         p32(-14), p32(-25, 2047), n32(p32(-24)), n32(p32(-25)), QNAN32, NNAN32, INF32, n32(INF32), 0x80000000,
         SUB32, n32(SUB32), f32(1e10), f32(0.1), f32(-3.14159), p32(-20), p32(-24, 3), p32(16), SNAN32]
F16S = [0x12343C00, 0x7C00, 0xFC00, 0x7E01, 0x7D00, 0x0001, 0x8001, 0x7BFF, 0x3555, 0x8000, 0xFFFF0000, 0x03FF,
        0x0400, 0xC000, 0x83FF, 0xABCD7FFF, 0xFE00, 0x3C01, 0x5640, 0xF0000001]
F32S = [f32(1.5), 0x80000000, INF32, n32(INF32), QNAN32, NNAN32, SNAN32, SUB32, n32(SUB32), MAX32, MIN32,
        f32(0.1), f32(-2.75), 0, 0x007FFFFF]
F64toF32 = [p64(0, 1 + Fr(1, 1 << 24)), p64(0, 1 + Fr(1, 1 << 24) + Fr(1, 1 << 50)), p64(0, -1 - Fr(1, 1 << 24)),
            MAX64, n64(MAX64), p64(-149), p64(-150), n64(p64(-150)), p64(-130), n64(p64(-130)), SUB64, n64(SUB64),
            QNAN64, NNAN64, n64(INF64), INF64, n64(0), 0, f64(0.1), f64(-1e-10), p64(128), p64(127, 2 - Fr(1, 1 << 24)),
            p64(127, 2 - Fr(1, 1 << 25)), SNAN64, p64(-126, 1 - Fr(1, 1 << 25))]
F64toI = [f64(2147483647.5), f64(2147483646.5), f64(-2147483648.5), f64(-2147483649.0), f64(1e300), f64(-0.5),
          f64(2.5), f64(-2.5), QNAN64, INF64, n64(INF64), SUB64, n64(SUB64), f64(4294967295.5), f64(4294967294.5),
          f64(-1.0), f64(0.5), f64(3.75), f64(-3.75), n64(0), f64(4294967296.0), f64(-2147483648.0), NNAN64,
          f64(2147483648.0), f64(1.5), f64(-1.5)]
F64toF16 = [p64(0, 1 + Fr(1, 2048) + Fr(1, 1 << 40)), p64(0, 1 + Fr(1, 2048)), f64(65520.0), f64(65519.999),
            f64(-65520.0), p64(-25), p64(-25, 1 + Fr(1, 1 << 35)), n64(p64(-25)), QNAN64, NNAN64, INF64, n64(INF64),
            SUB64, n64(SUB64), p64(-24), n64(p64(-24)), p64(-14), f64(0.1), f64(-1e5), n64(0), 0,
            p64(-14, 1 - Fr(1, 2048)), f64(3.14159265), SNAN64]


def sx(x):
    """Two's-complement value of the low 32 bits of x."""
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def modes_for_convert():
    """(name, rm text, fcsr, mode, flush32, flush16): each static mode, dyn, and the flush bits."""
    return mode_variants()


def rows1(values, width=32):
    return chunks([(x,) for x in values], filler(1, width))


def build():
    out = []
    add = out.append
    for name, rm, fcsr, mode, fl32, fl16 in modes_for_convert():
        for rows in rows1(I32S):
            add(case("f.cvt.f32.i32, %s" % name, "f.cvt.f32.i32 v10, v1, %s" % rm, [Src(1)], 10, rows,
                     lambda r, m=mode: from_int(S, sx(r[0]), m), fcsr=fcsr))
        for rows in rows1(U32S):
            add(case("f.cvt.f32.u32, %s" % name, "f.cvt.f32.u32 v10, v1, %s" % rm, [Src(1)], 10, rows,
                     lambda r, m=mode: from_int(S, r[0] & M32, m), fcsr=fcsr))
        for rows in rows1(F2I32):
            add(case("f.cvt.i32.f32, %s" % name, "f.cvt.i32.f32 v10, v1, %s" % rm, [Src(1)], 10, rows,
                     lambda r, m=mode, f=fl32: to_int(S, in32(r[0], f), m, -(1 << 31), (1 << 31) - 1), fcsr=fcsr))
            add(case("f.cvt.u32.f32, %s" % name, "f.cvt.u32.f32 v10, v1, %s" % rm, [Src(1)], 10, rows,
                     lambda r, m=mode, f=fl32: to_int(S, in32(r[0], f), m, 0, M32), fcsr=fcsr))
        for rows in rows1(F2F16):
            add(case("f.cvt.f16.f32, %s" % name, "f.cvt.f16.f32 v10, v1, %s" % rm, [Src(1)], 10, rows,
                     lambda r, m=mode, f=fl32, h=fl16: convert(S, H, in32(r[0], f), m, h), fcsr=fcsr))
        pk = list(zip(F2F16, F2F16[7:] + F2F16[:7]))
        for rows in chunks(pk, filler(2)):
            add(case("f.cvt.pk.f16.f32, %s" % name, "f.cvt.pk.f16.f32 v10, v1, v2, %s" % rm, [Src(1), Src(2)], 10,
                     rows, lambda r, m=mode, f=fl32, h=fl16: convert(S, H, in32(r[0], f), m, h)
                     | convert(S, H, in32(r[1], f), m, h) << 16, fcsr=fcsr))
        for rows in rows1(F64toF32, 64):
            add(case("f.cvt.f32.f64, %s" % name, "f.cvt.f32.f64 v10, v2, %s" % rm, [Src(2, 64)], 10, rows,
                     lambda r, m=mode, f=fl32: convert(D, S, r[0], m, f), fcsr=fcsr))
        for rows in rows1(F64toI, 64):
            add(case("f.cvt.i32.f64, %s" % name, "f.cvt.i32.f64 v10, v2, %s" % rm, [Src(2, 64)], 10, rows,
                     lambda r, m=mode: to_int(D, r[0], m, -(1 << 31), (1 << 31) - 1), fcsr=fcsr))
            add(case("f.cvt.u32.f64, %s" % name, "f.cvt.u32.f64 v10, v2, %s" % rm, [Src(2, 64)], 10, rows,
                     lambda r, m=mode: to_int(D, r[0], m, 0, M32), fcsr=fcsr))
        for rows in rows1(F64toF16, 64):
            add(case("f.cvt.f16.f64, %s" % name, "f.cvt.f16.f64 v10, v2, %s" % rm, [Src(2, 64)], 10, rows,
                     lambda r, m=mode, h=fl16: convert(D, H, r[0], m, h), fcsr=fcsr))
    # Exact conversions: no rm; only the flush bits of fcsr matter.
    for fcsr in (0, FTZ32 | FTZ16 | FRM[RTZ]):
        fl32, fl16 = bool(fcsr & FTZ32), bool(fcsr & FTZ16)
        for rows in rows1(F16S):
            add(case("f.cvt.f32.f16 (fcsr 0x%x)" % fcsr, "f.cvt.f32.f16 v10, v1", [Src(1)], 10, rows,
                     lambda r, h=fl16: convert(H, S, daz(H, r[0] & 0xFFFF, h), RNE, False), fcsr=fcsr))
        for rows in rows1(F32S):
            add(case("f.cvt.f64.f32 (fcsr 0x%x)" % fcsr, "f.cvt.f64.f32 v10, v1", [Src(1)], 10, rows,
                     lambda r, f=fl32: convert(S, D, in32(r[0], f), RNE, False), fcsr=fcsr, dst_width=64))
        for rows in rows1(I32S):
            add(case("f.cvt.f64.i32 (fcsr 0x%x)" % fcsr, "f.cvt.f64.i32 v10, v1", [Src(1)], 10, rows,
                     lambda r: from_int(D, sx(r[0]), RNE), fcsr=fcsr, dst_width=64))
        for rows in rows1(U32S):
            add(case("f.cvt.f64.u32 (fcsr 0x%x)" % fcsr, "f.cvt.f64.u32 v10, v1", [Src(1)], 10, rows,
                     lambda r: from_int(D, r[0] & M32, RNE), fcsr=fcsr, dst_width=64))
    # Modifiers on conversion sources (after the input flush).
    for neg, abs_ in ((True, False), (False, True), (True, True)):
        s1, s2 = Src(1, 32, neg, abs_), Src(2, 32, False, True)
        mt = s1.text()
        for rows in rows1(F2I32):
            add(case("f.cvt.i32.f32 %s, rtz" % mt, "f.cvt.i32.f32 v10, %s, rtz" % mt, [s1], 10, rows,
                     lambda r, n=neg, a=abs_: to_int(S, in32(r[0], False, n, a), RTZ, -(1 << 31), (1 << 31) - 1)))
            add(case("f.cvt.u32.f32 %s, rne" % mt, "f.cvt.u32.f32 v10, %s, rne" % mt, [s1], 10, rows,
                     lambda r, n=neg, a=abs_: to_int(S, in32(r[0], False, n, a), RNE, 0, M32)))
        for rows in rows1(F2F16):
            add(case("f.cvt.f16.f32 %s, rup" % mt, "f.cvt.f16.f32 v10, %s, rup" % mt, [s1], 10, rows,
                     lambda r, n=neg, a=abs_: convert(S, H, in32(r[0], False, n, a), RUP, False)))
        pk = list(zip(F2F16, F2F16[3:] + F2F16[:3]))
        for rows in chunks(pk, filler(2)):
            add(case("f.cvt.pk.f16.f32 %s, |v2|" % mt, "f.cvt.pk.f16.f32 v10, %s, |v2|, rdn" % mt, [s1, s2], 10, rows,
                     lambda r, n=neg, a=abs_: convert(S, H, in32(r[0], False, n, a), RDN, False)
                     | convert(S, H, in32(r[1], False, False, True), RDN, False) << 16))
        for rows in rows1(F16S):
            add(case("f.cvt.f32.f16 %s" % mt, "f.cvt.f32.f16 v10, %s" % mt, [s1], 10, rows,
                     lambda r, n=neg, a=abs_: convert(H, S, modify(H, r[0] & 0xFFFF, n, a), RNE, False)))
        for rows in rows1(F32S):
            add(case("f.cvt.f64.f32 %s" % mt, "f.cvt.f64.f32 v10, %s" % mt, [s1], 10, rows,
                     lambda r, n=neg, a=abs_: convert(S, D, in32(r[0], False, n, a), RNE, False), dst_width=64))
        d1 = Src(2, 64, neg, abs_)
        for rows in rows1(F64toF32, 64):
            add(case("f.cvt.f32.f64 %s" % d1.text(), "f.cvt.f32.f64 v10, %s, rtz" % d1.text(), [d1], 10, rows,
                     lambda r, n=neg, a=abs_: convert(D, S, in64(r[0], n, a), RTZ, False)))
        for rows in rows1(F64toI, 64):
            add(case("f.cvt.i32.f64 %s" % d1.text(), "f.cvt.i32.f64 v10, %s, rmm" % d1.text(), [d1], 10, rows,
                     lambda r, n=neg, a=abs_: to_int(D, in64(r[0], n, a), RMM, -(1 << 31), (1 << 31) - 1)))
            add(case("f.cvt.u32.f64 %s" % d1.text(), "f.cvt.u32.f64 v10, %s, rdn" % d1.text(), [d1], 10, rows,
                     lambda r, n=neg, a=abs_: to_int(D, in64(r[0], n, a), RDN, 0, M32)))
        for rows in rows1(F64toF16, 64):
            add(case("f.cvt.f16.f64 %s" % d1.text(), "f.cvt.f16.f64 v10, %s, rne" % d1.text(), [d1], 10, rows,
                     lambda r, n=neg, a=abs_: convert(D, H, in64(r[0], n, a), RNE, False)))
    # Random values, partial EXEC.
    rows = [(rnd32(-5, 35),) for _ in range(L)]
    add(case("f.cvt.i32.f32 random (EXEC 0x0f0f00ff)", "f.cvt.i32.f32 v10, v1, rne", [Src(1)], 10, rows,
             lambda r: to_int(S, r[0], RNE, -(1 << 31), (1 << 31) - 1), exec_=PART_EXEC))
    rows = [(rng.getrandbits(32),) for _ in range(L)]
    add(case("f.cvt.f32.u32 random (EXEC 0x0f0f00ff)", "f.cvt.f32.u32 v10, v1, rne", [Src(1)], 10, rows,
             lambda r: from_int(S, r[0], RNE), exec_=PART_EXEC))
    rows = [(rnd64(-30, 30),) for _ in range(L)]
    add(case("f.cvt.f16.f64 random (EXEC 0x0f0f00ff)", "f.cvt.f16.f64 v10, v2, rne", [Src(2, 64)], 10, rows,
             lambda r: convert(D, H, r[0], RNE, False), exec_=PART_EXEC))
    return [("convert.yaml", "Group 3, conversions (opcode 0x25): every mode, dyn, flush, saturation, modifiers.",
             out)]
