//! The kernels `lanejit bench --first-launch` measures (generated ones and the bundled examples), how one launch
//! of each is prepared, and what its first launch left.

use super::generate::{self, Generated};
use super::SEED;
use crate::examples::{self, Example, Size};
use anyhow::{anyhow, bail, Result};
use lanejit::{CompileConfig, Device, Kernel, LaunchConfig};

/// Instruction counts of the generated kernels at a size, and the size the bundled examples run at (with the
/// interpreter among the engines or not).
fn sizes(size: &str, with_interp: bool) -> Result<(Vec<usize>, Size)> {
    match size {
        "small" => Ok((vec![1000, 5000], Size::Small)),
        "default" => Ok((vec![1000, 5000, 20_000], Size::Default)),
        // The examples' large size is minutes for the interpreter (matmul 1024³): with it they stay at default.
        "large" => Ok((vec![1000, 5000, 20_000, 100_000], if with_interp { Size::Default } else { Size::Large })),
        s => bail!("unknown size `{s}` (small, default, large)"),
    }
}

/// The kernels of a size, generated ones first, those whose name contains `filter`.
pub(super) fn works(size: &str, with_interp: bool, filter: Option<&str>) -> Result<Vec<Work>> {
    let (counts, example_size) = sizes(size, with_interp)?;
    let mut all: Vec<Work> = generate::kernels(&counts, SEED).into_iter().map(Work::Generated).collect();
    all.extend(examples::all().into_iter().map(|ex| Work::Example(ex, example_size)));
    all.retain(|w| filter.is_none_or(|f| w.name().contains(f)));
    Ok(all)
}

/// A kernel to measure: generated, or a bundled example at a size.
pub(super) enum Work {
    Generated(Generated),
    Example(&'static Example, Size),
}

/// One launch made ready: its configuration and how to read what it left.
pub(super) struct Prepared {
    pub(super) cfg: LaunchConfig,
    output: Output,
}

/// Where a launch's result is read: a generated kernel's buffer, or an example's check.
enum Output {
    Buffer { addr: u64, words: usize },
    Check(examples::Check),
}

/// What an engine's first launch left: the generated kernel's buffer, or the example's check summary.
pub(super) enum FirstOutput {
    Words(Vec<u32>),
    Checked(Result<String, String>),
}

impl Work {
    pub(super) fn name(&self) -> String {
        match self {
            Work::Generated(g) => g.name.clone(),
            Work::Example(ex, _) => ex.name.to_string(),
        }
    }

    /// A fresh kernel, compiled and tiered as `config` says.
    pub(super) fn kernel(&self, config: CompileConfig) -> Result<Kernel> {
        let (name, source) = match self {
            Work::Generated(g) => (g.name.as_str(), g.source.as_str()),
            Work::Example(ex, _) => (ex.name, ex.source),
        };
        let (program, lines) = lanejit_isa::asm::assemble_with_lines(name, source).map_err(|e| anyhow!("{e}"))?;
        Ok(Kernel::from_program_with(program, config).with_source_lines(lines))
    }

    /// Buffers for one launch on `device`, holding the initial contents.
    pub(super) fn prepare(&self, device: &Device) -> Result<Prepared> {
        match self {
            Work::Generated(g) => {
                let iota: Vec<u32> = (0..g.buffer_words).collect();
                let addr = examples::upload(device, &iota).map_err(|e| anyhow!("{}: {e}", g.name))?;
                let cfg = LaunchConfig {
                    grid: [g.workgroups, 1, 1],
                    args: examples::args(&[addr], &[]),
                    ..LaunchConfig::default()
                };
                Ok(Prepared { cfg, output: Output::Buffer { addr, words: iota.len() } })
            }
            Work::Example(ex, size) => {
                let setup = (ex.setup)(device, *size).map_err(|e| anyhow!("{}: {e}", ex.name))?;
                Ok(Prepared { cfg: setup.cfg, output: Output::Check(setup.check) })
            }
        }
    }
}

impl Prepared {
    pub(super) fn read(&self, device: &Device) -> Result<FirstOutput> {
        match &self.output {
            Output::Buffer { addr, words } => Ok(FirstOutput::Words(device.read_u32s(*addr, *words)?)),
            Output::Check(check) => Ok(FirstOutput::Checked(check(device))),
        }
    }
}

/// Where a generated kernel's buffer after `other`'s first launch differs from the reference's, as one line.
pub(super) fn disagreement(reference: (&str, &FirstOutput), other: (&str, &FirstOutput)) -> Option<String> {
    let ((rname, FirstOutput::Words(r)), (oname, FirstOutput::Words(o))) = (reference, other) else {
        return None;
    };
    let at = r.iter().zip(o).position(|(a, b)| a != b)?;
    let differ = r.iter().zip(o).filter(|(a, b)| a != b).count();
    Some(format!(
        "{oname} differs from {rname} in {differ} words, first at [{at}]: {rname} {:#010x}, {oname} {:#010x}",
        r[at], o[at]
    ))
}
