//! The `lanejit` command line: argument definitions, their validation (every size and time a user gives is
//! checked against a documented limit before anything runs), and the exit codes shared by every command.
//!
//! `main` parses with [`Cli`], runs [`dispatch`] and exits with [`exit_code`] of the result; the cargo-fuzz
//! target `cli_args` drives the same parser and validators.

use crate::bufio::{read_input_text, same_file, KERNEL_FILE};
use crate::examples;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use lanejit::state_json::StateJson;
use lanejit::{Engine, Kernel};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use crate::argparse::{parse_deadline, parse_grid, parse_seconds, parse_threads, parse_workgroup};

/// Exit status of a command that did what was asked.
pub const EXIT_OK: i32 = 0;
/// Exit status when the kernel trapped, gave a wrong answer, or the fuzzer found a divergence.
pub const EXIT_FAILED: i32 = 1;
/// Exit status for bad input or usage (clap's own usage errors exit with it too).
pub const EXIT_BAD_INPUT: i32 = 2;

/// The exit-code section of every command's `--help`.
pub const EXIT_CODES_HELP: &str = "Exit codes: 0 success; 1 the kernel trapped, gave a wrong answer, or the fuzzer \
found a divergence; 2 bad input or usage.";

/// An outcome that is the guest's (a trap, a wrong answer, a divergence), not the user's input: exit code 1.
#[derive(Debug)]
pub struct Failed(pub String);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failed {}

/// The exit code of a command's result: [`Failed`] anywhere in the error chain is 1, any other error 2.
pub fn exit_code(r: &Result<()>) -> i32 {
    match r {
        Ok(()) => EXIT_OK,
        Err(e) if e.chain().any(|c| c.is::<Failed>()) => EXIT_FAILED,
        Err(_) => EXIT_BAD_INPUT,
    }
}

