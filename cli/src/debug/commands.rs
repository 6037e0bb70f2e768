//! The command-line debugger's verbs (gdb-like): each command line is parsed and run against the session, its
//! output written to `out`.

use super::target::Target;
use super::view;
use anyhow::{anyhow, bail, Result};
use lanejit::debug::expr::{self, parse_number, parse_u64, Expr};
use lanejit::debug::{BreakAt, Resume, Session, StopReason};
use std::io::Write;

/// What the loop does after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum After {
    /// Read the next command.
    Next,
    /// Quit the debugger.
    Quit,
}

/// The debugger: the session, its target, the focused lane and where output goes.
pub struct Debugger<'s, 'a> {
    /// The session.
    pub session: Session<'a>,
    /// What was launched (source text for listings).
    pub target: &'s Target,
    /// The lane `info registers` shows vector registers at.
    pub lane: usize,
    /// Set when the kernel trapped during the session.
    pub trapped: bool,
    /// Where the output goes.
    pub out: &'s mut dyn Write,
}

/// The one-line help of every verb.
pub const HELP: &str = "\
break LOC [if COND]   stop at LOC: a source line (12) or a pc (*0x40); COND is an expression (v3 == 5) that
                      must hold in some active lane
ignore ID N           breakpoint ID stops only from hit N+1 on
watch PLACE [len N] [wg N]  stop at writes to memory: *ADDR (global), shared[OFF], private[LANE][OFF]
                      (the focused wave's lane); N bytes (default 4); only workgroup N's writes
delete [ID]           remove breakpoint or watchpoint ID (all breakpoints and watchpoints without ID)
run | continue | c    run until something stops the launch
step | s [N]          run the focused wave to its next source line (N times)
stepi | si [N]        run one instruction of the focused wave (N times)
next | n [N]          run the focused wave to a later source line (a loop's back edge runs the loop out)
finish | fin          run the focused wave to the end of its current block (a jump, branch, barrier or end)
info waves|lanes|registers [REG...]|breakpoints|watchpoints|launch
print | p[/x] EXPR    print an expression: v3, v3[5], u4, exec, fcsr, pc, *ADDR, shared[OFF], v3 == 5
set TARGET = VALUE    change a register (v3, v3[5], u4, exec, fcsr, pc) or a memory word of the focused wave
x/NFU ADDR            examine memory: N units, F x|d|u, U w|b (x/16wx 0x100000000, x/4wd shared:0,
                      x/2wx private:LANE:OFF)
wave N | lane N       focus wave N of the workgroup in flight, or lane N
disassemble [PC] [N]  N instructions (default 8) from PC (default: a little before the focused wave's pc)
help | quit";

impl Debugger<'_, '_> {
    /// Runs one command line (an empty line or a `#` comment does nothing).
    pub fn execute(&mut self, line: &str) -> Result<After> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(After::Next);
        }
        let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let (verb, format) = verb.split_once('/').map_or((verb, ""), |(v, f)| (v, f));
        match verb {
            "break" | "b" => self.add_break(rest)?,
            "ignore" => self.ignore(rest)?,
            "watch" => self.add_watch(rest)?,
            "delete" | "d" => self.delete(rest)?,
            "run" | "r" | "continue" | "c" => self.resume(Resume::Continue, "1")?,
            "step" | "s" => self.resume(Resume::StepLine, rest)?,
            "stepi" | "si" => self.resume(Resume::StepInstruction, rest)?,
            "next" | "n" => self.resume(Resume::Next, rest)?,
            "finish" | "fin" => self.resume(Resume::FinishBlock, rest)?,
            "info" | "i" => self.info(rest)?,
            "print" | "p" => self.print(rest, format)?,
            "set" => self.set(rest)?,
            "x" => self.examine(format, rest)?,
            "wave" => self.focus_wave(rest)?,
            "lane" => self.focus_lane(rest)?,
            "disassemble" | "disas" => self.disassemble(rest)?,
            "help" | "h" => writeln!(self.out, "{HELP}")?,
            "quit" | "q" => return Ok(After::Quit),
            _ => bail!("unknown command `{verb}` (try `help`)"),
        }
        Ok(After::Next)
    }

    fn add_break(&mut self, rest: &str) -> Result<()> {
        let (loc, cond) = match rest.split_once(" if ") {
            Some((l, c)) => (l.trim(), Some(c.trim())),
            None => (rest, None),
        };
        let at = match loc.strip_prefix('*') {
            Some(pc) => BreakAt::Pc(parse_number(pc)?),
            None if loc.is_empty() => bail!("break needs a location: a line (12) or a pc (*0x40)"),
            None => BreakAt::Line(parse_number(loc.trim_start_matches("line:"))?),
        };
        let kernel = &self.target.kernel;
        let b = self.session.add_breakpoint(at, cond, None)?;
        writeln!(self.out, "{}", b.describe(kernel))?;
        Ok(())
    }

    fn ignore(&mut self, rest: &str) -> Result<()> {
        let [id, n] = words::<2>(rest, "ignore ID N")?;
        let (id, n) = (parse_number(id)?, parse_u64(n)?);
        if !self.session.set_from_hit(id, n + 1) {
            bail!("no breakpoint {id}");
        }
        writeln!(self.out, "breakpoint {id} stops from hit {} on", n + 1)?;
        Ok(())
    }

    fn add_watch(&mut self, rest: &str) -> Result<()> {
        let mut parts = rest.split_whitespace().collect::<Vec<_>>();
        let mut option = |name: &str| -> Result<Option<u64>> {
            match parts.iter().position(|p| *p == name) {
                Some(i) if i + 1 < parts.len() => {
                    let v = parse_u64(parts[i + 1])?;
                    parts.drain(i..i + 2);
                    Ok(Some(v))
                }
                Some(_) => bail!("`{name}` needs a number"),
                None => Ok(None),
            }
        };
        let len = option("len")?.unwrap_or(4);
        let wg = option("wg")?;
        let place = match expr::parse(&parts.join(" "))? {
            Expr::Mem(p) => p,
            _ => bail!("watch takes a memory place: *ADDR, shared[OFF] or private[LANE][OFF]"),
        };
        let (space, addr) = self.session.resolve_place(&place)?;
        let len = u32::try_from(len).map_err(|_| anyhow!("len {len} is too large"))?;
        let w = self.session.add_watch(space, addr, len, wg)?;
        writeln!(self.out, "{}", w.describe())?;
        Ok(())
    }

    fn delete(&mut self, rest: &str) -> Result<()> {
        if rest.is_empty() {
            self.session.clear_breakpoints();
            self.session.clear_watches();
            writeln!(self.out, "deleted every breakpoint and watchpoint")?;
            return Ok(());
        }
        let id = parse_number(rest)?;
        if !self.session.delete(id) {
            bail!("no breakpoint or watchpoint {id}");
        }
        writeln!(self.out, "deleted {id}")?;
        Ok(())
    }

    fn resume(&mut self, how: Resume, count: &str) -> Result<()> {
        let n = if count.is_empty() { 1 } else { parse_u64(count)? };
        for _ in 0..n {
            let stop = self.session.resume(how);
            self.trapped |= matches!(stop, StopReason::Trap(_));
            view::print_stop(self, &stop)?;
            if !matches!(stop, StopReason::Step) {
                break;
            }
        }
        Ok(())
    }

    fn info(&mut self, rest: &str) -> Result<()> {
        let (what, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        match what {
            "waves" | "wave" => view::waves(self),
            "lanes" | "lane" => view::lanes(self),
            "registers" | "reg" | "r" => view::registers(self, args.trim()),
            "breakpoints" | "break" | "b" | "watchpoints" | "watch" => {
                for b in self.session.breakpoints() {
                    writeln!(self.out, "{}", b.describe(&self.target.kernel))?;
                }
                for w in self.session.watches() {
                    writeln!(self.out, "{}", w.describe())?;
                }
                Ok(())
            }
            "launch" => view::launch(self),
            _ => bail!("info takes waves, lanes, registers, breakpoints, watchpoints or launch, not `{what}`"),
        }
    }

    fn print(&mut self, rest: &str, format: &str) -> Result<()> {
        if rest.is_empty() {
            bail!("print needs an expression");
        }
        let hex = match format {
            "" | "d" => false,
            "x" => true,
            f => bail!("print/{f}: formats are /x and /d"),
        };
        let v = self.session.evaluate(rest)?;
        writeln!(self.out, "{rest} = {}", view::value(&v, hex))?;
        Ok(())
    }

    fn set(&mut self, rest: &str) -> Result<()> {
        let rest = rest.strip_prefix("var ").unwrap_or(rest);
        let Some((target, value)) = rest.split_once('=').filter(|(_, v)| !v.starts_with('=')) else {
            bail!("set takes TARGET = VALUE");
        };
        self.session.assign(target.trim(), value.trim())?;
        let now = self.session.evaluate(target.trim())?;
        writeln!(self.out, "{} = {}", target.trim(), view::value(&now, false))?;
        Ok(())
    }

    fn examine(&mut self, format: &str, rest: &str) -> Result<()> {
        view::examine(self, format, rest)
    }

    fn focus_wave(&mut self, rest: &str) -> Result<()> {
        self.session.set_focus(parse_number(rest)? as usize)?;
        view::where_now(self)
    }

    fn focus_lane(&mut self, rest: &str) -> Result<()> {
        let lane = parse_number(rest)? as usize;
        if lane >= lanejit::LANES {
            bail!("lane {lane}: lanes are 0..{}", lanejit::LANES - 1);
        }
        self.lane = lane;
        writeln!(self.out, "lane {lane} of wave {}", self.session.focus())?;
        Ok(())
    }

    fn disassemble(&mut self, rest: &str) -> Result<()> {
        let args: Vec<&str> = rest.split_whitespace().collect();
        let pc = self.session.wave(self.session.focus()).map_or(0, |w| w.pc);
        let from = match args.first() {
            Some(a) => parse_number(a.trim_start_matches('*'))?,
            None => pc.saturating_sub(12),
        };
        let count = match args.get(1) {
            Some(n) => parse_u64(n)? as usize,
            None => 8,
        };
        view::disassembly(self, from, count, pc)
    }
}

/// Exactly `N` whitespace-separated words of `rest`, or the usage.
fn words<'r, const N: usize>(rest: &'r str, usage: &str) -> Result<[&'r str; N]> {
    let v: Vec<&str> = rest.split_whitespace().collect();
    v.try_into().map_err(|_| anyhow!("usage: {usage}"))
}
