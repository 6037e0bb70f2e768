//! How the command-line debugger prints stops, waves, lanes, registers, values, memory and disassembly.

use super::commands::Debugger;
use anyhow::{bail, Result};
use lanejit::debug::expr::{parse_number, parse_u64, Value};
use lanejit::debug::{hex_bytes, ExitStatus, Space, StopReason, WaveRun};
use lanejit::LANES;

/// Prints why the session stopped, then where the focused wave stands.
pub fn print_stop(d: &mut Debugger, stop: &StopReason) -> Result<()> {
    match stop {
        StopReason::Breakpoint(ids) => {
            let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
            writeln!(d.out, "breakpoint {} hit", ids.join(", "))?;
        }
        StopReason::Step => {}
        StopReason::Watch(h) => {
            let [x, y, z] = h.workgroup;
            writeln!(
                d.out,
                "watchpoint {}: written by workgroup ({x},{y},{z}) wave {} lanes {:#010x} at pc {:#x}: old {} new {}",
                h.id,
                h.wave,
                h.lanes,
                h.pc,
                hex_bytes(&h.old),
                hex_bytes(&h.new)
            )?;
        }
        StopReason::Trap(t) => writeln!(d.out, "trap: {t}")?,
        StopReason::Paused => writeln!(d.out, "paused")?,
        StopReason::Exited(ExitStatus::Finished) => {
            writeln!(d.out, "launch finished: {} instructions retired", d.session.retired())?;
            if let Some(check) = &d.target.check {
                match check(&d.target.device) {
                    Ok(summary) => writeln!(d.out, "check: OK ({summary})")?,
                    Err(e) => writeln!(d.out, "check: wrong answer: {e}")?,
                }
            }
            return Ok(());
        }
        StopReason::Exited(ExitStatus::Trapped(t)) => {
            writeln!(d.out, "launch ended by the trap: {t}")?;
            return Ok(());
        }
    }
    where_now(d)
}

/// One line: the focused wave, its pc, source line and text.
pub fn where_now(d: &mut Debugger) -> Result<()> {
    let focus = d.session.focus();
    let Some(info) = d.session.waves().into_iter().find(|w| w.wave == focus) else {
        writeln!(d.out, "no wave is in flight")?;
        return Ok(());
    };
    let [x, y, z] = info.workgroup;
    let text = d.session.disassemble(info.pc, 1).first().map_or(String::new(), |(_, t, _)| t.clone());
    let line = info.line.map_or(String::new(), |l| format!(", line {l}"));
    let src = info.line.and_then(|l| d.target.source_line(l)).map_or(String::new(), |s| format!("  | {s}"));
    let state = run_text(info.run);
    writeln!(d.out, "workgroup ({x},{y},{z}) wave {focus} {state} pc {:#x}{line}: {text}{src}", info.pc)?;
    Ok(())
}

fn run_text(run: WaveRun) -> String {
    match run {
        WaveRun::Running => "at".into(),
        WaveRun::AtBarrier(pc) => format!("waiting at the barrier {pc:#x}, at"),
        WaveRun::Ended => "ended at".into(),
    }
}

/// `info waves`: every wave of the workgroup in flight.
pub fn waves(d: &mut Debugger) -> Result<()> {
    let waves = d.session.waves();
    if waves.is_empty() {
        writeln!(d.out, "no workgroup is in flight (the launch has not started or has ended)")?;
    }
    for w in waves {
        let [x, y, z] = w.workgroup;
        let mark = if w.wave == d.session.focus() { "*" } else { " " };
        let state = match w.run {
            WaveRun::Running => "running".to_string(),
            WaveRun::AtBarrier(pc) => format!("at barrier {pc:#x}"),
            WaveRun::Ended => "ended".to_string(),
        };
        let line = w.line.map_or(String::new(), |l| format!(" line {l}"));
        writeln!(
            d.out,
            "{mark} wave {} workgroup ({x},{y},{z}) [{}] pc {:#x}{line} exec {:#010x} {state}",
            w.wave, w.workgroup_index, w.pc, w.exec
        )?;
    }
    Ok(())
}

/// `info lanes`: each lane of the focused wave, active or not.
pub fn lanes(d: &mut Debugger) -> Result<()> {
    let focus = d.session.focus();
    let Some(w) = d.session.wave(focus) else { bail!("no wave is in flight") };
    let exec = w.exec;
    for l in 0..LANES {
        let mark = if l == d.lane { "*" } else { " " };
        let state = if exec >> l & 1 != 0 { "active" } else { "inactive" };
        writeln!(d.out, "{mark} lane {l:2} {state}")?;
    }
    Ok(())
}

