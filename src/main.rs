//! The `lanejit` command line.

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use lanejit::{examples, state_json::StateJson, trace::PrintTracer, wave, Engine, Kernel};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "lanejit", version, about = "A JIT-compiling emulator for a 32-lane GPU instruction set")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Assemble a kernel to a binary container.
    Asm {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Disassemble a binary (container or raw words); the output reassembles to identical bytes.
    Disasm { input: PathBuf },
    /// Print the ISA reference generated from the YAML.
    Spec {
        /// Group name or number (e.g. xlane or 5).
        #[arg(long)]
        group: Option<String>,
        #[arg(long, value_enum, default_value_t = SpecFormat::Md)]
        format: SpecFormat,
    },
    /// Run one wave from a JSON state until `end` or a trap.
    Wave {
        program: PathBuf,
        #[arg(long)]
        init: Option<PathBuf>,
        #[arg(long)]
        dump: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Engine::Interp)]
        engine: Engine,
        /// Most instructions to retire (default: the state's `budget`, else 10,000,000)
        #[arg(long)]
        budget: Option<u64>,
        #[arg(long)]
        trace: bool,
    },
    /// Launch a kernel; with no kernel, run the bundled example and check its answer.
    Run(RunArgs),
    /// Measure the engines on the bundled kernels.
    Bench(lanejit::bench::BenchArgs),
    /// Differential fuzzing: random programs on every engine, compared with the interpreter.
    Fuzz(lanejit::fuzz::FuzzArgs),
}

#[derive(clap::ValueEnum, Clone, Copy)]
enum SpecFormat {
    Md,
    Csv,
}

#[derive(clap::Args)]
struct RunArgs {
    /// Kernel source (.s) or binary; a bundled example name also works (see --list).
    kernel: Option<String>,
    /// Grid size in workgroups, x[,y[,z]].
    #[arg(long, value_parser = parse_dim3)]
    grid: Option<[u32; 3]>,
    /// Workgroup size in threads, x[,y[,z]] (default: the kernel's .workgroup).
    #[arg(long, value_parser = parse_dim3)]
    wg: Option<[u32; 3]>,
    /// A buffer `TYPE:COUNT[:INIT]` (TYPE u32|i32|f32; INIT zero|iota|const=V|rand=SEED); its address is appended
    /// to the kernel arguments (8 bytes each, in order).
    #[arg(long = "buffer")]
    buffers: Vec<String>,
    /// A 32-bit scalar kernel argument appended after the buffers (integer or float literal).
    #[arg(long = "arg")]
    args: Vec<String>,
    #[arg(long, value_enum, default_value_t = Engine::Interp)]
    engine: Engine,
    /// Print every executed instruction with EXEC and the registers it wrote (runs on one thread).
    #[arg(long)]
    trace: bool,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Elements of each buffer to print.
    #[arg(long, default_value_t = 16)]
    show: usize,
    /// List the bundled examples.
    #[arg(long)]
    list: bool,
}

fn parse_dim3(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected x[,y[,z]]"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p.trim().parse().map_err(|_| format!("`{p}` is not a positive integer"))?;
        if d[i] == 0 {
            return Err(format!("`{s}`: dimensions must be at least 1"));
        }
    }
    Ok(d)
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = dispatch(cli.cmd) {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

fn dispatch(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Asm { input, output } => asm(&input, &output),
        Cmd::Disasm { input } => {
            let bytes = std::fs::read(&input).with_context(|| format!("reading {}", input.display()))?;
            let p = lanejit_isa::container::read_any(&bytes).map_err(|e| anyhow!("{}: {e}", input.display()))?;
            print!("{}", lanejit_isa::disassemble(&p));
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
        Cmd::Wave { program, init, dump, engine, budget, trace } => run_wave(&program, init.as_deref(), dump.as_deref(), engine, budget, trace),
        Cmd::Run(a) => run(a),
        Cmd::Bench(a) => lanejit::bench::run(&a),
        Cmd::Fuzz(a) => lanejit::fuzz::run(&a),
    }
}

fn asm(input: &Path, output: &Path) -> Result<()> {
    let src = std::fs::read_to_string(input).with_context(|| format!("reading {}", input.display()))?;
    let p = lanejit_isa::assemble(&input.display().to_string(), &src).map_err(|e| anyhow!("{e}"))?;
    std::fs::write(output, lanejit_isa::container::write(&p)).with_context(|| format!("writing {}", output.display()))?;
    eprintln!("{}: {} words, kernel `{}`", output.display(), p.words.len(), p.meta.name);
    Ok(())
}

/// A kernel from a `.s` file (assembled) or any other file (a binary container or raw words).
pub fn load_kernel(path: &Path) -> Result<Kernel> {
    if path.extension().is_some_and(|e| e == "s") {
        let src = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Kernel::from_asm(&path.display().to_string(), &src).map_err(|e| anyhow!("{e}"))
    } else {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        Kernel::from_bytes(&bytes).map_err(|e| anyhow!("{}: {e}", path.display()))
    }
}

fn run_wave(program: &Path, init: Option<&Path>, dump: Option<&Path>, engine: Engine, budget: Option<u64>, trace: bool) -> Result<()> {
    let kernel = load_kernel(program)?;
    let state: StateJson = match init {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            serde_json::from_str(&text).map_err(|e| anyhow!("{}: {e}", p.display()))?
        }
        None => StateJson::default(),
    };
    let budget = budget.or(state.budget).unwrap_or(wave::DEFAULT_WAVE_BUDGET);
    let mut tracer = PrintTracer { out: std::io::stderr() };
    let out = wave::run_wave(&kernel, &state, engine, budget, trace.then_some(&mut tracer as _)).map_err(|e| anyhow!(e))?;
    let json = serde_json::to_string_pretty(&out.to_json())?;
    match dump {
        Some(p) => std::fs::write(p, json + "\n").with_context(|| format!("writing {}", p.display()))?,
        None => println!("{json}"),
    }
    if let Some(t) = &out.trap {
        eprintln!("trap: {t}");
    }
    eprintln!("retired {} instructions", out.state.retired);
    Ok(())
}

fn run(a: RunArgs) -> Result<()> {
    if a.list {
        for e in examples::all() {
            println!("{:<12} {}", e.name, e.about);
        }
        return Ok(());
    }
    let opts = lanejit::runcmd::RunOptions {
        grid: a.grid, wg: a.wg, buffers: a.buffers, args: a.args, engine: a.engine, trace: a.trace, threads: a.threads, show: a.show,
    };
    match a.kernel.as_deref() {
        None => lanejit::runcmd::run_example(examples::DEFAULT, &opts),
        Some(k) if examples::by_name(k).is_some() && !Path::new(k).exists() => lanejit::runcmd::run_example(k, &opts),
        Some(k) => lanejit::runcmd::run_file(&load_kernel(Path::new(k))?, &opts),
    }
}
