"""Literal forms (0x27), transcendentals (0x20, sfu) and rounding to integral / fract (0x22)."""
from decimal import Decimal, getcontext

from common import *  # noqa: F401,F403

getcontext().prec = 60


def dpi():
    """pi to the context precision (the Python decimal documentation's recipe)."""
    getcontext().prec += 2
    three = Decimal(3)
    lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    getcontext().prec -= 2
    return +s


PI = dpi()


def dsin(x):
    getcontext().prec += 2
    i, lasts, s, fact, num, sign_ = 1, 0, x, 1, x, 1
    while s != lasts:
        lasts = s
        i += 2
        fact *= i * (i - 1)
        num *= x * x
        sign_ *= -1
        s += num / fact * sign_
    getcontext().prec -= 2
    return +s


def dcos(x):
    return dsin(x + PI / 2)


def f32val(b):
    """Exact Decimal of a finite f32 pattern."""
    v = val(S, b)
    return Decimal(v.numerator) / Decimal(v.denominator)


def robust(v, fl):
    """f32_rne of the true value v (Decimal), only if every value within a relative 2^-40 rounds the same."""
    fr = Fr(v)
    lo, hi = fr * (1 - Fr(1, 1 << 40)), fr * (1 + Fr(1, 1 << 40))
    a, b = round_val(S, lo, RNE, fl), round_val(S, hi, RNE, fl)
    assert a == b, "not robust: %s" % v
    return a


def special(x, nan_or_inf):
    """Common prologue: NaN -> canonical NaN; returns None to continue."""
    if is_nan(S, x):
        return QNAN32
    return nan_or_inf(x) if is_inf(S, x) else None


def exp2_model(a, fl):
    x = daz(S, a, fl)
    r = special(x, lambda x: 0 if sign(S, x) else INF32)
    if r is not None:
        return r
    v = val(S, x)
    if v.denominator == 1 and -149 <= v <= 127:
        return daz(S, p32(int(v)), fl)
    if v >= 128:
        return INF32
    if v <= -150:
        return 0
    return robust((Decimal(2).ln() * f32val(x)).exp(), fl)


def log2_model(a, fl):
    x = daz(S, a, fl)
    r = special(x, lambda x: QNAN32 if sign(S, x) else INF32)
    if r is not None:
        return r
    if is_zero(S, x):
        return n32(INF32)
    if sign(S, x):
        return QNAN32
    v = val(S, x)
    e = floor_log2(v)
    if v == Fr(2) ** e:
        return f32(float(e)) if e else 0
    return robust(f32val(x).ln() / Decimal(2).ln(), fl)


def turn_model(a, fl, is_cos):
    x = daz(S, a, fl)
    r = special(x, lambda x: QNAN32)
    if r is not None:
        return r
    v = val(S, x)
    n = round_int(v, RNE)
    red = v - n
    if abs(red) in (0, Fr(1, 2)):
        if is_cos:
            return ONE32 if red == 0 else n32(ONE32)
        return x & S.SIGN
    if abs(red) == Fr(1, 4):
        if is_cos:
            return 0
        return ONE32 if red > 0 else n32(ONE32)
    # sin(2*pi*x) = sin(2*pi*r): the series is evaluated on the small reduced argument.
    t = 2 * PI * Decimal(red.numerator) / Decimal(red.denominator)
    return robust(dcos(t) if is_cos else dsin(t), fl)


def rcp_model(a, fl):
    return div(S, ONE32, daz(S, a, fl), RNE, fl)


def rsq_model(a, fl):
    d = convert(S, D, daz(S, a, fl), RNE, False)
    q = div(D, ONE64, sqrt(D, d, RNE, False), RNE, False)
    return convert(D, S, q, RNE, fl)


