//! Criterion benchmarks of the engines on the bundled kernels (baselines: `cargo bench -- --save-baseline
//! main`, then `--baseline main`). `lanejit bench` reports the same kernels with native-Rust ratios.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lanejit::{engine_available, Device, Engine, Kernel, LaunchConfig};
use lanejit_cli::examples::{self, Size};

fn engines(c: &mut Criterion) {
    let mut group = c.benchmark_group("engines");
    group.sample_size(10);
    for name in ["alu_loop", "xlane_loop", "saxpy", "matmul", "resize"] {
        let Some(ex) = examples::by_name(name) else { continue };
        let kernel = Kernel::from_asm(name, ex.source).expect("bundled kernel assembles");
        for engine in [Engine::Interp, Engine::Jit].into_iter().filter(|e| engine_available(*e).is_ok()) {
            let device = Device::new().expect("device");
            let setup = (ex.setup)(&device, Size::Small).expect("setup");
            let cfg = LaunchConfig { engine, threads: Some(1), ..setup.cfg.clone() };
            let lane_ops = device.launch(&kernel, &cfg).expect("launch").lane_ops;
            group.throughput(Throughput::Elements(lane_ops));
            group.bench_function(format!("{name}/{engine:?}"), |b| {
                b.iter(|| device.launch(&kernel, &cfg).expect("launch"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, engines);
criterion_main!(benches);
