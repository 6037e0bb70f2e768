//! Bilinear resize of a 2d rgba8 image with `img.sample` (clamp to edge), checked against a Rust reference
//! that computes the filter of the ISA text (isa-spec/groups/6-mem.yaml, img.sample) independently.

use super::imageref::{compare_rgba8, f32_to_unorm, test_picture, unorm_to_f32, upload_rgba8};
use super::{Example, Picture, Setup, Size};
use lanejit::image::{Addressing, Filter, Sampler};
use lanejit::{Device, KernelArgs, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "resize",
    about: "bilinear resize of a 2d rgba8 image (img.sample, clamp to edge; the bench size is 1024² → 2048²)",
    source: include_str!("../../../examples/resize.s"),
    setup,
};

/// Workgroup side; must match `.workgroup` in resize.s.
const WG: u32 = 16;

/// (source, destination) sizes; `Small` scales x up and y down by odd factors.
fn sizes(size: Size) -> ((u32, u32), (u32, u32)) {
    match size {
        Size::Small => ((37, 23), (61, 17)),
        Size::Default | Size::Large => ((1024, 1024), (2048, 2048)),
    }
}

/// The two taps of one axis and their weights: u = s*N in f64 (exact), u' = u - 0.5, i0 = floor(u'),
/// a = floor((u' - i0)*256)/256; taps i0 (1 - a) and i0 + 1 (a), each clamped to 0..N-1.
fn taps(s: f32, n: u32) -> [(usize, f64); 2] {
    let limit = (1u64 << 30) as f64;
    let u = if s.is_nan() { 0.0 } else { (s as f64 * n as f64).clamp(-limit, limit) };
    let u1 = u - 0.5;
    let i0 = u1.floor();
    let a = ((u1 - i0) * 256.0).floor() / 256.0;
    let clamp = |i: f64| i.clamp(0.0, (n - 1) as f64) as usize;
    [(clamp(i0), 1.0 - a), (clamp(i0 + 1.0), a)]
}

/// One bilinear sample of a 2d rgba8 image at (s, t): per component the sum over the taps k (bit 0 x, bit 1
/// y) of w_k * c_k in f64, zero weights left out, rounded once to f32.
fn sample(src: &[u8], w: u32, h: u32, s: f32, t: f32) -> [f32; 4] {
    let (xs, ys) = (taps(s, w), taps(t, h));
    std::array::from_fn(|c| {
        let mut acc: Option<f64> = None;
        for k in 0..4 {
            let ((x, wx), (y, wy)) = (xs[k & 1], ys[k >> 1]);
            let weight = wx * wy;
            if weight != 0.0 {
                let term = weight * unorm_to_f32(src[(y * w as usize + x) * 4 + c]) as f64;
                acc = Some(acc.map_or(term, |a| a + term));
            }
        }
        acc.unwrap_or(0.0) as f32
    })
}

/// The whole resize: the kernel's coordinates ((x + 0.5) * (1/W'), in f32), one sample each, stored as unorm8.
fn resize(src: &[u8], (w, h): (u32, u32), (w2, h2): (u32, u32), out: &mut [u8]) {
    let (inv_w, inv_h) = (1.0 / w2 as f32, 1.0 / h2 as f32);
    for y in 0..h2 {
        let t = (y as f32 + 0.5) * inv_h;
        for x in 0..w2 {
            let px = sample(src, w, h, (x as f32 + 0.5) * inv_w, t);
            let at = ((y * w2 + x) * 4) as usize;
            for (o, v) in out[at..at + 4].iter_mut().zip(px) {
                *o = f32_to_unorm(v);
            }
        }
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let ((w, h), (w2, h2)) = sizes(size);
    let bilinear = Sampler { filter: Filter::Bilinear, addressing: [Addressing::Clamp; 3] };
    let src = test_picture(w, h);
    let (src_addr, src_layout) = upload_rgba8(d, w, h, bilinear, &src)?;
    let (dst_addr, dst_layout) = upload_rgba8(d, w2, h2, Sampler::default(), &vec![0; (w2 * h2 * 4) as usize])?;
    let args = KernelArgs::new()
        .image(&src_layout.descriptor(src_addr))
        .image(&dst_layout.descriptor(dst_addr))
        .f32(1.0 / w2 as f32)
        .f32(1.0 / h2 as f32)
        .u32(w2)
        .u32(h2);
    let cfg = LaunchConfig { grid: [w2.div_ceil(WG), h2.div_ceil(WG), 1], args: args.into(), ..Default::default() };
    let mut want = vec![0; (w2 * h2 * 4) as usize];
    resize(&src, (w, h), (w2, h2), &mut want);
    let check = move |d: &Device| {
        compare_rgba8("resized", w2, &d.read(dst_addr, want.len() as u64)?, &want)?;
        Ok(format!("{w}x{h} -> {w2}x{h2}, {} texels bit-exact", w2 * h2))
    };
    let out = std::cell::RefCell::new(vec![0; (w2 * h2 * 4) as usize]);
    let native = move || resize(black_box(&src), (w, h), (w2, h2), &mut out.borrow_mut());
    let pictures = vec![Picture { name: "resize", addr: dst_addr, width: w2, height: h2 }];
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taps_follow_the_text() {
        // Texel centres give one tap of weight 1 (and its neighbour of weight 0); an edge clamps.
        assert_eq!(taps(0.5 / 4.0, 4), [(0, 1.0), (1, 0.0)]);
        assert_eq!(taps(0.0, 4), [(0, 0.5), (0, 0.5)]);
        assert_eq!(taps(1.0, 4), [(3, 0.5), (3, 0.5)]);
        // 8-bit sub-texel precision: the fraction is cut to a multiple of 1/256.
        assert_eq!(taps(0.3, 1), [(0, 1.0 - 204.0 / 256.0), (0, 204.0 / 256.0)]);
        // A sample half way between a black and a white texel is 0.5, stored as 128 (round half even of 127.5).
        let px = sample(&[0, 0, 0, 0, 255, 255, 255, 255], 2, 1, 0.5, 0.5);
        assert_eq!((px[0], f32_to_unorm(px[0])), (0.5, 128));
    }
}
