//! lanejit's command-line tools, as a library: the `lanejit` binary's commands ([`cli`]), `run` and its
//! buffer and image options ([`runcmd`], [`bufio`], [`imageio`]), `bench` ([`bench`](mod@bench), and [`bench_kernel`]
//! for a user's kernel), the differential fuzzer ([`fuzz`]), the conformance case runner ([`cases`]), `profile` ([`profilecmd`]), the static
//! wait-hazard check ([`checkcmd`]) and the bundled example
//! kernels ([`examples`]).
//!
//! The embedding API is the `lanejit` crate; this one adds what only the tools need (clap, anyhow, YAML) on top
//! of it. The integration tests and benches in the repository's `tests/` and `benches/` drive these modules.

#![deny(missing_docs)]

pub mod argparse;
pub mod bench;
pub mod bench_first;
pub mod bench_kernel;
pub mod bufio;
pub mod cases;
pub mod checkcmd;
pub mod cli;
pub mod dap;
pub mod debug;
pub mod examples;
pub mod fuzz;
pub mod imageio;
pub mod profilecmd;
pub mod progress;
pub mod runcmd;
pub mod wavecmd;
