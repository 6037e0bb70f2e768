//! 3×3 box blur of a 2d rgba8 image with `img.load` (per-lane offsets, status) and `img.store`, checked against
//! a Rust reference doing the same f32 arithmetic in the same order.

use super::imageref::{compare_rgba8, f32_to_unorm, test_picture, unorm_to_f32, upload_rgba8};
use super::{Example, Picture, Setup, Size};
use lanejit::image::Sampler;
use lanejit::{Device, KernelArgs, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "blur",
    about: "3x3 box blur of a 2d rgba8 image (img.load with voff and rsd, img.store)",
    source: include_str!("../../../examples/blur.s"),
    setup,
};

/// Workgroup side; must match `.workgroup` in blur.s.
const WG: u32 = 16;

fn dims(size: Size) -> (u32, u32) {
    match size {
        Size::Small => (45, 29),
        Size::Default => (1024, 768),
        Size::Large => (2048, 2048),
    }
}

/// One output pixel: the taps inside the image summed in f32 from +0.0 in the kernel's order (dy, then dx, from
/// -1 to 1; a tap outside adds +0.0), divided by how many were inside, stored as unorm8.
fn blur_pixel(src: &[u8], w: u32, h: u32, x: u32, y: u32, out: &mut [u8]) {
    let (mut sum, mut inside) = ([0f32; 4], 0u32);
    for dy in -1i64..=1 {
        for dx in -1i64..=1 {
            let (tx, ty) = (x as i64 + dx, y as i64 + dy);
            let hit = (0..w as i64).contains(&tx) && (0..h as i64).contains(&ty);
            for (c, s) in sum.iter_mut().enumerate() {
                *s += if hit { unorm_to_f32(src[((ty * w as i64 + tx) * 4) as usize + c]) } else { 0.0 };
            }
            inside += u32::from(hit);
        }
    }
    for (o, s) in out.iter_mut().zip(sum) {
        *o = f32_to_unorm(s / inside as f32);
    }
}

fn blur(src: &[u8], w: u32, h: u32, out: &mut [u8]) {
    for y in 0..h {
        for x in 0..w {
            let at = ((y * w + x) * 4) as usize;
            blur_pixel(src, w, h, x, y, &mut out[at..at + 4]);
        }
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let (w, h) = dims(size);
    let src = test_picture(w, h);
    let (src_addr, src_layout) = upload_rgba8(d, w, h, Sampler::default(), &src)?;
    let (dst_addr, dst_layout) = upload_rgba8(d, w, h, Sampler::default(), &vec![0; src.len()])?;
    let args =
        KernelArgs::new().image(&src_layout.descriptor(src_addr)).image(&dst_layout.descriptor(dst_addr)).u32(w).u32(h);
    let cfg = LaunchConfig { grid: [w.div_ceil(WG), h.div_ceil(WG), 1], args: args.into(), ..Default::default() };
    let mut want = vec![0; src.len()];
    blur(&src, w, h, &mut want);
    let check = move |d: &Device| {
        compare_rgba8("blurred", w, &d.read(dst_addr, want.len() as u64)?, &want)?;
        Ok(format!("{w}x{h}, {} texels bit-exact", w * h))
    };
    let out = std::cell::RefCell::new(vec![0; src.len()]);
    let native = move || blur(black_box(&src), w, h, &mut out.borrow_mut());
    let pictures = vec![Picture { name: "blur", addr: dst_addr, width: w, height: h }];
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures })
}
