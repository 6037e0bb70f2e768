//! Image ops (`T` format): `img.load`, `img.store`, `img.sample`, `img.query`, written from their YAML `en`
//! texts. Order of the checks, all before any effect: IllegalInsn for register groups (whatever EXEC); with
//! EXEC = 0 nothing else happens; MemoryFault for an invalid descriptor (naming the active lanes, no address);
//! then over every texel an active lane touches, Misaligned, then outside an allocation, each listing every
//! offending lane with its first offending address. Descriptor, address, conversion and filter functions are
//! the shared ones of [`crate::image`].

use super::{fault_kind, late_fault, pieces};
use crate::ctx::{Ctx, Flow};
use crate::image::{self, Descriptor, ImageComponent, ImageFormat, DESCRIPTOR_WORDS};
use crate::memory::MemFault;
use crate::state::{lane_on, Lanes, WaveState};
use crate::trap::{Trap, TrapKind};
use lanejit_isa::{Dim, Sp, UReg, VReg, LANES, UREGS, VREGS};

/// The operands of img.load, img.store and img.sample (store and sample have no rsd: false).
#[derive(Clone, Copy, Debug)]
pub struct ImgOp {
    /// First data register (destination, or the data of a store).
    pub rd: VReg,
    /// First coordinate register.
    pub rs1: VReg,
    /// First descriptor register.
    pub rs3: UReg,
    /// Dimensionality.
    pub dim: Dim,
    /// Tile offset in bytes.
    pub toff: u32,
    /// Enabled components (bit 0 r … bit 3 a).
    pub dmask: u8,
    /// 16-bit data.
    pub d16: bool,
    /// 16-bit coordinates.
    pub a16: bool,
    /// Status register after the data (img.load only).
    pub rsd: bool,
    /// Per-lane texel offsets after the coordinates.
    pub voff: bool,
}

impl ImgOp {
    /// Data registers nr: one per enabled component, or one per two with d16.
    pub fn data_regs(&self) -> usize {
        let n = self.dmask.count_ones() as usize;
        if self.d16 {
            n.div_ceil(2)
        } else {
            n
        }
    }

    /// Coordinate registers ncr (voff's register not counted).
    pub fn coord_regs(&self) -> usize {
        let nc = image::shape(self.dim).coords;
        if self.a16 {
            nc.div_ceil(2)
        } else {
            nc
        }
    }
}

/// The lanes of `mask`, ascending.
fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    (0..LANES).filter(move |&l| lane_on(mask, l))
}

/// IllegalInsn if the `count` registers from `first` run past `limit` (`v` or `u` names the file).
fn group_fits(cx: &Ctx, file: char, first: usize, count: usize, limit: usize) -> Result<(), Trap> {
    if first + count > limit {
        let last = first + count - 1;
        return Err(cx.illegal(format!("register group {file}{first}..{file}{last} runs past {file}{}", limit - 1)));
    }
    Ok(())
}

/// The register-group checks of a texel op (whatever EXEC): descriptor, coordinates (+ voff), data (+ rsd).
fn check_groups(cx: &Ctx, op: &ImgOp) -> Result<(), Trap> {
    group_fits(cx, 'u', op.rs3.idx(), DESCRIPTOR_WORDS, UREGS)?;
    group_fits(cx, 'v', op.rs1.idx(), op.coord_regs() + usize::from(op.voff), VREGS)?;
    group_fits(cx, 'v', op.rd.idx(), op.data_regs() + usize::from(op.rsd), VREGS)
}

/// The checked descriptor, or `None` when no lane is active (then the instruction has no effect).
fn descriptor(cx: &Ctx, rs3: UReg, dim: Dim, for_sample: bool) -> Result<Option<Descriptor>, Trap> {
    if cx.w.exec == 0 {
        return Ok(None);
    }
    let words: [u32; DESCRIPTOR_WORDS] = std::array::from_fn(|k| cx.w.u[rs3.idx() + k]);
    match Descriptor::from_words(&words, dim, for_sample) {
        Ok(d) => Ok(Some(d)),
        Err(e) => Err(cx.trap(TrapKind::MemoryFault, e.to_string()).with_lanes(cx.w.exec)),
    }
}

