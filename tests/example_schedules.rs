//! Issue 35: every bundled example is race-free, so it gives identical results (how it ended, every byte of
//! writable memory) under 1,000 random schedules as in the fixed order (`lanejit::explore`, interpreter,
//! `Size::Small`), and its own check of the result passes afterwards.

use lanejit::explore::{explore, ExploreConfig, ExplorePolicy};
use lanejit::{Device, Engine, Kernel};
use lanejit_cli::examples::{self, Example, Size};
use std::time::{Duration, Instant};

/// The count.
const SCHEDULES: u32 = 1000;

/// Explores `ex` under `schedules` random schedules from seed 0; panics naming the first that differs.
fn explore_example(ex: &Example, schedules: u32) -> Duration {
    let kernel = Kernel::from_asm(ex.name, ex.source).unwrap();
    let device = Device::new().unwrap();
    let setup = (ex.setup)(&device, Size::Small).unwrap();
    let cfg = lanejit::LaunchConfig { engine: Engine::Interp, ..setup.cfg };
    let config = ExploreConfig { schedules, policy: ExplorePolicy::Random, ..Default::default() };
    let t0 = Instant::now();
    let report = explore(&device, &kernel, &cfg, &config).unwrap();
    let elapsed = t0.elapsed();
    if let Some(d) = &report.first {
        panic!(
            "{}: schedule {} ({}) differs from the fixed run: {} ({} bytes)",
            ex.name, d.index, d.schedule, d.outcome, d.differing_bytes
        );
    }
    assert_eq!(report.schedules_run, schedules, "{}", ex.name);
    (setup.check)(&device).unwrap_or_else(|e| panic!("{}: after exploring: {e}", ex.name));
    elapsed
}

/// One test per example (so the harness runs them side by side); `every_example_has_a_test` keeps the list whole.
macro_rules! examples {
    ($($name:ident),* $(,)?) => {
        const TESTED: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                let ex = examples::by_name(stringify!($name)).expect("a bundled example");
                let t = explore_example(ex, SCHEDULES);
                eprintln!("{}: {SCHEDULES} schedules in {:.2} s", ex.name, t.as_secs_f64());
            }
        )*
    };
}

examples!(
    vadd,
    saxpy,
    reduce,
    scan,
    bitonic,
    histogram,
    matmul,
    divergent,
    alu_loop,
    xlane_loop,
    atomic_reduce,
    wave_scan,
    butterfly,
    ballot_count,
    xorshift,
    resize,
    blur,
    empty
);

#[test]
fn every_example_has_a_test() {
    let all: Vec<&str> = examples::all().iter().map(|e| e.name).collect();
    assert_eq!(all, TESTED, "add the new example to the examples! list");
}
