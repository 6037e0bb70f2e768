//! `img.load` and `img.store` of 2d images in r32ui, r32f, rgba8 and rgba32f, inline in optimised code under a
//! full or partial EXEC (plain forms: no d16, a16, voff or rsd). Compiled code checks the descriptor (sizes,
//! format), computes each active lane's texel address T = base + toff + y*P + x*B, and checks every in-range
//! lane's texel against the instruction's cached window (one unsigned compare per lane, plus alignment);
//! then loads (one 4- or four 4-byte host reads per lane, converted as the format says) or stores lane by lane,
//! ascending. Anything else — another dim, format or form, a check that fails, a window not cached yet — calls
//! the runtime, which has the interpreter execute the instruction (it reports any trap) and caches the image's
//! region for the next time.

use super::window_fields;
use crate::fx::{Fx, Vec32, VECS};
use crate::lower::{Lowered, Site};
use cranelift_codegen::ir::{condcodes::FloatCC, condcodes::IntCC, types::*, InstBuilder, MemFlagsData, Value};
use lanejit_interp::image::{ImageFormat, IMAGE_MAX_SIZE};
use lanejit_interp::mem::ImgOp;
use lanejit_isa::{
    Dim, UReg, VReg, IMAGE_DESCRIPTOR_WORDS, IMAGE_WORD_BASE_HI, IMAGE_WORD_BASE_LO, IMAGE_WORD_FORMAT,
    IMAGE_WORD_HEIGHT, IMAGE_WORD_PITCH, IMAGE_WORD_WIDTH, LANES,
};

/// The largest texel (rgba32f): the runtime caches a window whose span leaves this many bytes.
pub const MAX_TEXEL_BYTES: u64 = 16;

/// Does this function lower `op` inline? Optimised code (the per-lane code is long), a plain 2d form, and every
/// register it names in variables.
pub fn supports(fx: &Fx, op: &ImgOp) -> bool {
    let plain = op.dim == Dim::D2d && !op.d16 && !op.a16 && !op.voff && !op.rsd;
    let data = op.rd.idx()..op.rd.idx() + op.data_regs();
    let regs = data.chain(op.rs1.idx()..op.rs1.idx() + 2).all(|r| r < lanejit_isa::VREGS && fx.has_v(r));
    let desc = (op.rs3.idx()..op.rs3.idx() + IMAGE_DESCRIPTOR_WORDS).all(|r| r < lanejit_isa::UREGS && fx.has_u(r));
    fx.tier() == crate::abi::Tier::Opt && plain && regs && desc
}

/// The descriptor and window values every lane's code uses.
struct Image {
    /// base + toff (i64).
    start: Value,
    width: Value,
    height: Value,
    /// Row pitch (i64).
    pitch: Value,
    /// Format code (i32).
    format: Value,
    /// log2 of the texel size (i64): 2, or 4 for rgba32f.
    shift: Value,
    /// Texel size - 1 (i64), the alignment mask.
    align: Value,
    /// The window: guest lo, largest admitted T - lo for this texel size, host address of lo.
    lo: Value,
    limit: Value,
    host: Value,
}

/// Per lane: does it access a texel (active and in range), its host address (the window's start when it does
/// not, a readable address), and whether its check passed.
struct Lane {
    access: Value,
    in_range: Value,
    host: Value,
}