/// A lane's coordinates (unsigned integers, or f16 bits with a16) in the dim's order, and its voff offsets.
fn lane_coords(w: &WaveState, op: &ImgOp, lane: usize) -> ([u32; 3], [i32; 3]) {
    let nc = image::shape(op.dim).coords;
    let mut coords = [0u32; 3];
    for (i, c) in coords.iter_mut().enumerate().take(nc) {
        *c = match op.a16 {
            true => w.vn(op.rs1.idx() + i / 2)[lane] >> (16 * (i % 2)) & 0xffff,
            false => w.vn(op.rs1.idx() + i)[lane],
        };
    }
    let offs = match op.voff {
        true => image::voff_offsets(w.vn(op.rs1.idx() + op.coord_regs())[lane]),
        false => [0; 3],
    };
    (coords, offs)
}

/// The checks on every texel the active lanes touch (`texels[l]`, addresses in tap order), before any
/// effect: Misaligned, then outside an allocation (or read-only for a store).
fn check_texels(cx: &Ctx, texels: &[Vec<u64>], bytes: u32, write: bool) -> Result<(), Trap> {
    let misaligned = |l: usize| texels[l].iter().copied().find(|a| !a.is_multiple_of(bytes as u64));
    let bad: Vec<(usize, u64)> = lanes_of(cx.w.exec).filter_map(|l| misaligned(l).map(|a| (l, a))).collect();
    if !bad.is_empty() {
        return Err(texel_trap(cx, TrapKind::Misaligned, format!("texel not {bytes}-byte aligned"), &bad));
    }
    let fault_of = |l: usize, a: u64| {
        pieces(bytes).find_map(|(o, size)| cx.mem.check(Sp::Global, l, a.wrapping_add(o), size, write).err())
    };
    let mut first: Option<MemFault> = None;
    let mut bad = Vec::new();
    for l in lanes_of(cx.w.exec) {
        if let Some((a, f)) = texels[l].iter().find_map(|&a| fault_of(l, a).map(|f| (a, f))) {
            first.get_or_insert(f);
            bad.push((l, a));
        }
    }
    match first {
        None => Ok(()),
        Some(f) => Err(texel_trap(cx, fault_kind(f), format!("{bytes}-byte texel: {}", f.describe()), &bad)),
    }
}

fn texel_trap(cx: &Ctx, kind: TrapKind, detail: String, bad: &[(usize, u64)]) -> Trap {
    let lanes = bad.iter().fold(0u32, |m, (l, _)| m | 1 << l);
    cx.trap(kind, detail).with_lanes(lanes).with_addrs(bad.iter().map(|(_, a)| *a).collect())
}

/// The texel's bytes, read piece by piece (checked before).
fn read_texel(cx: &mut Ctx, lane: usize, addr: u64, bytes: u32) -> Result<[u8; 16], Trap> {
    let mut out = [0u8; 16];
    for (o, size) in pieces(bytes) {
        let a = addr.wrapping_add(o);
        let x = cx.mem.load(Sp::Global, lane, a, size).map_err(|f| late_fault(cx, f, 1 << lane, a))?;
        out[o as usize..(o + size as u64) as usize].copy_from_slice(&x.to_le_bytes()[..size as usize]);
    }
    Ok(out)
}

