//! Criterion benchmarks of JIT compile time per bundled kernel (the whole kernel, every block), for each tier,
//! so changes to the lowering can be compared against a saved baseline
//! (`cargo bench --bench compile -- --save-baseline main`, then `--baseline main`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lanejit::Kernel;
use lanejit_cli::examples;
use lanejit_jit::{compile_blocks, Tier};

fn compile(c: &mut Criterion) {
    for (tier, name) in [(Tier::Quick, "compile-quick"), (Tier::Opt, "compile-opt")] {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        for ex in examples::all() {
            let kernel = Kernel::from_asm(ex.name, ex.source).expect("bundled kernel assembles");
            let insns = compile_blocks(&kernel.code, None, tier, &Default::default()).expect("compiles").guest_insns;
            group.throughput(Throughput::Elements(insns as u64));
            group.bench_function(ex.name, |b| {
                b.iter(|| compile_blocks(&kernel.code, None, tier, &Default::default()).expect("compiles"))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, compile);
criterion_main!(benches);
