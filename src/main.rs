//! The `lanejit` command line (its definition and commands live in the library's `cli` module). This is the
//! only place that reads the environment: the `LANEJIT_*` knobs become the library's `CompileConfig`.

use clap::Parser;
use lanejit::cli::{dispatch, exit_code, Cli};
use lanejit::CompileConfig;
use lanejit_jit::{OptLevel, RegAlloc};

fn main() {
    let cli = Cli::parse();
    let result = config_from_env().and_then(|compile| dispatch(cli.cmd, &compile));
    if let Err(e) = &result {
        eprintln!("error: {e:#}");
    }
    std::process::exit(exit_code(&result));
}

/// `CompileConfig` from the `LANEJIT_*` variables (README, "Environment knobs"); a malformed value is bad
/// input (exit code 2), named with what it accepts.
fn config_from_env() -> anyhow::Result<CompileConfig> {
    let mut c = CompileConfig::default();
    if let Some(n) = var("LANEJIT_AUTO_HOT")? {
        c.auto_hot = threshold("LANEJIT_AUTO_HOT", &n)?;
    }
    if let Some(n) = var("LANEJIT_JIT_HOT")? {
        c.jit_hot = threshold("LANEJIT_JIT_HOT", &n)?;
    }
    if let Some(o) = var("LANEJIT_JIT_OPT")? {
        c.jit.opt_level =
            OptLevel::parse(&o).ok_or_else(|| bad("LANEJIT_JIT_OPT", &o, "none, speed or speed_and_size"))?;
    }
    if let Some(r) = var("LANEJIT_JIT_RA")? {
        c.jit.regalloc = RegAlloc::parse(&r).ok_or_else(|| bad("LANEJIT_JIT_RA", &r, "backtracking or single_pass"))?;
    }
    c.jit.report.timing = std::env::var_os("LANEJIT_JIT_TIMING").is_some();
    c.jit.report.clif = std::env::var_os("LANEJIT_JIT_CLIF").is_some();
    c.jit.report.insts = std::env::var_os("LANEJIT_JIT_INSTS").is_some();
    Ok(c)
}

fn var(name: &str) -> anyhow::Result<Option<String>> {
    match std::env::var(name) {
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(bad(name, "(not UTF-8)", "UTF-8 text")),
    }
}

/// A block-start count, or `never`.
fn threshold(name: &str, v: &str) -> anyhow::Result<u32> {
    if v == "never" {
        return Ok(u32::MAX);
    }
    v.parse().map_err(|_| bad(name, v, "a count from 0 to 4294967295, or `never`"))
}

fn bad(name: &str, value: &str, wants: &str) -> anyhow::Error {
    anyhow::anyhow!("{name}={value}: takes {wants}")
}
