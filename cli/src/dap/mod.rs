//! `lanejit dap`: a Debug Adapter Protocol server over `lanejit::debug`, on standard input and output or on a
//! TCP port. Before `launch` it answers `initialize`; `launch` (the kernel as `program`, `run`'s options as
//! `args`) starts the session, served by `server` until `disconnect` or `terminate`.

mod server;
mod vars;
pub mod wire;

use crate::cli::LaunchArgs;
use anyhow::{bail, Result};
use clap::Parser;
use lanejit::debug::PauseHandle;
use serde_json::{json, Value};
use std::io::BufReader;
use std::sync::mpsc::{channel, Receiver};
use wire::{Incoming, Out};

/// The exit-code section of `lanejit dap --help`.
pub const DAP_EXIT_CODES_HELP: &str = "Exit codes: 0 the client ended the session with `disconnect` or \
`terminate` (the kernel's own outcome is the `exited` event's exitCode: 0 finished, 1 trapped); 2 a malformed \
message (bad framing, a body that is not a JSON request), the client closing the connection without \
`disconnect`, or a port that cannot be opened.";

/// `lanejit dap` arguments.
#[derive(clap::Args, Debug)]
pub struct DapArgs {
    /// Listen on this TCP port of 127.0.0.1 for one client instead of using standard input and output.
    #[arg(long)]
    pub port: Option<u16>,
}

/// `launch`'s `args`: `run`'s options, parsed by the same definition.
#[derive(Parser, Debug)]
#[command(name = "launch arguments", no_binary_name = true)]
struct LaunchArgv {
    #[command(flatten)]
    launch: LaunchArgs,
}

/// Serves one client.
pub fn run(a: &DapArgs, compile: &lanejit::CompileConfig) -> Result<()> {
    let (reader, writer): (Box<dyn std::io::BufRead + Send>, Box<dyn std::io::Write + Send>) = match a.port {
        Some(port) => {
            let listener = std::net::TcpListener::bind(("127.0.0.1", port))
                .map_err(|e| anyhow::anyhow!("--port {port}: cannot listen: {e}"))?;
            eprintln!("lanejit dap: listening on 127.0.0.1:{}", listener.local_addr()?.port());
            let (stream, _) = listener.accept()?;
            (Box::new(BufReader::new(stream.try_clone()?)), Box::new(stream))
        }
        None => (Box::new(BufReader::new(std::io::stdin())), Box::new(std::io::stdout())),
    };
    let pause = PauseHandle::default();
    let (tx, rx) = channel();
    let reader_pause = pause.clone();
    std::thread::spawn(move || wire::reader_loop(reader, tx, reader_pause));
    let mut out = Out::new(writer);
    before_launch(&rx, &mut out, &pause, compile)
}

/// The next request, or the error that ends the session (exit code 2).
pub(crate) fn next_request(rx: &Receiver<Incoming>) -> Result<Value> {
    match rx.recv() {
        Ok(Incoming::Request(v)) => Ok(v),
        Ok(Incoming::Malformed(e)) => bail!("malformed DAP message: {e}"),
        Ok(Incoming::Closed) | Err(_) => bail!("the client closed the connection without `disconnect`"),
    }
}

/// Answers requests until a `launch` succeeds, then serves the session.
fn before_launch(
    rx: &Receiver<Incoming>,
    out: &mut Out,
    pause: &PauseHandle,
    compile: &lanejit::CompileConfig,
) -> Result<()> {
    loop {
        let req = next_request(rx)?;
        match req["command"].as_str().unwrap_or("") {
            "initialize" => out.ok(&req, capabilities())?,
            "launch" => match launch_target(&req["arguments"], compile) {
                Ok((target, stop_on_entry)) => return server::serve(rx, out, pause, &target, &req, stop_on_entry),
                Err(e) => out.error(&req, &format!("{e:#}"))?,
            },
            "disconnect" | "terminate" => {
                out.ok(&req, Value::Null)?;
                return Ok(());
            }
            "attach" => out.error(&req, "lanejit dap launches kernels; it cannot attach")?,
            c => out.error(&req, &format!("`{c}` before `launch`: launch a kernel first"))?,
        }
    }
}

/// What `initialize` answers: the capabilities this adapter has (and no others).
pub fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsEvaluateForHovers": true,
        "supportsSetVariable": true,
        "supportsDataBreakpoints": true,
        "supportsDisassembleRequest": true,
        "supportsInstructionBreakpoints": true,
        "supportsReadMemoryRequest": true,
        "supportsWriteMemoryRequest": true,
        "supportsSteppingGranularity": true,
        "supportsExceptionInfoRequest": true,
        "supportsTerminateRequest": true,
        "supportsPauseRequest": true,
        "exceptionBreakpointFilters": [
            {"filter": "traps", "label": "Traps", "description": "Stop at every trap and barrier deadlock",
             "default": true}
        ]
    })
}

/// The launch `arguments` describe: `program` (a kernel file or a bundled example), `args` (`run`'s options)
/// and `stopOnEntry`.
fn launch_target(args: &Value, compile: &lanejit::CompileConfig) -> Result<(crate::debug::target::Target, bool)> {
    let Some(program) = args["program"].as_str() else { bail!("launch needs `program`: a kernel file or example") };
    let argv: Vec<String> = match &args["args"] {
        Value::Null => Vec::new(),
        Value::Array(a) => a
            .iter()
            .map(|s| s.as_str().map(str::to_string).ok_or_else(|| anyhow::anyhow!("`args` holds strings only")))
            .collect::<Result<_>>()?,
        _ => bail!("`args` is a list of strings (run's options)"),
    };
    let parsed = LaunchArgv::try_parse_from(&argv).map_err(|e| anyhow::anyhow!("launch args: {}", e.render()))?;
    let target = crate::debug::target::prepare(program, &parsed.launch, compile)?;
    Ok((target, args["stopOnEntry"].as_bool().unwrap_or(false)))
}
