//! `lanejit bench --first-launch`'s table: one line per kernel and engine, printed as each kernel is measured.

use super::{FirstLaunchArgs, KernelRow, DEFAULT_REPEAT, SLOW_INTERP, SLOW_REPEAT, STEADY_WITHIN, WORKER_THREADS};
use lanejit::CompileConfig;

/// What the columns mean, and the column heads.
pub(super) fn header(a: &FirstLaunchArgs, compile: &CompileConfig) {
    let n = a.repeat.unwrap_or(DEFAULT_REPEAT);
    let (slow, threads) = (SLOW_INTERP.as_secs(), compile.compile_threads);
    for line in [
        format!("first launches: a fresh kernel per engine (nothing compiled carries over), {n} launches back to back"),
        format!(
            "from the same initial buffers; {WORKER_THREADS} worker thread, {threads} compile thread(s); times in ms."
        ),
        format!("n: launches (`*`: cut to {SLOW_REPEAT}, the interpreter's first launch took over {slow} s)."),
        format!("steady: the first launch within {STEADY_WITHIN}x of the best of the series."),
        "crit: compile time on the critical path (the JIT's whole-kernel compile inside launch 1).".into(),
        "bg cpu: CPU time of the compile threads for this series (waited for after the last launch);".into(),
        "bg wall: compile_time of the tiered code after the series (wall clock on a low-priority thread; `+`:".into(),
        "some compilation finished only after the last launch); blk: blocks compiled in the background.".into(),
        "int1/intN: % of launch 1's / the last launch's instructions interpreted.".into(),
        "xint: first launch / the interpreter's first launch (below 1: faster).".into(),
    ] {
        println!("{line}");
    }
    println!(
        "{:<13} {:>6} {:<6} {:>2} {:>9} {:>8} {:>6} {:>7} {:>8} {:>9} {:>4} {:>4} {:>4} {:>6}",
        "kernel",
        "words",
        "engine",
        "n",
        "first",
        "best",
        "steady",
        "crit",
        "bg cpu",
        "bg wall",
        "blk",
        "int1",
        "intN",
        "xint"
    );
}

/// A figure, or `-` for none.
fn opt(x: Option<f64>) -> String {
    x.filter(|&v| v >= 0.05).map_or("-".into(), |v| format!("{v:.1}"))
}

/// One kernel's lines: its name and size on the first, then one engine per line, then any disagreement.
pub(super) fn kernel(k: &KernelRow) {
    for (i, r) in k.engines.iter().enumerate() {
        let (name, words) = if i == 0 { (k.kernel.as_str(), k.words.to_string()) } else { ("", String::new()) };
        let n = format!("{}{}", r.launches, if k.capped { "*" } else { "" });
        let wall = format!("{}{}", opt(Some(r.background_compile_ms)), if r.compiled_after_series { "+" } else { "" });
        let blk = if r.background_blocks > 0 { r.background_blocks.to_string() } else { "-".into() };
        let ratio = r.first_vs_interp.map_or("-".into(), |v| format!("{v:.2}"));
        println!(
            "{name:<13} {words:>6} {:<6} {n:>2} {:>9.2} {:>8.2} {:>6} {:>7} {:>8} {wall:>9} {blk:>4} {:>4.0} {:>4.0} {ratio:>6}",
            r.engine,
            r.first_ms,
            r.best_ms,
            r.steady_at,
            opt(Some(r.critical_compile_ms)),
            opt(r.background_cpu_ms),
            r.first_interpreted_pct,
            r.last_interpreted_pct,
        );
    }
    for d in &k.disagreements {
        println!("  DISAGREE {}: {d}", k.kernel);
    }
}
