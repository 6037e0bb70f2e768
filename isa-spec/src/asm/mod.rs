//! The assembler: text → [`Program`]. Table-driven (it knows operand kind classes, never mnemonics), two
//! passes (addresses and labels first, then label operands and encoding), all errors of a file collected
//! (at least one per bad line), and no input makes it panic.
//!
//! Syntax, one statement per line; comments run from `;` or `//` to the end of the line.
//! - `name:` defines a label (a letter or `_`, then letters, digits, `_`, `.`); several may precede a
//!   statement on the same line.
//! - Directives: `.kernel NAME` (bare `[A-Za-z0-9_.$-]+` or a quoted string with `\" \\ \n \t \u{…}`
//!   escapes), `.workgroup X[, Y[, Z]]` (at most 1024 threads), `.shared BYTES` (at most 64 KiB),
//!   `.args BYTES`, `.private BYTES` (per lane), `.word V[, V…]` (raw words: integers, negative ones as two's
//!   complement, or f32 literals). Metadata directives may appear once each.
//! - Instructions: `mnemonic op, op, …` with the positional operands in syntax order, then keyword operands
//!   (kinds with a default) in any order, as `name=value` or a bare enum value / flag name; omitted keyword
//!   operands take their default. Values by kind class: `v0..v127`, `u0..u63` (pairs `v4` or `v4:v5`, even),
//!   `v3.l` / `v3.h`, integers (decimal, `0x`, `0b`, optional sign, `_` separators), 32-bit literals also as
//!   floats (`1.5`, `-2e3`, `inf`, `nan`), pc-relative operands as a label or a byte offset from the
//!   instruction, enum values by name, dmask as letters of `rgba`.
//! - Source modifiers `-v2`, `|v2|`, `-|v2|` on the operand named `rsK` set bit K-1 of the instruction's
//!   `neg` / `abs` operand (an explicit `neg=`/`abs=` mask is OR-ed with them).

mod errors;
mod lex;
mod module;
mod operand;

pub use errors::{AsmError, AsmErrors, MAX_FILE_NAME_CHARS, MAX_MESSAGE_CHARS, MAX_REPORTED_ERRORS};

pub(crate) use lex::is_ident;
pub use lex::quote_name;
pub use module::{assemble_module, assemble_module_with_lines};
pub(crate) use operand::{bare_candidates, is_keyword, modifier_bit, modifier_operand};

use crate::meta::InsnInfo;
use errors::ErrorSink;
use lex::{Body, Span};
use operand::{perr, PErr};
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

/// Largest kernel name (bytes) the assembler and the container accept.
pub const MAX_NAME_BYTES: usize = 4096;
/// Largest code size (32-bit words): byte addresses stay far inside `u32`.
pub const MAX_CODE_WORDS: usize = 1 << 28;
/// Largest workgroup (threads, the product of its three dimensions), from the launch model.
pub const MAX_WORKGROUP_THREADS: u64 = 1024;
/// Largest shared memory of a workgroup (bytes), from the launch model.
pub const MAX_SHARED_BYTES: u32 = 64 * 1024;
/// Largest private memory per lane (bytes), as on GPUs whose scratch per thread is bounded: a full
/// 1,024-thread workgroup then needs at most 64 MiB of private memory, so `.private` can never ask the host
/// for terabytes.
pub const MAX_PRIVATE_BYTES: u32 = 64 * 1024;
/// Largest kernel argument block (bytes), the classic GPU limit on kernel parameters.
pub const MAX_ARG_BYTES: u32 = 4096;

/// Launch metadata of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelMeta {
    /// The kernel's name (`.kernel`; default `main`), at most [`MAX_NAME_BYTES`] bytes.
    pub name: String,
    /// Threads of a workgroup in x, y, z (`.workgroup`; default one wave, `LANES` x 1 x 1).
    pub workgroup: [u32; 3],
    /// Shared memory of each workgroup, bytes (`.shared`; default 0).
    pub shared_bytes: u32,
    /// Size of the kernel argument block, bytes (`.args`; default 0).
    pub arg_bytes: u32,
    /// Private memory per lane, bytes.
    pub private_bytes: u32,
}

