//! Collatz step counts: an if/else and a data-dependent loop under EXEC masks.

use super::{args, compare, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "divergent",
    about: "Collatz step counts: if/else and a data-dependent loop under EXEC masks",
    source: include_str!("../../../examples/divergent.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in divergent.s.
const WG: usize = 256;
/// Largest start value: every trajectory below it stays under 2^32 (the peak is 1 570 824 736, from 77 671).
const MAX_START: u32 = 100_000;

fn collatz_steps(mut x: u32) -> u32 {
    let mut steps = 0u32;
    while x != 1 {
        x = if x & 1 != 0 { x.wrapping_mul(3).wrapping_add(1) } else { x >> 1 };
        steps += 1;
    }
    steps
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let n = match size {
        Size::Small => 3000,
        Size::Default => 100_000,
        Size::Large => 4 << 20,
    };
    let mut a: Vec<u32> = pseudo_random(11, n).iter().map(|r| r % MAX_START + 1).collect();
    // 1 takes no step; 27 and 77 671 are known long or high trajectories.
    a[..3].copy_from_slice(&[1, 27, 77_671]);
    let want: Vec<u32> = a.iter().map(|&x| collatz_steps(x)).collect();
    let pa = upload(d, &a)?;
    let out = d.alloc((n * 4) as u64).map_err(|e| e.to_string())?.addr;
    let cfg =
        LaunchConfig { grid: [n.div_ceil(WG) as u32, 1, 1], args: args(&[pa, out], &[n as u32]), ..Default::default() };
    let check = move |d: &Device| {
        compare("steps", &d.read_u32s(out, n)?, &want)?;
        Ok(format!("{n} step counts correct, longest {}", want.iter().max().unwrap()))
    };
    let native = move || {
        let s: Vec<u32> = black_box(&a).iter().map(|&x| collatz_steps(x)).collect();
        black_box(s);
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
