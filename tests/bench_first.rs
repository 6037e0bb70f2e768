//! `lanejit bench --first-launch` (`lanejit_cli::bench_first`) on its cheapest selection: the small alu kernels
//! (generated `alu-1k` and `alu-5k`, and the bundled `alu_loop`), two launches per engine. Checks the report's
//! JSON shape and that the engines agree; the figures themselves are a benchmark's, not a test's.

use lanejit::CompileConfig;
use lanejit_cli::bench_first::{measure_all, FirstLaunchArgs, DEFAULT_ENGINES};
use serde_json::Value;

fn small_alu() -> FirstLaunchArgs {
    FirstLaunchArgs { size: "small".into(), repeat: Some(2), filter: Some("alu".into()), ..FirstLaunchArgs::default() }
}

#[test]
fn small_alu_kernels_agree_on_every_engine_and_report_each_series() {
    let mut streamed = Vec::new();
    let report = measure_all(&small_alu(), &CompileConfig::default(), |k| streamed.push(k.kernel.clone()))
        .expect("the small alu kernels run");
    let json = serde_json::to_value(&report).expect("the report serialises");
    let kernels = json["kernels"].as_array().expect("kernels");
    let names: Vec<&str> = kernels.iter().map(|k| k["kernel"].as_str().expect("kernel name")).collect();
    assert_eq!(names, ["alu-1k", "alu-5k", "alu_loop"], "{json:#}");
    assert_eq!(streamed, names, "each kernel's row is handed over as it is measured");
    for k in kernels {
        assert_eq!(k["outputs_agree"], Value::Bool(true), "{k:#}");
        assert!(k["words"].as_u64().is_some_and(|w| w > 0), "{k:#}");
        let engines: Vec<&str> =
            k["engines"].as_array().expect("engines").iter().map(|e| e["engine"].as_str().unwrap()).collect();
        assert_eq!(engines, DEFAULT_ENGINES, "{k:#}");
        for e in k["engines"].as_array().unwrap() {
            check_series(e);
        }
    }
}

/// One engine's series: two launches, the first and best among them, steady at one of them, the eager compile
/// only on the JIT, and the first launch's ratio to the interpreter's.
fn check_series(e: &Value) {
    let times: Vec<f64> = e["times_ms"].as_array().expect("times_ms").iter().map(|t| t.as_f64().unwrap()).collect();
    assert_eq!(times.len(), 2, "{e:#}");
    assert_eq!(e["launches"].as_u64(), Some(2), "{e:#}");
    assert_eq!(e["first_ms"].as_f64(), Some(times[0]), "{e:#}");
    assert_eq!(e["best_ms"].as_f64(), Some(times[0].min(times[1])), "{e:#}");
    assert!(matches!(e["steady_at"].as_u64(), Some(1 | 2)), "{e:#}");
    let critical = e["critical_compile_ms"].as_f64().expect("critical_compile_ms");
    assert_eq!(critical > 0.0, e["engine"] == "jit", "only the JIT compiles before launch 1: {e:#}");
    assert!(e["background_compile_ms"].as_f64().is_some_and(|b| b >= 0.0), "{e:#}");
    assert!(e["first_vs_interp"].as_f64().is_some_and(|r| r > 0.0), "{e:#}");
    assert!(e["retired"].as_u64().is_some_and(|r| r > 0), "{e:#}");
}

#[test]
fn bad_options_are_refused_before_anything_runs() {
    let cfg = CompileConfig::default();
    let run = |a: FirstLaunchArgs| measure_all(&a, &cfg, |_| panic!("nothing is measured")).unwrap_err().to_string();
    assert!(run(FirstLaunchArgs { size: "huge".into(), ..small_alu() }).contains("unknown size"));
    assert!(run(FirstLaunchArgs { repeat: Some(0), ..small_alu() }).contains("--repeat"));
    assert!(run(FirstLaunchArgs { filter: Some("nothing-matches".into()), ..small_alu() }).contains("--filter"));
    assert!(run(FirstLaunchArgs { engines: vec!["jit".into(), "jit".into()], ..small_alu() }).contains("twice"));
}