impl Default for KernelMeta {
    fn default() -> Self {
        KernelMeta {
            name: "main".into(),
            workgroup: [crate::LANES as u32, 1, 1],
            shared_bytes: 0,
            arg_bytes: 0,
            private_bytes: 0,
        }
    }
}

impl KernelMeta {
    /// Checks the limits of the launch model; the message names the offending value.
    pub fn validate(&self) -> Result<(), String> {
        if self.name.len() > MAX_NAME_BYTES {
            return Err(format!("kernel name of {} bytes exceeds {MAX_NAME_BYTES}", self.name.len()));
        }
        check_name_chars(&self.name)?;
        check_workgroup(self.workgroup)?;
        if self.shared_bytes > MAX_SHARED_BYTES {
            return Err(format!("shared memory of {} bytes exceeds {MAX_SHARED_BYTES}", self.shared_bytes));
        }
        check_private(self.private_bytes)?;
        check_args(self.arg_bytes)
    }
}

/// Checks that a kernel name holds no NUL: ELF string tables (symbol and section names) end a name at one.
pub fn check_name_chars(name: &str) -> Result<(), String> {
    match name.find('\0') {
        Some(at) => Err(format!("kernel name holds a NUL character (byte {at}), which an ELF file cannot name")),
        None => Ok(()),
    }
}

/// Checks a workgroup shape against [`MAX_WORKGROUP_THREADS`]; the product is computed without overflow, so
/// three large dimensions cannot wrap around to a small thread count.
pub fn check_workgroup(wg: [u32; 3]) -> Result<(), String> {
    if wg.contains(&0) {
        return Err(format!("workgroup {}x{}x{} has a zero dimension", wg[0], wg[1], wg[2]));
    }
    let threads = wg.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
    match threads {
        Some(t) if t <= MAX_WORKGROUP_THREADS => Ok(()),
        _ => Err(format!(
            "workgroup {}x{}x{} has {} threads, more than {MAX_WORKGROUP_THREADS}",
            wg[0],
            wg[1],
            wg[2],
            wg.iter().map(|&d| d as u128).product::<u128>()
        )),
    }
}

/// Checks private memory per lane against [`MAX_PRIVATE_BYTES`].
pub fn check_private(bytes: u32) -> Result<(), String> {
    if bytes > MAX_PRIVATE_BYTES {
        return Err(format!(
            "private memory of {bytes} bytes per lane exceeds the limit of {MAX_PRIVATE_BYTES} (MAX_PRIVATE_BYTES)"
        ));
    }
    Ok(())
}

/// Checks a kernel argument block size against [`MAX_ARG_BYTES`].
pub fn check_args(bytes: u32) -> Result<(), String> {
    if bytes > MAX_ARG_BYTES {
        return Err(format!("argument block of {bytes} bytes exceeds the limit of {MAX_ARG_BYTES} (MAX_ARG_BYTES)"));
    }
    Ok(())
}

/// An assembled kernel: code words, label addresses (bytes) and launch metadata.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Program {
    /// The code, 32-bit words in address order (a 64-bit instruction is two words, low first).
    pub words: Vec<u32>,
    /// Every label with its byte address in the code.
    pub labels: BTreeMap<String, u32>,
    /// The kernel's launch metadata (its directives, or the defaults).
    pub meta: KernelMeta,
}

fn mnemonics() -> &'static HashMap<&'static str, &'static InsnInfo> {
    static MAP: OnceLock<HashMap<&'static str, &'static InsnInfo>> = OnceLock::new();
    MAP.get_or_init(|| crate::INSNS.iter().map(|i| (i.mnemonic, i)).collect())
}

const DIRECTIVES: [&str; 6] = [".kernel", ".workgroup", ".shared", ".args", ".private", ".word"];

/// An instruction waiting for its label operands.
struct Pending {
    line: usize,
    text: String,
    mn_off: usize,
    info: &'static InsnInfo,
    vals: Vec<i64>,
    refs: Vec<operand::LabelRef>,
    /// Index of its first word in the code.
    at: usize,
}

/// The assembly of one kernel: the lines it spans of its file, and the file's shared error list.
struct Asm<'s> {
    errors: &'s mut ErrorSink,
    words: Vec<u32>,
    labels: BTreeMap<String, u32>,
    label_lines: HashMap<String, usize>,
    meta: KernelMeta,
    seen: HashMap<&'static str, usize>,
    pending: Vec<Pending>,
    /// Per code word: the source line of the instruction starting there (0: none, e.g. `.word` data).
    lines: Vec<u32>,
}

