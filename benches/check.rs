//! Criterion benchmarks of the static wait-hazard check (`lanejit check`'s analysis, without process start and
//! assembly) per bundled kernel: `cargo bench --bench check`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lanejit::static_check::check;
use lanejit_cli::examples;

fn static_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("static-check");
    group.sample_size(20);
    for ex in examples::all() {
        let (program, lines) = lanejit_isa::assemble_with_lines(ex.name, ex.source).expect("bundled kernel assembles");
        group.throughput(Throughput::Elements(program.words.len() as u64));
        group.bench_function(ex.name, |b| b.iter(|| check(&program, Some(lines.as_slice()))));
    }
    group.finish();
}

criterion_group!(benches, static_check);
criterion_main!(benches);