SFU_IN = {
    "rcp": [f32(2.0), f32(0.25), f32(-4.0), f32(3.0), f32(-3.0), f32(10.0), 0, 0x80000000, INF32, n32(INF32),
            QNAN32, SNAN32, SUB32, n32(SUB32), p32(126, 1.5), p32(127), n32(p32(127)), MAX32, p32(-127), MIN32,
            f32(7.0), f32(0.1), p32(-149, 3), f32(1e-38)],
    "rsq": [f32(4.0), f32(0.25), f32(16.0), f32(2.0), f32(3.0), 0, 0x80000000, INF32, n32(INF32), f32(-1.0),
            QNAN32, NNAN32, SUB32, n32(SUB32), MAX32, MIN32, f32(0.5), f32(100.0), p32(-148), f32(1e-20), f32(1e20)],
    "exp2": [f32(3.0), 0, 0x80000000, f32(-1.0), p32(0, 127), f32(128.0), f32(-149.0), f32(-150.0), f32(-130.0),
             INF32, n32(INF32), QNAN32, SUB32, n32(SUB32), f32(0.5), f32(-0.5), f32(10.25), f32(-149.5),
             f32(-149.9), f32(-150.5), f32(127.5), f32(128.5), f32(1000.0), f32(-1000.0), f32(-126.0), f32(0.1),
             f32(-127.0), SNAN32, f32(2.0 ** 30), f32(-2.0 ** 30)],
    "log2": [f32(8.0), f32(0.125), ONE32, p32(-149), p32(-126), 0, 0x80000000, f32(-1.0), n32(SUB32), INF32,
             n32(INF32), QNAN32, SUB32, f32(3.0), f32(10.0), f32(1.5), MAX32, p32(-149, 3), p32(127), f32(0.1),
             f32(0.7), NNAN32, p32(100)],
    "sin": [f32(0.25), f32(0.75), f32(-0.25), f32(1.25), f32(0.5), f32(-0.5), f32(1.5), f32(-1.5), 0, 0x80000000,
            f32(3.0), f32(2.0 ** 21 + 0.25), f32(1e6 + 0.75), p32(30), n32(p32(30)), INF32, n32(INF32), QNAN32,
            SUB32, n32(SUB32), f32(1 / 12), f32(-1 / 12), f32(0.125), f32(1 / 6), f32(0.1), f32(-0.3),
            f32(100.125), f32(-7.875), p32(-20), f32(0.375)],
    "cos": [0, 0x80000000, f32(0.5), f32(-1.5), f32(0.25), f32(-0.75), f32(8388609.0), p32(30), f32(12345.5),
            f32(1e6 + 0.25), INF32, n32(INF32), QNAN32, SNAN32, SUB32, n32(SUB32), f32(1 / 6), f32(1 / 3),
            f32(0.125), f32(0.1), f32(-0.2), f32(0.45), f32(-100.375), p32(-20), f32(3.0), f32(-2.0)],
}
SFU_MODEL = {"rcp": rcp_model, "rsq": rsq_model, "exp2": exp2_model, "log2": log2_model,
             "sin": lambda a, fl: turn_model(a, fl, False), "cos": lambda a, fl: turn_model(a, fl, True)}

ROUND_IN = [0, 0x80000000, f32(0.5), f32(-0.5), f32(1.5), f32(-1.5), f32(2.5), f32(-2.5), f32(0.7), f32(-0.7),
            f32(0.25), f32(-0.25), f32(2.0 ** 23 + 1), f32(-2.0 ** 23 - 1), f32(1e30), INF32, n32(INF32), QNAN32,
            SUB32, n32(SUB32), 0x3EFFFFFF, 0x4B7FFFFF, f32(-1e-30), f32(-2.0), f32(3.75), f32(-3.75), MIN32,
            n32(MIN32), SNAN32, f32(-0.999999940395)]
ROUND_OPS = {"floor": RDN, "ceil": RUP, "trunc": RTZ, "round": RNE}


def literal_cases():
    out = []
    fcsrs = [0, FRM[RTZ], FRM[RDN], FRM[RMM], FTZ32 | FRM[RUP]]
    s_add = [(ONE32,), (n32(ONE32),), (p32(-24),), (n32(p32(-24)),), (0,), (0x80000000,), (SUB32,), (INF32,),
             (n32(INF32),), (QNAN32,), (p32(-23),), (f32(3.0),), (MAX32,), (f32(-1e-30),), (0x3F800001,),
             (n32(MAX32),), (MIN32,), (n32(SUB32),)]
    lits = [("1.0", ONE32), ("0x33800000", p32(-24)), ("0x80000001", n32(SUB32)), ("-0.0", 0x80000000),
            ("0x7f7fffff", MAX32), ("0x3eaaaaab", 0x3EAAAAAB)]
    for fcsr in fcsrs:
        mode, fl = MODES[fcsr & 7], bool(fcsr & FTZ32)
        for lt, k in lits:
            for rows in chunks(s_add, filler(1)):
                out.append(case("f.add.k.f32 k=%s (fcsr 0x%x)" % (lt, fcsr), "f.add.k.f32 v10, v1, %s" % lt,
                                [Src(1)], 10, rows, lambda r, k=k, m=mode, f=fl: add(S, daz(S, r[0], f), daz(S, k, f), m, f),
                                fcsr=fcsr))
                out.append(case("f.mul.k.f32 k=%s (fcsr 0x%x)" % (lt, fcsr), "f.mul.k.f32 v11, v1, %s" % lt,
                                [Src(1)], 11, rows, lambda r, k=k, m=mode, f=fl: mul(S, daz(S, r[0], f), daz(S, k, f), m, f),
                                fcsr=fcsr))
        pairs = [(ONE32, p32(-24)), (ONE32, n32(ONE32)), (0, 0x80000000), (p32(0, 1 + Fr(1, 4096)), 0),
                 (INF32, n32(INF32)), (0, QNAN32), (SUB32, SUB32), (f32(3.0), f32(0.5)), (f32(-2.0), 0x3F800001),
                 (MAX32, MAX32), (f32(1e-30), f32(-1.0)), (0x80000000, 0x80000000)]
        for lt, k in (("0x3f800800", p32(0, 1 + Fr(1, 4096))), ("-1.0", n32(ONE32)), ("0x00000001", SUB32),
                      ("0x7f800000", INF32)):
            for rows in chunks(pairs, filler(2)):
                out.append(case("f.fma.k.f32 k=%s (fcsr 0x%x)" % (lt, fcsr), "f.fma.k.f32 v10, v1, %s" % lt,
                                [Src(1), Src(10)], 10, rows,
                                lambda r, k=k, m=mode, f=fl: fma(S, daz(S, r[0], f), daz(S, k, f), daz(S, r[1], f), m, f),
                                fcsr=fcsr))
                out.append(case("f.fma.ka.f32 k=%s (fcsr 0x%x)" % (lt, fcsr), "f.fma.ka.f32 v10, v1, %s" % lt,
                                [Src(1), Src(10)], 10, rows,
                                lambda r, k=k, m=mode, f=fl: fma(S, daz(S, r[1], f), daz(S, r[0], f), daz(S, k, f), m, f),
                                fcsr=fcsr))
    rows = [filler(2)() for _ in range(L)]
    out.append(case("f.fma.ka.f32 random (EXEC 0x0f0f00ff)", "f.fma.ka.f32 v10, v1, 0x3e4ccccd", [Src(1), Src(10)],
                    10, rows, lambda r: fma(S, r[1], r[0], 0x3E4CCCCD, RNE, False), exec_=PART_EXEC))
    return out


