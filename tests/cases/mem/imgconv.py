"""Conversion cases for gen_image.py: unorm8 both ways over every byte, f16 -> f32 over all 65,536 inputs,
f32 -> f16 at its rounding, overflow and denormal edges (as a store to rgba16f and as a d16 load)."""
import math
import struct
from fractions import Fraction

import imgmodel as m
from imgcases import BASE, RS3, desc_words, f32_bits, new_state, put_desc
from imgemit import case

L = m.L


def next_f32(b, up):
    """The f32 after (up) or before a positive finite f32."""
    return b + 1 if up else b - 1


def rows_program(op, first_rd, rows, regs_per_row, **flags):
    """`rows` image accesses of row y = 0, 1, ... (x = lane in v2, y in v3, bumped after each access)."""
    prog = []
    for k in range(rows):
        ins = {"op": op, "rd": first_rd + regs_per_row * k, "rs1": 2, "rs3": RS3, "dim": "2d", "dmask": 15}
        ins.update(flags)
        prog += [ins, {"op": "vaddi", "rd": 3, "rs1": 3, "imm": 1}]
    return prog


def xy_state(width_bytes_image, words):
    st = new_state(0xFFFFFFFF)
    st["v"][2] = list(range(L))
    st["v"][3] = [0] * L
    st["mem"].append((BASE, bytearray(words)))
    return st


def unorm8_load():
    st = xy_state(0, bytes(range(256)))
    put_desc(st, desc_words(BASE, 64, 1, 1, 256, "rgba8"))
    prog = [{"op": "load", "rd": 20, "rs1": 2, "rs3": RS3, "dim": "2d", "dmask": 15},
            {"op": "load", "rd": 30, "rs1": 2, "rs3": RS3, "dim": "2d", "dmask": 15, "d16": 1},
            {"op": "vaddi", "rd": 2, "rs1": 2, "imm": 32},
            {"op": "load", "rd": 24, "rs1": 2, "rs3": RS3, "dim": "2d", "dmask": 15},
            {"op": "load", "rd": 32, "rs1": 2, "rs3": RS3, "dim": "2d", "dmask": 15, "d16": 1}]
    return case("rgba8 -> f32 (and f16 with d16) for all 256 bytes", prog, st)


def unorm8_values():
    """1024 f32 values: every c/255, every midpoint (c + 1/2)/255 rounded to f32 and its two neighbours, and
    the clamped ends."""
    out = [m.unorm8_to_f32(c) for c in range(256)]
    for c in range(255):
        mid = m.round_bits(Fraction(2 * c + 1, 510), m.F32)
        out += [mid, next_f32(mid, False), next_f32(mid, True)]
    out += [m.F32_NAN, 0xBF800000, 0x7F800000]
    return out


def unorm8_store():
    vals = unorm8_values()
    st = xy_state(0, bytes(1024))
    put_desc(st, desc_words(BASE, 32, 8, 1, 128, "rgba8"))
    for row in range(8):
        for c in range(4):
            st["v"][20 + 4 * row + c] = [vals[(row * L + lane) * 4 + c] for lane in range(L)]
    return case("f32 -> rgba8 for every c/255, every midpoint and its neighbours", rows_program("store", 20, 8, 4),
                st)


def f16_edge_values():
    """1024 f32 values around f16's rounding points, its overflow threshold and its denormals."""
    out = []
    hs = list(range(0, 0x20)) + list(range(0x3FF - 8, 0x408)) + list(range(0x3BF0, 0x3C10)) + \
        list(range(0x7BE0, 0x7C00)) + [(h * 0x9E37) % 0x7C00 for h in range(1, 90)]
    for h in hs:
        lo = m.round_bits(m.decode(h, m.F16)[1], m.F32)
        out.append(lo)
        if h < 0x7BFF:
            hi = m.decode(h + 1, m.F16)[1]
            mid = m.round_bits((m.decode(h, m.F16)[1] + hi) / 2, m.F32)  # an exact tie in f32
            out += [mid, mid + 1, mid - 1 if mid else 0]
        if len(out) >= 960:
            break
    out += [f32_bits(65504.0), f32_bits(65519.0), m.round_bits(Fraction(65520), m.F32) - 1,
            m.round_bits(Fraction(65520), m.F32), f32_bits(1e10), 0x7F7FFFFF, 0x7F800000, 0xFF800000,
            0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0x80000000, 0x00000001, 0x00800000,
            m.round_bits(Fraction(1, 2 ** 25), m.F32), m.round_bits(Fraction(1, 2 ** 25), m.F32) + 1,
            m.round_bits(Fraction(3, 2 ** 25), m.F32)]
    neg = [x | 0x80000000 for x in out[:1024 - len(out)]]
    out += neg
    return (out + [0] * 1024)[:1024]


def f16_edge_cases():
    vals = f16_edge_values()
    st = xy_state(0, bytes(8 * 1024))
    put_desc(st, desc_words(BASE, 32, 8, 1, 256, "rgba16f"))
    for row in range(8):
        for c in range(4):
            st["v"][20 + 4 * row + c] = [vals[(row * L + lane) * 4 + c] for lane in range(L)]
    store = case("f32 -> rgba16f at the f16 rounding, overflow and denormal edges", rows_program("store", 20, 8, 4),
                 st)
    st = xy_state(0, b"".join(struct.pack("<I", v) for v in vals))
    put_desc(st, desc_words(BASE, 32, 8, 1, 512, "rgba32f"))
    load = case("rgba32f read with d16: f32 -> f16 at the same edges", rows_program("load", 20, 8, 2, d16=1), st)
    return [store, load]


def conv_cases():
    return [unorm8_load(), unorm8_store()] + f16_edge_cases()


def f16_cases():
    """Two files of cases that read every f16 bit pattern from rgba16f images (31 rows of 32 texels a case)."""
    per_case = 31 * L * 4
    cases = []
    for start in range(0, 1 << 16, per_case):
        halves = list(range(start, min(start + per_case, 1 << 16)))
        rows = math.ceil(len(halves) / (L * 4))
        halves += [0] * (rows * L * 4 - len(halves))
        st = xy_state(0, b"".join(struct.pack("<H", h) for h in halves))
        put_desc(st, desc_words(BASE, 32, rows, 1, 256, "rgba16f"))
        cases.append(case("rgba16f -> f32 for f16 %#06x..%#06x" % (start, start + len(halves) - 1),
                          rows_program("load", 4, rows, 4), st))
    half = (len(cases) + 1) // 2
    return [cases[:half], cases[half:]]
