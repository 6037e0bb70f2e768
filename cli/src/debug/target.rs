//! What a debugging session launches, shared by `lanejit debug` and `lanejit dap`: a kernel file with `run`'s
//! options (buffers, images, arguments, grid, workgroup, budget), or a bundled example at its small size.

use crate::cli::{load_named_kernel, LaunchArgs};
use crate::examples::{self, Size};
use anyhow::{anyhow, bail, Result};
use lanejit::{Device, Kernel, LaunchConfig};
use std::path::Path;

/// A launch ready to debug: the device holding its buffers, the kernel, the configuration, and the source.
pub struct Target {
    /// The device (buffers already filled).
    pub device: Device,
    /// The kernel.
    pub kernel: Kernel,
    /// The launch configuration.
    pub cfg: LaunchConfig,
    /// The source file's path as given (or `examples/NAME.s`) and its text, when the kernel was assembled.
    pub source: Option<(String, String)>,
    /// For a bundled example: how its answer is checked after the launch.
    pub check: Option<examples::Check>,
}

impl Target {
    /// The text of source line `line` (from 1), trimmed.
    pub fn source_line(&self, line: u32) -> Option<&str> {
        let (_, text) = self.source.as_ref()?;
        text.lines().nth(line.checked_sub(1)? as usize).map(str::trim)
    }
}

/// The launch `kernel` (a file, or a bundled example's name when no such file exists) with `launch`'s options.
pub fn prepare(kernel: &str, launch: &LaunchArgs, compile: &lanejit::CompileConfig) -> Result<Target> {
    if launch.check.is_some() {
        bail!("--check does not go with the debugger (a debugged launch steps the interpreter itself)");
    }
    if launch.threads.is_some() {
        bail!("--threads does not go with the debugger (a debugged launch runs one workgroup at a time)");
    }
    match examples::by_name(kernel).filter(|_| !Path::new(kernel).exists()) {
        Some(ex) => example(ex, launch, compile),
        None => file(Path::new(kernel), launch, compile),
    }
}

fn file(path: &Path, launch: &LaunchArgs, compile: &lanejit::CompileConfig) -> Result<Target> {
    let kernel = load_named_kernel(path, launch.kernel_name.as_deref(), compile)?;
    let source = match path.extension().is_some_and(|e| e == "s") {
        true => Some((path.display().to_string(), crate::bufio::read_input_text(path, crate::bufio::KERNEL_FILE)?)),
        false => None,
    };
    let opts = launch.options(compile);
    let inputs = crate::runcmd::parse_inputs(&opts)?;
    let device = Device::new()?;
    let prepared = crate::runcmd::prepare(&device, &opts, inputs)?;
    Ok(Target { device, kernel, cfg: prepared.cfg, source, check: None })
}

fn example(ex: &examples::Example, launch: &LaunchArgs, compile: &lanejit::CompileConfig) -> Result<Target> {
    if !launch.buffers.is_empty() || !launch.args.is_empty() || !launch.images.is_empty() {
        bail!("--buffer, --image and --arg go with a kernel file; the bundled example `{}` sets up its own", ex.name);
    }
    let path = format!("examples/{}.s", ex.name);
    let kernel = Kernel::from_asm(&path, ex.source).map_err(|e| anyhow!("{e}"))?.with_config(*compile);
    if let Some(k) = launch.kernel_name.as_deref().filter(|k| *k != kernel.program.meta.name) {
        bail!("--kernel `{k}`: the bundled example `{}` has one kernel, `{}`", ex.name, kernel.program.meta.name);
    }
    let device = Device::new()?;
    let setup = (ex.setup)(&device, Size::Small).map_err(|e| anyhow!(e))?;
    let mut cfg = setup.cfg;
    if let Some(g) = launch.grid {
        cfg.grid = g;
    }
    cfg.workgroup = launch.wg.or(cfg.workgroup);
    if let Some(b) = launch.budget {
        cfg.budget = b;
    }
    Ok(Target { device, kernel, cfg, source: Some((path, ex.source.to_string())), check: Some(setup.check) })
}
