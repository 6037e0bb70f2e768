//! `auto` tiering, block by block: with several thresholds (so that blocks switch to compiled code at
//! different moments, part of a kernel compiled and part interpreted) and with one and two worker threads
//! (one thread compiles while the other runs the older code), every example still gives its exact answer; and
//! the compiled set grows only with the blocks that ran.

use lanejit::examples::{self, Size};
use lanejit::{Device, Engine, Kernel, LaunchConfig};

fn launch(name: &str, threshold: u32, threads: usize) -> Kernel {
    let ex = examples::by_name(name).expect("bundled example");
    let kernel = Kernel::from_asm(name, ex.source).unwrap_or_else(|e| panic!("{e}"));
    kernel.tiers.reset(threshold);
    let device = Device::new().expect("device");
    let setup = (ex.setup)(&device, Size::Small).expect("setup");
    let cfg = LaunchConfig { engine: Engine::Auto, threads: Some(threads), ..setup.cfg.clone() };
    device.launch(&kernel, &cfg).unwrap_or_else(|e| panic!("{name}, threshold {threshold}, {threads} threads: {e}"));
    (setup.check)(&device).unwrap_or_else(|e| panic!("{name}, threshold {threshold}, {threads} threads: wrong answer: {e}"));
    kernel
}

#[test]
fn examples_are_exact_whatever_blocks_are_compiled() {
    for name in ["saxpy", "reduce", "scan", "matmul", "divergent", "alu_loop", "histogram"] {
        for threshold in [1, 3, 17, 200] {
            for threads in [1, 2] {
                launch(name, threshold, threads);
            }
        }
    }
}

#[test]
fn hot_loops_get_compiled_and_never_run_code_does_not() {
    let k = launch("alu_loop", 8, 1);
    let ck = k.tiers.current().expect("the loop of alu_loop runs thousands of times: it must be compiled");
    assert!(ck.guest_insns > 0 && ck.guest_insns < k.code.words.len(), "compiled {} of {} words", ck.guest_insns, k.code.words.len());
}

#[test]
fn thresholds_zero_and_max_mean_everything_and_nothing() {
    let k = launch("divergent", u32::MAX, 2);
    assert!(k.tiers.current().is_none(), "a threshold of u32::MAX never compiles");
    let k = launch("divergent", 0, 2);
    assert!(k.tiers.compiles_everything());
}
