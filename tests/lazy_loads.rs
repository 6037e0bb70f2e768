//! Registers (vector and uniform) a block writes before reading them stay in the wave state until a masked
//! variant needs them (`Fx::begin_block_lazy`), and a function whose lowering reads such a register anyway is
//! built again loading every register (`CompiledKernel::rebuilt`). Planted bug 163 makes the analysis wrong on
//! purpose (registers an instruction reads and writes, an fma's accumulator, count as written first): the
//! second build must happen and give every example's exact answer. Its own binary: the mutant switch is
//! process-wide.

use lanejit::{Device, Engine, Kernel, LaunchConfig};
use lanejit_cli::examples::{self, Size};
use lanejit_jit::{compile, mutants, JitOptions};

/// Optimised code of every bundled example, and how many of its functions were built twice.
fn rebuilt_per_example() -> Vec<(&'static str, usize)> {
    examples::all()
        .into_iter()
        .map(|ex| {
            let kernel = Kernel::from_asm(ex.name, ex.source).unwrap_or_else(|e| panic!("{e}"));
            let compiled = compile(&kernel.code, &JitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
            (ex.name, compiled.rebuilt)
        })
        .collect()
}

/// Runs every example on optimised code only (every block promoted before it runs) and checks its answer.
fn examples_are_exact() {
    for ex in examples::all() {
        // Outside the code cache: the reset below must reach no other test's kernel.
        let config = lanejit::tier::CompileConfig { share: false, ..Default::default() };
        let kernel = Kernel::from_asm(ex.name, ex.source).unwrap_or_else(|e| panic!("{e}")).with_config(config);
        kernel.jit_promotion.reset(0);
        let device = Device::new().expect("device");
        let setup = (ex.setup)(&device, Size::Small).expect("setup");
        let cfg = LaunchConfig { engine: Engine::Jit, ..setup.cfg.clone() };
        device.launch(&kernel, &cfg).unwrap_or_else(|e| panic!("{}: {e}", ex.name));
        (setup.check)(&device).unwrap_or_else(|e| panic!("{}: wrong answer: {e}", ex.name));
    }
}

#[test]
fn a_function_whose_lowering_reads_an_unloaded_register_is_built_again_and_stays_exact() {
    mutants::set(None).expect("deselecting always works");
    let clean = rebuilt_per_example();
    assert!(clean.iter().all(|&(_, n)| n == 0), "no lowering reads a register it only writes: {clean:?}");

    mutants::set(Some(163)).expect("the test suite builds the planted bugs");
    let planted = rebuilt_per_example();
    // matmul's fma chain reads and writes its accumulator v10; saxpy's fma writes a fresh register.
    let by_name = |name: &str| planted.iter().find(|p| p.0 == name).map(|p| p.1);
    assert!(by_name("matmul") > Some(0), "matmul's accumulator is read before written: {planted:?}");
    examples_are_exact();
    mutants::set(None).expect("deselecting always works");
}
