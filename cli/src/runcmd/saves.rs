//! The files a run writes after its launch (`run --save`, `--save-image`, a bundled example's pictures, `wave
//! --dump`): checked before anything runs, written after, and never at the cost of the launch's own result.
//!
//! Before the launch, every output must not be an input (the same file by device and inode, so a link to the
//! kernel is the kernel), nor another output, and must open for writing: it is created when missing, and an
//! existing file is opened without truncating it (its contents stay until the run writes the new ones). After
//! the launch, every output is written even when an earlier one fails, and the failures are reported after the
//! launch's own report: a trap still exits 1, a failed save alone exits 2.

use crate::bufio::same_file;
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};

/// A file the command reads, with what it is for the message ("the kernel", "buffer 0's file").
pub type Input = (PathBuf, String);

/// A file the command writes, with the option that names it for the message (`--save \`0=out.bin\``).
pub type Output = (String, PathBuf);

/// `INDEX=PATH` pairs, each index one of the `buffers` buffers, checked before anything runs.
pub fn parse_saves(saves: &[String], buffers: usize) -> Result<Vec<(usize, PathBuf)>> {
    saves
        .iter()
        .map(|s| {
            let (i, path) = s.split_once('=').ok_or_else(|| anyhow!("--save `{s}`: expected INDEX=PATH"))?;
            let i: usize = i.parse().map_err(|_| anyhow!("--save `{s}`: INDEX must be a buffer number"))?;
            if i >= buffers {
                bail!("--save `{s}`: there are {buffers} buffers (numbered from 0)");
            }
            Ok((i, PathBuf::from(path)))
        })
        .collect()
}

/// The outputs that [`check_outputs`] created (empty): removed again when this is dropped before [`keep`]
/// (the command ended before writing them: a bad option found later, a trapped example), so that a run that
/// wrote nothing leaves no empty files behind.
///
/// [`keep`]: Created::keep
#[must_use = "dropping it removes the files it created"]
pub struct Created(Vec<PathBuf>);

impl Created {
    /// The outputs have been written (or their writing was tried): they stay.
    pub fn keep(mut self) {
        self.0.clear();
    }
}