pub fn lower(fx: &mut Fx, site: &Site, op: &ImgOp, store: bool) -> Lowered {
    fx.note_lowering(site.pc, crate::abi::Lowering::Native);
    let slot = fx.window_slot(site.pc);
    debug_assert_ne!(slot, crate::abi::NO_SLOT, "every image load and store has a window slot");
    let (slow, join) = (fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(slow);
    let img = image(fx, op, slot);
    let exec = fx.exec_val();
    let (lanes, ok) = check_lanes(fx, op, &img, exec);
    let desc_ok = descriptor_ok(fx, &img);
    let entry = fx.dirty();
    let ok = fx.b.ins().band(ok, desc_ok);
    let (wide, narrow) = (fx.b.create_block(), fx.b.create_block());
    let checked = fx.b.create_block();
    fx.b.ins().brif(ok, checked, &[], slow, &[]);
    fx.b.switch_to_block(checked);
    let is_wide = fx.b.ins().icmp_imm_u(IntCC::Equal, img.format, ImageFormat::Rgba32f.code() as i64);
    fx.b.ins().brif(is_wide, wide, &[], narrow, &[]);
    for (block, wide) in [(narrow, false), (wide, true)] {
        fx.b.switch_to_block(block);
        if store {
            store_lanes(fx, op, &img, &lanes, wide);
        } else {
            load_lanes(fx, op, &img, &lanes, wide);
        }
        fx.b.ins().jump(join, &[]);
    }
    let writes = if store { Vec::new() } else { (op.rd.idx()..op.rd.idx() + op.data_regs()).collect() };
    fx.runtime_arm((slow, join), entry, (site.pc, site.index), (writes, Vec::new()));
    Lowered::Native
}

/// Reads the descriptor words and the cached window.
fn image(fx: &mut Fx, op: &ImgOp, slot: u32) -> Image {
    let word = |fx: &mut Fx, k: usize| fx.u(UReg(op.rs3.0 + k as u8));
    let lo32 = word(fx, IMAGE_WORD_BASE_LO);
    let hi32 = word(fx, IMAGE_WORD_BASE_HI);
    let lo64 = fx.b.ins().uextend(I64, lo32);
    let hi64 = fx.b.ins().uextend(I64, hi32);
    let hi64 = fx.b.ins().ishl_imm_u(hi64, 32);
    let base = fx.b.ins().bor(lo64, hi64);
    let start = fx.b.ins().iadd_imm_s(base, op.toff as i64);
    let (width, height) = (word(fx, IMAGE_WORD_WIDTH), word(fx, IMAGE_WORD_HEIGHT));
    let pitch32 = word(fx, IMAGE_WORD_PITCH);
    let pitch = fx.b.ins().uextend(I64, pitch32);
    let format = word(fx, IMAGE_WORD_FORMAT);
    let is_wide = fx.b.ins().icmp_imm_u(IntCC::Equal, format, ImageFormat::Rgba32f.code() as i64);
    let (four, sixteen) = (fx.b.ins().iconst(I64, 2), fx.b.ins().iconst(I64, 4));
    let shift = fx.b.ins().select(is_wide, sixteen, four);
    let (m4, m16) = (fx.b.ins().iconst(I64, 3), fx.b.ins().iconst(I64, 15));
    let texel_mask = fx.b.ins().select(is_wide, m16, m4);
    // Mutant 150: the texel alignment is not tested (a misaligned texel is accessed instead of trapping).
    let align = if crate::mutants::active(150) { fx.b.ins().iconst(I64, 0) } else { texel_mask };
    let (lo, span, host) = window_fields(fx, slot);
    // The window's span leaves MAX_TEXEL_BYTES; a texel of B bytes may start up to 16 - B further:
    // limit = span - (B - 16) = span - (texel_mask - 15).
    let extra = fx.b.ins().iadd_imm_s(texel_mask, 1 - MAX_TEXEL_BYTES as i64);
    let limit = fx.b.ins().isub(span, extra);
    Image { start, width, height, pitch, format, shift, align, lo, limit, host }
}

/// The descriptor is usable inline: W and H in 1..=IMAGE_MAX_SIZE, a format this path handles, a filled window.
fn descriptor_ok(fx: &mut Fx, img: &Image) -> Value {
    let size_ok = |fx: &mut Fx, s: Value| {
        let less = fx.b.ins().iadd_imm_s(s, -1);
        fx.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, less, IMAGE_MAX_SIZE as i64)
    };
    let (w_ok, h_ok) = (size_ok(fx, img.width), size_ok(fx, img.height));
    let mut ok = fx.b.ins().band(w_ok, h_ok);
    // r32ui, r32f and rgba8 are codes 0..=2 here; rgba32f is tested on its own.
    let narrow = fx.b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, img.format, ImageFormat::Rgba8.code() as i64);
    let wide = fx.b.ins().icmp_imm_u(IntCC::Equal, img.format, ImageFormat::Rgba32f.code() as i64);
    let handled = fx.b.ins().bor(narrow, wide);
    ok = fx.b.ins().band(ok, handled);
    let filled = fx.b.ins().icmp_imm_u(IntCC::NotEqual, img.host, 0);
    fx.b.ins().band(ok, filled)
}

const _: () =
    assert!(ImageFormat::R32ui.code() == 0 && ImageFormat::R32f.code() == 1 && ImageFormat::Rgba8.code() == 2);