/// The whole command line.
#[derive(Parser)]
#[command(name = "lanejit", version = lanejit::BUILD, about = "A JIT-compiling emulator for a 32-lane GPU instruction set", after_help = EXIT_CODES_HELP)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// The `lanejit` commands.
#[derive(Subcommand)]
pub enum Cmd {
    /// Assemble a kernel to a binary: an ELF file when the output ends in `.elf` (readable by `readelf`), else
    /// lanejit's own container (`LJK1`).
    #[command(after_help = EXIT_CODES_HELP)]
    Asm {
        /// The kernel source (.s) to assemble.
        input: PathBuf,
        /// The binary to write (never the input itself); `.elf` writes ELF.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Disassemble a binary (ELF, container or raw words): every kernel of an ELF module, each under its
    /// `.kernel` line; the output reassembles (`lanejit asm`) to the same kernels, code and metadata.
    #[command(after_help = EXIT_CODES_HELP)]
    Disasm {
        /// The binary to disassemble.
        input: PathBuf,
    },
    /// Print the ISA reference generated from the YAML.
    #[command(after_help = EXIT_CODES_HELP)]
    Spec {
        /// Group name or number (e.g. xlane or 5).
        #[arg(long)]
        group: Option<String>,
        /// The output format: Markdown or CSV (one row per instruction).
        #[arg(long, value_enum, default_value_t = SpecFormat::Md)]
        format: SpecFormat,
    },
    /// Run one wave from a JSON state until `end`, a trap, the budget or the deadline (a trap still writes the
    /// dump, then exits 1).
    #[command(after_help = EXIT_CODES_HELP)]
    Wave(WaveArgs),
    /// Launch a kernel; with no kernel, run the bundled example and check its answer.
    #[command(after_help = EXIT_CODES_HELP)]
    Run(RunArgs),
    /// Measure the engines on the bundled kernels.
    #[command(after_help = EXIT_CODES_HELP)]
    Bench(crate::bench::BenchArgs),
    /// Profile a kernel: per instruction the times waves ran it and its active lanes, per block its share and
    /// tier, the hottest lines and the source annotated with those figures (docs/profiling.md).
    #[command(after_help = EXIT_CODES_HELP)]
    Profile(crate::profilecmd::ProfileArgs),
    /// Differential fuzzing: random programs on every engine, compared with the interpreter; `fuzz merge`
    /// combines the reports of a campaign's shards.
    #[command(after_help = EXIT_CODES_HELP, args_conflicts_with_subcommands = true)]
    Fuzz(crate::fuzz::FuzzArgs),
    /// Check a kernel statically for wait hazards: a register used before the `wait` that covers the memory or
    /// transcendental operation writing it (or still reading it); notes name waits stronger than needed.
    #[command(after_help = CHECK_EXIT_CODES_HELP)]
    Check(crate::checkcmd::CheckArgs),
    /// Debug a kernel: breakpoints by line or pc, stepping a wave, per-lane registers, memory, watchpoints
    /// (docs/debugging.md). Commands from -x SCRIPT, standard input, or the terminal.
    #[command(after_help = crate::debug::DEBUG_EXIT_CODES_HELP)]
    Debug(crate::debug::DebugArgs),
    /// A Debug Adapter Protocol server for editors (VS Code, nvim-dap): on standard input and output, or
    /// on a TCP port (docs/debugging.md).
    #[command(after_help = crate::dap::DAP_EXIT_CODES_HELP)]
    Dap(crate::dap::DapArgs),
    /// Replay a record file: a launch written by `run --record` (the same launch on a fresh device, compared
    /// bit for bit with the record: how it ended, the outputs' hash), or a divergence written by `fuzz` (the
    /// case run again on the interpreter and the engine(s) it compared: does it still diverge?).
    #[command(after_help = REPLAY_EXIT_CODES_HELP)]
    Replay {
        /// The record file.
        file: PathBuf,
        /// A launch: the engine to replay on (default interp; any reproduces it). A fuzz divergence: the engine
        /// compared with the interpreter, jit or auto (default: both, as the fuzzer compared them).
        #[arg(long, value_parser = engine_parser())]
        engine: Option<Engine>,
    },
}

/// The exit-code section of `lanejit replay --help`.
pub const REPLAY_EXIT_CODES_HELP: &str =
    "Exit codes: a launch record: 0 reproduced exactly, 1 the replay differs from the record; a fuzz divergence \
(kind fuzz_case): 0 no engine diverges from the interpreter any more (fixed), 1 one still diverges (the output \
says whether exactly as recorded); 2 bad input (an unreadable, corrupt, truncated or newer record file).";

/// The exit-code section of `lanejit check --help`.
pub const CHECK_EXIT_CODES_HELP: &str =
    "Exit codes: 0 no hazard (notes do not count); 1 a hazard was found; 2 bad input or usage.";

/// `lanejit spec --format`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum SpecFormat {
    /// Markdown, every group.
    Md,
    /// CSV, one row per instruction (optionally of one group).
    Csv,
}

/// `lanejit wave` arguments.
#[derive(clap::Args, Debug)]
pub struct WaveArgs {
    /// The kernel: source (.s) or binary.
    pub program: PathBuf,
    /// The initial state, JSON (default: all zero, every lane active); a regular file of at most 1 GiB.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Where the final state goes (default: standard output); never the program or the initial state. Checked
    /// before the wave runs (created when missing); if writing it fails after a trap, the trap is still
    /// reported first and the exit code stays 1.
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// The engine to run the wave on.
    #[arg(long, value_parser = engine_parser(), default_value = "interp")]
    pub engine: Engine,
    /// Most instructions to retire (default: the state's `budget`, else 10,000,000).
    #[arg(long)]
    pub budget: Option<u64>,
    /// Wall-clock limit in seconds (default 600; at most 604800).
    #[arg(long, value_parser = parse_deadline)]
    pub deadline: Option<Duration>,
    /// Print every executed instruction with EXEC and the registers it wrote (to standard error).
    #[arg(long)]
    pub trace: bool,
}

