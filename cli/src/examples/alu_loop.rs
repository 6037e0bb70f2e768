//! Integer ALU benchmark: per-lane loop of 16 vector ops plus a uniform counter and branch.

use super::{args, compare, Example, Setup, Size};
use lanejit::{Device, LaunchConfig, LANES};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "alu_loop",
    about: "benchmark: per-lane loop of 16 vector integer ops + uniform counter/branch",
    source: include_str!("../../../examples/alu_loop.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in alu_loop.s.
const WG: usize = 256;

/// The kernel's loop for the LANES threads starting at `first`, lane-parallel over arrays so that LLVM
/// vectorises it (this is also the native benchmark). Writes out[i] for each of those threads.
fn wave(first: u32, iterations: u32, out: &mut [u32]) {
    let mut a: [u32; LANES] = std::array::from_fn(|l| first.wrapping_add(l as u32));
    let mut b = a.map(|i| i ^ 0x5bd1_e995);
    let mut c = a.map(|i| i | 1);
    let mut d = a.map(|i| !i);
    for _ in 0..iterations {
        for l in 0..LANES {
            a[l] = a[l].wrapping_add(b[l]);
            b[l] ^= a[l];
            c[l] = c[l].wrapping_mul(a[l] | 1);
            d[l] = d[l].wrapping_sub(c[l]);
            b[l] = b[l].rotate_left(7);
            d[l] ^= b[l];
            c[l] = c[l].wrapping_add(a[l].max(d[l]) - a[l].min(d[l]));
            a[l] ^= c[l] & 63;
            b[l] = b[l].wrapping_add(d[l]);
        }
    }
    for (l, o) in out.iter_mut().enumerate() {
        *o = a[l] ^ b[l] ^ c[l] ^ d[l];
    }
}

fn run_all(n: usize, iterations: u32, out: &mut [u32]) {
    for (w, chunk) in out[..n].chunks_mut(LANES).enumerate() {
        wave((w * LANES) as u32, iterations, chunk);
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // A thread count that leaves the last wave partial (its lanes past n do nothing).
    let (n, iterations) = match size {
        Size::Small => (1000, 50),
        Size::Default => (32_768, 1000),
        Size::Large => (262_144, 4000),
    };
    let mut want = vec![0u32; n];
    run_all(n, iterations, &mut want);
    let out = d.alloc((n * 4) as u64).map_err(|e| e.to_string())?.addr;
    let cfg = LaunchConfig {
        grid: [n.div_ceil(WG) as u32, 1, 1],
        args: args(&[out], &[iterations, n as u32]),
        ..Default::default()
    };
    let check = move |d: &Device| {
        compare("out", &d.read_u32s(out, n)?, &want)?;
        Ok(format!("{n} lanes x {iterations} trips correct"))
    };
    let buf = std::cell::RefCell::new(vec![0u32; n]);
    let native = move || {
        run_all(n, black_box(iterations), &mut buf.borrow_mut());
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
