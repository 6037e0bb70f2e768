//! Cross-lane benchmark: shuffles, quad swizzle, scan and reduction in a per-wave loop.

use super::{args, compare, Example, Setup, Size};
use lanejit::{Device, LaunchConfig, LANES};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "xlane_loop",
    about: "benchmark: loop of shfl.xor/down/rot, quad.swizzle, xscan, xred with vector adds/xors",
    source: include_str!("../../../examples/xlane_loop.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in xlane_loop.s.
const WG: usize = 256;

/// One wave of the kernel (threads first .. first + LANES), written out lane by lane over arrays; this is
/// both the reference and the native benchmark.
fn wave(first: u32, iterations: u32, out: &mut [u32]) {
    let mut a: [u32; LANES] = std::array::from_fn(|l| (first + l as u32).wrapping_mul(0x9e37_79b9));
    let mut b: [u32; LANES] = std::array::from_fn(|l| (first + l as u32) ^ 0x7f4a_7c15);
    let mut t = [0u32; LANES];
    for _ in 0..iterations {
        for l in 0..LANES {
            t[l] = a[l ^ 1];
        }
        for l in 0..LANES {
            b[l] = b[l].wrapping_add(t[l]);
        }
        for l in 0..LANES {
            t[l] = if l + 3 < LANES { b[l + 3] } else { b[l] };
        }
        for l in 0..LANES {
            a[l] ^= t[l];
        }
        for l in 0..LANES {
            t[l] = a[(l & !3) | (3 - (l & 3))];
        }
        let mut s = 0u32;
        for l in 0..LANES {
            b[l] = b[l].wrapping_add(t[l]);
            s = s.wrapping_add(b[l]);
            t[l] = s; // inclusive scan of b
        }
        for l in 0..LANES {
            a[l] ^= t[l];
        }
        let sum = a.iter().fold(0u32, |s, x| s.wrapping_add(*x));
        for x in b.iter_mut() {
            *x = x.wrapping_add(sum);
        }
        for l in 0..LANES {
            t[l] = b[(l + 7) % LANES];
        }
        for l in 0..LANES {
            a[l] = a[l].wrapping_add(t[l]);
            a[l] ^= a[l] >> 9;
            b[l] ^= l as u32;
        }
    }
    for (l, o) in out.iter_mut().enumerate() {
        *o = a[l] ^ b[l];
    }
}

fn run_all(n: usize, iterations: u32, out: &mut [u32]) {
    for (w, chunk) in out[..n].chunks_mut(LANES).enumerate() {
        wave((w * LANES) as u32, iterations, chunk);
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let (waves, iterations) = match size {
        Size::Small => (36, 50),
        Size::Default => (1024, 500),
        Size::Large => (8192, 2000),
    };
    let n = waves * LANES; // whole waves: the scan and the reduction see all LANES lanes
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