/// The data registers of a load or sample result: the enabled components in r g b a order, 32 bits each, or
/// with d16 two per register (floats narrowed to f16, r32ui keeping its low 16 bits; an odd last high half 0).
pub fn pack_components(format: ImageFormat, comps: [u32; 4], dmask: u8, d16: bool) -> Vec<u32> {
    let enabled = (0..4).filter(|j| dmask >> j & 1 != 0).map(|j| comps[j]);
    if !d16 {
        return enabled.collect();
    }
    let halves: Vec<u32> = match format.info().component {
        ImageComponent::U32 => enabled.map(|c| c & 0xffff).collect(),
        _ => enabled.map(|c| image::f32_to_f16_rne(c) as u32).collect(),
    };
    halves.chunks(2).map(|p| p[0] | p.get(1).map_or(0, |h| h << 16)).collect()
}

/// Writes per-lane register values `vals[l]` (nr each) from `rd` into the active lanes.
fn write_data(w: &mut WaveState, rd: VReg, vals: &[Vec<u32>], regs: usize) {
    for k in 0..regs {
        let lanes: Lanes = std::array::from_fn(|l| vals[l].get(k).copied().unwrap_or(0));
        w.write_v(VReg(rd.0 + k as u8), &lanes);
    }
}

/// img.load: per active lane, the texel's components (all 0 out of range), and the status with rsd.
pub(super) fn load(cx: &mut Ctx, op: ImgOp) -> Result<Flow, Trap> {
    check_groups(cx, &op)?;
    let Some(d) = descriptor(cx, op.rs3, op.dim, false)? else { return Ok(Flow::Next) };
    let mut texels: Vec<Option<[u32; 3]>> = vec![None; LANES];
    for l in lanes_of(cx.w.exec) {
        let (coords, offs) = lane_coords(cx.w, &op, l);
        texels[l] = image::load_texel(&d, op.dim, coords, offs);
    }
    let addr = |t: [u32; 3]| d.texel_address(op.toff, t[0], t[1], t[2]);
    let addrs: Vec<Vec<u64>> = texels.iter().map(|t| t.map(addr).into_iter().collect()).collect();
    check_texels(cx, &addrs, d.texel_bytes(), false)?;
    let mut vals = vec![Vec::new(); LANES];
    for l in lanes_of(cx.w.exec) {
        let comps = match texels[l] {
            Some(t) => image::texel_components(d.format, &read_texel(cx, l, addr(t), d.texel_bytes())?),
            None => [0; 4],
        };
        // Out of range: every enabled component is 0, whatever d16 or the format.
        let mut regs = match texels[l] {
            Some(_) => pack_components(d.format, comps, op.dmask, op.d16),
            None => vec![0; op.data_regs()],
        };
        if op.rsd {
            regs.push(u32::from(texels[l].is_some()));
        }
        vals[l] = regs;
    }
    write_data(cx.w, op.rd, &vals, op.data_regs() + usize::from(op.rsd));
    Ok(Flow::Next)
}

/// img.store: per active lane, ascending, the enabled components the format has, converted.
pub(super) fn store(cx: &mut Ctx, op: ImgOp) -> Result<Flow, Trap> {
    check_groups(cx, &op)?;
    let Some(d) = descriptor(cx, op.rs3, op.dim, false)? else { return Ok(Flow::Next) };
    let mut addrs: Vec<Vec<u64>> = vec![Vec::new(); LANES];
    for l in lanes_of(cx.w.exec) {
        let (coords, offs) = lane_coords(cx.w, &op, l);
        let texel = image::load_texel(&d, op.dim, coords, offs);
        addrs[l] = texel.map(|t| d.texel_address(op.toff, t[0], t[1], t[2])).into_iter().collect();
    }
    check_texels(cx, &addrs, d.texel_bytes(), true)?;
    let info = d.format.info();
    let per = info.component.bytes();
    for l in lanes_of(cx.w.exec) {
        let Some(&t) = addrs[l].first() else { continue };
        let enabled = (0..4u32).filter(|j| op.dmask >> j & 1 != 0);
        for (k, j) in enabled.enumerate() {
            if j >= info.channels {
                continue;
            }
            let v = store_value(cx.w, &op, d.format, k, l);
            let a = t.wrapping_add((j * per) as u64);
            let bytes = image::component_bytes(d.format, v);
            let x = bytes.iter().rev().fold(0u64, |x, b| x << 8 | *b as u64);
            cx.mem.store(Sp::Global, l, a, per, x).map_err(|f| late_fault(cx, f, 1 << l, a))?;
        }
    }
    Ok(Flow::Next)
}

