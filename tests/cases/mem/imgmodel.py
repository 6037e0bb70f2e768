"""An independent model of the group-6 image instructions (img.load, img.store, img.sample, img.query).

Written from the `en` texts of isa-spec/groups/6-mem.yaml alone, not from any engine: number formats are
decoded to exact fractions and rounded by hand (round_bits), the bilinear sum is done in Python floats (f64,
round to nearest even) exactly as the text orders it. gen_image.py drives it.

A machine state is a dict: exec (int), v {reg: [32 lane values]}, u {reg: value}, mem [(addr, bytearray)];
`execute` runs one instruction on it in place and returns None or a trap (kind, lanes or None, addrs or None).
"""
import math
import struct
from fractions import Fraction

L = 32
M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
DIMS = ["1d", "2d", "3d", "1d_array", "2d_array"]
NC = {"1d": 1, "2d": 2, "3d": 3, "1d_array": 2, "2d_array": 3}
FORMATS = ["r32ui", "r32f", "rgba8", "rgba16f", "rgba32f"]
TEXEL_BYTES = {"r32ui": 4, "r32f": 4, "rgba8": 4, "rgba16f": 8, "rgba32f": 16}
MAX_SIZE = 16384
F32_NAN = 0x7FC00000
F16_NAN = 0x7E00
ONE_F32 = 0x3F800000

# (precision with the hidden bit, minimum normal exponent, exponent bias, exponent field bits)
F32 = (24, -126, 127, 8)
F16 = (11, -14, 15, 5)


# ---------------------------------------------------------------- number formats, exactly

def decode(bits, fmt):
    """bits -> ('nan', None) | ('inf', sign) | ('num', Fraction) (a zero keeps its sign in `sign_of`)."""
    p, emin, bias, eb = fmt
    frac_bits = p - 1
    sign = -1 if bits >> (frac_bits + eb) & 1 else 1
    e = bits >> frac_bits & ((1 << eb) - 1)
    m = bits & ((1 << frac_bits) - 1)
    if e == (1 << eb) - 1:
        return ("nan", None) if m else ("inf", sign)
    if e == 0:
        return ("num", sign * Fraction(m) * Fraction(2) ** (emin - frac_bits))
    return ("num", sign * Fraction(m | 1 << frac_bits) * Fraction(2) ** (e - bias - frac_bits))


def round_bits(q, fmt, negative_zero=False):
    """Exact rational q rounded to nearest even in `fmt`: overflow gives infinity, denormals are kept."""
    p, emin, bias, eb = fmt
    frac_bits = p - 1
    sign_bit = 1 << (frac_bits + eb)
    sign = sign_bit if (q < 0 or (q == 0 and negative_zero)) else 0
    a = abs(q)
    if a == 0:
        return sign
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    scaled = a / Fraction(2) ** (e - frac_bits)
    m = round_half_even(scaled)
    if m == 1 << p:
        m >>= 1
        e += 1
    emax = (1 << eb) - 2 - bias
    if e > emax:
        return sign | ((1 << eb) - 1) << frac_bits
    if m < 1 << frac_bits:
        return sign | m
    return sign | (e + bias) << frac_bits | (m - (1 << frac_bits))


def round_half_even(q):
    """The integer nearest the rational q, ties to even."""
    f = math.floor(q)
    d = q - f
    if d > Fraction(1, 2) or (d == Fraction(1, 2) and f % 2 == 1):
        return f + 1
    return f


def is_neg_zero(bits, fmt):
    p, _, _, eb = fmt
    return bits == 1 << (p - 1 + eb)


def f16_to_f32(h):
    """f16 -> f32 exactly, a NaN becoming 0x7fc00000."""
    kind, x = decode(h, F16)
    if kind == "nan":
        return F32_NAN
    if kind == "inf":
        return 0x7F800000 | (0x80000000 if x < 0 else 0)
    return round_bits(x, F32, is_neg_zero(h, F16))


