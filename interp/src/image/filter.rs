//! Which texel(s) a lane of an image instruction touches, and the filter of `img.sample`, as pure functions
//! of the descriptor, the lane's coordinates and a texel-fetch closure: the interpreter runs them once with a
//! closure that records the addresses to check and once with one that reads memory, and the JIT's helpers
//! call the same functions, so the filter is written once.

use super::{shape, Addressing, Descriptor, Filter, ImageComponent, F32_QNAN};
use lanejit_isa::Dim;

/// Coordinate magnitude past which `img.sample` clamps the unnormalised coordinate (2^30).
const COORD_LIMIT: f64 = (1u64 << 30) as f64;
/// Sub-texel steps of a bilinear weight (8 bits).
const SUBTEXEL_STEPS: f64 = 256.0;

/// The signed 6-bit voff fields ox (bits 5:0), oy (13:8), oz (21:16) of a lane's offset word.
pub fn voff_offsets(word: u32) -> [i32; 3] {
    [0, 8, 16].map(|shift| ((word >> shift) as i32) << 26 >> 26)
}

/// The texel (x', y', z') an `img.load` / `img.store` lane addresses, or `None` if it is out of range (then it
/// reads or writes nothing and is not checked). `coords` are the lane's unsigned coordinates in the dim's
/// order (x, then y, z or the layer as it has them), `offs` its voff offsets (0 without voff).
pub fn load_texel(d: &Descriptor, dim: Dim, coords: [u32; 3], offs: [i32; 3]) -> Option<[u32; 3]> {
    let s = shape(dim);
    let x = coords[0].wrapping_add(offs[0] as u32);
    let y = if s.has_y { coords[1].wrapping_add(offs[1] as u32) } else { 0 };
    let z = match (s.has_z, s.has_layer) {
        (true, _) => coords[2].wrapping_add(offs[2] as u32),
        (false, true) => coords[s.coords - 1],
        (false, false) => 0,
    };
    (x < d.width && y < d.height && z < d.layers).then_some([x, y, z])
}

/// The taps of one axis: up to two texel indices with their weights.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Taps {
    index: [u32; 2],
    weight: [f64; 2],
    count: usize,
}

impl Taps {
    fn one(index: u32) -> Taps {
        Taps { index: [index, index], weight: [1.0, 0.0], count: 1 }
    }
}

/// The taps of a filtered axis: u = s*N + o in f64 (a NaN becoming 0, clamped to ±2^30), then nearest
/// floor(u), or bilinear floor(u - 0.5) and the next texel with 8-bit weights; each index mapped by `mode`.
fn axis_taps(s: f32, n: u32, o: i32, mode: Addressing, bilinear: bool) -> Taps {
    let u = s as f64 * n as f64 + o as f64;
    let u = if u.is_nan() { 0.0 } else { u.clamp(-COORD_LIMIT, COORD_LIMIT) };
    if !bilinear {
        return Taps::one(address(u.floor() as i64, n, mode));
    }
    let u = u - 0.5;
    let i0 = u.floor();
    let a = ((u - i0) * SUBTEXEL_STEPS).floor() / SUBTEXEL_STEPS;
    let i0 = i0 as i64;
    Taps { index: [address(i0, n, mode), address(i0 + 1, n, mode)], weight: [1.0 - a, a], count: 2 }
}

/// A tap index mapped into 0..n by an addressing mode.
fn address(i: i64, n: u32, mode: Addressing) -> u32 {
    let n = n as i64;
    let mapped = match mode {
        Addressing::Clamp => i.clamp(0, n - 1),
        Addressing::Wrap => i.rem_euclid(n),
        Addressing::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m < n {
                m
            } else {
                2 * n - 1 - m
            }
        }
    };
    mapped as u32
}

/// The layer of an array sample: clamp(round-half-even(s), 0, L-1), a NaN giving 0.
fn layer_of(s: f32, layers: u32) -> u32 {
    if s.is_nan() {
        return 0;
    }
    (s as f64).round_ties_even().clamp(0.0, (layers - 1) as f64) as u32
}

