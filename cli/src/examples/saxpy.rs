//! y[i] = a * x[i] + y[i] in f32 with one fused multiply-add per element.

use super::{args, compare, pseudo_floats, upload, Example, Setup, Size};
use lanejit::Device;
use lanejit::LaunchConfig;
use std::cell::RefCell;
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "saxpy",
    about: "y = a*x + y (f32, fused multiply-add rounded to nearest even)",
    source: include_str!("../../../examples/saxpy.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in saxpy.s.
const WG: u32 = 256;

/// The kernel's arithmetic: `f.fma.f32 … rm=rne` is IEEE fusedMultiplyAdd, exactly `f32::mul_add`.
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    // mul_add is a libm call unless the build targets FMA; compiled for FMA it gives the same bits faster.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { saxpy_fma(a, x, y) };
    }
    saxpy_body(a, x, y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn saxpy_fma(a: f32, x: &[f32], y: &mut [f32]) {
    saxpy_body(a, x, y)
}

#[inline(always)]
fn saxpy_body(a: f32, x: &[f32], y: &mut [f32]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y = a.mul_add(*x, *y);
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let n = match size {
        Size::Small => 1000,
        Size::Default => 1 << 20,
        Size::Large => 16 << 20,
    };
    let a = 1.75f32;
    let (x, y) = (pseudo_floats(3, n), pseudo_floats(4, n));
    let mut want = y.clone();
    saxpy(a, &x, &mut want);
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let (px, py) = (upload(d, &bits(&x))?, upload(d, &bits(&y))?);
    let cfg = LaunchConfig {
        grid: [(n as u32).div_ceil(WG), 1, 1],
        args: args(&[px, py], &[a.to_bits(), n as u32]),
        ..Default::default()
    };
    let want = bits(&want);
    let check = move |d: &Device| {
        compare("y", &d.read_u32s(py, n)?, &want)?;
        Ok(format!("{n} results bit-exact"))
    };
    // Updates its own copy of y in place, so that the timing holds no allocation.
    let y = RefCell::new(y);
    let native = move || {
        let mut y = y.borrow_mut();
        saxpy(black_box(a), black_box(&x), &mut y);
        black_box(&mut *y);
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
