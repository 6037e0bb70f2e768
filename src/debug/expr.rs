//! The debugger's expressions: registers (`v3`, `v3[5]`, `u4`, `exec`, `fcsr`, `pc`, `lane`), memory words
//! (`*0x100000000`, `shared[16]`, `private[5][0]`), integers, comparisons (`== != < <= > >=`) and `&&`, `||`.
//! A vector register is a value per lane; a comparison of one is a lane mask, and a breakpoint condition holds
//! when it holds for any active lane.

use super::DebugError;
use lanejit_interp::{lane_on, WaveState, LANES};
use lanejit_isa::{UREGS, VREGS};

/// A parsed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// An integer literal.
    Num(u32),
    /// Vector register `vN`: one value per lane.
    V(usize),
    /// Uniform register `uN`.
    U(usize),
    /// EXEC.
    Exec,
    /// The float control and status register.
    Fcsr,
    /// The wave's pc.
    Pc,
    /// The lane index (a value per lane: 0..LANES).
    Lane,
    /// One lane of a per-lane value: `v3[5]`.
    Index(Box<Expr>, Box<Expr>),
    /// A 32-bit word of memory.
    Mem(Place),
    /// A comparison or `&&` / `||`.
    Binary(Op, Box<Expr>, Box<Expr>),
}

/// Where a memory word of an expression lives; the address is itself an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// `*ADDR`: device (global) memory.
    Global(Box<Expr>),
    /// `shared[OFFSET]`: the workgroup's shared memory.
    Shared(Box<Expr>),
    /// `private[LANE][OFFSET]`: a lane's private memory (of the focused wave).
    Private(Box<Expr>, Box<Expr>),
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // each is its symbol
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

/// A value: one word, or one per lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A single word.
    Scalar(u32),
    /// A word per lane.
    Lanes(Box<[u32; LANES]>),
}

impl Value {
    fn lane(&self, l: usize) -> u32 {
        match self {
            Value::Scalar(x) => *x,
            Value::Lanes(v) => v[l],
        }
    }
}

/// What an expression reads besides the wave's registers: a memory word.
pub trait MemoryReader {
    /// The little-endian word at `place` (addresses evaluated), or why it cannot be read.
    fn word(&mut self, space: WordSpace, addr: u64) -> Result<u32, DebugError>;
}

/// The space of a memory word an expression reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordSpace {
    /// Device memory.
    Global,
    /// The workgroup's shared memory.
    Shared,
    /// A lane's private memory (of the focused wave).
    Private(usize),
}

/// Most tokens of one expression.
pub const MAX_TOKENS: usize = 256;

/// Parses `text` as an expression.
pub fn parse(text: &str) -> Result<Expr, DebugError> {
    let toks = lex(text)?;
    // The parser recurses per nesting level: a bound on the tokens bounds its depth.
    if toks.len() > MAX_TOKENS {
        return Err(DebugError::new(format!("an expression of {} tokens: the limit is {MAX_TOKENS}", toks.len())));
    }
    let mut p = Parser { toks, at: 0 };
    let e = p.or()?;
    match p.toks.get(p.at) {
        None => Ok(e),
        Some(t) => Err(DebugError::new(format!("`{text}`: unexpected `{t}`"))),
    }
}

