//! CLI argument parsing: arbitrary bytes, split at NUL into arguments, parse as a `lanejit` command line or fail
//! with a clap error, and the argument validation that runs before any guest code (`run`'s buffers and scalar
//! arguments) errors cleanly; nothing is executed.
#![no_main]

use clap::Parser;
use lanejit_cli::cli::{Cli, Cmd};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let args = std::iter::once("lanejit").chain(text.split('\0'));
    let Ok(cli) = Cli::try_parse_from(args) else { return };
    if let Cmd::Run(a) = cli.cmd {
        let _ = lanejit_cli::runcmd::parse_inputs(&a.options(&lanejit::CompileConfig::default()));
    }
});