/// `img.sample` for one lane: the four 32-bit components (r g b a) the filter gives. `coords` are the lane's
/// coordinates as f32 bits (x, then y, z or the layer as the dim has them; a16 already widened), `offs` its
/// voff offsets. `fetch(x, y, z)` returns the converted components of a texel; it is called for every tap,
/// including taps of weight 0, in tap order (k ascending: bit 0 the x tap, bit 1 y, bit 2 z).
pub fn sample(
    d: &Descriptor,
    dim: Dim,
    coords: [u32; 3],
    offs: [i32; 3],
    fetch: &mut dyn FnMut([u32; 3]) -> [u32; 4],
) -> [u32; 4] {
    let s = shape(dim);
    let info = d.format.info();
    let bilinear = d.sampler.filter == Filter::Bilinear && info.component != ImageComponent::U32;
    let coord = |i: usize| f32::from_bits(coords[i]);
    let [ax, ay, az] = d.sampler.addressing;
    let x = axis_taps(coord(0), d.width, offs[0], ax, bilinear);
    let y = if s.has_y { axis_taps(coord(1), d.height, offs[1], ay, bilinear) } else { Taps::one(0) };
    let z = match (s.has_z, s.has_layer) {
        (true, _) => axis_taps(coord(2), d.layers, offs[2], az, bilinear),
        (false, true) => Taps::one(layer_of(coord(s.coords - 1), d.layers)),
        (false, false) => Taps::one(0),
    };
    if !bilinear {
        return fetch([x.index[0], y.index[0], z.index[0]]);
    }
    let mut sum: [Option<f64>; 4] = [None; 4];
    for k in 0..8usize {
        let (kx, ky, kz) = (k & 1, k >> 1 & 1, k >> 2);
        if kx >= x.count || ky >= y.count || kz >= z.count {
            continue;
        }
        let c = fetch([x.index[kx], y.index[ky], z.index[kz]]);
        let w = x.weight[kx] * y.weight[ky] * z.weight[kz];
        if w == 0.0 {
            continue;
        }
        for (acc, c) in sum.iter_mut().zip(c).take(info.channels as usize) {
            let term = w * f32::from_bits(c) as f64;
            *acc = Some(acc.map_or(term, |a| a + term));
        }
    }
    std::array::from_fn(|j| match sum[j] {
        _ if j as u32 >= info.channels => info.absent[j - 1],
        Some(v) => narrow(v),
        // Unreachable: the weights sum to 1, so some term is kept; 0 keeps this total.
        None => 0,
    })
}

/// f64 → f32 bits, round to nearest even, a NaN becoming the canonical quiet NaN.
fn narrow(v: f64) -> u32 {
    if v.is_nan() {
        F32_QNAN
    } else {
        (v as f32).to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::{ImageFormat, Sampler};

    fn desc(format: ImageFormat, filter: Filter, mode: Addressing) -> Descriptor {
        let sampler = Sampler { filter, addressing: [mode; 3] };
        Descriptor { base: 0, width: 4, height: 2, layers: 3, pitch: 64, format, sampler }
    }

    #[test]
    fn voff_fields_are_signed_six_bits() {
        assert_eq!(voff_offsets(0x003f_1f20), [-32, 31, -1]);
        assert_eq!(voff_offsets(0xffc0_c0c0), [0, 0, 0]);
    }

    #[test]
    fn addressing_modes_map_every_index() {
        let got: Vec<_> = (-5..9).map(|i| address(i, 4, Addressing::Mirror)).collect();
        assert_eq!(got, [3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0]);
        assert_eq!((-5..1).map(|i| address(i, 4, Addressing::Wrap)).collect::<Vec<_>>(), [3, 0, 1, 2, 3, 0]);
        assert_eq!(address(-7, 4, Addressing::Clamp), 0);
        assert_eq!(address(1 << 30, 4, Addressing::Clamp), 3);
    }

    #[test]
    fn load_texels_leave_the_image_past_an_edge() {
        let d = desc(ImageFormat::R32ui, Filter::Nearest, Addressing::Clamp);
        assert_eq!(load_texel(&d, Dim::D2d, [3, 1, 9], [0; 3]), Some([3, 1, 0]));
        assert_eq!(load_texel(&d, Dim::D2d, [3, 1, 0], [1, 0, 0]), None);
        assert_eq!(load_texel(&d, Dim::D2d, [0, 1, 0], [-1, 0, 0]), None, "x' wraps to 2^32 - 1");
        assert_eq!(load_texel(&d, Dim::D1dArray, [2, 2, 0], [0, 0, 5]), Some([2, 0, 2]), "no offset on a layer");
        assert_eq!(load_texel(&d, Dim::D1d, [2, 7, 7], [0, 9, 9]), Some([2, 0, 0]));
    }

    #[test]
    fn bilinear_weights_the_four_neighbours() {
        // Texel (x, y) holds r = 10x + y; sampling the centre between (1,0),(2,0),(1,1),(2,1) gives 15.5.
        let d = desc(ImageFormat::R32f, Filter::Bilinear, Addressing::Clamp);
        let mut taps = Vec::new();
        let mut fetch = |t: [u32; 3]| {
            taps.push(t);
            [((10 * t[0] + t[1]) as f32).to_bits(), 7, 7, 7]
        };
        let r = sample(&d, Dim::D2d, [0.5f32.to_bits(), 0.5f32.to_bits(), 0], [0; 3], &mut fetch);
        assert_eq!(r, [15.5f32.to_bits(), 0, 0, 0x3f80_0000]);
        assert_eq!(taps, [[1, 0, 0], [2, 0, 0], [1, 1, 0], [2, 1, 0]]);
    }

    #[test]
    fn nearest_and_r32ui_fetch_one_texel_and_layers_round_half_even() {
        let d = desc(ImageFormat::R32ui, Filter::Bilinear, Addressing::Wrap);
        let mut taps = Vec::new();
        let mut fetch = |t: [u32; 3]| {
            taps.push(t);
            [t[0], t[1], t[2], 9]
        };
        let r = sample(&d, Dim::D1dArray, [(-0.25f32).to_bits(), 2.5f32.to_bits(), 0], [0; 3], &mut fetch);
        assert_eq!(r, [3, 0, 2, 9]);
        assert_eq!(taps.len(), 1);
        assert_eq!(layer_of(f32::NAN, 3), 0);
        assert_eq!(layer_of(1e30, 3), 2);
        assert_eq!(layer_of(-7.0, 3), 0);
    }
}