def f32_to_f16(b):
    """f32 -> f16, round to nearest even, overflow to infinity, NaN becoming 0x7e00."""
    kind, x = decode(b, F32)
    if kind == "nan":
        return F16_NAN
    if kind == "inf":
        return 0x7C00 | (0x8000 if x < 0 else 0)
    return round_bits(x, F16, is_neg_zero(b, F32))


def unorm8_to_f32(c):
    return round_bits(Fraction(c, 255), F32)


def f32_to_unorm8(b):
    """round-half-even(clamp(v, 0, 1) * 255), exactly; NaN gives 0."""
    kind, x = decode(b, F32)
    if kind == "nan":
        return 0
    if kind == "inf":
        return 255 if x > 0 else 0
    return round_half_even(min(max(x, Fraction(0)), Fraction(1)) * 255)


def f32_float(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f64_to_f32_bits(x):
    """A Python float (f64) rounded once to f32; NaN becomes 0x7fc00000."""
    if math.isnan(x):
        return F32_NAN
    if math.isinf(x):
        return 0x7F800000 | (0x80000000 if x < 0 else 0)
    return round_bits(Fraction(x), F32, x == 0 and math.copysign(1, x) < 0)


# ---------------------------------------------------------------- descriptor and memory

class Desc:
    def __init__(self, words, dim):
        self.base = words[0] | words[1] << 32
        self.W, self.H, self.D4, self.P, self.fmt_code, self.sampler = words[2:8]
        self.dim = dim
        self.H_eff = self.H if dim in ("2d", "3d", "2d_array") else 1
        self.L_eff = self.D4 if dim in ("3d", "1d_array", "2d_array") else 1

    def valid(self, sample):
        used = [self.W]
        if self.dim in ("2d", "3d", "2d_array"):
            used.append(self.H)
        if self.dim in ("3d", "1d_array", "2d_array"):
            used.append(self.D4)
        if any(s == 0 or s > MAX_SIZE for s in used) or self.fmt_code > 4:
            return False
        if sample:
            if self.sampler >> 7:
                return False
            if any(self.sampler >> sh & 3 == 3 for sh in (1, 3, 5)):
                return False
        return True

    @property
    def fmt(self):
        return FORMATS[self.fmt_code]

    @property
    def B(self):
        return TEXEL_BYTES[self.fmt]

    def addr(self, x, y, z, toff):
        return (self.base + toff + z * (self.P * self.H_eff) + y * self.P + x * self.B) & M64


def find_alloc(mem, a, n):
    for base, data in mem:
        if base <= a and a + n <= base + len(data):
            return data, a - base
    return None


def check_texels(st, accesses, B):
    """accesses: [(lane, addr)] in lane order. Misaligned first, then out of every allocation."""
    mis = [(lane, a) for lane, a in accesses if a % B]
    if mis:
        return trap("Misaligned", mis)
    out = [(lane, a) for lane, a in accesses if find_alloc(st["mem"], a, B) is None]
    if out:
        return trap("MemoryFault", out)
    return None


def trap(kind, offenders):
    lanes = 0
    addrs = []
    for lane, a in offenders:
        if not lanes >> lane & 1:
            addrs.append(a)
        lanes |= 1 << lane
    return (kind, lanes, addrs)


def read_texel(st, a, B):
    data, off = find_alloc(st["mem"], a, B)
    return bytes(data[off:off + B])


def components(raw, fmt):
    """The four 32-bit components (r, g, b, a) of a texel's bytes, as the text converts them."""
    if fmt == "r32ui":
        return [int.from_bytes(raw[:4], "little"), 0, 0, 1]
    if fmt == "r32f":
        return [int.from_bytes(raw[:4], "little"), 0, 0, ONE_F32]
    if fmt == "rgba8":
        return [unorm8_to_f32(c) for c in raw]
    if fmt == "rgba16f":
        return [f16_to_f32(int.from_bytes(raw[2 * i:2 * i + 2], "little")) for i in range(4)]
    return [int.from_bytes(raw[4 * i:4 * i + 4], "little") for i in range(4)]


# ---------------------------------------------------------------- registers

def vreg(st, r):
    return st["v"].setdefault(r, [0] * L)


def dmask_channels(dmask):
    return [c for c in range(4) if dmask >> c & 1]


def coord_raw(st, ins, i, lane):
    if ins["a16"]:
        return vreg(st, ins["rs1"] + i // 2)[lane] >> (16 * (i % 2)) & 0xFFFF
    return vreg(st, ins["rs1"] + i)[lane]


def offsets(st, ins, lane):
    """(ox, oy, oz) as the dim uses them (0 where unused or voff clear)."""
    if not ins["voff"]:
        return (0, 0, 0)
    w = vreg(st, ins["rs1"] + ncr(ins))[lane]
    f = [sext6(w >> sh & 63) for sh in (0, 8, 16)]
    dim = ins["dim"]
    oy = f[1] if dim in ("2d", "3d", "2d_array") else 0
    oz = f[2] if dim == "3d" else 0
    return (f[0], oy, oz)


def sext6(x):
    return x - 64 if x & 32 else x


def ncr(ins):
    nc = NC[ins["dim"]]
    return (nc + 1) // 2 if ins["a16"] else nc


def data_regs(ins):
    n = bin(ins["dmask"]).count("1")
    return (n + 1) // 2 if ins["d16"] else n


def write_data(st, ins, lane, comps16or32, status=None):
    """Writes component j (already in its final width) to the data registers of one lane."""
    nr = data_regs(ins)
    words = [0] * nr
    for j, c in enumerate(comps16or32):
        if ins["d16"]:
            words[j // 2] |= (c & 0xFFFF) << (16 * (j % 2))
        else:
            words[j] = c
    for k in range(nr):
        vreg(st, ins["rd"] + k)[lane] = words[k]
    if status is not None:
        vreg(st, ins["rd"] + nr)[lane] = status


def to_d16(c, fmt, ch):
    """The d16 form of a 32-bit read component: r32ui's values keep their low 16 bits, floats become f16."""
    if fmt == "r32ui":
        return c & 0xFFFF
    return f32_to_f16(c)


def lanes_on(st):
    return [lane for lane in range(L) if st["exec"] >> lane & 1]


# ---------------------------------------------------------------- the instructions

def execute(st, ins):
    op = ins["op"]
    if op == "query":
        return execute_query(st, ins)
    if ins["rs3"] + 7 > 63:
        return ("IllegalInsn", None, None)
    if ins["rs1"] + ncr(ins) + ins["voff"] - 1 > 127:
        return ("IllegalInsn", None, None)
    if ins["rd"] + data_regs(ins) + (ins.get("rsd", 0) if op == "load" else 0) - 1 > 127:
        return ("IllegalInsn", None, None)
    active = lanes_on(st)
    if not active:
        return None
    desc = Desc([st["u"].get(ins["rs3"] + i, 0) for i in range(8)], ins["dim"])
    if not desc.valid(op == "sample"):
        return invalid_descriptor(active)
    return {"load": execute_load, "store": execute_store, "sample": execute_sample}[op](st, ins, desc, active)


def invalid_descriptor(active):
    """MemoryFault naming the active lanes and no address (the text's decision for an invalid descriptor)."""
    return ("MemoryFault", sum(1 << lane for lane in active), [])


def execute_query(st, ins):
    n = bin(ins["dmask"]).count("1")
    if ins["rs3"] + 7 > 63 or ins["rd"] + n - 1 > 127:
        return ("IllegalInsn", None, None)
    active = lanes_on(st)
    if not active:
        return None
    desc = Desc([st["u"].get(ins["rs3"] + i, 0) for i in range(8)], ins["dim"])
    if not desc.valid(False):
        return invalid_descriptor(active)
    vals = [desc.W, desc.H_eff, desc.L_eff, 1]
    for j, ch in enumerate(dmask_channels(ins["dmask"])):
        for lane in active:
            vreg(st, ins["rd"] + j)[lane] = vals[ch]
    return None


def texel_coords(st, ins, desc, lane):
    """(x', y', z') of an integer-coordinate access (mod 2^32)."""
    dim = ins["dim"]
    c = [coord_raw(st, ins, i, lane) for i in range(NC[dim])]
    x = c[0]
    y = c[1] if dim in ("2d", "3d", "2d_array") else 0
    z = c[2] if dim in ("3d", "2d_array") else (c[1] if dim == "1d_array" else 0)
    ox, oy, oz = offsets(st, ins, lane)
    return ((x + ox) & M32, (y + oy) & M32, (z + oz) & M32)


def in_range(desc, xyz):
    x, y, z = xyz
    return x < desc.W and y < desc.H_eff and z < desc.L_eff


def execute_load(st, ins, desc, active):
    where = {lane: texel_coords(st, ins, desc, lane) for lane in active}
    accesses = [(lane, desc.addr(*where[lane], ins["toff"])) for lane in active if in_range(desc, where[lane])]
    t = check_texels(st, accesses, desc.B)
    if t:
        return t
    addr = dict(accesses)
    chans = dmask_channels(ins["dmask"])
    for lane in active:
        if lane in addr:
            comps = components(read_texel(st, addr[lane], desc.B), desc.fmt)
        else:
            comps = [0, 0, 0, 0]
        out = [comps[ch] for ch in chans]
        if ins["d16"]:
            out = [to_d16(c, desc.fmt, ch) if lane in addr else 0 for c, ch in zip(out, chans)]
        write_data(st, ins, lane, out, (1 if lane in addr else 0) if ins["rsd"] else None)
    return None


def store_value(word16or32, fmt, d16):
    """A data component as a 32-bit value (d16: widened as the text says)."""
    if not d16:
        return word16or32
    if fmt == "r32ui":
        return word16or32 & 0xFFFF
    return f16_to_f32(word16or32 & 0xFFFF)


def execute_store(st, ins, desc, active):
    where = {lane: texel_coords(st, ins, desc, lane) for lane in active}
    accesses = [(lane, desc.addr(*where[lane], ins["toff"])) for lane in active if in_range(desc, where[lane])]
    t = check_texels(st, accesses, desc.B)
    if t:
        return t
    chans = dmask_channels(ins["dmask"])
    fmt = desc.fmt
    for lane, a in accesses:
        data, off = find_alloc(st["mem"], a, desc.B)
        for j, ch in enumerate(chans):
            if ins["d16"]:
                raw = vreg(st, ins["rd"] + j // 2)[lane] >> (16 * (j % 2)) & 0xFFFF
            else:
                raw = vreg(st, ins["rd"] + j)[lane]
            v = store_value(raw, fmt, ins["d16"])
            if fmt in ("r32ui", "r32f"):
                if ch == 0:
                    data[off:off + 4] = v.to_bytes(4, "little")
            elif fmt == "rgba8":
                data[off + ch] = f32_to_unorm8(v)
            elif fmt == "rgba16f":
                data[off + 2 * ch:off + 2 * ch + 2] = f32_to_f16(v).to_bytes(2, "little")
            else:
                data[off + 4 * ch:off + 4 * ch + 4] = v.to_bytes(4, "little")
    return None


# ---------------------------------------------------------------- img.sample

def sample_coord(st, ins, i, lane):
    raw = coord_raw(st, ins, i, lane)
    if ins["a16"]:
        raw = f16_to_f32(raw) if not is_f16_nan(raw) else 0x7FC00000
    return f32_float(raw)


def is_f16_nan(h):
    return h & 0x7C00 == 0x7C00 and h & 0x3FF


def layer_index(s, L_count):
    if math.isnan(s):
        return 0
    if math.isinf(s):
        return L_count - 1 if s > 0 else 0
    return min(max(round_half_even(Fraction(s)), 0), L_count - 1)


def axis_u(s, N, o):
    u = s * N + o  # f64: s * N is exact, the add rounds to nearest even
    if math.isnan(u):
        u = 0.0
    return min(max(u, -2.0 ** 30), 2.0 ** 30)


def address_mode(i, N, mode):
    if mode == 0:
        return min(max(i, 0), N - 1)
    if mode == 1:
        return i % N
    m = i % (2 * N)
    return m if m < N else 2 * N - 1 - m


def axis_taps(u, N, mode, bilinear):
    """[(texel index, weight)] of one axis."""
    if not bilinear:
        return [(address_mode(math.floor(u), N, mode), Fraction(1))]
    u1 = Fraction(u) - Fraction(1, 2)
    i0 = math.floor(u1)
    a = Fraction(math.floor((u1 - i0) * 256), 256)
    return [(address_mode(i0, N, mode), 1 - a), (address_mode(i0 + 1, N, mode), a)]


def execute_sample(st, ins, desc, active):
    dim = ins["dim"]
    fmt = desc.fmt
    bilinear = desc.sampler & 1 == 1 and fmt != "r32ui"
    modes = [desc.sampler >> sh & 3 for sh in (1, 3, 5)]
    taps_of = {}
    for lane in active:
        s = [sample_coord(st, ins, i, lane) for i in range(NC[dim])]
        ox, oy, oz = offsets(st, ins, lane)
        axes = [axis_taps(axis_u(s[0], desc.W, ox), desc.W, modes[0], bilinear)]
        if dim in ("2d", "3d", "2d_array"):
            axes.append(axis_taps(axis_u(s[1], desc.H, oy), desc.H, modes[1], bilinear))
        if dim == "3d":
            axes.append(axis_taps(axis_u(s[2], desc.D4, oz), desc.D4, modes[2], bilinear))
        layer = 0
        if dim == "1d_array":
            layer = layer_index(s[1], desc.L_eff)
        if dim == "2d_array":
            layer = layer_index(s[2], desc.L_eff)
        taps_of[lane] = combine(axes, dim, layer, desc, ins["toff"])
    accesses = [(lane, a) for lane in active for a, _ in taps_of[lane]]
    t = check_texels(st, accesses, desc.B)
    if t:
        return t  # each lane names its first offending texel, in tap order
    chans = dmask_channels(ins["dmask"])
    for lane in active:
        texels = [(components(read_texel(st, a, desc.B), fmt), w) for a, w in taps_of[lane]]
        if bilinear:
            comps = [filtered(texels, ch, fmt) for ch in range(4)]
        else:
            comps = texels[0][0]
        out = [comps[ch] for ch in chans]
        if ins["d16"]:
            out = [to_d16(c, fmt, ch) for c, ch in zip(out, chans)]
        write_data(st, ins, lane, out)
    return None


def combine(axes, dim, layer, desc, toff):
    """The (address, weight) of every tap combination k (bit 0 the x tap, bit 1 y, bit 2 z), k ascending."""
    out = []
    n = len(axes)
    for k in range(1 << (n if len(axes[0]) == 2 else 0)):
        idx = []
        w = Fraction(1)
        for ax in range(n):
            i, wi = axes[ax][k >> ax & 1] if len(axes[ax]) == 2 else axes[ax][0]
            idx.append(i)
            w *= wi
        x = idx[0]
        y = idx[1] if n > 1 else 0
        z = idx[2] if n > 2 else layer
        out.append((desc.addr(x, y, z, toff), w))
    return out


def filtered(texels, ch, fmt):
    """One bilinear component: the fixed ones a format lacks unfiltered, else the f64 sum rounded to f32."""
    if fmt == "r32f" and ch > 0:
        return texels[0][0][ch]
    acc = None
    for comps, w in texels:
        if w == 0:
            continue
        term = float(w) * f32_float(comps[ch])  # exact: 24-bit weight times 24-bit significand
        acc = term if acc is None else acc + term
    return f64_to_f32_bits(acc)