/// Assembles one source file. `file_name` only labels the error messages.
pub fn assemble(file_name: &str, src: &str) -> Result<Program, AsmErrors> {
    assemble_with_lines(file_name, src).map(|(p, _)| p)
}

/// `assemble`, also giving the source line (from 1) of the instruction starting at each code word (0 where no
/// instruction starts): the pc → line map that reports about a pc quote (`lanejit::check` findings).
pub fn assemble_with_lines(file_name: &str, src: &str) -> Result<(Program, Vec<u32>), AsmErrors> {
    let lines = source_lines(src);
    let mut errors = ErrorSink::new(file_name);
    let out = assemble_lines(&lines, 0, &mut errors);
    match errors.finish() {
        None => Ok(out),
        Some(e) => Err(e),
    }
}

/// The lines of a source file, without their line ends (`\n` or `\r\n`) and without a leading byte order mark:
/// editors on some systems start a file with one, and it is not part of the first statement.
pub(crate) fn source_lines(src: &str) -> Vec<&str> {
    let src = src.strip_prefix(BYTE_ORDER_MARK).unwrap_or(src);
    src.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()
}

/// Assembles one kernel from `lines`, the lines of its file from index `first` on (so that errors and the pc →
/// line map carry the file's line numbers), recording its errors in `errors`. The program is only meaningful
/// when no error was recorded (the caller compares `errors.total()`).
pub(crate) fn assemble_lines(lines: &[&str], first: usize, errors: &mut ErrorSink) -> (Program, Vec<u32>) {
    let mut a = Asm {
        errors,
        words: Vec::new(),
        labels: BTreeMap::new(),
        label_lines: HashMap::new(),
        meta: KernelMeta::default(),
        seen: HashMap::new(),
        pending: Vec::new(),
        lines: Vec::new(),
    };
    for (i, raw) in lines.iter().enumerate() {
        if let Err(e) = a.line(first + i + 1, raw) {
            a.push(first + i + 1, raw, e);
        }
    }
    a.resolve(lines, first);
    let mut pc_lines = std::mem::take(&mut a.lines);
    pc_lines.resize(a.words.len(), 0);
    (Program { words: a.words, labels: a.labels, meta: a.meta }, pc_lines)
}

/// U+FEFF: skipped at the start of a file, reported by name anywhere else (it is invisible in a listing).
const BYTE_ORDER_MARK: char = '\u{feff}';

