//! Tiled f32 matrix multiply: 16x16 tiles staged in shared memory, barriers, one fma per k in k order.

use super::{args, compare, pseudo_floats, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::cell::RefCell;
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "matmul",
    about: "tiled f32 matrix multiply (16x16 tiles in shared memory, barriers, fma in k order)",
    source: include_str!("../../../examples/matmul.s"),
    setup,
};

/// Tile edge; must match `.workgroup 16, 16` in matmul.s.
const TILE: usize = 16;

/// c = a * b with c[i][j] = fma(a[i][k], b[k][j], c[i][j]) for k ascending from +0.0: the kernel's
/// sequence of roundings. The i-k-j loop order keeps that per-element order and walks memory in rows.
fn matmul(a: &[f32], b: &[f32], c: &mut [f32], n: usize, k: usize) {
    // mul_add is a libm call unless the build targets FMA; the same body compiled for FMA gives the same
    // bits (both are the correctly rounded fma), only faster, so the native ratio is not flattered.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { matmul_fma(a, b, c, n, k) };
    }
    matmul_body(a, b, c, n, k)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn matmul_fma(a: &[f32], b: &[f32], c: &mut [f32], n: usize, k: usize) {
    matmul_body(a, b, c, n, k)
}

#[inline(always)]
fn matmul_body(a: &[f32], b: &[f32], c: &mut [f32], n: usize, k: usize) {
    c.fill(0.0);
    for (arow, crow) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
        for (&x, brow) in arow.iter().zip(b.chunks_exact(n)) {
            for (cv, &bv) in crow.iter_mut().zip(brow) {
                *cv = x.mul_add(bv, *cv);
            }
        }
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let (m, n, k) = match size {
        Size::Small => (32, 48, 32),
        Size::Default => (128, 128, 128),
        Size::Large => (1024, 1024, 1024),
    };
    assert!(m % TILE == 0 && n % TILE == 0 && k % TILE == 0);
    let (a, b) = (pseudo_floats(9, m * k), pseudo_floats(10, k * n));
    let mut want = vec![0f32; m * n];
    matmul(&a, &b, &mut want, n, k);
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let (pa, pb) = (upload(d, &bits(&a))?, upload(d, &bits(&b))?);
    let pc = d.alloc((m * n * 4) as u64).map_err(|e| e.to_string())?.addr;
    let grid = [(n / TILE) as u32, (m / TILE) as u32, 1];
    let cfg = LaunchConfig { grid, args: args(&[pa, pb, pc], &[m as u32, n as u32, k as u32]), ..Default::default() };
    let want = bits(&want);
    let check = move |d: &Device| {
        compare("c", &d.read_u32s(pc, m * n)?, &want)?;
        Ok(format!("{m}x{k} * {k}x{n}: {} results bit-exact", m * n))
    };
    let c = RefCell::new(vec![0f32; m * n]);
    let native = move || {
        matmul(black_box(&a), black_box(&b), &mut c.borrow_mut(), n, k);
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
