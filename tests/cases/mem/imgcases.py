"""Case builders for gen_image.py: the dim x format x flag product of each image instruction, and the traps."""
import random
import struct
from fractions import Fraction

import imgmodel as m
from imgemit import case

L = m.L
rng = random.Random(1414)
BASE = 0x100000000
EXECS = [0xFFFFFFFF, 0x0F0F00FF, 0xA5A5C3E1, 0x80000001, 0x7FFFFFFE]
RS3 = 8


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def desc_words(base, W, H, D4, P, fmt, sampler=0):
    return [base & m.M32, base >> 32, W, H, D4, P, fmt if isinstance(fmt, int) else m.FORMATS.index(fmt), sampler]


def put_desc(st, words, rs3=RS3):
    for i, w in enumerate(words):
        st["u"][rs3 + i] = w


def rand_f16():
    r = rng.random()
    if r < 0.04:
        return rng.choice([0x7E00, 0x7C01, 0xFC00, 0x7C00, 0x8000, 0x0001, 0x03FF, 0x7BFF])
    x = rng.uniform(-2, 2)
    return m.round_bits(Fraction(x), m.F16)


def rand_f32():
    r = rng.random()
    if r < 0.04:
        return rng.choice([0x7FC00000, 0x7F800001, 0xFF800000, 0x7F800000, 0x80000000, 0x00000001, 0x7F7FFFFF])
    return f32_bits(rng.uniform(-2, 2))


def texel_bytes(fmt):
    if fmt == "r32ui":
        return rng.getrandbits(32).to_bytes(4, "little")
    if fmt == "r32f":
        return rand_f32().to_bytes(4, "little")
    if fmt == "rgba8":
        return bytes(rng.getrandbits(8) for _ in range(4))
    if fmt == "rgba16f":
        return b"".join(rand_f16().to_bytes(2, "little") for _ in range(4))
    return b"".join(rand_f32().to_bytes(4, "little") for _ in range(4))


def make_image(st, dim, fmt, W, H, D4, toff, sampler=0, pad=0, alloc=0):
    """An image filled with random texels in its own allocation (pitch = row + pad texels), and its descriptor
    in u8..u15."""
    B = m.TEXEL_BYTES[fmt]
    P = (W + pad) * B
    d = m.Desc(desc_words(BASE, W, H, D4, P, fmt), dim)
    size = toff + (d.L_eff * d.H_eff) * P
    data = bytearray()
    while len(data) < size:
        data += texel_bytes(fmt)
    base = BASE + alloc * 0x10000
    st["mem"].append((base, bytearray(data[:size])))
    put_desc(st, desc_words(base, W, H, D4, P, fmt, sampler))
    return d


def new_state(exec_):
    return {"exec": exec_, "v": {}, "u": {}, "mem": []}


def sizes(dim):
    W = rng.randint(2, 5)
    H = rng.randint(2, 4) if dim in ("2d", "3d", "2d_array") else rng.choice([0, 1, 7])
    D4 = rng.randint(2, 3) if dim in ("3d", "1d_array", "2d_array") else rng.choice([0, 1, 9])
    return W, H, D4


def int_coord(n, a16):
    """An integer coordinate for an axis of n texels: mostly inside, else at or past the edge, or huge."""
    r = rng.random()
    if r < 0.7:
        v = rng.randrange(n)
    else:
        v = rng.choice([0, n - 1, n, n + 1, 0xFFFFFFFF, 0x80000000, 0xFFFF, 0x10000, rng.getrandbits(32)])
    return v & 0xFFFF if a16 else v


def voff_word(small=True):
    f = [rng.choice([0, 0, 1, -1, 2, -2]) if small else rng.randint(-32, 31) for _ in range(3)]
    junk = rng.getrandbits(32) & ~0x3F3F3F
    return junk | (f[0] & 63) | (f[1] & 63) << 8 | (f[2] & 63) << 16


