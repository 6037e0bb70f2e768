//! A scripted Debug Adapter Protocol client: it runs `lanejit dap` as a child process, exchanges real framed
//! messages (`Content-Length`) with it, and validates every message it receives against the official DAP JSON
//! schema (tests/dap/debugAdapterProtocol.json, from microsoft/debug-adapter-protocol, MIT licence in
//! tests/dap/License.txt). Sessions run on bundled examples and small fixture kernels; bad input (malformed
//! messages, a client that goes away) must end the adapter with exit code 2, never a panic or a hang.

#[path = "dap/schema.rs"]
mod schema;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// Longest wait for one message: a hang fails the test instead of blocking it.
const TIMEOUT: Duration = Duration::from_secs(60);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    seq: i64,
    schema: schema::Schema,
    /// Events received while waiting for something else, in order.
    events: Vec<Value>,
}

fn read_framed(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').expect("a header line");
        assert_eq!(name, "Content-Length", "the adapter sent header `{line}`");
        length = Some(value.trim().parse::<usize>().expect("a length"));
    }
    let mut body = vec![0; length.expect("Content-Length")];
    r.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("the adapter sends JSON"))
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lanejit"))
            .arg("dap")
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("lanejit dap starts");
        let mut out = BufReader::new(child.stdout.take().expect("piped"));
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            while let Some(m) = read_framed(&mut out) {
                if tx.send(m).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Client { child, stdin, incoming, seq: 1, schema: schema::Schema::load(), events: Vec::new() }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).and_then(|_| stdin.flush()).expect("the adapter reads");
    }

    fn send(&mut self, command: &str, arguments: Value) -> i64 {
        let seq = self.seq;
        self.seq += 1;
        let body = json!({"seq": seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        seq
    }

    /// The next message, validated against the schema.
    fn receive(&mut self) -> Value {
        let m = self.incoming.recv_timeout(TIMEOUT).expect("a message from the adapter in time");
        if let Err(e) = self.schema.validate_message(&m) {
            panic!("the adapter sent a message the DAP schema refuses: {e}\n{m:#}");
        }
        m
    }

    /// Sends a request and returns its response (events received meanwhile are kept).
    fn request(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        loop {
            let m = self.receive();
            if m["type"] == "response" && m["request_seq"] == seq {
                assert_eq!(m["command"], command);
                return m;
            }
            self.events.push(m);
        }
    }

    /// A request that must succeed: its body.
    fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let r = self.request(command, arguments);
        assert_eq!(r["success"], true, "{command} failed: {r:#}");
        r["body"].clone()
    }

    /// The next event named `name` (earlier events skipped).
    fn event(&mut self, name: &str) -> Value {
        if let Some(i) = self.events.iter().position(|e| e["event"] == name) {
            return self.events.drain(..=i).next_back().expect("found")["body"].clone();
        }
        loop {
            let m = self.receive();
            if m["type"] == "event" && m["event"] == name {
                return m["body"].clone();
            }
        }
    }

    /// initialize, launch, the `initialized` event: the capabilities.
    fn launch(&mut self, program: &str, args: &[&str]) -> Value {
        let caps = self.ok("initialize", json!({"adapterID": "lanejit", "linesStartAt1": true}));
        self.ok("launch", json!({"program": program, "args": args}));
        self.event("initialized");
        caps
    }

    fn evaluate(&mut self, expression: &str, frame: i64) -> String {
        let b = self.ok("evaluate", json!({"expression": expression, "frameId": frame, "context": "repl"}));
        b["result"].as_str().expect("a result").to_string()
    }

    /// disconnect, and the adapter's exit code.
    fn finish(mut self) -> Option<i32> {
        self.ok("disconnect", json!({}));
        self.exit_code()
    }

    fn exit_code(&mut self) -> Option<i32> {
        drop(self.stdin.take());
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("lanejit dap did not exit within a minute");
    }

    fn stderr(&mut self) -> String {
        let mut s = String::new();
        self.child.stderr.take().expect("piped").read_to_string(&mut s).expect("stderr");
        s
    }
}

