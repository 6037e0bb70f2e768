//! The Debug Adapter Protocol's base protocol: messages framed by a `Content-Length` header, read on a thread
//! of their own (so that a `pause` or a closed connection reaches a running session), and written with
//! increasing sequence numbers.

use lanejit::debug::PauseHandle;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::sync::mpsc::Sender;

/// Largest message body accepted (a client sending more is broken or hostile).
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// Longest header line accepted.
const MAX_HEADER_LINE: u64 = 4096;

/// What the reading thread hands over.
#[derive(Debug)]
pub enum Incoming {
    /// A request.
    Request(Value),
    /// The client closed the connection.
    Closed,
    /// A message that breaks the protocol: the session cannot go on.
    Malformed(String),
}

/// Reads one framed message: `Ok(None)` at a clean end of input.
pub fn read_message(r: &mut dyn BufRead) -> Result<Option<Value>, String> {
    let mut length = None;
    let mut first = true;
    loop {
        let mut line = String::new();
        let n = std::io::Read::take(&mut *r, MAX_HEADER_LINE).read_line(&mut line);
        let n = n.map_err(|e| format!("reading a header: {e}"))?;
        if n as u64 == MAX_HEADER_LINE && !line.ends_with('\n') {
            return Err(format!("a header line longer than {MAX_HEADER_LINE} bytes"));
        }
        if n == 0 {
            return match first {
                true => Ok(None),
                false => Err("the input ended inside a message header".into()),
            };
        }
        first = false;
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("malformed header line `{}` (expected `Name: value`)", shorten(line)));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let v = value.trim();
            let n: usize = v.parse().map_err(|_| format!("Content-Length `{}` is not a byte count", shorten(v)))?;
            if n > MAX_MESSAGE_BYTES {
                return Err(format!("Content-Length {n} exceeds the limit of {MAX_MESSAGE_BYTES} bytes"));
            }
            length = Some(n);
        }
    }
    let n = length.ok_or("a message without a Content-Length header")?;
    let mut body = vec![0; n];
    r.read_exact(&mut body).map_err(|e| format!("reading a {n}-byte message body: {e}"))?;
    let v: Value = serde_json::from_slice(&body).map_err(|e| format!("a message body is not JSON: {e}"))?;
    if v.get("type").and_then(Value::as_str) != Some("request") || v.get("command").and_then(Value::as_str).is_none() {
        return Err(format!("a message that is not a request: {}", shorten(&v.to_string())));
    }
    if v.get("seq").and_then(Value::as_i64).is_none() {
        return Err("a request without an integer `seq`".into());
    }
    Ok(Some(v))
}

fn shorten(s: &str) -> String {
    s.chars().take(80).collect()
}

/// Reads messages until the input ends or breaks the protocol, handing them to `to`; a `pause`, `disconnect`
/// or `terminate` request, and the end of input, also pause a running session through `pause`.
pub fn reader_loop(mut r: Box<dyn BufRead + Send>, to: Sender<Incoming>, pause: PauseHandle) {
    loop {
        let msg = match read_message(&mut *r) {
            Ok(Some(v)) => {
                let command = v["command"].as_str().unwrap_or("");
                if ["pause", "disconnect", "terminate"].contains(&command) {
                    pause.pause();
                }
                Incoming::Request(v)
            }
            Ok(None) => Incoming::Closed,
            Err(e) => Incoming::Malformed(e),
        };
        let last = !matches!(msg, Incoming::Request(_));
        if last {
            pause.pause();
        }
        if to.send(msg).is_err() || last {
            return;
        }
    }
}

/// Writes responses and events, numbering them.
pub struct Out {
    w: Box<dyn Write + Send>,
    seq: i64,
}

impl Out {
    /// Messages go to `w`.
    pub fn new(w: Box<dyn Write + Send>) -> Out {
        Out { w, seq: 1 }
    }

    fn send(&mut self, mut v: Value) -> std::io::Result<()> {
        v["seq"] = self.seq.into();
        self.seq += 1;
        let body = v.to_string();
        write!(self.w, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        self.w.flush()
    }

    /// A successful response to `request` with `body`.
    pub fn ok(&mut self, request: &Value, body: Value) -> std::io::Result<()> {
        let mut v = json!({"type": "response", "request_seq": request["seq"], "success": true,
            "command": request["command"]});
        if !body.is_null() {
            v["body"] = body;
        }
        self.send(v)
    }

    /// A failed response to `request` saying `message` (also as the error body a client shows).
    pub fn error(&mut self, request: &Value, message: &str) -> std::io::Result<()> {
        self.send(json!({"type": "response", "request_seq": request["seq"], "success": false,
            "command": request["command"], "message": message,
            "body": {"error": {"id": 1, "format": message.replace('{', "(").replace('}', ")"), "showUser": true}}}))
    }

    /// An event.
    pub fn event(&mut self, event: &str, body: Value) -> std::io::Result<()> {
        let mut v = json!({"type": "event", "event": event});
        if !body.is_null() {
            v["body"] = body;
        }
        self.send(v)
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (readMemory's data).
pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64 (writeMemory's data), padding optional.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for ch in text.trim_end_matches('=').bytes() {
        let v = B64.iter().position(|&b| b == ch).ok_or_else(|| format!("`{}` is not base64", ch as char))?;
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(out)
}
