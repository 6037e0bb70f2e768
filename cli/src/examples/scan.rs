//! Inclusive prefix sum in one launch: per-block scans (xscan within waves, shared memory across waves),
//! then the last block to finish adds the block offsets.

use super::{args, compare, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "scan",
    about: "inclusive prefix sum of u32 (xscan per wave, block sums, last block adds the offsets)",
    source: include_str!("../../../examples/scan.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in scan.s.
const WG: usize = 256;

fn inclusive_scan(x: &[u32], y: &mut [u32]) {
    let mut s = 0u32;
    for (y, x) in y.iter_mut().zip(x) {
        s = s.wrapping_add(*x);
        *y = s;
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // n is not a multiple of the block, so the last block is partial.
    let (n, k) = match size {
        Size::Small => (5_000, 2),
        Size::Default => (1_000_003, 8),
        Size::Large => (16_000_003, 16),
    };
    let x = pseudo_random(6, n);
    let mut want = vec![0; n];
    inclusive_scan(&x, &mut want);
    let px = upload(d, &x)?;
    let alloc = |bytes: usize| d.alloc(bytes as u64).map(|a| a.addr).map_err(|e| e.to_string());
    let py = alloc(n * 4)?;
    let grid = n.div_ceil(WG * k);
    // The counter is written, not left as the allocation's zeros: the kernel's atomic reads it (device memory a
    // GPU allocator hands out holds garbage; `--check buffers` reports relying on it).
    let (bsum, counter) = (alloc(grid * 4)?, upload(d, &[0])?);
    let cfg = LaunchConfig {
        grid: [grid as u32, 1, 1],
        args: args(&[px, py, bsum, counter], &[n as u32, k as u32]),
        ..Default::default()
    };
    let check = move |d: &Device| {
        compare("y", &d.read_u32s(py, n)?, &want)?;
        let blocks = d.read_u32s(counter, 1)?[0];
        if blocks as usize != grid {
            return Err(format!("block counter = {blocks}, expected {grid}"));
        }
        Ok(format!("{n} prefix sums correct ({grid} blocks)"))
    };
    let y = std::cell::RefCell::new(vec![0; n]);
    let native = move || {
        inclusive_scan(black_box(&x), &mut y.borrow_mut());
        black_box(&y);
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
