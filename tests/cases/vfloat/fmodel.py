"""Exact model of IEEE binary16/32/64 arithmetic for the group-3 conformance cases (used by gen.py).

Independent of the interpreter: every value is decoded to a Python Fraction, the operation is done exactly,
and the exact result is rounded once to the format in the requested mode. The rules around it (flush, canonical
NaN, zero signs, sat, min/max, saturating integer conversion) are written from the `en` text of
isa-spec/groups/3-vfloat.yaml.
"""
from fractions import Fraction as Fr
from math import floor, ceil, isqrt

RNE, RTZ, RDN, RUP, RMM = "rne", "rtz", "rdn", "rup", "rmm"
MODES = [RNE, RTZ, RDN, RUP, RMM]
FRM = {RNE: 0, RTZ: 1, RDN: 2, RUP: 3, RMM: 4}     # fcsr[2:0]
FTZ32, FTZ16 = 1 << 3, 1 << 4                       # fcsr bits


class Fmt:
    def __init__(self, e, m):
        self.E, self.M = e, m
        self.bias = (1 << (e - 1)) - 1
        self.emin = 1 - self.bias
        self.SIGN = 1 << (e + m)
        self.EXPM = ((1 << e) - 1) << m
        self.FRAC = (1 << m) - 1
        self.QNAN = self.EXPM | (1 << (m - 1))
        self.INF = self.EXPM
        self.MAXF = self.EXPM - 1
        self.ONE = self.bias << m


H, S, D = Fmt(5, 10), Fmt(8, 23), Fmt(11, 52)


def is_nan(f, b):
    return (b & ~f.SIGN) > f.EXPM


def is_inf(f, b):
    return (b & ~f.SIGN) == f.EXPM


def is_zero(f, b):
    return (b & ~f.SIGN) == 0


def is_sub(f, b):
    return b & f.EXPM == 0 and b & f.FRAC != 0


def sign(f, b):
    return 1 if b & f.SIGN else 0


def daz(f, b, on):
    return b & f.SIGN if on and is_sub(f, b) else b


def val(f, b):
    """Exact signed value of a finite pattern."""
    e, m = (b & f.EXPM) >> f.M, b & f.FRAC
    mag = Fr(m, 1 << (f.M - f.emin)) if e == 0 else Fr((1 << f.M) | m) * Fr(2) ** (e - f.bias - f.M)
    return -mag if sign(f, b) else mag


def floor_log2(v):
    """e with 2^e <= v < 2^(e+1), v > 0."""
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fr(2) ** e > v:
        e -= 1
    while Fr(2) ** (e + 1) <= v:
        e += 1
    return e


def encode(f, s, mag):
    """Pattern of sign s and representable magnitude mag (>= 0)."""
    sb = f.SIGN if s else 0
    if mag == 0:
        return sb
    e = floor_log2(mag)
    if e < f.emin:
        n = mag / Fr(2) ** (f.emin - f.M)
        assert n.denominator == 1
        return sb | int(n)
    n = mag / Fr(2) ** (e - f.M)
    assert n.denominator == 1 and (1 << f.M) <= n < (1 << (f.M + 1))
    return sb | ((e + f.bias) << f.M) | (int(n) - (1 << f.M))


def round_mag(f, s, v, mode):
    """Round the exact magnitude v > 0 (sign s) to f in `mode`: a pattern (inf or max finite on overflow)."""
    e = max(floor_log2(v), f.emin)
    q = Fr(2) ** (e - f.M)
    n = v / q
    N = floor(n)
    rem = n - N
    if rem:
        up = {RNE: rem > Fr(1, 2) or (rem == Fr(1, 2) and N % 2 == 1), RMM: rem >= Fr(1, 2),
              RTZ: False, RUP: s == 0, RDN: s == 1}[mode]
        N += up
    mag = N * q
    if mag >= Fr(2) ** (f.bias + 1):
        to_inf = mode in (RNE, RMM) or (mode == RUP and s == 0) or (mode == RDN and s == 1)
        return (f.SIGN if s else 0) | (f.INF if to_inf else f.MAXF)
    return encode(f, s, mag)


def round_val(f, v, mode, flush, zero_sign=None):
    """Round the exact nonzero value v (or a zero with sign zero_sign), then flush a subnormal result."""
    if v == 0:
        return f.SIGN if zero_sign else 0
    s = 1 if v < 0 else 0
    r = round_mag(f, s, abs(v), mode)
    return daz(f, r, flush)


def exact_zero_sign(mode):
    """Sign of an exact zero sum of operands that are not both zeros of one sign."""
    return 1 if mode == RDN else 0


# ---------------------------------------------------------------- arithmetic (inputs already flushed/modified)

def add(f, a, b, mode, flush):
    if is_nan(f, a) or is_nan(f, b):
        return f.QNAN
    if is_inf(f, a) or is_inf(f, b):
        if is_inf(f, a) and is_inf(f, b) and sign(f, a) != sign(f, b):
            return f.QNAN
        return a if is_inf(f, a) else b
    v = val(f, a) + val(f, b)
    if v == 0:
        if is_zero(f, a) and is_zero(f, b) and sign(f, a) == sign(f, b):
            return a
        return round_val(f, v, mode, flush, exact_zero_sign(mode))
    return round_val(f, v, mode, flush)


def sub(f, a, b, mode, flush):
    return add(f, a, b ^ f.SIGN, mode, flush)


