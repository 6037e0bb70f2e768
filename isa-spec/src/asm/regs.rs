//! Register operands: `v12`, `u3`, pairs (`v4` or `v4:v5`, starting at an even register), halves (`v3.l`,
//! `v3.h`), each also through a `.reg` alias (`acc`, `acc.h`, `lo:hi`).

use super::lex::{self, Span};
use super::operand::{perr, Env, PErr};
use crate::meta::*;
use crate::{UREGS, VREGS};

/// A register operand's value (a pair: its first register; a half: the register, bit 7 for `.h`). `tok` is the
/// operand as written; an alias of the whole token is resolved first.
pub(crate) fn parse_register(op: &OperandInfo, written: Span, env: &Env) -> Result<i64, PErr> {
    let k = op.kind();
    let tok = env.register(written);
    let t = tok.text;
    let v = match k.class {
        KindClass::VReg | KindClass::UReg => {
            let vec = k.class == KindClass::VReg;
            if let Some((a, b)) = t.split_once(':') {
                let a_sp = lex::trimmed(a, tok.off);
                let b_sp = lex::trimmed(b, tok.off + a.len() + 1);
                let r0 = parse_reg(env.register(a_sp), vec)?;
                let r1 = parse_reg(env.register(b_sp), vec)?;
                if !k.pair {
                    return Err(perr(tok, format!("operand `{}` is a single register, not a pair", op.name)));
                }
                let p = if vec { 'v' } else { 'u' };
                if r0 % 2 != 0 {
                    return Err(perr(tok, format!("odd register pair `{t}`: a pair starts at an even register"))
                        .hint(Some(format!("use {p}{}:{p}{}", r0 - 1, r0))));
                }
                if r1 != r0 + 1 {
                    return Err(perr(b_sp, format!("register pair `{t}` is not consecutive"))
                        .hint(Some(format!("write {p}{r0}:{p}{}", r0 + 1))));
                }
                r0 as i64
            } else {
                let r = parse_reg(tok, vec)?;
                if k.pair && r % 2 != 0 {
                    let p = if vec { 'v' } else { 'u' };
                    let count = if vec { VREGS } else { UREGS } as u32;
                    let mut hint = format!("use {p}{}:{p}{}", r - 1, r);
                    if r + 2 < count {
                        hint += &format!(" or {p}{}:{p}{}", r + 1, r + 2);
                    }
                    return Err(perr(tok, format!("register pair must start at an even register, found `{t}`"))
                        .hint(Some(hint)));
                }
                r as i64
            }
        }
        KindClass::VHalf => {
            let Some((reg, sel)) = t.rsplit_once('.') else {
                return Err(perr(tok, format!("expected a register half like v3.l or v3.h, found `{t}`")));
            };
            let r = parse_reg(env.register(lex::trimmed(reg, tok.off)), true)?;
            let hi = match sel {
                "l" => 0,
                "h" => 1,
                _ => return Err(perr(tok, format!("bad half selector `.{sel}` in `{t}` (use .l or .h)"))),
            };
            r as i64 | hi << 7
        }
        _ => return Err(perr(tok, format!("operand `{}` is not a register", op.name))),
    };
    Ok(v)
}

/// `v12` / `u3`. Distinguishes the wrong register file, an unknown register and a non-register.
fn parse_reg(tok: Span, vec: bool) -> Result<u32, PErr> {
    let t = tok.text;
    let (p, count, other) = if vec { ('v', VREGS, 'u') } else { ('u', UREGS, 'v') };
    let file = format!("{p}0..{p}{}", count - 1);
    let what = if vec { "vector register" } else { "uniform register" };
    let digits_after = |c: char| t.strip_prefix(c).filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    if let Some(d) = digits_after(p) {
        return match d.parse::<u64>() {
            Ok(n) if n < count as u64 => Ok(n as u32),
            _ => Err(perr(tok, format!("unknown register `{t}` (registers are {file})"))),
        };
    }
    if digits_after(other).is_some() {
        return Err(perr(tok, format!("expected a {what} ({file}), found `{t}`")));
    }
    let alpha = t.trim_end_matches(|c: char| c.is_ascii_digit());
    if alpha.len() < t.len() && !alpha.is_empty() && alpha.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(perr(tok, format!("unknown register `{t}` (registers are {file})")));
    }
    Err(perr(tok, format!("expected a {what} ({file}), found `{t}`")))
}
