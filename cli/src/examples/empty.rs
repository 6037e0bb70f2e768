//! A kernel that only ends, launched over many waves: what launching a wave costs.

use super::{args, compare, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig, LANES};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "empty",
    about: "benchmark: a kernel that only ends (`end`), over 2^20 waves at the large size (launch cost per wave)",
    source: include_str!("../../../examples/empty.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in empty.s.
const WG: usize = 64;
/// Fills a buffer the kernel must leave alone.
const UNTOUCHED: u32 = 0x5eed_f00d;
const UNTOUCHED_WORDS: usize = 16;

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let workgroups: usize = match size {
        Size::Small => 64,
        Size::Default => 1 << 14,
        Size::Large => 1 << 19,
    };
    let waves = workgroups * WG.div_ceil(LANES);
    let untouched = upload(d, &[UNTOUCHED; UNTOUCHED_WORDS])?;
    // The kernel reads no argument (the runtime passes them all the same).
    let arg_bytes = args(&[untouched], &[workgroups as u32]);
    let cfg = LaunchConfig { grid: [workgroups as u32, 1, 1], args: arg_bytes, ..Default::default() };
    // The kernel writes nothing, so memory cannot show that it ran: only that it touched nothing. (`Check` sees
    // only the device; tests/examples.rs checks the launch statistics: one retired instruction per wave.)
    let check = move |d: &Device| {
        compare("untouched", &d.read_u32s(untouched, UNTOUCHED_WORDS)?, &[UNTOUCHED; UNTOUCHED_WORDS])?;
        Ok(format!("{waves} waves ({workgroups} workgroups) ended, nothing written"))
    };
    let native = move || {
        for wave in 0..black_box(waves) {
            black_box(wave);
        }
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