/// How a kernel file is launched: the options `lanejit run KERNEL` and `lanejit bench KERNEL` share (one
/// definition, so that both parse and check them alike).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LaunchArgs {
    /// Grid size in workgroups, `x[,y[,z]]` (at most 4294967295 workgroups in all).
    #[arg(long, value_parser = parse_grid)]
    pub grid: Option<[u32; 3]>,
    /// Workgroup size in threads, `x[,y[,z]]` (default: the kernel's .workgroup; at most 1024 threads).
    #[arg(long, value_parser = parse_workgroup)]
    pub wg: Option<[u32; 3]>,
    /// A buffer `TYPE:COUNT[:INIT]` (TYPE u32|i32|f32; INIT zero|uninit|iota|const=V|rand=SEED|file=PATH) or
    /// `TYPE:file=PATH` (a `.npy` array of that dtype, or raw little-endian words; the count is the file's); its
    /// address is appended to the kernel arguments (8 bytes each, in order). A file must be a regular file no
    /// larger than the device (4 GiB); a `.npy` file's header must be numpy's dict of exactly 'descr',
    /// 'fortran_order' and 'shape', its dtype '<u4', '<i4' or '<f4' as TYPE says.
    #[arg(long = "buffer")]
    pub buffers: Vec<String>,
    /// An image `FORMAT:DIM:SIZE[:INIT][:OPTION...]`: FORMAT r32ui|r32f|rgba8|rgba16f|rgba32f, DIM
    /// 1d|2d|3d|1d_array|2d_array, SIZE W, WxH or WxHxL, INIT zero|iota|const=V|rand=SEED|file=PATH (packed texels;
    /// a .png for 2d rgba8), OPTION pitch=BYTES, filter=nearest|bilinear, address=clamp|wrap|mirror; or
    /// `rgba8:2d:PATH.png`. Its 8 descriptor words come first in the kernel arguments (32 bytes each, image i at
    /// offset 32*i, for `u.ld.b256`), before the buffers' addresses. A const=V out of the range of the
    /// format's components (1e40 for f32, 1e5 for rgba16f's f16) is refused; `inf` and `nan` by name are taken.
    /// A file is read only if it is a regular file of the image's size (a PNG: at most the device's, 4 GiB).
    #[arg(long = "image")]
    pub images: Vec<String>,
    /// A 32-bit scalar kernel argument appended after the buffers: an integer (`7`, `-1`, `0xff`) or a float
    /// (`1.5`, `1e5`, `inf`, `nan`).
    #[arg(long = "arg", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Worker threads, 1..=256 (default: one per core).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Most instructions the whole launch may retire (default 2^40).
    #[arg(long)]
    pub budget: Option<u64>,
    /// Wall-clock limit in seconds (default 600; at most 604800). `run` counts it from its start, for every
    /// launch of `--repeat` together: when it passes, the series stops, what ran is reported, and the command
    /// exits 1 (as a launch stopped by its deadline does). `bench KERNEL` gives it to each launch.
    #[arg(long, value_parser = parse_deadline)]
    pub deadline: Option<Duration>,
    /// The kernel to launch when the file holds several (`.kernel` directives, or an ELF module); a name that
    /// is not one of the file's (or, for a bundled example, not its kernel's) is an error listing them.
    #[arg(long = "kernel")]
    pub kernel_name: Option<String>,
    /// Run checkers, a comma-separated list of `waits` (a register used before the `wait` its load, store or
    /// transcendental op needs), `races` (shared-memory races between the waves of a workgroup), `barriers`
    /// (barriers under partial EXEC or skipped by some waves), `uninit` (a value nothing wrote reaching an
    /// address, a branch, EXEC or a store), `all` (those four), and, opt-in, `buffers` (uninit also for device
    /// memory: bytes of a buffer the host never wrote, e.g. `--buffer u32:N:uninit` or an example's output,
    /// count as undefined until the kernel stores to them). A checking launch runs on the
    /// interpreter, one workgroup at a time, whatever --engine says; each finding is a line (or an entry of
    /// `findings` with --json), and any finding exits 1.
    #[arg(long, value_parser = lanejit::check::Checks::parse)]
    pub check: Option<lanejit::check::Checks>,
}

