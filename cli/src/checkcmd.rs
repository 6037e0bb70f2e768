//! `lanejit check KERNEL`: the static wait-hazard check (`lanejit::static_check`) on a kernel given as `run`
//! takes it (assembly, binary, ELF, or a bundled example's name), as text or JSON. Exit 1 when it finds a
//! hazard; notes (waits stronger than needed) do not fail. `--deadline` bounds the whole command (exit 2 when it
//! passes: the kernel is too large to check in that time, which says nothing of its hazards).

use crate::bufio::{read_input, read_input_text, KERNEL_FILE};
use crate::cli::Failed;
use crate::examples;
use anyhow::{anyhow, bail, Result};
use lanejit::static_check::{
    check_limited, hazard_count, render_json, render_text, CheckLimits, DEFAULT_CHECK_DEADLINE,
};
use lanejit_isa::Program;
use std::time::{Duration, Instant};

/// The source line of the instruction at each code word (0: none), as `lanejit_isa::assemble_with_lines` gives it.
type LineMap = Vec<u32>;
use std::path::Path;

/// `lanejit check` arguments.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The kernel: source (.s), binary (ELF, LJK1 container or raw words), or a bundled example's name.
    pub kernel: String,
    /// Check only the kernel of this name (a file holding several); default: every kernel of the file.
    #[arg(long = "kernel", value_name = "NAME")]
    pub kernel_name: Option<String>,
    /// Print one JSON object (`kernels`: each kernel's findings; `hazards`, `notes`: totals).
    #[arg(long)]
    pub json: bool,
    /// Wall-clock limit of the whole check in seconds, loading included (default 600; at most 604800).
    #[arg(long, value_parser = crate::cli::parse_deadline)]
    pub deadline: Option<Duration>,
}

/// A kernel to check: its program, the source lines of its instructions (when assembled from text), and the
/// file name its report cites.
pub struct CheckInput {
    /// The name the report gives the file.
    pub file: String,
    /// Each kernel with its line map (empty for a binary).
    pub kernels: Vec<(Program, LineMap)>,
}

/// The kernels named by `kernel` as `run` reads them: an existing path, else a bundled example's name.
pub fn load(kernel: &str) -> Result<CheckInput> {
    let path = Path::new(kernel);
    if let Some(ex) = examples::by_name(kernel).filter(|_| !path.exists()) {
        let file = format!("examples/{}.s", ex.name);
        let kernels = lanejit_isa::assemble_module_with_lines(&file, ex.source).map_err(|e| anyhow!("{e}"))?;
        return Ok(CheckInput { file, kernels });
    }
    let file = path.display().to_string();
    let kernels = if path.extension().is_some_and(|e| e == "s") {
        let src = read_input_text(path, KERNEL_FILE)?;
        lanejit_isa::asm::assemble_module_with_config(&file, &src, &crate::bufio::asm_config())
            .map_err(|e| anyhow!("{e}"))?
    } else {
        let bytes = read_input(path, KERNEL_FILE)?;
        let module = lanejit::Module::from_bytes(&bytes).map_err(|e| anyhow!("{file}: {e}"))?;
        module.kernels().iter().map(|k| (k.program.clone(), Vec::new())).collect()
    };
    Ok(CheckInput { file, kernels })
}

/// Runs `lanejit check`.
pub fn run(a: &CheckArgs) -> Result<()> {
    let start = Instant::now();
    let deadline = a.deadline.unwrap_or(DEFAULT_CHECK_DEADLINE);
    let input = load(&a.kernel)?;
    let chosen: Vec<&(Program, LineMap)> = match &a.kernel_name {
        None => input.kernels.iter().collect(),
        Some(n) => {
            let names = || input.kernels.iter().map(|(p, _)| p.meta.name.as_str()).collect::<Vec<_>>().join(", ");
            match input.kernels.iter().find(|(p, _)| &p.meta.name == n) {
                Some(k) => vec![k],
                None => bail!("{}: no kernel `{n}` (it has: {})", input.file, names()),
            }
        }
    };
    let (mut hazards, mut notes, mut reports) = (0, 0, Vec::new());
    for (program, lines) in chosen {
        // Each kernel gets what is left of the command's deadline.
        let limits = CheckLimits { deadline: Some(deadline.saturating_sub(start.elapsed())) };
        let findings = check_limited(program, Some(lines.as_slice()), limits).map_err(|_| {
            let name = &program.meta.name;
            anyhow!(
                "{}: kernel {name}: the check passed its deadline of {} s (--deadline)",
                input.file,
                deadline.as_secs_f64()
            )
        })?;
        let h = hazard_count(&findings);
        hazards += h;
        notes += findings.len() - h;
        let name = program.meta.name.as_str();
        if a.json {
            reports.push(render_json(&input.file, name, &findings));
        } else {
            print!("{}", render_text(&input.file, name, &findings));
        }
    }
    if a.json {
        let all = serde_json::json!({ "file": input.file, "hazards": hazards, "notes": notes, "kernels": reports });
        println!("{}", serde_json::to_string_pretty(&all)?);
    }
    match hazards {
        0 => Ok(()),
        n => Err(Failed(format!("{}: {n} wait hazards", input.file)).into()),
    }
}