def put_coords(st, ins, per_lane):
    """per_lane: [coordinate list per lane] (32-bit values or 16-bit with a16) into v[rs1..]."""
    nc = m.NC[ins["dim"]]
    for r in range(m.ncr(ins)):
        st["v"][ins["rs1"] + r] = [0] * L
    for lane, cs in enumerate(per_lane):
        for i in range(nc):
            if ins["a16"]:
                st["v"][ins["rs1"] + i // 2][lane] |= (cs[i] & 0xFFFF) << (16 * (i % 2))
            else:
                st["v"][ins["rs1"] + i][lane] = cs[i]
    if ins["a16"] and nc % 2:  # the unused high half of the last register holds junk the engines must ignore
        r = ins["rs1"] + nc // 2
        st["v"][r] = [x | rng.getrandbits(16) << 16 for x in st["v"][r]]
    if ins["voff"]:
        st["v"][ins["rs1"] + m.ncr(ins)] = [voff_word() for _ in range(L)]


def load_coords(dim, W, Hn, Ln, a16):
    axes = [W, Hn, Ln] if dim in ("3d", "2d_array") else ([W, Hn] if dim == "2d" else ([W, Ln] if dim == "1d_array" else [W]))
    return [[int_coord(n, a16) for n in axes] for _ in range(L)]


def old_regs(st, first, count):
    for r in range(first, first + count):
        st["v"][r] = [0xDD000000 | r << 8 | lane for lane in range(L)]


def product():
    """(index, dim, fmt, d16, a16, flag) over the whole product; flag is voff (load, store) or the filter."""
    i = 0
    for di, dim in enumerate(m.DIMS):
        for fi, fmt in enumerate(m.FORMATS):
            for d16 in (0, 1):
                for a16 in (0, 1):
                    for flag in (0, 1):
                        yield i, di, dim, fi, fmt, d16, a16, flag
                        i += 1


def load_cases():
    out = []
    for i, di, dim, fi, fmt, d16, a16, voff in product():
        rsd = (di + fi + d16 + a16 + voff) % 2
        toff = m.TEXEL_BYTES[fmt] * ((di + 2 * fi + d16 + a16) % 3)
        exec_ = EXECS[i % len(EXECS)] if i % 23 else 0
        st = new_state(exec_)
        W, H, D4 = sizes(dim)
        d = make_image(st, dim, fmt, W, H, D4, toff)
        ins = {"op": "load", "rd": 20, "rs1": 2, "rs3": RS3, "dim": dim, "toff": toff, "dmask": i % 15 + 1,
               "d16": d16, "a16": a16, "rsd": rsd, "voff": voff}
        put_coords(st, ins, load_coords(dim, W, d.H_eff, d.L_eff, a16))
        old_regs(st, 20, 5)
        name = "img.load %s %s d16=%d a16=%d voff=%d rsd=%d toff=%d exec=%#x" % (
            dim, fmt, d16, a16, voff, rsd, toff, exec_)
        out.append(case(name, [ins], st))
    return out


def store_data(fmt, d16):
    """A data component for a store: values that exercise the format's conversion."""
    if fmt == "r32ui":
        return rng.getrandbits(16 if d16 else 32)
    if d16:
        return rand_f16()
    if fmt == "rgba8" and rng.random() < 0.5:
        c = rng.randrange(256)
        return f32_bits((c + rng.choice([0, 0.5, 0.49, 0.51])) / 255)
    return rand_f32()


def store_cases():
    out = []
    for i, di, dim, fi, fmt, d16, a16, voff in product():
        toff = m.TEXEL_BYTES[fmt] * ((di + 2 * fi + d16 + a16) % 3)
        exec_ = EXECS[i % len(EXECS)] if i % 23 else 0
        st = new_state(exec_)
        W, H, D4 = sizes(dim)
        d = make_image(st, dim, fmt, W, H, D4, toff)
        dmask = (i * 7) % 15 + 1
        ins = {"op": "store", "rd": 20, "rs1": 2, "rs3": RS3, "dim": dim, "toff": toff, "dmask": dmask,
               "d16": d16, "a16": a16, "voff": voff}
        put_coords(st, ins, load_coords(dim, W, d.H_eff, d.L_eff, a16))
        n = bin(dmask).count("1")
        for r in range(m.data_regs(ins)):
            st["v"][20 + r] = [0] * L
        for lane in range(L):
            for j in range(n):
                v = store_data(fmt, d16)
                if d16:
                    st["v"][20 + j // 2][lane] |= v << (16 * (j % 2))
                else:
                    st["v"][20 + j][lane] = v
            if d16 and n % 2:
                st["v"][20 + n // 2][lane] |= rng.getrandbits(16) << 16  # ignored upper half
        name = "img.store %s %s d16=%d a16=%d voff=%d toff=%d dmask=%d exec=%#x" % (
            dim, fmt, d16, a16, voff, toff, dmask, exec_)
        out.append(case(name, [ins], st))
    out += store_same_texel()
    return out


def store_same_texel():
    """Every lane stores to one of two texels: the highest lane of each wins."""
    out = []
    for fmt in ("r32ui", "rgba8"):
        st = new_state(0xFFFFFFFF)
        make_image(st, "2d", fmt, 4, 2, 0, 0)
        ins = {"op": "store", "rd": 20, "rs1": 2, "rs3": RS3, "dim": "2d", "dmask": 15}
        st["v"][2] = [lane % 2 for lane in range(L)]
        st["v"][3] = [1] * L
        for r in range(4):
            st["v"][20 + r] = [f32_bits(lane / 31) if fmt == "rgba8" else lane * 0x1111 for lane in range(L)]
        out.append(case("img.store %s: lanes sharing a texel, the highest lane wins" % fmt, [ins], st))
    return out


def sample_value(n, a16):
    """A normalised coordinate (f32 bits, or f16 bits with a16) for an axis of n texels."""
    r = rng.random()
    if r < 0.45:
        x = rng.uniform(-0.3, 1.3)
    elif r < 0.75:
        x = rng.choice([rng.randrange(-1, n + 2) + 0.5, rng.randrange(-1, n + 2)]) / n
    else:
        x = rng.choice([0.0, -0.0, 1.0, float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 1e-45, 2.0,
                        -1.0, 0.5 / n, 1 - 0.5 / n, 1e4])
    return to_bits(x, a16)


def to_bits(x, a16):
    if a16:
        if x != x:
            return 0x7E01
        if x in (float("inf"), -float("inf")) or abs(x) > 65504:
            return 0x7C00 if x > 0 else 0xFC00
        return m.round_bits(Fraction(x), m.F16, str(x).startswith("-"))
    return f32_bits(x)


def layer_value(n, a16):
    x = rng.choice([-1.0, 0.0, 0.5, 1.5, 2.5, 1.49, n + 3.0, float("nan"), float("inf"), -0.0, 1.0,
                    rng.uniform(-1, n + 1)])
    return to_bits(x, a16)


def sample_coords(dim, d, a16):
    out = []
    for _ in range(L):
        c = [sample_value(d.W, a16)]
        if dim in ("2d", "3d", "2d_array"):
            c.append(sample_value(d.H, a16))
        if dim == "3d":
            c.append(sample_value(d.D4, a16))
        if dim in ("1d_array", "2d_array"):
            c.append(layer_value(d.L_eff, a16))
        out.append(c)
    return out


def sample_cases(filt):
    out = []
    for i, di, dim, fi, fmt, d16, a16, voff in product():
        toff = m.TEXEL_BYTES[fmt] * ((di + fi + d16) % 3)
        modes = (i // 2 % 3, (i // 6 + fi) % 3, (i // 18 + di) % 3)
        sampler = filt | modes[0] << 1 | modes[1] << 3 | modes[2] << 5
        exec_ = EXECS[i % len(EXECS)] if i % 29 else 0
        st = new_state(exec_)
        W, H, D4 = sizes(dim)
        d = make_image(st, dim, fmt, W, H, D4, toff, sampler)
        ins = {"op": "sample", "rd": 20, "rs1": 2, "rs3": RS3, "dim": dim, "toff": toff, "dmask": (i * 11) % 15 + 1,
               "d16": d16, "a16": a16, "voff": voff}
        put_coords(st, ins, sample_coords(dim, d, a16))
        old_regs(st, 20, 4)
        name = "img.sample %s %s filter=%d modes=%s d16=%d a16=%d voff=%d toff=%d exec=%#x" % (
            dim, fmt, filt, "".join(map(str, modes)), d16, a16, voff, toff, exec_)
        out.append(case(name, [ins], st))
    return out + (sample_edge_cases() if filt else [])


def sample_edge_cases():
    """Two readings the text settles: s*N + o rounds in f64 (a tiny negative s with o = 1 lands on texel 1, not
    0), and the bilinear sum starts from its first kept term (four -0.0 texels give -0.0, not +0.0)."""
    st = new_state(0xFFFFFFFF)
    st["mem"].append((BASE, bytearray(struct.pack("<4I", 10, 11, 12, 13))))
    put_desc(st, desc_words(BASE, 4, 1, 1, 16, "r32ui"))
    st["v"][2] = [0x80000001] * L  # -2^-149
    st["v"][3] = [1] * L  # ox = 1
    out = [case("img.sample: s*N + o rounds in f64 (-2^-149 * 4 + 1 = 1.0, texel 1)",
                [simple("sample", "1d", dmask=1, voff=1)], st)]
    st = new_state(0x0000FFFF)
    st["mem"].append((BASE, bytearray(struct.pack("<4I", *[0x80000000] * 4))))
    put_desc(st, desc_words(BASE, 2, 2, 1, 8, "r32f", 1))
    st["v"][2] = [f32_bits(0.5)] * L
    st["v"][3] = [f32_bits(0.5)] * L
    out.append(case("img.sample bilinear of four -0.0 texels is -0.0 (the sum starts from its first term)",
                    [simple("sample", "2d", dmask=1)], st))
    return out


def query_cases():
    out = []
    for i, dim in enumerate(m.DIMS):
        for dmask in (15, 1, 2, 4, 8, 5, 10, 14):
            st = new_state(EXECS[(i + dmask) % len(EXECS)])
            put_desc(st, desc_words(0x5000, rng.randint(1, 16384), rng.randint(1, 16384), rng.randint(1, 16384),
                                    rng.getrandbits(32), rng.randrange(5), rng.getrandbits(32)))
            ins = {"op": "query", "rd": 30, "rs3": RS3, "dim": dim, "dmask": dmask}
            old_regs(st, 30, 4)
            out.append(case("img.query %s dmask=%d" % (dim, dmask), [ins], st))
        for bad in ((0, 1, 1), (1, 0, 1), (1, 1, 0), (16385, 1, 1), (1, 16385, 1), (1, 1, 16385)):
            st = new_state(0x1)
            put_desc(st, desc_words(0, *bad, 16, 0))
            out.append(case("img.query %s sizes %s" % (dim, bad), [{"op": "query", "rd": 30, "rs3": RS3,
                                                                    "dim": dim, "dmask": 15}], st))
    st = new_state(0xFFFFFFFF)
    put_desc(st, desc_words(0, 4, 4, 4, 16, 5))
    out.append(case("img.query format code 5 is invalid", [{"op": "query", "rd": 30, "rs3": RS3, "dim": "2d",
                                                            "dmask": 1}], st))
    return out


def simple(op, dim="2d", **kw):
    ins = {"op": op, "rd": 20, "rs1": 2, "rs3": RS3, "dim": dim, "dmask": 15}
    ins.update(kw)
    return ins


def trap_cases():
    """Invalid descriptors, register groups at the top of the file, Misaligned and MemoryFault."""
    out = []
    for dim in m.DIMS:
        for op in ("load", "store", "sample"):
            for W, H, D4 in ((0, 2, 2), (2, 0, 2), (2, 2, 0), (16385, 2, 2), (2, 16385, 2), (2, 2, 16385),
                             (16384, 1, 1), (2, 0xFFFFFFFF, 2)):
                st = new_state(0x00000100)
                put_desc(st, desc_words(BASE, W, H, D4, 4 * W, "r32ui"))
                st["v"][2] = [0x7FFFFFFF] * L  # out of range for load/store: a valid descriptor reads nothing
                st["v"][3] = [0] * L
                st["v"][4] = [0] * L
                st["mem"].append((BASE, bytearray(16)))
                if op == "sample" and m.Desc(desc_words(BASE, W, H, D4, 4 * W, 0), dim).valid(True):
                    continue  # a valid sample would fetch texels this allocation does not hold
                out.append(case("img.%s %s sizes %d %d %d" % (op, dim, W, H, D4), [simple(op, dim)], st))
    for op, fmt, sampler in (("load", 5, 0), ("store", 0xFFFFFFFF, 0), ("sample", 0, 0x80), ("sample", 0, 6),
                             ("sample", 0, 0x18), ("sample", 0, 0x60), ("load", 0, 0xFFFFFFFF),
                             ("store", 0, 0x7F)):
        st = new_state(0xFFFFFFFF)
        put_desc(st, desc_words(BASE, 2, 2, 1, 8, fmt, sampler))
        st["mem"].append((BASE, bytearray(16)))
        st["v"][2] = [0] * L
        st["v"][3] = [0] * L
        out.append(case("img.%s format %#x sampler %#x" % (op, fmt, sampler), [simple(op, "1d")], st))
    for op in ("load", "store", "sample", "query"):
        st = new_state(0)
        put_desc(st, desc_words(0, 0, 0, 0, 0, 9, 0xFF))
        out.append(case("img.%s: EXEC = 0 with an invalid descriptor does nothing" % op,
                        [simple(op, "3d")] if op != "query" else [{"op": "query", "rd": 20, "rs3": RS3, "dim": "3d",
                                                                   "dmask": 15}], st))
    out += group_cases()
    out += fault_cases()
    return out


def group_cases():
    """Register groups that reach v127 are fine; one register past it is IllegalInsn, whatever EXEC."""
    out = []
    shapes = [  # (op, dim, rd, rs1, rs3, flags, dmask)
        ("load", "2d", 124, 2, 8, {}, 15), ("load", "2d", 125, 2, 8, {}, 15),
        ("load", "2d", 123, 2, 8, {"rsd": 1}, 15), ("load", "2d", 124, 2, 8, {"rsd": 1}, 15),
        ("load", "2d", 126, 2, 8, {"d16": 1}, 15), ("load", "2d", 127, 2, 8, {"d16": 1}, 7),
        ("load", "2d", 127, 2, 8, {"d16": 1, "rsd": 1}, 1), ("load", "3d", 20, 125, 8, {}, 1),
        ("load", "3d", 20, 126, 8, {}, 1), ("load", "3d", 20, 126, 8, {"a16": 1}, 1),
        ("load", "3d", 20, 127, 8, {"a16": 1}, 1), ("load", "3d", 20, 125, 8, {"a16": 1, "voff": 1}, 1),
        ("load", "3d", 20, 126, 8, {"a16": 1, "voff": 1}, 1), ("load", "2d", 20, 2, 56, {}, 1),
        ("load", "2d", 20, 2, 58, {}, 1), ("store", "2d", 125, 2, 8, {}, 7), ("store", "2d", 126, 2, 8, {}, 7),
        ("store", "1d_array", 20, 127, 8, {}, 1), ("store", "1d_array", 20, 127, 8, {"a16": 1}, 1),
        ("store", "2d", 20, 2, 62, {}, 1), ("sample", "2d", 124, 2, 8, {}, 15), ("sample", "2d", 125, 2, 8, {}, 15),
        ("sample", "2d_array", 20, 125, 8, {}, 1), ("sample", "2d_array", 20, 125, 8, {"voff": 1}, 1),
        ("sample", "2d", 20, 2, 60, {}, 1), ("query", "2d", 125, 0, 8, {}, 7), ("query", "2d", 125, 0, 8, {}, 15),
        ("query", "1d", 20, 0, 58, {}, 1),
    ]
    for k, (op, dim, rd, rs1, rs3, flags, dmask) in enumerate(shapes):
        for exec_ in (0xFFFFFFFF, 0):
            st = new_state(exec_)
            # a valid 1x1x1 r32f image whose texel every lane reads (coordinates 0, offsets 0)
            st["mem"].append((BASE, bytearray(struct.pack("<f", 0.75))))
            st["u"].update({rs3 + i: w for i, w in enumerate(desc_words(BASE, 1, 1, 1, 4, "r32f"))
                            if rs3 + i < 64})
            ins = {"op": op, "rd": rd, "rs1": rs1, "rs3": rs3, "dim": dim, "dmask": dmask}
            ins.update(flags)
            if op != "query":
                for r in range(rs1, min(rs1 + 4, 128)):
                    st["v"][r] = [0] * L
            name = "img.%s v%d, v%d, u%d %s %s dmask=%d exec=%#x" % (op, rd, rs1, rs3, dim, sorted(flags), dmask,
                                                                       exec_)
            out.append(case(name.replace("'", ""), [ins], st))
    return out


def fault_cases():
    """Misaligned texels, texels outside every allocation, inactive lanes that would fault."""
    out = []
    # rgba16f (B = 8) at a base 4 bytes into its allocation: every texel misaligned
    st = new_state(0x0000FFFF)
    st["mem"].append((BASE, bytearray(range(256)) * 2))
    put_desc(st, desc_words(BASE + 4, 8, 4, 1, 64, "rgba16f"))
    st["v"][2] = [lane % 8 for lane in range(L)]
    st["v"][3] = [lane // 8 for lane in range(L)]
    out.append(case("img.load rgba16f base misaligned: Misaligned lists the active lanes", [simple("load")], st))
    # toff = 4 misaligns rgba32f, and a pitch that is not a multiple of B misaligns odd rows only
    st = new_state(0xFFFFFFFF)
    st["mem"].append((BASE, bytearray(1024)))
    put_desc(st, desc_words(BASE, 4, 4, 1, 72, "rgba32f"))
    st["v"][2] = [lane % 4 for lane in range(L)]
    st["v"][3] = [lane // 4 for lane in range(L)]
    st["v"][20], st["v"][21], st["v"][22], st["v"][23] = ([f32_bits(lane + k) for lane in range(L)] for k in range(4))
    out.append(case("img.store rgba32f pitch 72: rows 1 and 3 misaligned, lanes past H write nothing",
                    [simple("store")], st))
    out.append(case("img.load rgba32f toff=4 is Misaligned", [simple("load", toff=4)], dict(st)))
    # an image taller than its allocation: the lanes on the missing row fault (MemoryFault, their addresses)
    for op in ("load", "store"):
        st = new_state(0xFFFFFFFF)
        st["mem"].append((BASE, bytearray(range(48))))
        put_desc(st, desc_words(BASE, 4, 4, 1, 16, "rgba8"))
        st["v"][2] = [lane % 4 for lane in range(L)]
        st["v"][3] = [lane // 4 for lane in range(L)]
        st["v"][20] = [f32_bits(0.5)] * L
        out.append(case("img.%s rgba8 past its allocation: MemoryFault on row 3, rows 4..7 out of range" % op,
                        [simple(op, dmask=1)], st))
        st2 = {"exec": 0x00000FFF, "v": st["v"], "u": st["u"], "mem": st["mem"]}
        out.append(case("img.%s rgba8: inactive lanes on the missing row do not fault" % op,
                        [simple(op, dmask=1)], st2))
    # bilinear: a tap of weight 0 outside the allocation is still checked
    for x in (0.25, 0.5):
        st = new_state(0x1)
        st["mem"].append((BASE, bytearray(struct.pack("<f", 2.0))))
        put_desc(st, desc_words(BASE, 2, 1, 1, 8, "r32f", 1))
        st["v"][2] = [f32_bits(x)] * L
        out.append(case("img.sample bilinear at x=%s: the tap of texel 1 (weight %s) is checked" % (
            x, "0" if x == 0.25 else "1"), [simple("sample", "1d", dmask=1)], st))
    # a base address near 2^64: the texel address wraps
    st = new_state(0x3)
    st["mem"].append((BASE, bytearray(64)))
    put_desc(st, desc_words((1 << 64) - 16, 8, 1, 1, 32, "r32ui"))
    st["v"][2] = [(BASE + 16) // 4] * L
    out.append(case("img.load: coordinates past W are out of range even when the address would wrap",
                    [simple("load", "1d", dmask=1, rsd=1)], st))
    return out