/// Every lane's texel and check; returns the lanes and whether every active in-range lane passed.
fn check_lanes(fx: &mut Fx, op: &ImgOp, img: &Image, exec: Value) -> (Vec<Lane>, Value) {
    let xs = fx.v(op.rs1);
    let ys = fx.v(VReg(op.rs1.0 + 1));
    let mut all = fx.b.ins().iconst(I8, 1);
    let mut lanes = Vec::with_capacity(LANES);
    for l in 0..LANES {
        let x = fx.b.ins().extractlane(xs[l / 4], (l % 4) as u8);
        let y = fx.b.ins().extractlane(ys[l / 4], (l % 4) as u8);
        // Mutant 151: x is compared with W + 1 (a texel one past the row's end is accessed).
        let x_in = if crate::mutants::active(151) {
            fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, x, img.width)
        } else {
            fx.b.ins().icmp(IntCC::UnsignedLessThan, x, img.width)
        };
        let y_in = fx.b.ins().icmp(IntCC::UnsignedLessThan, y, img.height);
        let in_range = fx.b.ins().band(x_in, y_in);
        let bit = fx.b.ins().ushr_imm_s(exec, l as i64);
        let bit = fx.b.ins().band_imm_u(bit, 1);
        let active = fx.b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0);
        let access = fx.b.ins().band(active, in_range);
        let (x64, y64) = (fx.b.ins().uextend(I64, x), fx.b.ins().uextend(I64, y));
        let row = fx.b.ins().imul(y64, img.pitch);
        let col = fx.b.ins().ishl(x64, img.shift);
        let t = fx.b.ins().iadd(img.start, row);
        let t = fx.b.ins().iadd(t, col);
        let bits = fx.b.ins().band(t, img.align);
        let aligned = fx.b.ins().icmp_imm_u(IntCC::Equal, bits, 0);
        let rel = fx.b.ins().isub(t, img.lo);
        let inside = fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, rel, img.limit);
        let good = fx.b.ins().band(aligned, inside);
        // A lane that accesses nothing passes.
        let skip = fx.b.ins().bxor_imm_u(access, 1);
        let pass = fx.b.ins().bor(skip, good);
        all = fx.b.ins().band(all, pass);
        let at = fx.b.ins().iadd(img.host, rel);
        let host = fx.b.ins().select(access, at, img.host);
        lanes.push(Lane { access, in_range, host });
    }
    (lanes, all)
}

/// Checked: inside the window; never traps.
fn guest() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Loads every lane's texel words (0 where it accesses nothing), converts them, writes the enabled components.
fn load_lanes(fx: &mut Fx, op: &ImgOp, img: &Image, lanes: &[Lane], wide: bool) {
    let words = if wide { 4 } else { 1 };
    let zero = fx.b.ins().iconst(I32, 0);
    let mut texel: Vec<Vec32> = Vec::new();
    for j in 0..words {
        let vals: Vec<Value> = lanes
            .iter()
            .map(|lane| {
                let w = fx.b.ins().load(I32, guest(), lane.host, 4 * j);
                fx.b.ins().select(lane.access, w, zero)
            })
            .collect();
        texel.push(to_vec(fx, &vals));
    }
    let all_ones = minus_one(fx);
    let in_mask: Vec<Value> = lanes.iter().map(|l| fx.b.ins().select(l.in_range, all_ones, zero)).collect();
    let in_mask = to_vec(fx, &in_mask);
    let comps: [Vec32; 4] =
        if wide { [texel[0], texel[1], texel[2], texel[3]] } else { narrow_components(fx, img, texel[0], in_mask) };
    let mut k = 0u8;
    for (j, c) in comps.iter().enumerate() {
        if op.dmask >> j & 1 != 0 {
            fx.set_v(VReg(op.rd.0 + k), *c);
            k += 1;
        }
    }
}

fn minus_one(fx: &mut Fx) -> Value {
    fx.b.ins().iconst(I32, -1)
}

/// Builds a register value from its 32 lane values.
fn to_vec(fx: &mut Fx, vals: &[Value]) -> Vec32 {
    std::array::from_fn(|k| {
        let mut x = fx.const_vec([0; 4]);
        for i in 0..4 {
            x = fx.b.ins().insertlane(x, vals[4 * k + i], i as u8);
        }
        x
    })
}

/// The components of a 4-byte texel word `w` (0 out of range): r32ui (w, 0, 0, 1), r32f (w, 0.0, 0.0, 1.0),
/// rgba8 (byte j / 255 correctly rounded); out-of-range lanes get all zeros (`in_mask` is -1 where in range).
fn narrow_components(fx: &mut Fx, img: &Image, w: Vec32, in_mask: Vec32) -> [Vec32; 4] {
    let is_rgba8 = fx.b.ins().icmp_imm_u(IntCC::Equal, img.format, ImageFormat::Rgba8.code() as i64);
    let is_r32f = fx.b.ins().icmp_imm_u(IntCC::Equal, img.format, ImageFormat::R32f.code() as i64);
    let one_int = fx.b.ins().iconst(I32, 1);
    let one_float = fx.b.ins().iconst(I32, 1.0f32.to_bits() as i64);
    let alpha = fx.b.ins().select(is_r32f, one_float, one_int);
    let alpha = fx.b.ins().splat(I32X4, alpha);
    let zero = fx.const_vec([0; 4]);
    let r32 = [w, [zero; VECS], [zero; VECS], std::array::from_fn(|k| fx.b.ins().band(in_mask[k], alpha))];
    let rgba8: [Vec32; 4] = std::array::from_fn(|j| std::array::from_fn(|k| unorm8(fx, w[k], j)));
    std::array::from_fn(|j| std::array::from_fn(|k| fx.b.ins().select(is_rgba8, rgba8[j][k], r32[j][k])))
}