impl LaunchArgs {
    /// Whether any of these options was given (they go with a kernel file).
    pub fn any(&self) -> bool {
        let l = self;
        l.grid.is_some()
            || l.wg.is_some()
            || !l.buffers.is_empty()
            || !l.images.is_empty()
            || !l.args.is_empty()
            || l.threads.is_some()
            || l.budget.is_some()
            || l.deadline.is_some()
            || l.kernel_name.is_some()
            || l.check.is_some()
    }

    /// The options `runcmd` takes (buffers and scalars still as text: `runcmd::parse_inputs` checks them), the
    /// kernel compiled and tiered as `compile` says, run on the JIT once, printing nothing extra.
    pub fn options(&self, compile: &lanejit::CompileConfig) -> crate::runcmd::RunOptions {
        crate::runcmd::RunOptions {
            grid: self.grid,
            wg: self.wg,
            buffers: self.buffers.clone(),
            images: self.images.clone(),
            image_saves: Vec::new(),
            args: self.args.clone(),
            engine: Engine::Jit,
            trace: false,
            threads: self.threads,
            show: 0,
            budget: self.budget,
            deadline: self.deadline,
            compile: *compile,
            saves: Vec::new(),
            json: false,
            repeat: 1,
            started: Instant::now(),
            check: self.check.unwrap_or_default(),
            schedule: lanejit::Schedule::Fixed,
            schedule_text: None,
            record: None,
            timeline: None,
        }
    }
}

/// `lanejit run` arguments.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Kernel source (.s) or binary; a bundled example name also works (see --list).
    pub kernel: Option<String>,
    /// The kernel's launch: grid, workgroup, buffers, arguments, threads and limits.
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// The engine (tiered `auto` by default: it starts at once and compiles hot blocks in the background; `jit`
    /// compiles the whole kernel before it starts; `interp` is the golden model).
    #[arg(long, value_parser = engine_parser(), default_value = "auto")]
    pub engine: Engine,
    /// Print every executed instruction with EXEC and the registers it wrote (runs on one thread).
    #[arg(long)]
    pub trace: bool,
    /// Elements of each buffer to print.
    #[arg(long, default_value_t = 16)]
    pub show: usize,
    /// List the bundled examples.
    #[arg(long)]
    pub list: bool,
    /// Launch the kernel this many times and report the first launch's time and the best and median of the
    /// others (a benchmark of your own kernel; later launches run on the buffers earlier ones left). The times
    /// take bounded memory: the median is exact up to 4096 launches after the first, then read from a
    /// histogram of 1% buckets (within 0.5%, marked `≈`, `"median_exact": false` in JSON). `--deadline`
    /// covers the whole series.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// `INDEX=PATH`: write buffer INDEX (from 0, in `--buffer` order) to PATH after the launch, also after a
    /// trap (`.npy` for numpy, any other name raw little-endian). Repeatable. PATH is checked before the launch:
    /// never an input (the kernel, a buffer's or image's file) or another save, and writable (created when
    /// missing); a save that fails after the launch is reported after the launch's own result (a trap still
    /// exits 1, a failed save alone exits 2).
    #[arg(long = "save")]
    pub saves: Vec<String>,
    /// `INDEX=PATH` (or `INDEX:PATH`): write image INDEX (from 0, in `--image` order) to PATH after the launch,
    /// also after a trap: a PNG when PATH ends in `.png` (2d rgba8 images), else the packed texels raw.
    /// Repeatable; checked and reported as `--save` is.
    #[arg(long = "save-image")]
    pub image_saves: Vec<String>,
    /// Print one JSON object instead of text: statistics, the trap (or null), and per buffer its address,
    /// type, count, first `--show` values and saved files.
    #[arg(long)]
    pub json: bool,
    /// The interleaving of waves and workgroups: `fixed` (the default: each wave runs until it ends or waits at
    /// a barrier, workgroups in order), `rr:K` (waves take turns of K instructions), `random:SEED` or
    /// `pct:SEED,DEPTH` (docs/schedules.md). Any but `fixed` runs on one thread and gives the same results on
    /// every engine. With --explore: `random[:FIRST_SEED]` (the default) or `pct[:FIRST_SEED[,DEPTH]]`.
    #[arg(long)]
    pub schedule: Option<String>,
    /// Run the launch under N schedules (random or pct, from --schedule) and compare each with the fixed run:
    /// buffers, traps, deadlocks and hangs. The first that differs is shrunk to the fewest preemptions and
    /// printed as a --schedule that replays it; exit code 1 when results differ.
    #[arg(long, value_name = "N")]
    pub explore: Option<u32>,
    /// Write the launch to FILE as a record (kernel, launch configuration, every buffer and image before the
    /// launch, schedule, how it ended, outputs' hash, lanejit version) that `lanejit replay FILE` reproduces.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Write the launch's timeline to FILE as Chrome Trace Event JSON (open it in ui.perfetto.dev or
    /// chrome://tracing): workgroups and waves per worker thread, compiled or interpreted, barrier waits,
    /// compilations, traps, counters (docs/profiling.md). FILE is checked before the launch and appears whole
    /// at its end.
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,
}