/// `info registers [REG...]`: the named registers, or pc, EXEC, fcsr, the uniform registers and the vector
/// registers the kernel names at the focused lane.
pub fn registers(d: &mut Debugger, args: &str) -> Result<()> {
    if !args.is_empty() {
        for r in args.split_whitespace() {
            let v = d.session.evaluate(r)?;
            writeln!(d.out, "{r} = {}", value(&v, true))?;
        }
        return Ok(());
    }
    let focus = d.session.focus();
    let Some(w) = d.session.wave(focus).cloned() else { bail!("no wave is in flight") };
    writeln!(d.out, "pc {:#x} exec {:#010x} fcsr {:#x}", w.pc, w.exec, w.fcsr)?;
    let (vs, us) = d.target.kernel.registers_named().clone();
    for u in us {
        writeln!(d.out, "u{u} = {:#x}", w.u[u])?;
    }
    for v in vs {
        writeln!(d.out, "v{v}[{}] = {:#x}", d.lane, w.v[v][d.lane])?;
    }
    Ok(())
}

/// `info launch`: the workgroup in flight, the grid, the instructions retired and how the launch ended.
pub fn launch(d: &mut Debugger) -> Result<()> {
    let cfg = &d.target.cfg;
    let wg = d.session.workgroup().map_or("none".to_string(), |(i, id)| format!("{i} {id:?}"));
    writeln!(d.out, "grid {:?}, workgroup in flight {wg}, {} retired", cfg.grid, d.session.retired())?;
    match d.session.exit_status() {
        Some(ExitStatus::Finished) => writeln!(d.out, "the launch has finished")?,
        Some(ExitStatus::Trapped(t)) => writeln!(d.out, "the launch ended by the trap: {t}")?,
        None => {}
    }
    Ok(())
}

/// A value: a word in decimal (with hex), or the 32 lanes in brackets.
pub fn value(v: &Value, hex: bool) -> String {
    let word = |x: u32| if hex { format!("{x:#x}") } else { x.to_string() };
    match v {
        Value::Scalar(x) if hex => format!("{x:#x}"),
        Value::Scalar(x) => format!("{x} ({x:#x})"),
        Value::Lanes(l) => format!("[{}]", l.iter().map(|&x| word(x)).collect::<Vec<_>>().join(", ")),
    }
}

/// `x/NFU ADDR`: N units (w words, b bytes) printed as F (x hex, d signed, u unsigned), four words or eight bytes
/// a line. ADDR is a global address, `shared:OFF` or `private:LANE:OFF` (of the focused wave).
pub fn examine(d: &mut Debugger, format: &str, addr: &str) -> Result<()> {
    let digits: String = format.chars().take_while(|c| c.is_ascii_digit()).collect();
    let count = if digits.is_empty() { 1 } else { parse_u64(&digits)? };
    let letters = &format[digits.len()..];
    let unit = if letters.contains('b') { 1 } else { 4 };
    let style = letters.chars().find(|c| "xdu".contains(*c)).unwrap_or('x');
    if letters.chars().any(|c| !"xduwb".contains(c)) {
        bail!("x/{format}: units are w (word) and b (byte), formats x, d and u");
    }
    let (space, base) = examine_place(d, addr)?;
    let len = count.checked_mul(unit).ok_or_else(|| anyhow::anyhow!("x/{format}: {count} units are too many"))?;
    let bytes = d.session.read_memory(space, base, len)?;
    let per_line = if unit == 4 { 4 } else { 8 };
    for (i, chunk) in bytes.chunks(unit as usize * per_line).enumerate() {
        let at = base + (i * per_line) as u64 * unit;
        let items: Vec<String> = chunk
            .chunks(unit as usize)
            .map(|c| {
                let x = if unit == 4 { u32::from_le_bytes([c[0], c[1], c[2], c[3]]) } else { c[0] as u32 };
                match style {
                    'd' if unit == 4 => (x as i32).to_string(),
                    'd' => (x as u8 as i8).to_string(),
                    'u' => x.to_string(),
                    _ if unit == 4 => format!("{x:#010x}"),
                    _ => format!("{x:#04x}"),
                }
            })
            .collect();
        writeln!(d.out, "{at:#x}: {}", items.join(" "))?;
    }
    Ok(())
}

fn examine_place(d: &Debugger, addr: &str) -> Result<(Space, u64)> {
    let parts: Vec<&str> = addr.split(':').collect();
    Ok(match parts.as_slice() {
        ["shared", off] => (Space::Shared, parse_u64(off)?),
        ["private", lane, off] => {
            (Space::Private { wave: d.session.focus(), lane: parse_number(lane)? as usize }, parse_u64(off)?)
        }
        [a] if !a.is_empty() => (Space::Global, parse_u64(a)?),
        _ => bail!("x takes an address: ADDR (global), shared:OFF or private:LANE:OFF"),
    })
}

/// `disassemble`: `count` instructions from `from`, the focused wave's pc marked `=>`, with source lines.
pub fn disassembly(d: &mut Debugger, from: u32, count: usize, pc: u32) -> Result<()> {
    for (at, text, line) in d.session.disassemble(from, count) {
        let mark = if at == pc { "=>" } else { "  " };
        let src = line.and_then(|l| d.target.source_line(l).map(|s| format!("  ; {l}: {s}"))).unwrap_or_default();
        writeln!(d.out, "{mark} {at:#06x}  {text}{src}")?;
    }
    Ok(())
}