/// Byte `j` of each lane / 255 as f32 bits: an exact int → float conversion and one IEEE division.
fn unorm8(fx: &mut Fx, w: Value, j: usize) -> Value {
    let byte = fx.b.ins().ushr_imm_s(w, 8 * j as i64);
    let mask = fx.const_vec([0xff; 4]);
    let byte = fx.b.ins().band(byte, mask);
    let f = fx.b.ins().fcvt_from_sint(F32X4, byte);
    // Mutant 152: multiplied by 1/255 instead of divided by 255 (off by an ulp for some bytes).
    let q = if crate::mutants::active(152) {
        let inv = fx.b.ins().f32const(1.0 / 255.0);
        let inv = fx.b.ins().splat(F32X4, inv);
        fx.b.ins().fmul(f, inv)
    } else {
        let d = fx.b.ins().f32const(255.0);
        let d = fx.b.ins().splat(F32X4, d);
        fx.b.ins().fdiv(f, d)
    };
    fx.b.ins().bitcast(I32X4, MemFlagsData::new(), q)
}

/// Stores lane by lane, ascending (the highest lane wins a shared texel): the enabled components the format has.
fn store_lanes(fx: &mut Fx, op: &ImgOp, img: &Image, lanes: &[Lane], wide: bool) {
    let data: Vec<(u32, Vec32)> = {
        let enabled: Vec<u32> = (0..4).filter(|j| op.dmask >> j & 1 != 0).collect();
        enabled.iter().enumerate().map(|(k, &j)| (j, fx.v(VReg(op.rd.0 + k as u8)))).collect()
    };
    let is_rgba8 = fx.b.ins().icmp_imm_u(IntCC::Equal, img.format, ImageFormat::Rgba8.code() as i64);
    let order: Vec<usize> =
        // Mutant 153: lanes stored in descending order (the lowest lane wins a shared texel).
        if crate::mutants::active(153) { (0..LANES).rev().collect() } else { (0..LANES).collect() };
    for l in order {
        let (go, next) = (fx.b.create_block(), fx.b.create_block());
        fx.b.ins().brif(lanes[l].access, go, &[], next, &[]);
        fx.b.switch_to_block(go);
        for &(j, reg) in &data {
            let v = fx.b.ins().extractlane(reg[l / 4], (l % 4) as u8);
            if wide {
                fx.b.ins().store(guest(), v, lanes[l].host, 4 * j as i32);
            } else {
                store_narrow(fx, v, lanes[l].host, j, is_rgba8);
            }
        }
        fx.b.ins().jump(next, &[]);
        fx.b.switch_to_block(next);
    }
}

/// One component of a 4-byte texel: rgba8 stores byte j = round-half-even(clamp(v, 0, 1) * 255) (exact in
/// f64; NaN 0); r32ui and r32f store r's 32 bits and ignore g, b, a.
fn store_narrow(fx: &mut Fx, v: Value, host: Value, j: u32, is_rgba8: Value) {
    let (byte_block, word_block, done) = (fx.b.create_block(), fx.b.create_block(), fx.b.create_block());
    fx.b.ins().brif(is_rgba8, byte_block, &[], word_block, &[]);
    fx.b.switch_to_block(byte_block);
    let byte = unorm8_of(fx, v);
    fx.b.ins().istore8(guest(), byte, host, j as i32);
    fx.b.ins().jump(done, &[]);
    fx.b.switch_to_block(word_block);
    if j == 0 {
        fx.b.ins().store(guest(), v, host, 0);
    }
    fx.b.ins().jump(done, &[]);
    fx.b.switch_to_block(done);
}

/// f32 bits → unorm8: v*255 is exact in f64, rounded half-even; the saturating conversion maps NaN and
/// negatives to 0, and the minimum with 255 clamps the rest.
fn unorm8_of(fx: &mut Fx, v: Value) -> Value {
    let f = fx.b.ins().bitcast(F32, MemFlagsData::new(), v);
    let d = fx.b.ins().fpromote(F64, f);
    let k = fx.b.ins().f64const(255.0);
    let scaled = fx.b.ins().fmul(d, k);
    let rounded = fx.b.ins().nearest(scaled);
    let n = fx.b.ins().fcvt_to_uint_sat(I32, rounded);
    let max = fx.b.ins().iconst(I32, 255);
    let byte = fx.b.ins().umin(n, max);
    // (NaN: fcvt_to_uint_sat gives 0 already; kept explicit for readers.)
    let nan = fx.b.ins().fcmp(FloatCC::Unordered, f, f);
    let zero = fx.b.ins().iconst(I32, 0);
    fx.b.ins().select(nan, zero, byte)
}
