//! `lanejit wave`: one wave from a JSON state until `end`, a trap, the budget or the deadline.

use crate::cli::{load_kernel, load_state, Failed, WaveArgs};
use anyhow::{anyhow, Result};
use lanejit::state_json::StateJson;
use lanejit::trace::PrintTracer;
use lanejit::wave::{self, WaveLimits};

/// `wave --dump`, checked before the wave runs: not the program or the initial state, and writable.
fn check_dump(a: &WaveArgs) -> Result<Option<crate::runcmd::saves::Created>> {
    let Some(dump) = &a.dump else { return Ok(None) };
    let mut inputs = vec![(a.program.clone(), "the program".to_string())];
    inputs.extend(a.init.iter().map(|p| (p.clone(), "the initial state".to_string())));
    let outputs = [(format!("--dump {}", dump.display()), dump.clone())];
    crate::runcmd::saves::check_outputs(&outputs, &inputs).map(Some)
}

/// Runs `lanejit wave`: the dump (or standard output) gets the final state; exit 1 when the wave trapped.
pub fn run_wave(a: &WaveArgs, compile: &lanejit::CompileConfig) -> Result<()> {
    let created = check_dump(a)?;
    let kernel = load_kernel(&a.program, compile)?;
    let state = match &a.init {
        Some(p) => load_state(p)?,
        None => StateJson::default(),
    };
    let limits = WaveLimits {
        budget: a.budget.or(state.budget).unwrap_or(wave::DEFAULT_WAVE_BUDGET),
        deadline: Some(a.deadline.unwrap_or(wave::DEFAULT_WAVE_DEADLINE)),
        install_seed: None,
    };
    let mut tracer = PrintTracer { out: std::io::stderr() };
    let out = wave::run_wave_limited(&kernel, &state, a.engine, limits, a.trace.then_some(&mut tracer as _))
        .map_err(|e| anyhow!(e))?;
    let json = serde_json::to_string_pretty(&out.to_json())?;
    let mut errors = Vec::new();
    match &a.dump {
        Some(p) => {
            if let Err(e) = std::fs::write(p, json + "\n") {
                errors.push(format!("--dump {}: writing it: {e}", p.display()));
            }
        }
        None => println!("{json}"),
    }
    if let Some(c) = created {
        c.keep();
    }
    eprintln!("retired {} instructions", out.state.retired);
    let verdict = match &out.trap {
        Some(t) => Err(Failed(format!("trap: {t}")).into()),
        None => Ok(()),
    };
    crate::runcmd::saves::with_save_errors(verdict, errors)
}
