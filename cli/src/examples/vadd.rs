//! c[i] = a[i] + b[i].

use super::{args, compare, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "vadd",
    about: "vector add c[i] = a[i] + b[i] (u32, wrapping)",
    source: include_str!("../../../examples/vadd.s"),
    setup,
};

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let n = match size {
        Size::Small => 1000,
        Size::Default => 100_000,
        Size::Large => 4 << 20,
    };
    let (a, b) = (pseudo_random(1, n), pseudo_random(2, n));
    let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
    let (pa, pb) = (upload(d, &a)?, upload(d, &b)?);
    let pc = d.alloc(n as u64 * 4).map_err(|e| e.to_string())?.addr;
    let wg = 64;
    let cfg = LaunchConfig {
        grid: [(n as u32).div_ceil(wg), 1, 1],
        args: args(&[pa, pb, pc], &[n as u32]),
        ..Default::default()
    };
    let check = move |d: &Device| {
        compare("c", &d.read_u32s(pc, n)?, &want)?;
        Ok(format!("{n} sums correct"))
    };
    let native = move || {
        let c: Vec<u32> = black_box(&a).iter().zip(black_box(&b)).map(|(x, y)| x.wrapping_add(*y)).collect();
        black_box(c);
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