impl RunArgs {
    /// The options `runcmd` takes (buffers and scalars still as text: `runcmd::parse_inputs` checks them), the
    /// kernel compiled and tiered as `compile` says.
    pub fn options(&self, compile: &lanejit::CompileConfig) -> crate::runcmd::RunOptions {
        crate::runcmd::RunOptions {
            engine: self.engine,
            trace: self.trace,
            show: self.show,
            saves: self.saves.clone(),
            image_saves: self.image_saves.clone(),
            json: self.json,
            repeat: self.repeat,
            schedule_text: self.schedule.clone(),
            record: self.record.clone(),
            timeline: self.timeline.clone(),
            ..self.launch.options(compile)
        }
    }
}

/// The engines by their command-line names (the names `lanejit::Engine` serialises to), each with its help line.
pub const ENGINES: [(&str, &str, Engine); 3] = [
    ("interp", "The reference interpreter (the golden model)", Engine::Interp),
    (
        "jit",
        "Compile every block with Cranelift before running (the launch waits): first with the quick tier, then the \
         blocks that run often again with the optimising tier, in the background",
        Engine::Jit,
    ),
    (
        "auto",
        "Tiered (the default of `run`): start at once in the interpreter, compile hot blocks with the optimising tier \
         in the background and run them compiled as they arrive",
        Engine::Auto,
    ),
];

/// The engine called `name` on the command line ([`ENGINES`]).
pub fn engine_by_name(name: &str) -> Option<Engine> {
    ENGINES.iter().find(|(n, _, _)| *n == name).map(|&(_, _, e)| e)
}

/// `--engine`'s parser: one of [`ENGINES`] by name, listed with its help in `--help`. The library's `Engine` knows
/// nothing of clap, so the command line parses it by value here.
pub fn engine_parser() -> impl clap::builder::TypedValueParser<Value = Engine> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(ENGINES.iter().map(|&(name, help, _)| PossibleValue::new(name).help(help)))
        .try_map(|name| engine_by_name(&name).ok_or_else(|| format!("unknown engine `{name}`")))
}

