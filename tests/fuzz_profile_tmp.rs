use lanejit::fuzz::*;
use std::time::Instant;
#[test]
fn profile() {
    let mut rows = vec![];
    for k in 0..150u64 {
        let c = generate(program_seed(0, k));
        let p = c.prog.render().unwrap();
        let kernel = lanejit::Kernel::from_program(p.clone());
        let t = Instant::now();
        let _ = kernel.compiled();
        let ct = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let _ = check(&p, &c.init, AutoMode::Cold, None, &[]);
        let tot = t.elapsed().as_secs_f64() * 1e3;
        rows.push((p.words.len(), c.prog.op_count(), ct, tot));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let n = rows.len() as f64;
    println!("mean words {:.0} compile {:.1} ms check {:.1} ms", rows.iter().map(|r| r.0 as f64).sum::<f64>() / n, rows.iter().map(|r| r.2).sum::<f64>() / n, rows.iter().map(|r| r.3).sum::<f64>() / n);
    for r in rows.iter().step_by(10) { println!("{:?}", r); }
}
