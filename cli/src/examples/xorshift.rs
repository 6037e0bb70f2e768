//! Xorshift ALU loop: 256 rounds of `v ^= v<<13; v ^= v>>17; v ^= v<<5; v = v*0x9E3779B1 + k` per element.

use super::{args, compare, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::cell::RefCell;
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "xorshift",
    about: "benchmark: 256 rounds of v ^= v<<13; v ^= v>>17; v ^= v<<5; v = v*0x9e3779b1 + k per element",
    source: include_str!("../../../examples/xorshift.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in xorshift.s.
const WG: usize = 64;
/// Must match the kernel's loop.
const ROUNDS: usize = 256;
const MULTIPLIER: u32 = 0x9e37_79b1;

#[inline(always)]
fn step(mut v: u32, k: u32) -> u32 {
    v ^= v << 13;
    v ^= v >> 17;
    v ^= v << 5;
    v.wrapping_mul(MULTIPLIER).wrapping_add(k)
}

/// Both the reference and the native benchmark.
fn xorshifts(x: &[u32], k: u32, y: &mut [u32]) {
    // The vectorised multiply needs SSE4.1 at least; compiled for AVX2 the same code gives the same bits faster.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { xorshifts_avx2(x, k, y) };
    }
    xorshifts_body(x, k, y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn xorshifts_avx2(x: &[u32], k: u32, y: &mut [u32]) {
    xorshifts_body(x, k, y)
}

/// Elements go a workgroup's worth at a time with the rounds outside the elements, so that LLVM vectorises
/// across the elements (the rounds of one element are a dependent chain; 64 give enough independent ones).
#[inline(always)]
fn xorshifts_body(x: &[u32], k: u32, y: &mut [u32]) {
    for (xs, ys) in x.chunks(WG).zip(y.chunks_mut(WG)) {
        let mut v = [0u32; WG];
        v[..xs.len()].copy_from_slice(xs);
        for _ in 0..ROUNDS {
            for v in v.iter_mut() {
                *v = step(*v, k);
            }
        }
        ys.copy_from_slice(&v[..ys.len()]);
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // Small is not a multiple of the workgroup: a partial wave and a wave wholly past the end.
    let n = match size {
        Size::Small => 1_000,
        Size::Default => 1 << 16,
        Size::Large => 1 << 20,
    };
    let k = 0x7f4a_7c15;
    let x = pseudo_random(15, n);
    let mut want = vec![0; n];
    xorshifts(&x, k, &mut want);
    let px = upload(d, &x)?;
    // Both outputs are written once before the timing, so that neither run pays for first touches of its pages.
    let py = upload(d, &vec![0; n])?;
    let cfg = LaunchConfig {
        grid: [n.div_ceil(WG) as u32, 1, 1],
        args: args(&[px, py], &[n as u32, k]),
        ..Default::default()
    };
    let check = move |d: &Device| {
        compare("y", &d.read_u32s(py, n)?, &want)?;
        Ok(format!("{n} elements x {ROUNDS} rounds correct"))
    };
    // Writes its own y in place, so that the timing holds no allocation.
    let y = RefCell::new(x.clone());
    let native = move || {
        let mut y = y.borrow_mut();
        xorshifts(black_box(&x), black_box(k), &mut y);
        black_box(&mut *y);
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
