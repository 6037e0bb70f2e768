//! A launched DAP session: the requests that set breakpoints, run and step, and the events that report stops.
//! Threads are the waves of the workgroup in flight (thread id = wave + 1, named by workgroup and wave); each
//! has one stack frame (frame id = thread id) at its pc.

use super::vars;
use super::wire::{Incoming, Out};
use crate::debug::target::Target;
use anyhow::Result;
use lanejit::debug::expr::{self, parse_number, parse_u64, Expr};
use lanejit::debug::{BreakAt, ExitStatus, PauseHandle, Resume, Session, Space, StopReason};
use lanejit::Trap;
use serde_json::{json, Value};
use std::sync::mpsc::Receiver;

/// A launched session and what the client has set.
pub(super) struct Server<'t, 'o> {
    pub(super) session: Session<'t>,
    pub(super) target: &'t Target,
    out: &'o mut Out,
    pause: PauseHandle,
    stop_on_traps: bool,
    source_breakpoints: Vec<u32>,
    instruction_breakpoints: Vec<u32>,
    last_trap: Option<Box<Trap>>,
    /// A pause stopped the session: the stopped event follows the `pause` response.
    pending_pause: bool,
    stop_on_entry: bool,
}

/// Serves the session `launch` asked for until `disconnect` or `terminate`.
pub(super) fn serve(
    rx: &Receiver<Incoming>,
    out: &mut Out,
    pause: &PauseHandle,
    target: &Target,
    launch: &Value,
    stop_on_entry: bool,
) -> Result<()> {
    let session = match Session::new(&target.device, &target.kernel, &target.cfg) {
        Ok(s) => s.with_pause_handle(pause.clone()),
        Err(e) => {
            out.error(launch, &e.to_string())?;
            return without_session(rx, out);
        }
    };
    let mut s = Server {
        session,
        target,
        out,
        pause: pause.clone(),
        stop_on_traps: true,
        source_breakpoints: Vec::new(),
        instruction_breakpoints: Vec::new(),
        last_trap: None,
        pending_pause: false,
        stop_on_entry,
    };
    let early = s.session.start();
    s.out.ok(launch, Value::Null)?;
    s.out.event("initialized", Value::Null)?;
    if let Some(stop) = early {
        s.report(stop)?;
    }
    loop {
        let req = super::next_request(rx)?;
        if !s.handle(&req)? {
            return Ok(());
        }
    }
}

/// After a launch that failed: every request but `disconnect` and `terminate` is refused.
fn without_session(rx: &Receiver<Incoming>, out: &mut Out) -> Result<()> {
    loop {
        let req = super::next_request(rx)?;
        match req["command"].as_str() {
            Some("disconnect" | "terminate") => return Ok(out.ok(&req, Value::Null)?),
            _ => out.error(&req, "the launch failed: nothing to debug")?,
        }
    }
}

impl Server<'_, '_> {
    /// Handles one request: false when the session is over.
    fn handle(&mut self, req: &Value) -> Result<bool> {
        let args = &req["arguments"];
        let command = req["command"].as_str().unwrap_or("");
        let result = match command {
            "disconnect" | "terminate" => {
                self.out.ok(req, Value::Null)?;
                return Ok(false);
            }
            "initialize" => Err("the session is already initialized".to_string()),
            "launch" => Err("a kernel is already launched".to_string()),
            "configurationDone" => return self.configuration_done(req).map(|_| true),
            "continue" => return self.run(req, args, Resume::Continue).map(|_| true),
            "next" => return self.run(req, args, step_kind(args, Resume::Next)).map(|_| true),
            "stepIn" => return self.run(req, args, step_kind(args, Resume::StepLine)).map(|_| true),
            "stepOut" => return self.run(req, args, Resume::FinishBlock).map(|_| true),
            "pause" => return self.pause_request(req).map(|_| true),
            "setBreakpoints" => self.set_breakpoints(args),
            "setInstructionBreakpoints" => self.set_instruction_breakpoints(args),
            "setExceptionBreakpoints" => self.set_exception_breakpoints(args),
            "dataBreakpointInfo" => self.data_breakpoint_info(args),
            "setDataBreakpoints" => self.set_data_breakpoints(args),
            "threads" => Ok(self.threads()),
            "stackTrace" => self.stack_trace(args),
            "scopes" => vars::scopes(self, args),
            "variables" => vars::variables(self, args),
            "setVariable" => vars::set_variable(self, args),
            "evaluate" => vars::evaluate(self, args),
            "exceptionInfo" => self.exception_info(),
            "disassemble" => self.disassemble(args),
            "readMemory" => vars::read_memory(self, args),
            "writeMemory" => vars::write_memory(self, args),
            "source" => self.source(),
            c => Err(format!("`{c}` is not supported by lanejit dap")),
        };
        match result {
            Ok(body) => self.out.ok(req, body)?,
            Err(e) => self.out.error(req, &e)?,
        }
        Ok(true)
    }