/// The 32-bit value of data component `k` of lane `l`: v[rd+k], or with d16 its half widened (f16 exactly to
/// f32, r32ui zero-extended).
fn store_value(w: &WaveState, op: &ImgOp, format: ImageFormat, k: usize, l: usize) -> u32 {
    if !op.d16 {
        return w.vn(op.rd.idx() + k)[l];
    }
    let h = (w.vn(op.rd.idx() + k / 2)[l] >> (16 * (k % 2))) as u16;
    match format.info().component {
        ImageComponent::U32 => h as u32,
        _ => image::f16_to_f32_exact(h),
    }
}

/// img.sample: per active lane, the filter of [`image::sample`] over the texels it names.
pub(super) fn sample(cx: &mut Ctx, op: ImgOp) -> Result<Flow, Trap> {
    check_groups(cx, &op)?;
    let Some(d) = descriptor(cx, op.rs3, op.dim, true)? else { return Ok(Flow::Next) };
    let mut lanes = vec![([0u32; 3], [0i32; 3]); LANES];
    let mut addrs: Vec<Vec<u64>> = vec![Vec::new(); LANES];
    for l in lanes_of(cx.w.exec) {
        let (coords, offs) = lane_coords(cx.w, &op, l);
        let coords = if op.a16 { coords.map(|h| image::f16_to_f32_exact(h as u16)) } else { coords };
        lanes[l] = (coords, offs);
        let mut record = |t: [u32; 3]| {
            addrs[l].push(d.texel_address(op.toff, t[0], t[1], t[2]));
            [0; 4]
        };
        image::sample(&d, op.dim, coords, offs, &mut record);
    }
    check_texels(cx, &addrs, d.texel_bytes(), false)?;
    let mut vals = vec![Vec::new(); LANES];
    for l in lanes_of(cx.w.exec) {
        let (coords, offs) = lanes[l];
        let mut late: Option<Trap> = None;
        let mut fetch = |t: [u32; 3]| {
            let a = d.texel_address(op.toff, t[0], t[1], t[2]);
            match read_texel(cx, l, a, d.texel_bytes()) {
                Ok(b) => image::texel_components(d.format, &b),
                Err(e) => {
                    late.get_or_insert(e);
                    [0; 4]
                }
            }
        };
        let comps = image::sample(&d, op.dim, coords, offs, &mut fetch);
        if let Some(e) = late {
            return Err(e);
        }
        vals[l] = pack_components(d.format, comps, op.dmask, op.d16);
    }
    write_data(cx.w, op.rd, &vals, op.data_regs());
    Ok(Flow::Next)
}

/// img.query: (W, H, L, 1) per dmask into every active lane; reads no memory.
pub(super) fn query(cx: &mut Ctx, rd: VReg, rs3: UReg, dim: Dim, dmask: u8) -> Result<Flow, Trap> {
    group_fits(cx, 'u', rs3.idx(), DESCRIPTOR_WORDS, UREGS)?;
    group_fits(cx, 'v', rd.idx(), dmask.count_ones() as usize, VREGS)?;
    let Some(d) = descriptor(cx, rs3, dim, false)? else { return Ok(Flow::Next) };
    let all = [d.width, d.height, d.layers, 1];
    let vals: Vec<Vec<u32>> = vec![(0..4).filter(|j| dmask >> j & 1 != 0).map(|j| all[j]).collect(); LANES];
    write_data(cx.w, rd, &vals, dmask.count_ones() as usize);
    Ok(Flow::Next)
}