def sfu_cases():
    out = []
    for op, xs in SFU_IN.items():
        # fcsr.frm never matters (round to nearest even); the flush bit does.
        for fcsr in (0, FTZ32, FRM[RUP], FRM[RTZ] | FTZ32):
            fl = bool(fcsr & FTZ32)
            for rows in chunks([(x,) for x in xs], filler(1)):
                out.append(case("f.%s.f32 (fcsr 0x%x)" % (op, fcsr), "f.%s.f32 v10, v1" % op, [Src(1)], 10, rows,
                                lambda r, f=fl, op=op: SFU_MODEL[op](r[0], f), fcsr=fcsr))
    rows = [(rnd32(-30, 30) & 0x7FFFFFFF,) for _ in range(L)]
    for op in ("rcp", "rsq"):
        out.append(case("f.%s.f32 random (EXEC 0x0f0f00ff)" % op, "f.%s.f32 v1, v1" % op, [Src(1)], 1, rows,
                        lambda r, op=op: SFU_MODEL[op](r[0], False), exec_=PART_EXEC))
    return out


def round_cases():
    out = []
    for fcsr in (0, FTZ32, FRM[RUP], FRM[RDN] | FTZ32):
        fl = bool(fcsr & FTZ32)
        for rows in chunks([(x,) for x in ROUND_IN], filler(1)):
            for op, mode in ROUND_OPS.items():
                out.append(case("f.%s.f32 (fcsr 0x%x)" % (op, fcsr), "f.%s.f32 v10, v1" % op, [Src(1)], 10, rows,
                                lambda r, m=mode, f=fl: to_integral(r[0], m, f), fcsr=fcsr))
            out.append(case("f.fract.f32 (fcsr 0x%x)" % fcsr, "f.fract.f32 v10, v1", [Src(1)], 10, rows,
                            lambda r, f=fl: fract(r[0], f), fcsr=fcsr))
    rows = [(rnd32(-10, 25),) for _ in range(L)]
    for op, mode in ROUND_OPS.items():
        out.append(case("f.%s.f32 random (EXEC 0x0f0f00ff)" % op, "f.%s.f32 v10, v1" % op, [Src(1)], 10, rows,
                        lambda r, m=mode: to_integral(r[0], m, False), exec_=PART_EXEC))
    out.append(case("f.fract.f32 random (EXEC 0x0f0f00ff)", "f.fract.f32 v10, v1", [Src(1)], 10, rows,
                    lambda r: fract(r[0], False), exec_=PART_EXEC))
    return out


def build():
    return [("literal.yaml", "Group 3, f32 with a literal (opcode 0x27): fcsr.frm rounding, flush, old rd.",
             literal_cases()),
            ("sfu.yaml", "Group 3, transcendentals (opcode 0x20, sfu): exact and robust values, specials, flush.",
             sfu_cases()),
            ("round.yaml", "Group 3, floor / ceil / trunc / round / fract (opcode 0x22).", round_cases())]