    fn configuration_done(&mut self, req: &Value) -> Result<()> {
        self.out.ok(req, Value::Null)?;
        if self.stop_on_entry {
            let thread = self.session.focus() + 1;
            self.out.event("stopped", json!({"reason": "entry", "threadId": thread, "allThreadsStopped": true}))?;
            return Ok(());
        }
        let stop = self.session.resume(Resume::Continue);
        self.report(stop)
    }

    fn run(&mut self, req: &Value, args: &Value, how: Resume) -> Result<()> {
        if let Some(t) = args["threadId"].as_i64().filter(|&t| t >= 1) {
            if self.session.set_focus(t as usize - 1).is_err() {
                return Ok(self.out.error(req, &format!("no thread {t}"))?);
            }
        }
        let body = if how == Resume::Continue { json!({"allThreadsContinued": true}) } else { Value::Null };
        self.out.ok(req, body)?;
        let stop = self.session.resume(how);
        self.report(stop)
    }

    fn pause_request(&mut self, req: &Value) -> Result<()> {
        self.out.ok(req, Value::Null)?;
        // A pause that came after the session had stopped anyway must not stop the next resume at once.
        self.pause.take();
        if std::mem::take(&mut self.pending_pause) {
            let thread = self.session.focus() + 1;
            self.out.event("stopped", json!({"reason": "pause", "threadId": thread, "allThreadsStopped": true}))?;
        }
        Ok(())
    }

    /// Sends the events for a stop.
    fn report(&mut self, stop: StopReason) -> Result<()> {
        let thread = self.session.focus() + 1;
        let stopped = |reason: &str| json!({"reason": reason, "threadId": thread, "allThreadsStopped": true});
        match stop {
            StopReason::Breakpoint(ids) => {
                let mut b = stopped("breakpoint");
                b["hitBreakpointIds"] = json!(ids);
                self.out.event("stopped", b)?;
            }
            StopReason::Step => self.out.event("stopped", stopped("step"))?,
            StopReason::Watch(h) => {
                let mut b = stopped("data breakpoint");
                let [x, y, z] = h.workgroup;
                b["description"] = json!(format!("watchpoint {} written", h.id));
                b["text"] = json!(format!(
                    "workgroup ({x},{y},{z}) wave {} lanes {:#010x} at pc {:#x}: old {} new {}",
                    h.wave,
                    h.lanes,
                    h.pc,
                    lanejit::debug::hex_bytes(&h.old),
                    lanejit::debug::hex_bytes(&h.new)
                ));
                b["hitBreakpointIds"] = json!([h.id]);
                self.out.event("stopped", b)?;
            }
            StopReason::Trap(t) if self.stop_on_traps => {
                let mut b = stopped("exception");
                b["description"] = json!(t.kind.name());
                b["text"] = json!(t.to_string());
                self.last_trap = Some(t);
                self.out.event("stopped", b)?;
            }
            StopReason::Trap(_) => {
                let next = self.session.resume(Resume::Continue);
                return self.report(next);
            }
            StopReason::Paused => self.pending_pause = true,
            StopReason::Exited(status) => {
                if let (ExitStatus::Finished, Some(check)) = (&status, &self.target.check) {
                    let line = match check(&self.target.device) {
                        Ok(summary) => format!("check: OK ({summary})\n"),
                        Err(e) => format!("check: wrong answer: {e}\n"),
                    };
                    self.out.event("output", json!({"category": "console", "output": line}))?;
                }
                if let ExitStatus::Trapped(t) = &status {
                    let line = format!("the launch ended by the trap: {t}\n");
                    self.out.event("output", json!({"category": "stderr", "output": line}))?;
                }
                self.out.event("exited", json!({"exitCode": status.code()}))?;
                self.out.event("terminated", Value::Null)?;
            }
        }
        Ok(())
    }