def mul(f, a, b, mode, flush):
    if is_nan(f, a) or is_nan(f, b):
        return f.QNAN
    s = sign(f, a) ^ sign(f, b)
    if is_inf(f, a) or is_inf(f, b):
        if is_zero(f, a) or is_zero(f, b):
            return f.QNAN
        return (f.SIGN if s else 0) | f.INF
    v = val(f, a) * val(f, b)
    return round_val(f, v, mode, flush, s)


def div(f, a, b, mode, flush):
    if is_nan(f, a) or is_nan(f, b):
        return f.QNAN
    s = sign(f, a) ^ sign(f, b)
    sb = f.SIGN if s else 0
    if (is_inf(f, a) and is_inf(f, b)) or (is_zero(f, a) and is_zero(f, b)):
        return f.QNAN
    if is_inf(f, a) or is_zero(f, b):
        return sb | f.INF
    if is_inf(f, b) or is_zero(f, a):
        return sb
    return round_val(f, val(f, a) / val(f, b), mode, flush)


def fma(f, a, b, c, mode, flush):
    if is_nan(f, a) or is_nan(f, b) or is_nan(f, c):
        return f.QNAN
    ps = sign(f, a) ^ sign(f, b)
    if is_inf(f, a) or is_inf(f, b):
        if is_zero(f, a) or is_zero(f, b):
            return f.QNAN
        if is_inf(f, c) and sign(f, c) != ps:
            return f.QNAN
        return (f.SIGN if ps else 0) | f.INF
    if is_inf(f, c):
        return c
    v = val(f, a) * val(f, b) + val(f, c)
    if v == 0:
        p_zero = is_zero(f, a) or is_zero(f, b)
        if p_zero and is_zero(f, c) and ps == sign(f, c):
            return c
        return round_val(f, v, mode, flush, exact_zero_sign(mode))
    return round_val(f, v, mode, flush)


def sqrt(f, a, mode, flush):
    if is_nan(f, a):
        return f.QNAN
    if is_zero(f, a):
        return a
    if sign(f, a):
        return f.QNAN
    if is_inf(f, a):
        return a
    v = val(f, a)
    K = 1400                                   # far below any rounding boundary of the root (>= 2^-600)
    num = v.numerator << (2 * K)
    r = isqrt(num // v.denominator)
    exact = r * r * v.denominator == num
    approx = Fr(r, 1 << K) if exact else Fr(2 * r + 1, 1 << (K + 1))
    return round_val(f, approx, mode, flush)


def minmax(f, a, b, want_max):
    """IEEE 754-2019 minimumNumber / maximumNumber on (already flushed) patterns."""
    if is_nan(f, a) and is_nan(f, b):
        return f.QNAN
    if is_nan(f, a):
        return b
    if is_nan(f, b):
        return a

    def key(x):
        return (val(f, x), -sign(f, x))      # -0 < +0
    lo, hi = (a, b) if key(a) <= key(b) else (b, a)
    return hi if want_max else lo


def sat(f, d):
    if is_nan(f, d) or sign(f, d):
        return 0
    if is_inf(f, d) or val(f, d) > 1:
        return f.ONE
    return d


def modify(f, b, neg, abs_):
    if abs_:
        b &= ~f.SIGN
    if neg:
        b ^= f.SIGN
    return b


# ---------------------------------------------------------------- conversions

def round_int(v, mode):
    """Round the exact value v to an integer in `mode`."""
    if mode == RTZ:
        return int(v)                          # int() of a Fraction truncates
    if mode == RDN:
        return floor(v)
    if mode == RUP:
        return ceil(v)
    n = floor(v)
    rem = v - n
    if rem > Fr(1, 2) or (rem == Fr(1, 2) and (mode == RMM and v > 0 or mode == RNE and n % 2 == 1)):
        n += 1
    elif rem == Fr(1, 2) and mode == RMM and v < 0:
        n += 0                                 # -2.5 away from zero is -3 = floor
    return n


def to_int(f, a, mode, lo, hi):
    """Saturating float -> integer (NaN -> 0); returns the integer (caller masks to 32 bits)."""
    if is_nan(f, a):
        return 0
    if is_inf(f, a):
        return lo if sign(f, a) else hi
    n = round_int(val(f, a), mode)
    return max(lo, min(hi, n))


def from_int(f, n, mode):
    return round_val(f, Fr(n), mode, False)


def convert(fa, fb, a, mode, flush_out):
    """Float a (format fa, already flushed/modified) to format fb, rounded once, output flush."""
    if is_nan(fa, a):
        return fb.QNAN
    s = sign(fa, a)
    if is_inf(fa, a):
        return (fb.SIGN if s else 0) | fb.INF
    if is_zero(fa, a):
        return fb.SIGN if s else 0
    return round_val(fb, val(fa, a), mode, flush_out)


# ---------------------------------------------------------------- rounding to integral

def to_integral(a, mode, flush):
    """f32 roundToIntegral in `mode` (floor = rdn, ceil = rup, trunc = rtz, round = rne); sign kept."""
    a = daz(S, a, flush)
    if is_nan(S, a):
        return S.QNAN
    if is_inf(S, a) or is_zero(S, a):
        return a
    n = round_int(val(S, a), mode)
    return encode(S, sign(S, a), Fr(abs(n))) if n != 0 else (S.SIGN if sign(S, a) else 0)


def fract(a, flush):
    a = daz(S, a, flush)
    if is_nan(S, a) or is_inf(S, a):
        return S.QNAN
    fl = to_integral(a, RDN, flush)
    r = sub(S, a, fl, RNE, flush)
    return min(r, 0x3F7FFFFF) if not sign(S, r) else r
