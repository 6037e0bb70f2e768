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
//! - Numeric local labels `1:` may be defined any number of times; `1b` / `1f` refer to the nearest one
//!   before / after.
//!
//! Before the two passes, a preprocessor (`expand.rs`, `directives.rs`) runs `.equ`/`.set`/`.reg`, `.macro`,
//! `.rept`/`.irp`, `.if` and `.include`, and gives each line it emits its origin (for messages through
//! expansions) and its symbol epoch (constants are looked up as they were at that line). Integer operands and
//! directive values are constant expressions (`cexpr.rs`). `docs/assembler.md` describes the language.

mod cexpr;
mod directives;
mod errors;
mod expand;
mod include;
mod lex;
mod macros;
mod module;
mod operand;
mod regs;
mod source;
mod symbols;

pub use errors::{AsmError, AsmErrors, MAX_FILE_NAME_CHARS, MAX_MESSAGE_CHARS, MAX_REPORTED_ERRORS};
pub use include::{
    include_path, AsmConfig, AsmLimits, IncludeResolver, MAX_EXPANDED_BYTES, MAX_EXPANDED_LINES, MAX_EXPANSION_DEPTH,
    MAX_INCLUDE_DEPTH,
};

pub(crate) use lex::is_ident;
pub use lex::quote_name;
pub use module::{assemble_module, assemble_module_with_config, assemble_module_with_lines};
pub(crate) use operand::{bare_candidates, is_keyword, modifier_bit, modifier_operand};

use crate::meta::InsnInfo;
use errors::{ErrorSink, Found};
use lex::{Body, Span};
use operand::{perr, Env, PErr};
use source::Expanded;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
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

/// The key that orders an error of expanded line `idx` among the others: after the preprocessor's errors met
/// before that line (`2 * idx`), so that a report reads in source order.
fn line_key(idx: usize) -> usize {
    idx.saturating_mul(2).saturating_add(1)
}

/// Records an error of expanded line `idx` of `x`.
pub(crate) fn push_line_error(errors: &mut ErrorSink, x: &Expanded, idx: usize, off: usize, found: Found) {
    let Some(&xl) = x.lines.get(idx) else { return };
    let site = || x.site(xl.loc, xl.node);
    errors.push_at(line_key(idx), x.text(xl.text), off, &site, found);
}

/// An instruction waiting for its label operands.
struct Pending {
    /// Its expanded line.
    line: usize,
    text: String,
    mn_off: usize,
    info: &'static InsnInfo,
    vals: Vec<i64>,
    refs: Vec<operand::LabelRef>,
    /// Index of its first word in the code.
    at: usize,
}

/// The assembly of one kernel: the expanded lines it spans, and the file's shared error list.
struct Asm<'s, 'x> {
    errors: &'s mut ErrorSink,
    x: &'x Expanded<'x>,
    words: Vec<u32>,
    labels: BTreeMap<String, u32>,
    /// The expanded line of each label's definition.
    label_lines: HashMap<String, usize>,
    /// The addresses of each numeric local label (`1:`), in definition order.
    locals: HashMap<u32, Vec<u32>>,
    meta: KernelMeta,
    seen: HashMap<&'static str, usize>,
    pending: Vec<Pending>,
    /// Per code word: the main file's line of the instruction starting there (0: none, e.g. `.word` data).
    lines: Vec<u32>,
}

/// Assembles one source file. `file_name` only labels the error messages. `.include` is refused (there is no
/// resolver): [`assemble_with_config`] takes one.
pub fn assemble(file_name: &str, src: &str) -> Result<Program, AsmErrors> {
    assemble_with_lines(file_name, src).map(|(p, _)| p)
}

/// `assemble`, also giving the source line (from 1) of the instruction starting at each code word (0 where no
/// instruction starts): the pc → line map that reports about a pc quote (`lanejit::check` findings). A line
/// made by an expansion maps to the main file's line that caused it (the macro call, the `.include`).
pub fn assemble_with_lines(file_name: &str, src: &str) -> Result<(Program, Vec<u32>), AsmErrors> {
    assemble_with_config(file_name, src, &AsmConfig::default())
}