impl Drop for Created {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Checks `outputs` against `inputs` and each other and opens each for writing (module documentation), before
/// anything runs. On failure, the files this check created are removed again.
pub fn check_outputs(outputs: &[Output], inputs: &[Input]) -> Result<Created> {
    let mut created = Created(Vec::new());
    for (k, out) in outputs.iter().enumerate() {
        check_output(out, &outputs[..k], inputs, &mut created.0)?;
    }
    Ok(created)
}

fn check_output(
    (label, path): &Output,
    earlier: &[Output],
    inputs: &[Input],
    created: &mut Vec<PathBuf>,
) -> Result<()> {
    if let Some((input, what)) = inputs.iter().find(|(input, _)| same_file(path, input)) {
        bail!("{label}: refusing to overwrite {what}, {}, with an output", input.display());
    }
    let meta = std::fs::metadata(path).ok();
    let t = meta.as_ref().map(|m| m.file_type());
    if t.is_some_and(|t| t.is_dir()) {
        bail!("{label}: {} is a directory", path.display());
    }
    // A FIFO would block this open until a reader comes; it is written after the launch, as asked.
    if !t.is_some_and(is_fifo) {
        let open = std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(path);
        open.map_err(|e| anyhow!("{label}: cannot write {}: {e}", path.display()))?;
        if meta.is_none() {
            created.push(path.clone());
        }
    }
    // Two outputs may share a device (/dev/null), not a regular file: the second would replace the first.
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if let Some((other, _)) = earlier.iter().find(|(_, p)| regular && same_file(path, p)) {
        bail!("{label}: {} is also the output of {other}", path.display());
    }
    Ok(())
}

#[cfg(unix)]
fn is_fifo(t: std::fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_fifo(&t)
}

#[cfg(not(unix))]
fn is_fifo(_: std::fs::FileType) -> bool {
    false
}

/// The command's result once its outputs are written: the launch's own `verdict` (printed first, exit code 1
/// for a trap) followed by the outputs that could not be written; those alone make exit code 2.
pub fn with_save_errors(verdict: Result<()>, errors: Vec<String>) -> Result<()> {
    if errors.is_empty() {
        return verdict;
    }
    let saves = errors.join("\nerror: ");
    match verdict {
        Ok(()) => Err(anyhow!("{saves}")),
        Err(e) if e.chain().any(|c| c.is::<crate::cli::Failed>()) => {
            Err(crate::cli::Failed(format!("{e:#}\nerror: {saves}")).into())
        }
        Err(e) => Err(anyhow!("{e:#}\nerror: {saves}")),
    }
}

/// The files of a kernel file's run that its outputs must not overwrite: the kernel, the buffers' files, the
/// images' files.
pub fn run_inputs(kernel: Option<&Path>, buffers: &[Option<&Path>], images: &[Option<&Path>]) -> Vec<Input> {
    let mut out: Vec<Input> = kernel.map(|k| (k.to_path_buf(), "the kernel".to_string())).into_iter().collect();
    for (i, b) in buffers.iter().enumerate() {
        out.extend(b.map(|p| (p.to_path_buf(), format!("buffer {i}'s file"))));
    }
    for (i, img) in images.iter().enumerate() {
        out.extend(img.map(|p| (p.to_path_buf(), format!("image {i}'s file"))));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_checked_before_the_launch_and_created_files_go_when_unused() {
        let dir = std::env::temp_dir().join(format!("lanejit-saves-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let kernel = dir.join("k.s");
        std::fs::write(&kernel, "    end\n").unwrap();
        std::fs::hard_link(&kernel, dir.join("link.s")).unwrap();
        let inputs = run_inputs(Some(&kernel), &[], &[]);
        let out = |name: &str| (format!("--save 0={name}"), dir.join(name));
        let err = |outs: &[Output]| format!("{:#}", check_outputs(outs, &inputs).err().expect("refused"));
        assert!(err(&[out("link.s")]).contains("refusing to overwrite the kernel"));
        assert!(err(&[out("a.bin"), out("a.bin")]).contains("is also the output of --save 0=a.bin"));
        assert!(!dir.join("a.bin").exists(), "a refused check removes what it created");
        assert!(err(&[out("no/such/dir.bin")]).contains("cannot write"));
        drop(check_outputs(&[out("b.bin")], &inputs).unwrap());
        assert!(!dir.join("b.bin").exists(), "an output never written is removed");
        check_outputs(&[out("c.bin")], &inputs).unwrap().keep();
        assert!(dir.join("c.bin").exists());
        std::fs::write(dir.join("c.bin"), "old").unwrap();
        check_outputs(&[out("c.bin")], &inputs).unwrap().keep();
        assert_eq!(std::fs::read(dir.join("c.bin")).unwrap(), b"old", "an existing output is not truncated");
        let devnull = (String::from("--save 1=/dev/null"), PathBuf::from("/dev/null"));
        check_outputs(&[devnull.clone(), devnull], &inputs).unwrap().keep();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_save_follows_the_launch_verdict_and_keeps_its_exit_code() {
        let errors = vec!["--save 0=/dev/full: no space".to_string()];
        let trap = with_save_errors(Err(crate::cli::Failed("trap: X".into()).into()), errors.clone());
        assert_eq!(crate::cli::exit_code(&trap), 1);
        assert_eq!(format!("{:#}", trap.unwrap_err()), "trap: X\nerror: --save 0=/dev/full: no space");
        assert_eq!(crate::cli::exit_code(&with_save_errors(Ok(()), errors)), 2);
        assert!(with_save_errors(Ok(()), Vec::new()).is_ok());
    }
}