/// Runs a parsed command line.
/// Runs a command; kernels are compiled and tiered as `compile` says (`main` reads it from the environment).
pub fn dispatch(cmd: Cmd, compile: &lanejit::CompileConfig) -> Result<()> {
    match cmd {
        Cmd::Asm { input, output } => asm(&input, &output),
        Cmd::Disasm { input } => {
            let bytes = crate::bufio::read_input(&input, KERNEL_FILE)?;
            let ps = lanejit_isa::container::read_module(&bytes).map_err(|e| anyhow!("{}: {e}", input.display()))?;
            print!("{}", lanejit_isa::disassemble_module(&ps));
            Ok(())
        }
        Cmd::Spec { group, format } => {
            match format {
                SpecFormat::Csv => print!("{}", lanejit_isa::docs::csv(group.as_deref()).map_err(|e| anyhow!(e))?),
                SpecFormat::Md if group.is_some() => bail!("--group goes with --format csv"),
                SpecFormat::Md => print!("{}", lanejit_isa::docs::markdown()),
            }
            Ok(())
        }
        Cmd::Wave(a) => crate::wavecmd::run_wave(&a, compile),
        Cmd::Run(a) => run(a, compile),
        Cmd::Bench(a) if a.first_launch => {
            crate::bench_first::run(&crate::bench_first::FirstLaunchArgs::from_bench(&a)?, compile)
        }
        Cmd::Bench(a) => crate::bench::run(&a, compile),
        Cmd::Fuzz(a) => crate::fuzz::run(&a),
        Cmd::Profile(a) => crate::profilecmd::run(&a, compile),
        Cmd::Check(a) => crate::checkcmd::run(&a),
        Cmd::Replay { file, engine } => replay(&file, engine),
        Cmd::Debug(a) => crate::debug::run(&a, compile),
        Cmd::Dap(a) => crate::dap::run(&a, compile),
    }
}

/// Refuses to write `output` when it is one of `inputs` (the same file: `./k.s`, `k.s` and a link to it); an
/// output that does not exist yet cannot be an input.
pub fn refuse_overwrite(output: &Path, inputs: &[&Path]) -> Result<()> {
    if let Some(input) = inputs.iter().find(|i| same_file(output, i)) {
        bail!("refusing to overwrite the input {} with the output", input.display());
    }
    Ok(())
}

fn asm(input: &Path, output: &Path) -> Result<()> {
    let src = read_input_text(input, KERNEL_FILE)?;
    let ps =
        lanejit_isa::asm::assemble_module_with_config(&input.display().to_string(), &src, &crate::bufio::asm_config())
            .map_err(|e| anyhow!("{e}"))?
            .into_iter()
            .map(|(p, _)| p)
            .collect::<Vec<_>>();
    refuse_overwrite(output, &[input])?;
    let bytes = match ps.as_slice() {
        _ if output.extension().is_some_and(|e| e == "elf") => lanejit_isa::elf_kernel::write_all(&ps),
        [p] => lanejit_isa::container::write(p),
        _ => bail!(
            "{} holds {} kernels: the LJK1 container holds one; write an ELF file (-o NAME.elf)",
            input.display(),
            ps.len()
        ),
    };
    std::fs::write(output, bytes).with_context(|| format!("writing {}", output.display()))?;
    for p in &ps {
        eprintln!("{}: {} words, kernel `{}`", output.display(), p.words.len(), p.meta.name);
    }
    Ok(())
}

/// A kernel from a `.s` file (assembled) or any other file (a binary container or raw words), compiled and
/// tiered as `compile` says.
pub fn load_kernel(path: &Path, compile: &lanejit::CompileConfig) -> Result<Kernel> {
    load_named_kernel(path, None, compile)
}