/// [`assemble_with_lines`] with a configuration: the resolver `.include` reads files through, and the
/// expansion limits.
pub fn assemble_with_config(file_name: &str, src: &str, config: &AsmConfig) -> Result<(Program, Vec<u32>), AsmErrors> {
    let mut errors = ErrorSink::new(file_name);
    let x = expand::expand(file_name, src, config, &mut errors);
    // A stopped expansion would only add errors its missing lines cause.
    let out = if x.aborted { Default::default() } else { assemble_lines(&x, 0..x.lines.len(), &mut errors) };
    match errors.finish() {
        None => Ok(out),
        Some(e) => Err(e),
    }
}

/// Assembles one kernel from the expanded lines `range` of `x`, recording its errors in `errors`. The program is
/// only meaningful when no error was recorded (the caller compares `errors.total()`).
pub(crate) fn assemble_lines(x: &Expanded, range: Range<usize>, errors: &mut ErrorSink) -> (Program, Vec<u32>) {
    let mut a = Asm {
        errors,
        x,
        words: Vec::new(),
        labels: BTreeMap::new(),
        label_lines: HashMap::new(),
        locals: HashMap::new(),
        meta: KernelMeta::default(),
        seen: HashMap::new(),
        pending: Vec::new(),
        lines: Vec::new(),
    };
    for i in range {
        let raw = x.text(x.lines[i].text);
        if let Err(e) = a.line(i, raw) {
            a.push(i, e);
        }
    }
    a.resolve();
    let mut pc_lines = std::mem::take(&mut a.lines);
    pc_lines.resize(a.words.len(), 0);
    (Program { words: a.words, labels: a.labels, meta: a.meta }, pc_lines)
}

/// U+FEFF: skipped at the start of a file, reported by name anywhere else (it is invisible in a listing).
const BYTE_ORDER_MARK: char = '\u{feff}';

impl Asm<'_, '_> {
    /// Records an error of expanded line `idx` (`ErrorSink` keeps the first ones and clips what they repeat).
    fn push(&mut self, idx: usize, e: PErr) {
        let found = Found { text: &e.text, message: &e.message, hint: e.hint.as_deref() };
        push_line_error(self.errors, self.x, idx, e.off, found);
    }

    /// Where expanded line `idx` stands, for "first defined at …": `line N` in the main file, else `file:N`.
    fn place(&self, idx: usize) -> String {
        let loc = self.x.lines[idx].loc;
        let site = self.x.site(loc, source::NO_NODE);
        if loc.file == 0 {
            format!("line {}", site.line)
        } else {
            format!("{}:{}", site.file, site.line)
        }
    }