impl Asm<'_> {
    /// Records an error (`ErrorSink` keeps the first ones and clips what they repeat).
    fn push(&mut self, line: usize, raw: &str, e: PErr) {
        self.errors.push(line, raw, e.off, &e.text, &e.message, e.hint.as_deref());
    }

    fn addr(&self) -> u32 {
        (self.words.len().min(MAX_CODE_WORDS) * 4) as u32
    }

    fn line(&mut self, n: usize, raw: &str) -> Result<(), PErr> {
        if let Some(off) = raw.find(BYTE_ORDER_MARK) {
            let at = Span { text: &raw[off..off + BYTE_ORDER_MARK.len_utf8()], off };
            return Err(perr(
                at,
                "byte order mark (U+FEFF) inside the file (only the first character may be one)".into(),
            ));
        }
        let code = lex::strip_comment(raw);
        let line = lex::split_line(code);
        // A bad label is reported, and the statement after it still assembled, so that addresses stay right.
        for l in &line.labels {
            let e = if !lex::is_ident(l.text) {
                perr(*l, format!("bad label name `{}`", l.text))
                    .hint(Some("a label is a letter or `_`, then letters, digits, `_` or `.`".into()))
            } else if let Some(&first) = self.label_lines.get(l.text) {
                perr(*l, format!("duplicate label `{}` (first defined at line {first})", l.text))
            } else {
                self.label_lines.insert(l.text.to_string(), n);
                self.labels.insert(l.text.to_string(), self.addr());
                continue;
            };
            self.push(n, raw, e);
        }
        match line.body {
            None => Ok(()),
            Some(Body::Directive { name, args, rest }) => self.directive(n, name, &args, rest),
            Some(Body::Insn { mnemonic, ops, rest }) => self.insn(n, mnemonic, &ops, rest),
        }
    }

    fn insn(&mut self, n: usize, mn: Span, ops: &[Span], rest: Span) -> Result<(), PErr> {
        let Some(&info) = mnemonics().get(mn.text) else {
            // A suggestion compares with every mnemonic: only for an error that is kept.
            let hint = self
                .errors
                .wants(n, mn.off)
                .then(|| lex::suggest(mn.text, crate::INSNS.iter().map(|i| i.mnemonic)))
                .flatten()
                .map(|s| format!("did you mean `{s}`?"));
            return Err(perr(mn, format!("unknown mnemonic `{}`", mn.text)).hint(hint));
        };
        let at = self.words.len();
        // Reserve the words even when the operands are bad, so that later label addresses stay right.
        self.emit(mn, info.words as usize)?;
        let (vals, refs) = operand::parse_operands(info, ops, mn, rest)?;
        self.pending.push(Pending { line: n, text: mn.text.to_string(), mn_off: mn.off, info, vals, refs, at });
        Ok(())
    }

    /// Reserves `count` words (filled in by `resolve` for instructions).
    fn emit(&mut self, at: Span, count: usize) -> Result<(), PErr> {
        if self.words.len() + count > MAX_CODE_WORDS {
            return Err(perr(at, format!("program too large (more than {MAX_CODE_WORDS} words)")));
        }
        self.words.extend(std::iter::repeat_n(0, count));
        Ok(())
    }

    fn directive(&mut self, n: usize, name: Span, args: &[Span], rest: Span) -> Result<(), PErr> {
        let Some(&d) = DIRECTIVES.iter().find(|&&d| d == name.text) else {
            let hint = lex::suggest(name.text, DIRECTIVES).map(|s| format!("did you mean `{s}`?"));
            return Err(perr(name, format!("unknown directive `{}`", name.text)).hint(hint));
        };
        if d != ".word" {
            if let Some(&first) = self.seen.get(d) {
                return Err(perr(name, format!("duplicate `{d}` directive (first at line {first})")));
            }
        }
        let arity = match d {
            ".workgroup" => 1..=3,
            ".word" => 1..=usize::MAX,
            _ => 1..=1,
        };
        if !arity.contains(&args.len()) {
            let want = match d {
                ".workgroup" => "1 to 3 values (X[, Y[, Z]])",
                ".word" => "at least one value",
                ".kernel" => "a name",
                _ => "one value (bytes)",
            };
            let at = if args.is_empty() { name } else { rest };
            return Err(perr(at, format!("`{d}` takes {want}, found {}", args.len())));
        }
        if let Some(e) = args.iter().find(|a| a.text.is_empty()) {
            return Err(perr(*e, "missing value (empty between commas)".into()));
        }
        let u32_arg = |a: Span, what: &str| -> Result<u32, PErr> {
            let v = lex::parse_int(a.text).map_err(|_| perr(a, format!("bad number `{}` for {what}", a.text)))?;
            u32::try_from(v).map_err(|_| perr(a, format!("{what} `{}` out of range 0..={}", a.text, u32::MAX)))
        };
        match d {
            ".kernel" => {
                let a = args[0];
                let s = if a.text.starts_with('"') {
                    lex::parse_string(a.text).map_err(|m| perr(a, m))?
                } else if lex::is_bare_name(a.text) {
                    a.text.to_string()
                } else {
                    return Err(perr(a, format!("bad kernel name `{}`", a.text))
                        .hint(Some("use letters, digits, `_ . $ -`, or a quoted string".into())));
                };
                if s.len() > MAX_NAME_BYTES {
                    return Err(perr(a, format!("kernel name of {} bytes exceeds {MAX_NAME_BYTES}", s.len())));
                }
                check_name_chars(&s).map_err(|m| perr(a, m))?;
                self.meta.name = s;
            }
            ".workgroup" => {
                let mut wg = [1u32; 3];
                for (i, a) in args.iter().enumerate() {
                    wg[i] = u32_arg(*a, "workgroup size")?;
                    if wg[i] == 0 {
                        return Err(perr(*a, "workgroup dimension must be at least 1".into()));
                    }
                }
                check_workgroup(wg).map_err(|m| perr(rest, m))?;
                self.meta.workgroup = wg;
            }
            ".shared" => {
                let v = u32_arg(args[0], "shared memory size")?;
                if v > MAX_SHARED_BYTES {
                    return Err(perr(args[0], format!("shared memory of {v} bytes exceeds {MAX_SHARED_BYTES}")));
                }
                self.meta.shared_bytes = v;
            }
            ".args" => {
                let v = u32_arg(args[0], "argument size")?;
                check_args(v).map_err(|m| perr(args[0], m))?;
                self.meta.arg_bytes = v;
            }
            ".private" => {
                let v = u32_arg(args[0], "private memory size")?;
                check_private(v).map_err(|m| perr(args[0], m))?;
                self.meta.private_bytes = v;
            }
            _ => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(word_value(*a)?);
                }
                let at = self.words.len();
                self.emit(name, vals.len())?;
                self.words[at..].copy_from_slice(&vals);
            }
        }
        self.seen.insert(d, n);
        Ok(())
    }

    /// Pass 2: label operands, then encoding.
    fn resolve(&mut self, lines: &[&str], first: usize) {
        let pending = std::mem::take(&mut self.pending);
        for mut p in pending {
            let raw = lines[p.line - 1 - first];
            if self.lines.len() <= p.at {
                self.lines.resize(p.at + 1, 0);
            }
            self.lines[p.at] = p.line as u32;
            let pc = (p.at * 4) as i64;
            let mut ok = true;
            for r in &p.refs {
                let Some(&target) = self.labels.get(&r.name) else {
                    // A suggestion compares the name with every label: only for an error that is kept, or 10,000
                    // undefined names among 10,000 labels would take 10^8 comparisons.
                    let hint = self
                        .errors
                        .wants(p.line, r.off)
                        .then(|| lex::suggest(&r.name, self.labels.keys().map(|s| s.as_str())))
                        .flatten()
                        .map(|s| format!("did you mean `{s}`?"));
                    self.push(
                        p.line,
                        raw,
                        perr(Span { text: &r.name, off: r.off }, format!("undefined label `{}`", r.name)).hint(hint),
                    );
                    ok = false;
                    continue;
                };
                let off = target as i64 - pc;
                let op = &p.info.operands[r.operand];
                let k = op.kind();
                if k.encode_value(off).is_err() {
                    let (lo, hi) = k.encoded_range();
                    let m = format!(
                        "branch target `{}` out of range: offset {off} not in {}..={} ({}:{})",
                        r.name,
                        lo * 4,
                        hi * 4,
                        op.name,
                        k.name
                    );
                    self.push(p.line, raw, perr(Span { text: &r.name, off: r.off }, m));
                    ok = false;
                    continue;
                }
                p.vals[r.operand] = off;
            }
            if !ok {
                continue;
            }
            match crate::encode_values(p.info, &p.vals) {
                Ok(e) => {
                    self.words[p.at] = e.raw as u32;
                    if e.words == 2 {
                        self.words[p.at + 1] = (e.raw >> 32) as u32;
                    }
                }
                // Every operand was range-checked while parsing; this is a guard, not an expected path.
                Err(m) => self.push(p.line, raw, perr(Span { text: &p.text, off: p.mn_off }, m)),
            }
        }
    }
}

/// A `.word` value: any 32-bit integer (negative as two's complement) or an f32 literal.
fn word_value(a: Span) -> Result<u32, PErr> {
    if let Some(f) = lex::parse_f32(a.text) {
        return f.map(f32::to_bits).map_err(|m| perr(a, m));
    }
    let v = lex::parse_int(a.text).map_err(|e| match e {
        lex::NumError::Bad => perr(a, format!("bad number `{}`", a.text)),
        lex::NumError::TooLarge => perr(a, format!("number `{}` is too large", a.text)),
    })?;
    if !(-(1i64 << 31)..1i64 << 32).contains(&v) {
        return Err(perr(a, format!("`.word` value `{}` out of range {}..={}", a.text, i32::MIN, u32::MAX)));
    }
    Ok(v as u32)
}
