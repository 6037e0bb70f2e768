//! Rough ns/op of the fast (host, RNE) and soft (apfloat) paths, measured in one run.
//! Ignored by default (timing, not correctness): `cargo test --release fp::timing -- --ignored --nocapture`.

use super::*;
use std::hint::black_box;
use std::time::Instant;

const LEN: usize = 1024;
const REPS: usize = 2000;

/// Mean ns per call of `f` over LEN×REPS calls on fixed pseudo-random operands.
fn ns(xs: &[[u64; 3]], f: impl Fn(u64, u64, u64) -> u64) -> f64 {
    let t = Instant::now();
    let mut acc = 0u64;
    for _ in 0..REPS {
        for x in xs {
            acc ^= f(black_box(x[0]), black_box(x[1]), black_box(x[2]));
        }
    }
    black_box(acc);
    t.elapsed().as_nanos() as f64 / (REPS * LEN) as f64
}

#[test]
#[ignore = "a timing report, not a check (speed is measured, never asserted): cargo test --release -p lanejit-interp fp::timing -- --ignored --nocapture"]
fn fast_vs_soft_ns_per_op() {
    let mut rng = oracle::Rng(1);
    // Values in a moderate range, so that neither path takes a special-case shortcut.
    let mut draw = |e0: u64, man: u32, sign: u32| -> u64 {
        let r = rng.next();
        (r & ((1 << man) - 1)) | (e0 + r % 16 - 8) << man | ((r >> 40) & 1) << sign
    };
    let x32: Vec<[u64; 3]> = (0..LEN).map(|_| [0; 3].map(|_| draw(127, 23, 31))).collect();
    let x64: Vec<[u64; 3]> = (0..LEN).map(|_| [0; 3].map(|_| draw(1023, 52, 63))).collect();
    let x16: Vec<[u64; 3]> = (0..LEN).map(|_| [0; 3].map(|_| draw(15, 10, 15))).collect();
    let rne = FpMode::RNE;
    let rtz = FpMode::with_round(Round::Rtz);
    let mut rows: Vec<(&str, f64, f64, f64)> = Vec::new();
    macro_rules! row {
        ($name:expr, $xs:expr, |$a:ident, $b:ident, $c:ident, $m:ident| $call:expr, $soft:expr) => {{
            let fast = ns($xs, |$a, $b, $c| {
                let $m = rne;
                $call
            });
            let soft_rne = ns($xs, |$a, $b, $c| {
                let $m = rne;
                let _ = $m;
                $soft
            });
            let public_rtz = ns($xs, |$a, $b, $c| {
                let $m = rtz;
                $call
            });
            rows.push(($name, fast, soft_rne, public_rtz));
        }};
    }
    row!("f32_add", &x32, |a, b, _c, m| f32_add(a as u32, b as u32, m) as u64, soft::add::<S>(a, b, m));
    row!("f32_mul", &x32, |a, b, _c, m| f32_mul(a as u32, b as u32, m) as u64, soft::mul::<S>(a, b, m));
    row!("f32_div", &x32, |a, b, _c, m| f32_div(a as u32, b as u32, m) as u64, soft::div::<S>(a, b, m));
    row!("f32_fma", &x32, |a, b, c, m| f32_fma(a as u32, b as u32, c as u32, m) as u64, soft::fma::<S>(a, b, c, m));
    row!(
        "f32_sqrt",
        &x32,
        |a, _b, _c, m| f32_sqrt(a as u32 & 0x7fff_ffff, m) as u64,
        f32_sqrt(a as u32 & 0x7fff_ffff, rtz) as u64
    );
    row!("f64_add", &x64, |a, b, _c, m| f64_add(a, b, m), soft::add::<D>(a, b, m));
    row!("f64_mul", &x64, |a, b, _c, m| f64_mul(a, b, m), soft::mul::<D>(a, b, m));
    row!("f64_div", &x64, |a, b, _c, m| f64_div(a, b, m), soft::div::<D>(a, b, m));
    row!("f64_fma", &x64, |a, b, c, m| f64_fma(a, b, c, m), soft::fma::<D>(a, b, c, m));
    row!("f64_sqrt", &x64, |a, _b, _c, m| f64_sqrt(a & !(1 << 63), m), f64_sqrt(a & !(1 << 63), rtz));
    row!("f16_add", &x16, |a, b, _c, m| f16_add(a as u16, b as u16, m) as u64, soft::add::<H>(a, b, m));
    row!("f16_mul", &x16, |a, b, _c, m| f16_mul(a as u16, b as u16, m) as u64, soft::mul::<H>(a, b, m));
    row!("f16_fma", &x16, |a, b, c, m| f16_fma(a as u16, b as u16, c as u16, m) as u64, soft::fma::<H>(a, b, c, m));
    row!("f32_to_f16", &x32, |a, _b, _c, m| f32_to_f16(a as u32, m) as u64, soft::convert::<S, H>(a, m));
    row!("i32_to_f32", &x32, |a, _b, _c, m| i32_to_f32(a as i32, m) as u64, soft::from_i64::<S>(a as i32 as i64, m));
    row!("f32_to_i32", &x32, |a, _b, _c, m| f32_to_i32(a as u32, m) as u64, f32_to_i32(a as u32, rtz) as u64);
    row!("f32_min", &x32, |a, b, _c, m| f32_min(a as u32, b as u32, m) as u64, f32_min(a as u32, b as u32, rtz) as u64);
    row!("f32_sin", &x32, |a, _b, _c, m| f32_sin(a as u32, m) as u64, f32_sin(a as u32, rtz) as u64);
    row!("f32_exp2", &x32, |a, _b, _c, m| f32_exp2(a as u32, m) as u64, f32_exp2(a as u32, rtz) as u64);
    row!("f32_log2", &x32, |a, _b, _c, m| f32_log2(a as u32 & 0x7fff_ffff, m) as u64, f32_log2(a as u32, rtz) as u64);
    eprintln!("{:<12} {:>10} {:>12} {:>12}", "op", "fast RNE", "soft RNE*", "public RTZ");
    for (name, fast, soft, rtz) in rows {
        eprintln!("{name:<12} {fast:>10.1} {soft:>12.1} {rtz:>12.1}");
    }
    eprintln!("ns/op; * soft column = apfloat forced in RNE, or the public fn in RTZ where no apfloat path exists");
}