    fn env(&self, idx: usize) -> Env<'_> {
        Env { syms: &self.x.symbols, epoch: self.x.lines[idx].epoch }
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
            let e = if lex::is_local_label(l.text) {
                let addr = self.addr();
                self.locals.entry(l.text.parse().unwrap_or(0)).or_default().push(addr);
                continue;
            } else if !lex::is_ident(l.text) {
                perr(*l, format!("bad label name `{}`", l.text))
                    .hint(Some("a label is a letter or `_`, then letters, digits, `_` or `.`".into()))
            } else if let Some(&first) = self.label_lines.get(l.text) {
                perr(*l, format!("duplicate label `{}` (first defined at {})", l.text, self.place(first)))
            } else if self.env(n).syms.get(l.text, self.env(n).epoch).is_some() {
                perr(*l, format!("label `{}` has the name of a constant or register alias", l.text))
            } else {
                self.label_lines.insert(l.text.to_string(), n);
                self.labels.insert(l.text.to_string(), self.addr());
                continue;
            };
            self.push(n, e);
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
                .wants(line_key(n), mn.off)
                .then(|| lex::suggest(mn.text, crate::INSNS.iter().map(|i| i.mnemonic)))
                .flatten()
                .map(|s| format!("did you mean `{s}`?"));
            return Err(perr(mn, format!("unknown mnemonic `{}`", mn.text)).hint(hint));
        };
        let at = self.words.len();
        // Reserve the words even when the operands are bad, so that later label addresses stay right.
        self.emit(mn, info.words as usize)?;
        let (vals, mut refs) = operand::parse_operands(info, ops, mn, rest, &self.env(n))?;
        for r in &mut refs {
            // `1b` is the last `1:` so far, `1f` the next: remember how many there are now.
            if let Some((label, forward)) = lex::local_label_ref(&r.name) {
                r.local = Some((label, forward, self.locals.get(&label).map_or(0, Vec::len)));
            }
        }
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
            let all = DIRECTIVES.iter().chain(expand::PP_DIRECTIVES.iter()).copied();
            let hint = lex::suggest(name.text, all).map(|s| format!("did you mean `{s}`?"));
            return Err(perr(name, format!("unknown directive `{}`", name.text)).hint(hint));
        };
        if d != ".word" {
            if let Some(&first) = self.seen.get(d) {
                return Err(perr(name, format!("duplicate `{d}` directive (first at {})", self.place(first))));
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
        let env = self.env(n);
        let u32_arg = |a: Span, what: &str| -> Result<u32, PErr> {
            let v = env.int(a, &|| perr(a, format!("bad number `{}` for {what}", a.text)))?;
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
                    vals.push(word_value(*a, &env)?);
                }
                let at = self.words.len();
                self.emit(name, vals.len())?;
                self.words[at..].copy_from_slice(&vals);
            }
        }
        self.seen.insert(d, n);
        Ok(())
    }

    /// The address a label operand names, or the error to report.
    fn target(&self, r: &operand::LabelRef, line: usize) -> Result<u32, PErr> {
        let at = Span { text: &r.name, off: r.off };
        if let Some((label, forward, before)) = r.local {
            let defs = self.locals.get(&label).map_or(&[][..], Vec::as_slice);
            let found = if forward { defs.get(before) } else { before.checked_sub(1).and_then(|i| defs.get(i)) };
            let where_ = if forward { "after" } else { "before" };
            return found.copied().ok_or_else(|| perr(at, format!("no local label `{label}:` {where_} `{}`", r.name)));
        }
        if let Some(&target) = self.labels.get(&r.name) {
            return Ok(target);
        }
        // A suggestion compares the name with every label: only for an error that is kept, or 10,000 undefined
        // names among 10,000 labels would take 10^8 comparisons.
        let hint = self
            .errors
            .wants(line_key(line), r.off)
            .then(|| lex::suggest(&r.name, self.labels.keys().map(|s| s.as_str())))
            .flatten()
            .map(|s| format!("did you mean `{s}`?"));
        Err(perr(at, format!("undefined label `{}`", r.name)).hint(hint))
    }

    /// Pass 2: label operands, then encoding.
    fn resolve(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for mut p in pending {
            if self.lines.len() <= p.at {
                self.lines.resize(p.at + 1, 0);
            }
            self.lines[p.at] = self.x.main_line(&self.x.lines[p.line]);
            let pc = (p.at * 4) as i64;
            let mut ok = true;
            for r in &p.refs {
                let target = match self.target(r, p.line) {
                    Ok(t) => t,
                    Err(e) => {
                        self.push(p.line, e);
                        ok = false;
                        continue;
                    }
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
                    self.push(p.line, perr(Span { text: &r.name, off: r.off }, m));
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
                Err(m) => self.push(p.line, perr(Span { text: &p.text, off: p.mn_off }, m)),
            }
        }
    }
}

/// A `.word` value: any 32-bit integer (negative as two's complement, or a constant expression) or an f32
/// literal.
fn word_value(a: Span, env: &Env) -> Result<u32, PErr> {
    if let Some(f) = lex::parse_f32(a.text) {
        return f.map(f32::to_bits).map_err(|m| perr(a, m));
    }
    let v = env.int(a, &|| perr(a, format!("bad number `{}`", a.text)))?;
    if !(-(1i64 << 31)..1i64 << 32).contains(&v) {
        return Err(perr(a, format!("`.word` value `{}` out of range {}..={}", a.text, i32::MIN, u32::MAX)));
    }
    Ok(v as u32)
}