/// The kernel `name` of a source or binary holding several (a module), or its only kernel when `name` is
/// `None`.
pub fn load_named_kernel(path: &Path, name: Option<&str>, compile: &lanejit::CompileConfig) -> Result<Kernel> {
    let module = if path.extension().is_some_and(|e| e == "s") {
        let src = read_input_text(path, KERNEL_FILE)?;
        lanejit::Module::from_asm_with(&path.display().to_string(), &src, &crate::bufio::asm_config())
            .map_err(|e| anyhow!("{e}"))?
    } else {
        let bytes = crate::bufio::read_input(path, KERNEL_FILE)?;
        lanejit::Module::from_bytes(&bytes).map_err(|e| anyhow!("{}: {e}", path.display()))?
    };
    let names = || module.names().collect::<Vec<_>>().join(", ");
    let kernel = match (name, module.kernels()) {
        (Some(n), _) => {
            module.kernel(n).ok_or_else(|| anyhow!("{}: no kernel `{n}` (it has: {})", path.display(), names()))?
        }
        (None, [only]) => only,
        (None, _) => {
            bail!("{}: {} kernels ({}): choose one with --kernel NAME", path.display(), module.kernels().len(), names())
        }
    };
    Ok(kernel.clone().with_config(*compile))
}

/// An initial wave state from a file (at most [`crate::bufio::STATE_FILE`]), read strictly
/// ([`StateJson::parse`]).
pub fn load_state(path: &Path) -> Result<StateJson> {
    let text = read_input_text(path, crate::bufio::STATE_FILE)?;
    StateJson::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// Most bytes of a record file `replay` reads (its memory as hex: twice the device's bytes, plus the kernel).
const RECORD_FILE: crate::bufio::Limit =
    crate::bufio::Limit { bytes: 1 << 33, name: "the record file limit (twice the device capacity)" };

fn replay(file: &Path, engine: Option<Engine>) -> Result<()> {
    let text = read_input_text(file, RECORD_FILE)?;
    let header = lanejit::record::header(&text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    if header.kind == lanejit::record::KIND_FUZZ_CASE {
        return crate::fuzz::record::replay_file(file, &text, engine);
    }
    let engine = engine.unwrap_or(Engine::Interp);
    let record = lanejit::record::Record::parse(&text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let r = record.replay(engine).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    println!(
        "record: {} (lanejit {}, format {}), schedule {}",
        file.display(),
        record.lanejit_version,
        record.version,
        record.schedule
    );
    println!("replay on {}: {}, outputs' hash {}", engine_name(engine), r.outcome, r.outputs_hash);
    match r.difference {
        None => {
            println!("reproduced exactly");
            Ok(())
        }
        Some(d) => Err(Failed(format!("the replay differs from the record: {d}")).into()),
    }
}

fn engine_name(e: Engine) -> &'static str {
    ENGINES.iter().find(|(_, _, x)| *x == e).map_or("?", |(n, _, _)| n)
}

fn run(a: RunArgs, compile: &lanejit::CompileConfig) -> Result<()> {
    if a.list {
        for e in examples::all() {
            println!("{:<12} {}", e.name, e.about);
        }
        return Ok(());
    }
    let mut opts = a.options(compile);
    crate::runcmd::check_timeline(&opts, a.kernel.as_deref().map(Path::new))?;
    if opts.timeline.is_some() && a.explore.is_some() {
        bail!("--timeline records one launch, not an exploration (--explore)");
    }
    let name = a.launch.kernel_name.as_deref();
    if a.explore.is_none() {
        opts.schedule = crate::runcmd::explore::plain_schedule(a.schedule.as_deref())?;
    }
    let example = match a.kernel.as_deref() {
        None => Some(examples::DEFAULT),
        Some(k) if examples::by_name(k).is_some() && !Path::new(k).exists() => Some(k),
        Some(_) => None,
    };
    match (example, a.explore, a.kernel.as_deref()) {
        (Some(e), Some(n), _) => crate::runcmd::explore::explore_example(e, &opts, n),
        (Some(e), None, _) => crate::runcmd::run_example(e, name, &opts),
        (None, explore, k) => {
            let path = Path::new(k.unwrap_or_default());
            let kernel = load_named_kernel(path, name, compile)?;
            match explore {
                Some(n) => crate::runcmd::explore::explore_file(&kernel, &opts, n),
                None => crate::runcmd::run_file(&kernel, Some(path), &opts),
            }
        }
    }
}
