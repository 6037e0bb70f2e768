//! Every bundled example at `Size::Small` on every available engine (the JIT in each of its modes), checked
//! against its Rust reference; and a launch whose memory must not depend on the number of worker threads.

use lanejit::{engine_available, tier, CompileConfig, Device, Engine, Kernel, LaunchConfig};
use lanejit_cli::examples::{self, Size};

fn assemble(ex: &examples::Example) -> Kernel {
    Kernel::from_asm(&format!("examples/{}.s", ex.name), ex.source).unwrap_or_else(|e| panic!("{e}"))
}

/// An engine, and the JIT promote threshold of the kernels it runs; `name` labels failures.
struct Mode {
    name: &'static str,
    engine: Engine,
    jit_hot: u32,
}

impl Mode {
    /// `ex`'s kernel, compiled and tiered as this mode says.
    fn kernel(&self, ex: &examples::Example) -> Kernel {
        assemble(ex).with_config(CompileConfig { jit_hot: self.jit_hot, ..Default::default() })
    }
}

/// Every available engine, `--engine jit` three ways: as shipped (tiered at `tier::JIT_HOT_BLOCK`), the
/// optimising tier for every block (promote threshold 0) and the quick tier alone (`u32::MAX`). As shipped,
/// blocks that never get hot would leave the optimising tier untested and hot ones the quick tier.
fn modes() -> Vec<Mode> {
    let shipped = tier::JIT_HOT_BLOCK;
    let mode = |name, engine, jit_hot| Mode { name, engine, jit_hot };
    [
        mode("interp", Engine::Interp, shipped),
        mode("jit", Engine::Jit, shipped),
        mode("jit-opt", Engine::Jit, 0),
        mode("jit-quick", Engine::Jit, u32::MAX),
        mode("auto", Engine::Auto, shipped),
    ]
    .into_iter()
    .filter(|m| engine_available(m.engine).is_ok())
    .collect()
}

/// Runs one example in one mode and returns its check summary.
fn run(ex: &examples::Example, mode: &Mode, threads: Option<usize>) -> Result<String, String> {
    let kernel = mode.kernel(ex);
    let device = Device::new().map_err(|e| e.to_string())?;
    let setup = (ex.setup)(&device, Size::Small)?;
    let cfg = LaunchConfig { engine: mode.engine, threads, ..setup.cfg.clone() };
    device.launch(&kernel, &cfg).map_err(|e| format!("{} on {}: {e}", ex.name, mode.name))?;
    (setup.check)(&device).map_err(|e| format!("{} on {}: wrong answer: {e}", ex.name, mode.name))
}

fn check_example(name: &str) {
    let ex = examples::by_name(name).unwrap_or_else(|| panic!("example `{name}` is not registered"));
    for mode in modes() {
        if let Err(e) = run(ex, &mode, None) {
            panic!("{e}");
        }
    }
}

macro_rules! example_tests {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check_example(stringify!($name)); })*

        /// Every registered example has a test above.
        #[test]
        fn every_example_is_tested() {
            let tested = [$(stringify!($name)),*];
            for ex in examples::all() {
                assert!(tested.contains(&ex.name), "example `{}` has no test in tests/examples.rs", ex.name);
            }
        }
    };
}

example_tests!(
    vadd,
    resize,
    blur,
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
    empty
);

#[test]
fn default_example_exists() {
    assert!(examples::by_name(examples::DEFAULT).is_some());
}

/// Every example's setup is valid at every size (Large only allocates; it is not launched here).
#[test]
fn sizes_set_up() {
    for ex in examples::all() {
        assemble(ex);
        for size in [Size::Small, Size::Default] {
            let device = Device::new().unwrap();
            (ex.setup)(&device, size).unwrap_or_else(|e| panic!("{} {size:?}: {e}", ex.name));
        }
    }
}

/// A check that passes on memory no kernel has touched would prove nothing.
#[test]
fn checks_reject_unlaunched_memory() {
    // `empty` writes nothing by design: its launch is checked by its statistics below.
    for ex in examples::all().into_iter().filter(|e| e.name != "empty") {
        let device = Device::new().unwrap();
        let setup = (ex.setup)(&device, Size::Small).unwrap();
        assert!((setup.check)(&device).is_err(), "{}: check passes without a launch", ex.name);
    }
}

/// `empty` retires exactly its `end` in every wave, on every engine.
#[test]
fn empty_retires_one_instruction_per_wave() {
    let ex = examples::by_name("empty").unwrap();
    let kernel = assemble(ex);
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        let device = Device::new().unwrap();
        let setup = (ex.setup)(&device, Size::Small).unwrap();
        let stats = device.launch(&kernel, &LaunchConfig { engine, ..setup.cfg.clone() }).unwrap();
        (setup.check)(&device).unwrap();
        assert!(stats.waves > 1 && stats.retired == stats.waves, "{engine:?}: {stats:?}");
    }
}

/// One worker thread and two give identical memory (workgroups are independent), in every mode.
#[test]
fn vadd_threads_agree() {
    let ex = examples::by_name("vadd").unwrap();
    let memory = |mode: &Mode, threads: usize| {
        // Every launch starts from the mode's threshold, not from the heat the previous launch left.
        let kernel = mode.kernel(ex);
        let device = Device::new().unwrap();
        let setup = (ex.setup)(&device, Size::Small).unwrap();
        device
            .launch(&kernel, &LaunchConfig { engine: mode.engine, threads: Some(threads), ..setup.cfg.clone() })
            .unwrap();
        (setup.check)(&device).unwrap_or_else(|e| panic!("{}, {threads} threads: {e}", mode.name));
        let allocs = device.arena.allocations();
        allocs.iter().map(|a| device.read(a.addr, a.size).unwrap()).collect::<Vec<_>>()
    };
    for mode in modes() {
        assert_eq!(memory(&mode, 1), memory(&mode, 2), "{}", mode.name);
    }
}
