//! Xor butterfly: 64 rounds of `v = v * 1664526 + shfl.xor(v, 1 << (r % 5))` per wave, the distance computed
//! in the loop (shfl.xor.vu), stored per element.
//!
//! Issue 10 gives the multiplier 1664525, but with any odd multiplier a round is `I + P` modulo 2 (P the lane
//! exchange), the product of those vanishes, and after 37 rounds every lane is 0 whatever the input: the
//! check could never fail. The even 1664526 makes every round invertible, for the same work per round.

use super::{args, compare, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig, LANES};
use std::cell::RefCell;
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "butterfly",
    about: "64 rounds of v = v*1664526 + shfl.xor(v, 1 << (r % 5)), distance computed in the loop (shfl.xor.vu)",
    source: include_str!("../../../examples/butterfly.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in butterfly.s.
const WG: usize = 64;
/// Must match the kernel's loop.
const ROUNDS: usize = 64;
/// Must match the kernel's `v.mov.k`; even, so that the result depends on the input (see the module doc).
const MULTIPLIER: u32 = 1664526;

/// One round at a distance known at compile time, so that the lane exchange compiles to vector shuffles.
#[inline(always)]
fn round<const DISTANCE: usize>(v: &mut [u32; LANES]) {
    let partner: [u32; LANES] = std::array::from_fn(|lane| v[lane ^ DISTANCE]);
    for (v, p) in v.iter_mut().zip(partner) {
        *v = v.wrapping_mul(MULTIPLIER).wrapping_add(p);
    }
}

/// The kernel's loop on one wave's values (lane l holds v[l]). The distances repeat every five rounds
/// (1, 2, 4, 8, 16), so the rounds go five at a time, each with its distance a constant.
#[inline(always)]
fn wave(v: &mut [u32; LANES]) {
    const _: () = assert!(ROUNDS % 5 == 4, "the tail below is four rounds");
    for _ in 0..ROUNDS / 5 {
        round::<1>(v);
        round::<2>(v);
        round::<4>(v);
        round::<8>(v);
        round::<16>(v);
    }
    round::<1>(v);
    round::<2>(v);
    round::<4>(v);
    round::<8>(v);
}

/// Both the reference and the native benchmark; `x.len()` is a multiple of LANES.
fn butterflies(x: &[u32], y: &mut [u32]) {
    // The vectorised multiply needs SSE4.1 at least; compiled for AVX2 the same code gives the same bits ~5x
    // faster.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { butterflies_avx2(x, y) };
    }
    butterflies_body(x, y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn butterflies_avx2(x: &[u32], y: &mut [u32]) {
    butterflies_body(x, y)
}

#[inline(always)]
fn butterflies_body(x: &[u32], y: &mut [u32]) {
    for (xs, ys) in x.chunks_exact(LANES).zip(y.chunks_exact_mut(LANES)) {
        let mut v: [u32; LANES] = xs.try_into().expect("chunks of LANES");
        wave(&mut v);
        ys.copy_from_slice(&v);
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // Whole waves only (lanes exchange values); Small leaves the last workgroup's second wave past the end.
    let n = match size {
        Size::Small => 33 * LANES,
        Size::Default => 1 << 18,
        Size::Large => 1 << 22,
    };
    let x = pseudo_random(14, n);
    let mut want = vec![0; n];
    butterflies(&x, &mut want);
    let px = upload(d, &x)?;
    // Both outputs are written once before the timing, so that neither run pays for first touches of its pages.
    let py = upload(d, &vec![0; n])?;
    let cfg =
        LaunchConfig { grid: [n.div_ceil(WG) as u32, 1, 1], args: args(&[px, py], &[n as u32]), ..Default::default() };
    let check = move |d: &Device| {
        compare("y", &d.read_u32s(py, n)?, &want)?;
        Ok(format!("{n} lanes x {ROUNDS} rounds correct"))
    };
    // Writes its own y in place, so that the timing holds no allocation.
    let y = RefCell::new(x.clone());
    let native = move || {
        let mut y = y.borrow_mut();
        butterflies(black_box(&x), &mut y);
        black_box(&mut *y);
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