    fn set_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        for id in std::mem::take(&mut self.source_breakpoints) {
            self.session.delete(id);
        }
        let path = args["source"]["path"].as_str().unwrap_or("");
        let ours = self.is_our_source(path);
        let mut out = Vec::new();
        for b in args["breakpoints"].as_array().into_iter().flatten() {
            let line = b["line"].as_i64().unwrap_or(0);
            let made = match ours {
                false => Err("not the source of the kernel being debugged".to_string()),
                true => self.add_breakpoint(BreakAt::Line(line.clamp(0, u32::MAX as i64) as u32), b),
            };
            out.push(match made {
                Ok(id) => {
                    self.source_breakpoints.push(id);
                    json!({"id": id, "verified": true, "line": line})
                }
                Err(e) => json!({"verified": false, "line": line, "message": e}),
            });
        }
        Ok(json!({"breakpoints": out}))
    }

    fn is_our_source(&self, path: &str) -> bool {
        let name = |p: &str| std::path::Path::new(p).file_name().map(|n| n.to_owned());
        self.target.source.as_ref().is_some_and(|(ours, _)| name(ours) == name(path))
    }

    /// Adds a breakpoint with the `condition` and `hitCondition` of DAP breakpoint `b`: its id.
    fn add_breakpoint(&mut self, at: BreakAt, b: &Value) -> Result<u32, String> {
        let condition = b["condition"].as_str().filter(|c| !c.trim().is_empty());
        let from_hit = match b["hitCondition"].as_str().map(|h| h.trim_start_matches(['>', '=', ' '])) {
            Some(h) if !h.is_empty() => Some(parse_u64(h).map_err(|e| format!("hitCondition: {e}"))?),
            _ => None,
        };
        self.session.add_breakpoint(at, condition, from_hit).map(|b| b.id).map_err(|e| e.to_string())
    }

    fn set_instruction_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        for id in std::mem::take(&mut self.instruction_breakpoints) {
            self.session.delete(id);
        }
        let mut out = Vec::new();
        for b in args["breakpoints"].as_array().into_iter().flatten() {
            let reference = b["instructionReference"].as_str().unwrap_or("");
            let pc = parse_number(reference)
                .map_err(|e| e.to_string())
                .map(|pc| pc.wrapping_add(b["offset"].as_i64().unwrap_or(0) as u32));
            match pc.and_then(|pc| self.add_breakpoint(BreakAt::Pc(pc), b)) {
                Ok(id) => {
                    self.instruction_breakpoints.push(id);
                    out.push(json!({"id": id, "verified": true, "instructionReference": reference}));
                }
                Err(e) => out.push(json!({"verified": false, "message": e})),
            }
        }
        Ok(json!({"breakpoints": out}))
    }

    fn set_exception_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let filters = args["filters"].as_array().cloned().unwrap_or_default();
        self.stop_on_traps = filters.iter().any(|f| f == "traps");
        Ok(json!({"breakpoints": filters.iter().map(|_| json!({"verified": true})).collect::<Vec<_>>()}))
    }

    fn data_breakpoint_info(&mut self, args: &Value) -> Result<Value, String> {
        let name = args["name"].as_str().unwrap_or("");
        let unwatchable = |why: &str| json!({"dataId": null, "description": why});
        let place = match expr::parse(name) {
            Ok(Expr::Mem(p)) => p,
            _ => return Ok(unwatchable("only memory can be watched: *ADDR, shared[OFF] or private[LANE][OFF]")),
        };
        if let Some(f) = args["frameId"].as_i64().filter(|&f| f >= 1) {
            self.session.set_focus(f as usize - 1).map_err(|e| e.to_string())?;
        }
        let (space, addr) = match self.session.resolve_place(&place) {
            Ok(p) => p,
            Err(e) => return Ok(unwatchable(&e.to_string())),
        };
        let id = match space {
            Space::Global => format!("global:{addr:#x}"),
            Space::Shared => format!("shared:{addr:#x}"),
            Space::Private { wave, lane } => format!("private:{wave}:{lane}:{addr:#x}"),
        };
        Ok(json!({"dataId": id, "description": format!("the word at {name}"), "accessTypes": ["write"],
            "canPersist": false}))
    }

    fn set_data_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        self.session.clear_watches();
        let mut out = Vec::new();
        for b in args["breakpoints"].as_array().into_iter().flatten() {
            let made = parse_data_id(b["dataId"].as_str().unwrap_or(""))
                .and_then(|(space, addr)| self.session.add_watch(space, addr, 4, None).map_err(|e| e.to_string()));
            out.push(match made {
                Ok(w) => json!({"id": w.id, "verified": true}),
                Err(e) => json!({"verified": false, "message": e}),
            });
        }
        Ok(json!({"breakpoints": out}))
    }

    fn threads(&self) -> Value {
        let threads: Vec<Value> = (self.session.waves().iter())
            .map(|w| {
                let [x, y, z] = w.workgroup;
                json!({"id": w.wave + 1, "name": format!("workgroup ({x},{y},{z}) wave {}", w.wave)})
            })
            .collect();
        json!({"threads": threads})
    }

    fn stack_trace(&mut self, args: &Value) -> Result<Value, String> {
        let thread = args["threadId"].as_i64().unwrap_or(0);
        let waves = self.session.waves();
        let w = waves.iter().find(|w| w.wave as i64 + 1 == thread).ok_or(format!("no thread {thread}"))?;
        if args["startFrame"].as_i64().unwrap_or(0) > 0 {
            return Ok(json!({"stackFrames": [], "totalFrames": 1}));
        }
        let [x, y, z] = w.workgroup;
        let mut frame = json!({"id": thread, "name": format!("workgroup ({x},{y},{z}) wave {} pc {:#x}", w.wave, w.pc),
            "line": w.line.unwrap_or(0), "column": if w.line.is_some() { 1 } else { 0 },
            "instructionPointerReference": format!("{:#x}", w.pc)});
        if w.line.is_some() {
            frame["source"] = self.source_ref();
        }
        Ok(json!({"stackFrames": [frame], "totalFrames": 1}))
    }

    /// The kernel's source as a DAP `Source`: by path when the file exists, else by reference (the `source`
    /// request returns its text).
    pub(super) fn source_ref(&self) -> Value {
        match &self.target.source {
            Some((path, _)) if std::path::Path::new(path).exists() => {
                let abs = std::fs::canonicalize(path).map_or(path.clone(), |p| p.display().to_string());
                json!({"name": file_name(path), "path": abs})
            }
            Some((path, _)) => json!({"name": file_name(path), "sourceReference": 1}),
            None => Value::Null,
        }
    }

    fn source(&self) -> Result<Value, String> {
        let (_, text) = self.target.source.as_ref().ok_or("the kernel has no source text")?;
        Ok(json!({"content": text, "mimeType": "text/x-asm"}))
    }

    fn exception_info(&self) -> Result<Value, String> {
        let t = self.last_trap.as_ref().ok_or("no trap has stopped the session")?;
        Ok(json!({"exceptionId": t.kind.name(), "description": t.to_string(), "breakMode": "always",
            "details": {"message": t.to_string(), "typeName": "Trap"}}))
    }

    fn disassemble(&self, args: &Value) -> Result<Value, String> {
        let base = parse_number(args["memoryReference"].as_str().unwrap_or("")).map_err(|e| e.to_string())?;
        let base = (base as i64 + args["offset"].as_i64().unwrap_or(0)).max(0) as u32;
        let count = args["instructionCount"].as_i64().unwrap_or(0).clamp(0, 4096);
        let starts = lanejit::debug::instruction_starts(&self.target.kernel);
        let at = starts.iter().position(|&p| p >= base).unwrap_or(starts.len()) as i64;
        let first = at + args["instructionOffset"].as_i64().unwrap_or(0);
        let all = self.session.disassemble(0, starts.len());
        let source = self.source_ref();
        let out: Vec<Value> = (first..first + count)
            .map(|i| match usize::try_from(i).ok().and_then(|i| all.get(i)) {
                Some((pc, text, line)) => {
                    let mut v = json!({"address": format!("{pc:#x}"), "instruction": text});
                    if let Some(l) = line {
                        (v["line"], v["location"]) = (json!(l), source.clone());
                    }
                    v
                }
                None => {
                    let pc = (base as i64 + (i - at) * 4).max(0);
                    json!({"address": format!("{pc:#x}"), "instruction": "(no code)", "presentationHint": "invalid"})
                }
            })
            .collect();
        Ok(json!({"instructions": out}))
    }
}

fn file_name(path: &str) -> String {
    std::path::Path::new(path).file_name().map_or(path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// `next` and `stepIn` step one instruction when the client asks for that granularity.
fn step_kind(args: &Value, by_line: Resume) -> Resume {
    match args["granularity"].as_str() {
        Some("instruction") => Resume::StepInstruction,
        _ => by_line,
    }
}

/// The space and address a data breakpoint's id names (`dataBreakpointInfo` made it).
fn parse_data_id(id: &str) -> Result<(Space, u64), String> {
    let parts: Vec<&str> = id.split(':').collect();
    let num = |s: &str| parse_u64(s).map_err(|e| e.to_string());
    match parts.as_slice() {
        ["global", a] => Ok((Space::Global, num(a)?)),
        ["shared", a] => Ok((Space::Shared, num(a)?)),
        ["private", w, l, a] => Ok((Space::Private { wave: num(w)? as usize, lane: num(l)? as usize }, num(a)?)),
        _ => Err(format!("`{id}` is not a data breakpoint id of this adapter")),
    }
}
