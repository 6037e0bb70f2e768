//! Criterion benchmarks of each block's share of time (`LaunchConfig::block_time`, docs/profiling.md § Cost):
//! a launch of plain compiled code, of code that marks the blocks it enters while a thread samples the marks,
//! and of marking code nobody samples (which should cost what plain code costs), on one worker, for the
//! kernels whose blocks are shortest (where a mark per block entry weighs most).
//! `cargo bench --bench block_time`.

use criterion::{criterion_group, criterion_main, Criterion};
use lanejit::{CompileConfig, Device, Engine, Kernel, LaunchConfig};
use lanejit_cli::examples::{self, Size};

fn assemble(ex: &examples::Example, marking: bool) -> Kernel {
    let mut config = CompileConfig::default();
    config.jit.mark_blocks = marking;
    Kernel::from_asm(ex.name, ex.source).expect("bundled kernel assembles").with_config(config)
}

fn block_time(c: &mut Criterion) {
    let mut group = c.benchmark_group("block-time");
    group.sample_size(20);
    for name in ["alu_loop", "divergent", "xorshift"] {
        let ex = examples::by_name(name).expect("bundled example");
        let (plain, marking) = (assemble(ex, false), assemble(ex, true));
        let device = Device::new().expect("device");
        let setup = (ex.setup)(&device, Size::Default).expect("setup");
        let cfg = LaunchConfig { engine: Engine::Jit, threads: Some(1), ..setup.cfg.clone() };
        let sampled = LaunchConfig { block_time: true, ..cfg.clone() };
        for (what, kernel, config) in
            [("plain", &plain, &cfg), ("sampled", &marking, &sampled), ("marking-unsampled", &marking, &cfg)]
        {
            device.launch(kernel, config).expect("launch compiles");
            group.bench_function(format!("{name}/{what}"), |b| {
                b.iter(|| device.launch(kernel, config).expect("launch"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, block_time);
criterion_main!(benches);
