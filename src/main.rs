//! The `lanejit` command line (its definition and commands live in the library's `cli` module).

use clap::Parser;
use lanejit::cli::{dispatch, exit_code, Cli};

fn main() {
    let cli = Cli::parse();
    let result = dispatch(cli.cmd);
    if let Err(e) = &result {
        eprintln!("error: {e:#}");
    }
    std::process::exit(exit_code(&result));
}
