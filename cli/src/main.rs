//! The `lanejit` command line (its definition and commands live in the `lanejit_cli` library's `cli` module). This is the
//! only place that reads the environment: the `LANEJIT_*` knobs become the library's `CompileConfig`.

use clap::Parser;
use lanejit::CompileConfig;
use lanejit_cli::cli::{dispatch, exit_code, Cli};
use lanejit_jit::{OptLevel, RegAlloc};

fn main() {
    fixed_mmap_threshold();
    default_sigpipe();
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
    if let Some(n) = var("LANEJIT_COMPILE_THREADS")? {
        c.compile_threads = n
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= MAX_COMPILE_THREADS)
            .ok_or_else(|| bad("LANEJIT_COMPILE_THREADS", &n, "a count of compile threads from 0 to 64"))?;
    }
    c.jit.report.timing = std::env::var_os("LANEJIT_JIT_TIMING").is_some();
    c.jit.report.clif = std::env::var_os("LANEJIT_JIT_CLIF").is_some();
    c.jit.report.insts = std::env::var_os("LANEJIT_JIT_INSTS").is_some();
    c.jit.report.disasm = std::env::var_os("LANEJIT_JIT_DISASM").is_some();
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

/// glibc raises its mmap threshold each time a large block is freed (up to 32 MiB), so later large blocks come
/// from the heap and stay resident after they are freed: a long `fuzz` campaign's resident memory crept from
/// 17 to 24 MB over its first ten minutes that way (a high-water mark of compile-time peaks, not a leak).
/// A fixed threshold turns the adjustment off: blocks of 128 KiB and up are mapped and unmapped (the same
/// campaign stays at 11-14 MB from its first minute). Process-wide allocator policy, so the binary's choice.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    /// `M_MMAP_THRESHOLD` in glibc's `malloc.h`.
    const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
    const THRESHOLD: std::ffi::c_int = 128 * 1024;
    extern "C" {
        fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    }
    // SAFETY: mallopt only changes the allocator's parameters; it is called before any other thread exists.
    unsafe {
        mallopt(M_MMAP_THRESHOLD, THRESHOLD);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fixed_mmap_threshold() {}

/// Most compile threads `LANEJIT_COMPILE_THREADS` may ask for.
const MAX_COMPILE_THREADS: usize = 64;

/// A closed standard output (`lanejit run k.s --json | head`) ends the command as it ends `cat`: by SIGPIPE,
/// quietly. Rust ignores SIGPIPE, so a write to a closed pipe would fail and `println!` would panic instead.
#[cfg(unix)]
fn default_sigpipe() {
    // SAFETY: restores the default action of one signal before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}
