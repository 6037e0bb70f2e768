//! `lanejit debug KERNEL [run's options]`: a command-line debugger with gdb-like verbs over `lanejit::debug`.
//! Commands come from a script (`-x SCRIPT`), from standard input when it is not a terminal (batch), or from
//! the terminal with line editing and the session's history (rustyline).

pub mod commands;
pub mod target;
mod view;

use crate::cli::{Failed, LaunchArgs};
use anyhow::{anyhow, Context, Result};
use commands::{After, Debugger};
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;

/// The exit-code section of `lanejit debug --help`.
pub const DEBUG_EXIT_CODES_HELP: &str = "Exit codes: 0 the commands ran and the kernel did not trap; 1 the kernel \
trapped during the session (a trap, a barrier deadlock, the budget); 2 bad input: an unreadable kernel, script or \
option, or, in batch use (-x SCRIPT or commands on a non-terminal standard input), the first unknown or malformed \
command (nothing after it runs).";

/// `lanejit debug` arguments.
#[derive(clap::Args, Debug)]
pub struct DebugArgs {
    /// Kernel source (.s) or binary; a bundled example name also works (run at its small size).
    pub kernel: String,
    /// The kernel's launch: grid, workgroup, buffers, arguments and budget (as `run` takes them; --threads and
    /// --check do not apply: a debugged launch runs one workgroup at a time on the interpreter).
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Run the commands of SCRIPT, one a line (`#` starts a comment), then exit; the first bad one exits 2.
    #[arg(short = 'x', long = "script", value_name = "SCRIPT")]
    pub script: Option<PathBuf>,
}

/// Runs the debugger as `a` says.
pub fn run(a: &DebugArgs, compile: &lanejit::CompileConfig) -> Result<()> {
    let target = target::prepare(&a.kernel, &a.launch, compile)?;
    let session = lanejit::debug::Session::new(&target.device, &target.kernel, &target.cfg).map_err(|e| anyhow!(e))?;
    let mut stdout = std::io::stdout();
    let mut d = Debugger { session, target: &target, lane: 0, trapped: false, out: &mut stdout };
    if let Some(stop) = d.session.start() {
        d.trapped |= matches!(stop, lanejit::debug::StopReason::Trap(_));
    }
    match &a.script {
        Some(path) => {
            let text = crate::bufio::read_input_text(path, SCRIPT_FILE)?;
            batch(&mut d, text.lines().map(|l| Ok(l.to_string())), &path.display().to_string())?;
        }
        None if !std::io::stdin().is_terminal() => {
            batch(&mut d, std::io::stdin().lock().lines().map(|l| l.map_err(Into::into)), "standard input")?
        }
        None => interactive(&mut d)?,
    }
    d.out.flush()?;
    match d.trapped {
        true => Err(Failed("the kernel trapped during the session".into()).into()),
        false => Ok(()),
    }
}

/// Most bytes of a debugger script.
const SCRIPT_FILE: crate::bufio::Limit = crate::bufio::Limit { bytes: 1 << 20, name: "the script size limit (1 MiB)" };

/// Runs commands until the end or `quit`; the first bad one ends the session with its error (exit code 2).
fn batch(d: &mut Debugger, lines: impl Iterator<Item = Result<String>>, from: &str) -> Result<()> {
    for (n, line) in lines.enumerate() {
        let line = line.with_context(|| format!("reading {from}"))?;
        let flow = d.execute(&line).with_context(|| format!("{from}:{}: `{}`", n + 1, line.trim()))?;
        if flow == After::Quit {
            break;
        }
    }
    Ok(())
}

/// Reads commands from the terminal with line editing and the session's history (rustyline); an empty line
/// repeats the last step or continue, errors are printed and the session goes on; Ctrl-C clears the line,
/// Ctrl-D quits.
fn interactive(d: &mut Debugger) -> Result<()> {
    use rustyline::error::ReadlineError;
    let mut editor = rustyline::DefaultEditor::new()?;
    let mut last: Option<String> = None;
    loop {
        let line = match editor.readline("(lanejit) ") {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let line = match line.trim() {
            "" => match last.clone() {
                Some(l) => l,
                None => continue,
            },
            l => {
                // (A history entry the editor refuses, e.g. a duplicate, is no error.)
                let _ = editor.add_history_entry(l);
                l.to_string()
            }
        };
        last = is_step(&line).then(|| line.clone());
        match d.execute(&line) {
            Ok(After::Quit) => return Ok(()),
            Ok(After::Next) => {}
            Err(e) => eprintln!("error: {e:#}"),
        }
    }
}

fn is_step(line: &str) -> bool {
    let verb = line.split_whitespace().next().unwrap_or("");
    ["s", "step", "si", "stepi", "n", "next", "c", "continue"].contains(&verb)
}