fn lex(text: &str) -> Result<Vec<String>, DebugError> {
    let mut out = Vec::new();
    let cs: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(cs[start..i].iter().collect());
        } else {
            let two: String = cs[i..(i + 2).min(cs.len())].iter().collect();
            if ["==", "!=", "<=", ">=", "&&", "||"].contains(&two.as_str()) {
                out.push(two);
                i += 2;
            } else if "<>[]()*-".contains(c) {
                out.push(c.to_string());
                i += 1;
            } else {
                return Err(DebugError::new(format!("`{text}`: unexpected character `{c}`")));
            }
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<String>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.at).map(String::as_str)
    }
    fn eat(&mut self, t: &str) -> bool {
        let hit = self.peek() == Some(t);
        self.at += hit as usize;
        hit
    }
    fn expect(&mut self, t: &str) -> Result<(), DebugError> {
        if self.eat(t) {
            return Ok(());
        }
        Err(DebugError::new(format!(
            "expected `{t}`, found {}",
            self.peek().map_or("the end".into(), |p| format!("`{p}`"))
        )))
    }
    fn or(&mut self) -> Result<Expr, DebugError> {
        let mut e = self.and()?;
        while self.eat("||") {
            e = Expr::Binary(Op::Or, Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }
    fn and(&mut self) -> Result<Expr, DebugError> {
        let mut e = self.cmp()?;
        while self.eat("&&") {
            e = Expr::Binary(Op::And, Box::new(e), Box::new(self.cmp()?));
        }
        Ok(e)
    }
    fn cmp(&mut self) -> Result<Expr, DebugError> {
        let a = self.postfix()?;
        let op = match self.peek() {
            Some("==") => Op::Eq,
            Some("!=") => Op::Ne,
            Some("<") => Op::Lt,
            Some("<=") => Op::Le,
            Some(">") => Op::Gt,
            Some(">=") => Op::Ge,
            _ => return Ok(a),
        };
        self.at += 1;
        Ok(Expr::Binary(op, Box::new(a), Box::new(self.postfix()?)))
    }
    fn postfix(&mut self) -> Result<Expr, DebugError> {
        let mut e = self.atom()?;
        while self.eat("[") {
            let i = self.or()?;
            self.expect("]")?;
            e = Expr::Index(Box::new(e), Box::new(i));
        }
        Ok(e)
    }
    fn bracketed(&mut self) -> Result<Box<Expr>, DebugError> {
        self.expect("[")?;
        let e = self.or()?;
        self.expect("]")?;
        Ok(Box::new(e))
    }
    fn atom(&mut self) -> Result<Expr, DebugError> {
        let Some(t) = self.peek().map(str::to_string) else {
            return Err(DebugError::new("expected a value, found the end"));
        };
        self.at += 1;
        match t.as_str() {
            "(" => {
                let e = self.or()?;
                self.expect(")")?;
                Ok(e)
            }
            "*" => Ok(Expr::Mem(Place::Global(Box::new(self.postfix()?)))),
            "-" => match self.atom()? {
                Expr::Num(n) => Ok(Expr::Num(n.wrapping_neg())),
                _ => Err(DebugError::new("`-` goes before a number")),
            },
            "exec" => Ok(Expr::Exec),
            "fcsr" => Ok(Expr::Fcsr),
            "pc" => Ok(Expr::Pc),
            "lane" => Ok(Expr::Lane),
            "shared" => Ok(Expr::Mem(Place::Shared(self.bracketed()?))),
            "private" => {
                let lane = self.bracketed()?;
                Ok(Expr::Mem(Place::Private(lane, self.bracketed()?)))
            }
            _ => register_or_number(&t),
        }
    }
}

fn register_or_number(t: &str) -> Result<Expr, DebugError> {
    let reg = |rest: &str, limit: usize, name: char| -> Result<usize, DebugError> {
        match rest.parse::<usize>() {
            Ok(n) if n < limit => Ok(n),
            _ => Err(DebugError::new(format!("`{t}`: registers are {name}0..{name}{}", limit - 1))),
        }
    };
    if let Some(rest) = t.strip_prefix('v').filter(|r| r.starts_with(|c: char| c.is_ascii_digit())) {
        return reg(rest, VREGS, 'v').map(Expr::V);
    }
    if let Some(rest) = t.strip_prefix('u').filter(|r| r.starts_with(|c: char| c.is_ascii_digit())) {
        return reg(rest, UREGS, 'u').map(Expr::U);
    }
    parse_number(t).map(Expr::Num)
}

/// An integer: decimal, `0x` hex or `0b` binary, at most 32 bits.
pub fn parse_number(t: &str) -> Result<u32, DebugError> {
    parse_u64(t).and_then(|n| u32::try_from(n).map_err(|_| DebugError::new(format!("`{t}` does not fit 32 bits"))))
}

/// An integer of up to 64 bits: decimal, `0x` hex or `0b` binary.
pub fn parse_u64(t: &str) -> Result<u64, DebugError> {
    let t = t.trim();
    let r = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(&h.replace('_', ""), 16)
    } else if let Some(b) = t.strip_prefix("0b") {
        u64::from_str_radix(&b.replace('_', ""), 2)
    } else {
        t.replace('_', "").parse()
    };
    r.map_err(|_| DebugError::new(format!("`{t}` is not a number, a register or a known name")))
}