#[test]
fn capabilities_are_the_ones_implemented() {
    let mut c = Client::start();
    let caps = c.launch("divergent", &[]);
    for cap in [
        "supportsConfigurationDoneRequest",
        "supportsDataBreakpoints",
        "supportsDisassembleRequest",
        "supportsReadMemoryRequest",
        "supportsWriteMemoryRequest",
        "supportsInstructionBreakpoints",
        "supportsConditionalBreakpoints",
        "supportsSetVariable",
        "supportsSteppingGranularity",
    ] {
        assert_eq!(caps[cap], true, "{cap}");
    }
    // Not implemented, so not claimed.
    for cap in
        ["supportsStepBack", "supportsRestartRequest", "supportsFunctionBreakpoints", "supportsGotoTargetsRequest"]
    {
        assert!(caps.get(cap).is_none(), "{cap}");
    }
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn break_at_a_source_line_and_read_vector_lanes() {
    let mut c = Client::start();
    c.launch("divergent", &[]);
    let b = c.ok(
        "setBreakpoints",
        json!({"source": {"path": "examples/divergent.s"},
        "breakpoints": [{"line": 26}, {"line": 3}]}),
    );
    assert_eq!(b["breakpoints"][0]["verified"], true);
    assert_eq!(b["breakpoints"][1]["verified"], false);
    assert!(b["breakpoints"][1]["message"].as_str().unwrap().contains("line 3 has no code"));
    c.ok("configurationDone", json!({}));
    let stop = c.event("stopped");
    assert_eq!(stop["reason"], "breakpoint");
    assert_eq!(stop["hitBreakpointIds"], json!([b["breakpoints"][0]["id"]]));
    let thread = stop["threadId"].as_i64().unwrap();
    let threads = c.ok("threads", json!({}));
    assert_eq!(threads["threads"][0]["name"], "workgroup (0,0,0) wave 0");
    let frames = c.ok("stackTrace", json!({"threadId": thread}));
    let frame = &frames["stackFrames"][0];
    assert_eq!((frame["line"].as_i64(), frame["instructionPointerReference"].as_str()), (Some(26), Some("0x54")));
    let scopes = c.ok("scopes", json!({"frameId": frame["id"]}));
    let vectors = scopes["scopes"].as_array().unwrap().iter().find(|s| s["name"] == "Vector registers").unwrap();
    let vars = c.ok("variables", json!({"variablesReference": vectors["variablesReference"]}));
    let v5 = vars["variables"].as_array().unwrap().iter().find(|v| v["name"] == "v5").expect("v5 is listed");
    assert!(v5["value"].as_str().unwrap().starts_with("[1, 27, 77671,"), "{v5}");
    let lanes = c.ok("variables", json!({"variablesReference": v5["variablesReference"]}));
    assert_eq!(lanes["variables"].as_array().unwrap().len(), 32);
    assert_eq!(
        (lanes["variables"][1]["name"].as_str(), lanes["variables"][1]["value"].as_str()),
        (Some("[1]"), Some("27"))
    );
    assert_eq!(c.evaluate("v5[2]", frame["id"].as_i64().unwrap()), "77671 (0x12f67)");
    let source = c.ok("source", json!({"sourceReference": 1}));
    assert!(source["content"].as_str().unwrap().contains(".kernel divergent"));
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn step_through_a_divergent_branch_and_see_exec_change() {
    let mut c = Client::start();
    c.launch("divergent", &[]);
    c.ok("setInstructionBreakpoints", json!({"breakpoints": [{"instructionReference": "0x60"}]}));
    c.ok("configurationDone", json!({}));
    assert_eq!(c.event("stopped")["reason"], "breakpoint");
    let before = c.evaluate("exec", 1);
    c.ok("stepIn", json!({"threadId": 1, "granularity": "instruction"}));
    assert_eq!(c.event("stopped")["reason"], "step");
    let after = c.evaluate("exec", 1);
    assert_eq!(before, "4294967294 (0xfffffffe)");
    assert_ne!(after, before, "exec.and.save narrows EXEC to the odd lanes");
    let frames = c.ok("stackTrace", json!({"threadId": 1}));
    assert_eq!(frames["stackFrames"][0]["line"], 30);
    let scopes = c.ok("scopes", json!({"frameId": 1}));
    let wave = scopes["scopes"].as_array().unwrap().iter().find(|s| s["name"] == "Wave").unwrap();
    let vars = c.ok("variables", json!({"variablesReference": wave["variablesReference"]}));
    let exec = vars["variables"].as_array().unwrap().iter().find(|v| v["name"] == "exec").unwrap();
    let bits = c.ok("variables", json!({"variablesReference": exec["variablesReference"]}));
    let on: Vec<&str> = bits["variables"].as_array().unwrap().iter().map(|b| b["value"].as_str().unwrap()).collect();
    assert_eq!(&on[..3], ["0", "1", "1"], "lane 0 (1) stopped, 27 and 77671 are odd");
    let dis = c.ok("disassemble", json!({"memoryReference": "0x64", "instructionOffset": -1, "instructionCount": 3}));
    let ins = dis["instructions"].as_array().unwrap();
    assert_eq!(ins[1]["address"], "0x64");
    assert_eq!(ins[1]["instruction"], "j.execz even");
    c.ok("next", json!({"threadId": 1}));
    assert_eq!(c.event("stopped")["reason"], "step");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn watch_a_shared_word_and_stop_at_the_racing_store() {
    let mut c = Client::start();
    c.ok("initialize", json!({"adapterID": "lanejit"}));
    c.ok(
        "launch",
        json!({"program": "tests/schedules/shared_nobarrier.s", "args": ["--buffer", "u32:64"],
        "stopOnEntry": true}),
    );
    c.event("initialized");
    let info = c.ok("dataBreakpointInfo", json!({"name": "shared[128]", "frameId": 1}));
    assert_eq!(info["dataId"], "shared:0x80");
    let none = c.ok("dataBreakpointInfo", json!({"name": "v3", "frameId": 1}));
    assert!(none["dataId"].is_null());
    let set = c.ok("setDataBreakpoints", json!({"breakpoints": [{"dataId": "shared:0x80", "accessType": "write"}]}));
    assert_eq!(set["breakpoints"][0]["verified"], true);
    c.ok("configurationDone", json!({}));
    assert_eq!(c.event("stopped")["reason"], "entry");
    c.ok("continue", json!({"threadId": 1}));
    let stop = c.event("stopped");
    assert_eq!(stop["reason"], "data breakpoint");
    assert_eq!(stop["threadId"], 2, "wave 1 writes thread 32's slot");
    assert_eq!(stop["text"], "workgroup (0,0,0) wave 1 lanes 0x00000001 at pc 0x1c: old 0x0 new 0x21");
    let mem = c.ok("readMemory", json!({"memoryReference": "shared:0x80", "count": 4}));
    assert_eq!(mem["data"], "IQAAAA==", "33 little-endian");
    c.ok("continue", json!({"threadId": 2}));
    assert_eq!(c.event("exited")["exitCode"], 0);
    c.event("terminated");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn stop_on_a_trap_and_read_the_faulting_lanes_and_addresses() {
    let mut c = Client::start();
    c.launch("tests/dap/oob.s", &["--buffer", "u32:32"]);
    c.ok("setExceptionBreakpoints", json!({"filters": ["traps"]}));
    c.ok("configurationDone", json!({}));
    let stop = c.event("stopped");
    assert_eq!((stop["reason"].as_str(), stop["description"].as_str()), (Some("exception"), Some("MemoryFault")));
    let text = stop["text"].as_str().unwrap();
    assert!(text.contains("lanes 0xffffff00, addresses [0x100000080, 0x100000090,"), "{text}");
    let info = c.ok("exceptionInfo", json!({"threadId": 1}));
    assert_eq!(info["exceptionId"], "MemoryFault");
    assert_eq!(c.evaluate("v4[8]", 1), "128 (0x80)");
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["exitCode"], 1);
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn change_a_register_and_continue_to_a_different_result() {
    let mut c = Client::start();
    c.launch("tests/dap/store_id.s", &["--buffer", "u32:32"]);
    let path = std::fs::canonicalize(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/dap/store_id.s")).unwrap();
    c.ok("setBreakpoints", json!({"source": {"path": path}, "breakpoints": [{"line": 8}]}));
    c.ok("configurationDone", json!({}));
    assert_eq!(c.event("stopped")["reason"], "breakpoint");
    assert_eq!(c.evaluate("v5[3]", 1), "103 (0x67)");
    assert_eq!(c.evaluate("v5[3] = 7", 1), "7 (0x7)");
    let scopes = c.ok("scopes", json!({"frameId": 1}));
    let vectors = &scopes["scopes"][0]["variablesReference"];
    let vars = c.ok("variables", json!({"variablesReference": vectors}));
    let v5 = vars["variables"].as_array().unwrap().iter().find(|v| v["name"] == "v5").unwrap().clone();
    let set = c.ok("setVariable", json!({"variablesReference": v5["variablesReference"], "name": "[4]", "value": "9"}));
    assert_eq!(set["value"], "9 (0x9)");
    let buffer = c.ok("writeMemory", json!({"memoryReference": "0x100000000", "offset": 124, "data": "AQAAAA=="}));
    assert_eq!(buffer["bytesWritten"], 4);
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["exitCode"], 0);
    let mem = c.ok("readMemory", json!({"memoryReference": "0x100000000", "count": 20}));
    // 100, 101, 102, 7, 9 little-endian.
    assert_eq!(mem["data"], "ZAAAAGUAAABmAAAABwAAAAkAAAA=");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn pause_stops_a_running_session() {
    let mut c = Client::start();
    c.launch("tests/dap/spin.s", &[]);
    c.ok("configurationDone", json!({}));
    c.ok("pause", json!({"threadId": 1}));
    let stop = c.event("stopped");
    assert_eq!(stop["reason"], "pause");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn unknown_requests_get_an_error_response_and_the_session_goes_on() {
    let mut c = Client::start();
    let r = c.request("threads", json!({}));
    assert_eq!(r["success"], false, "nothing is launched yet");
    c.launch("divergent", &[]);
    let r = c.request("stepBack", json!({"threadId": 1}));
    assert_eq!(r["success"], false);
    assert!(r["message"].as_str().unwrap().contains("not supported"));
    let bad = c.request("launch", json!({"program": "divergent"}));
    assert_eq!(bad["success"], false);
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn a_bad_launch_is_refused_and_the_adapter_goes_on() {
    let mut c = Client::start();
    c.ok("initialize", json!({"adapterID": "lanejit"}));
    for args in [
        json!({"program": "no_such_file.s"}),
        json!({"program": "divergent", "args": ["--grid", "0"]}),
        json!({"args": []}),
        json!({"program": "divergent", "args": "--grid 2"}),
    ] {
        let r = c.request("launch", args.clone());
        assert_eq!(r["success"], false, "{args}");
    }
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn malformed_messages_end_the_adapter_with_exit_code_2() {
    for raw in [
        &b"Content-Length: abc\r\n\r\n"[..],
        b"Content-Length: 5\r\n\r\nhello",
        b"Content-Length: 2\r\n\r\n{}",
        b"no header at all\r\n\r\n",
        b"Content-Length: 99999999999\r\n\r\n",
        b"\r\n",
        &[b'x'; 5000][..],
    ] {
        let mut c = Client::start();
        c.send_raw(raw);
        let code = c.exit_code();
        let mut err = c.stderr();
        err.truncate(400);
        assert!(err.contains("malformed DAP message"), "{raw:?}: {err}");
        assert!(!err.contains("panicked"), "{raw:?}: {err}");
        assert_eq!(code, Some(2), "{raw:?}");
    }
}

#[test]
fn a_client_that_disconnects_mid_session_ends_it_with_exit_code_2() {
    let mut c = Client::start();
    c.launch("tests/dap/spin.s", &[]);
    c.ok("setBreakpoints", json!({"source": {"path": "tests/dap/spin.s"}, "breakpoints": [{"line": 5}]}));
    c.ok("configurationDone", json!({}));
    assert_eq!(c.event("stopped")["reason"], "breakpoint");
    c.ok("setBreakpoints", json!({"source": {"path": "tests/dap/spin.s"}, "breakpoints": []}));
    c.ok("continue", json!({"threadId": 1}));
    // Gone while the session runs (the kernel never ends).
    drop(c.stdin.take());
    let code = c.exit_code();
    let err = c.stderr();
    assert!(err.contains("closed the connection without `disconnect`"), "{err}");
    assert_eq!(code, Some(2));
}

#[test]
fn a_session_over_a_tcp_port() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lanejit"))
        .args(["dap", "--port", "0"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stderr(Stdio::piped())
        .spawn()
        .expect("lanejit dap starts");
    let mut err = BufReader::new(child.stderr.take().expect("piped"));
    let mut line = String::new();
    err.read_line(&mut line).expect("the adapter says where it listens");
    let port = line.trim().rsplit(':').next().and_then(|p| p.parse::<u16>().ok()).expect("a port");
    let stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the adapter accepts");
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let schema = schema::Schema::load();
    let mut exchange = |seq: i64, command: &str, arguments: Value| -> Value {
        let body = json!({"seq": seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        write!(writer, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        loop {
            let m = read_framed(&mut reader).expect("a message");
            schema.validate_message(&m).unwrap_or_else(|e| panic!("{e}: {m}"));
            if m["type"] == "response" {
                return m;
            }
        }
    };
    assert_eq!(exchange(1, "initialize", json!({"adapterID": "lanejit"}))["success"], true);
    assert_eq!(exchange(2, "launch", json!({"program": "divergent", "stopOnEntry": true}))["success"], true);
    let dis = exchange(3, "disassemble", json!({"memoryReference": "0x0", "instructionCount": 2}));
    assert_eq!(dis["body"]["instructions"][0]["address"], "0x0");
    assert_eq!(exchange(4, "disconnect", json!({}))["success"], true);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
