//! Every bundled example at `Size::Small` on every available engine, checked against its Rust reference;
//! and a launch whose memory must not depend on the number of worker threads.

use lanejit::examples::{self, Size};
use lanejit::{engine_available, Device, Engine, Kernel, LaunchConfig};

fn assemble(ex: &examples::Example) -> Kernel {
    Kernel::from_asm(&format!("examples/{}.s", ex.name), ex.source).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs one example on one engine and returns its check summary.
fn run(ex: &examples::Example, engine: Engine, threads: Option<usize>) -> Result<String, String> {
    let kernel = assemble(ex);
    let device = Device::new().map_err(|e| e.to_string())?;
    let setup = (ex.setup)(&device, Size::Small)?;
    let cfg = LaunchConfig { engine, threads, ..setup.cfg.clone() };
    device.launch(&kernel, &cfg).map_err(|e| format!("{} on {engine:?}: {e}", ex.name))?;
    (setup.check)(&device).map_err(|e| format!("{} on {engine:?}: wrong answer: {e}", ex.name))
}

fn engines() -> Vec<Engine> {
    [Engine::Interp, Engine::Jit, Engine::Auto].into_iter().filter(|e| engine_available(*e).is_ok()).collect()
}

fn check_example(name: &str) {
    let ex = examples::by_name(name).unwrap_or_else(|| panic!("example `{name}` is not registered"));
    for engine in engines() {
        if let Err(e) = run(ex, engine, None) {
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

example_tests!(vadd, saxpy, reduce, scan, bitonic, histogram, matmul, divergent, alu_loop, xlane_loop);

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
    for ex in examples::all() {
        let device = Device::new().unwrap();
        let setup = (ex.setup)(&device, Size::Small).unwrap();
        assert!((setup.check)(&device).is_err(), "{}: check passes without a launch", ex.name);
    }
}

/// One worker thread and two give identical memory (workgroups are independent), on every engine.
#[test]
fn vadd_threads_agree() {
    let ex = examples::by_name("vadd").unwrap();
    let kernel = assemble(ex);
    let memory = |engine: Engine, threads: usize| {
        let device = Device::new().unwrap();
        let setup = (ex.setup)(&device, Size::Small).unwrap();
        device.launch(&kernel, &LaunchConfig { engine, threads: Some(threads), ..setup.cfg.clone() }).unwrap();
        (setup.check)(&device).unwrap();
        let allocs = device.arena.allocations();
        allocs.iter().map(|a| device.read(a.addr, a.size).unwrap()).collect::<Vec<_>>()
    };
    for engine in engines() {
        assert_eq!(memory(engine, 1), memory(engine, 2), "{engine:?}");
    }
}