/// Evaluates `e` for wave `w`; memory words come from `mem`.
pub fn eval(e: &Expr, w: &WaveState, mem: &mut dyn MemoryReader) -> Result<Value, DebugError> {
    Ok(match e {
        Expr::Num(n) => Value::Scalar(*n),
        Expr::V(r) => Value::Lanes(Box::new(w.v[*r])),
        Expr::U(r) => Value::Scalar(w.u[*r]),
        Expr::Exec => Value::Scalar(w.exec),
        Expr::Fcsr => Value::Scalar(w.fcsr),
        Expr::Pc => Value::Scalar(w.pc),
        Expr::Lane => Value::Lanes(Box::new(std::array::from_fn(|l| l as u32))),
        Expr::Index(base, i) => {
            let lane = scalar(eval(i, w, mem)?, "a lane index")? as usize;
            if lane >= LANES {
                return Err(DebugError::new(format!("lane {lane}: lanes are 0..{}", LANES - 1)));
            }
            Value::Scalar(eval(base, w, mem)?.lane(lane))
        }
        Expr::Mem(p) => {
            let (space, addr) = place(p, w, mem)?;
            Value::Scalar(mem.word(space, addr)?)
        }
        Expr::Binary(op, a, b) => binary(*op, &eval(a, w, mem)?, &eval(b, w, mem)?),
    })
}

/// The space and address of a memory place, its address and lane evaluated.
pub fn place(p: &Place, w: &WaveState, mem: &mut dyn MemoryReader) -> Result<(WordSpace, u64), DebugError> {
    let addr = |e: &Expr, mem: &mut dyn MemoryReader| scalar(eval(e, w, mem)?, "an address");
    Ok(match p {
        Place::Global(a) => (WordSpace::Global, addr(a, mem)?),
        Place::Shared(a) => (WordSpace::Shared, addr(a, mem)?),
        Place::Private(lane, a) => {
            let l = scalar(eval(lane, w, mem)?, "a lane")? as usize;
            if l >= LANES {
                return Err(DebugError::new(format!("lane {l}: lanes are 0..{}", LANES - 1)));
            }
            (WordSpace::Private(l), addr(a, mem)?)
        }
    })
}

fn scalar(v: Value, what: &str) -> Result<u64, DebugError> {
    match v {
        Value::Scalar(x) => Ok(x as u64),
        Value::Lanes(_) => Err(DebugError::new(format!("{what} must be one value, not a vector register"))),
    }
}

fn binary(op: Op, a: &Value, b: &Value) -> Value {
    let f = |x: u32, y: u32| -> u32 {
        (match op {
            Op::Eq => x == y,
            Op::Ne => x != y,
            Op::Lt => x < y,
            Op::Le => x <= y,
            Op::Gt => x > y,
            Op::Ge => x >= y,
            Op::And => x != 0 && y != 0,
            Op::Or => x != 0 || y != 0,
        }) as u32
    };
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(f(*x, *y)),
        _ => Value::Lanes(Box::new(std::array::from_fn(|l| f(a.lane(l), b.lane(l))))),
    }
}

/// Does condition `e` hold for wave `w`: a per-lane value in any lane active in EXEC, a scalar when non-zero?
pub fn holds(e: &Expr, w: &WaveState, mem: &mut dyn MemoryReader) -> Result<bool, DebugError> {
    Ok(match eval(e, w, mem)? {
        Value::Scalar(x) => x != 0,
        Value::Lanes(v) => (0..LANES).any(|l| lane_on(w.exec, l) && v[l] != 0),
    })
}
