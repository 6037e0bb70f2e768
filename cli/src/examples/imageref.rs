//! What the image examples share: a deterministic test picture, 2d rgba8 images in device memory, and the
//! unorm8 conversions of the ISA text written out again here for the Rust references (independently of the
//! engines' helpers, so that a mistake in one is caught by the other).

use lanejit::image::{Dim, ImageFormat, ImageLayout, ImageSpec, Sampler};
use lanejit::Device;

/// unorm8 → f32: c / 255, correctly rounded (one IEEE division of exact operands).
pub fn unorm_to_f32(c: u8) -> f32 {
    c as f32 / 255.0
}

/// f32 → unorm8 as img.store converts: round-half-even(clamp(v, 0, 1) × 255), the product exact in f64; NaN 0.
pub fn f32_to_unorm(v: f32) -> u8 {
    if v.is_nan() {
        return 0;
    }
    ((v as f64).clamp(0.0, 1.0) * 255.0).round_ties_even() as u8
}

/// A `w × h` rgba8 picture: red and green ramps, a blue checkerboard of 16-pixel squares, a little noise, opaque.
pub fn test_picture(w: u32, h: u32) -> Vec<u8> {
    let noise = super::pseudo_random(14, (w * h) as usize);
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let n = (noise[(y * w + x) as usize] >> 28) as u8;
            let r = (x * 255 / w.max(2).saturating_sub(1).max(1)).min(255) as u8;
            let g = (y * 255 / h.max(2).saturating_sub(1).max(1)).min(255) as u8;
            let b = if (x / 16 + y / 16) % 2 == 0 { 230 } else { 40 };
            out.extend([r.saturating_sub(n), g.saturating_add(n), b, 255]);
        }
    }
    out
}

/// A 2d rgba8 image holding `texels` (rows packed) in device memory, and its layout.
pub fn upload_rgba8(d: &Device, w: u32, h: u32, sampler: Sampler, texels: &[u8]) -> Result<(u64, ImageLayout), String> {
    let layout = ImageSpec::new(Dim::D2d, ImageFormat::Rgba8, w, h, 1)
        .with_sampler(sampler)
        .layout()
        .map_err(|e| e.to_string())?;
    let a = d.alloc(layout.device_bytes()).map_err(|e| e.to_string())?;
    d.write(a.addr, texels)?;
    Ok((a.addr, layout))
}

/// The first texel where `got` and `want` (rgba8, `w` wide) differ, as an error message.
pub fn compare_rgba8(what: &str, w: u32, got: &[u8], want: &[u8]) -> Result<(), String> {
    match got.chunks_exact(4).zip(want.chunks_exact(4)).position(|(g, x)| g != x) {
        None if got.len() == want.len() => Ok(()),
        None => Err(format!("{what}: {} bytes, expected {}", got.len(), want.len())),
        Some(i) => {
            let (x, y) = (i as u32 % w, i as u32 / w);
            Err(format!(
                "{what} texel ({x}, {y}) = {:?}, expected {:?}",
                &got[4 * i..4 * i + 4],
                &want[4 * i..4 * i + 4]
            ))
        }
    }
}
