//! Constants (`.equ`, `.set`) and register aliases (`.reg`) with their history. The preprocessor defines them in
//! source order and stamps every line it emits with the number of definitions made so far (its epoch); the
//! assembler, which runs after the whole expansion, looks a name up as of the line's epoch. So `.set i, i + 1` in a
//! `.rept` gives each repetition its own value, exactly as if the lines had been assembled while expanding.

use super::lex;
use crate::{UREGS, VREGS};
use std::collections::HashMap;

/// How a name was defined, which decides whether it may be defined again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SymKind {
    /// `.equ`: defined once.
    Equ,
    /// `.set`: may be set again.
    Set,
    /// `.reg`: a register alias, may be pointed elsewhere.
    Reg,
}

impl SymKind {
    fn directive(self) -> &'static str {
        match self {
            SymKind::Equ => ".equ",
            SymKind::Set => ".set",
            SymKind::Reg => ".reg",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SymValue {
    Int(i64),
    /// The register text an alias stands for (`v12`, `u4:u5`, `v3.h`), checked when it was defined.
    Reg(String),
}

struct Def {
    epoch: u32,
    kind: SymKind,
    value: SymValue,
    /// Where it was defined, for messages: `file:line`.
    at: String,
}

/// Every definition of every name, in order.
#[derive(Default)]
pub(crate) struct Symbols {
    defs: HashMap<String, Vec<Def>>,
    count: u32,
}

impl Symbols {
    /// Definitions made so far: the epoch of the next emitted line.
    pub(crate) fn epoch(&self) -> u32 {
        self.count
    }

    /// The value of `name` for a line of epoch `epoch` (the last definition made before that line).
    pub(crate) fn get(&self, name: &str, epoch: u32) -> Option<&SymValue> {
        let defs = self.defs.get(name)?;
        let before = defs.partition_point(|d| d.epoch < epoch);
        before.checked_sub(1).map(|i| &defs[i].value)
    }

    /// The value of `name` now.
    pub(crate) fn current(&self, name: &str) -> Option<&SymValue> {
        self.get(name, self.count)
    }

    /// Defines `name` (at `at`, `file:line`), or says why it may not be.
    pub(crate) fn define(&mut self, name: &str, kind: SymKind, value: SymValue, at: String) -> Result<(), String> {
        check_name(name)?;
        if let Some(last) = self.defs.get(name).and_then(|d| d.last()) {
            let again = matches!((last.kind, kind), (SymKind::Set, SymKind::Set) | (SymKind::Reg, SymKind::Reg));
            if !again {
                return Err(format!(
                    "`{name}` is already defined (by `{}` at {}); only `.set` may set a `.set` name again",
                    last.kind.directive(),
                    last.at
                ));
            }
        }
        let epoch = self.count;
        self.count += 1;
        self.defs.entry(name.to_string()).or_default().push(Def { epoch, kind, value, at });
        Ok(())
    }

    /// The value of the alias `name` as of `epoch`, if it is one.
    pub(crate) fn alias(&self, name: &str, epoch: u32) -> Option<&str> {
        match self.get(name, epoch)? {
            SymValue::Reg(r) => Some(r),
            SymValue::Int(_) => None,
        }
    }
}

/// A symbol name: an identifier that is not a register name (`v3` as a constant would make `v3` mean two things).
fn check_name(name: &str) -> Result<(), String> {
    if !lex::is_ident(name) {
        return Err(format!("bad name `{name}`: a letter or `_`, then letters, digits, `_` or `.`"));
    }
    if register_number(name).is_some() {
        return Err(format!("`{name}` is a register name and cannot be redefined"));
    }
    Ok(())
}

/// `v12` → ('v', 12): any `v` or `u` followed by digits only.
fn register_number(s: &str) -> Option<(char, u64)> {
    let p = s.chars().next().filter(|c| *c == 'v' || *c == 'u')?;
    let d = &s[1..];
    (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())).then(|| (p, d.parse().unwrap_or(u64::MAX)))
}

/// Checks the target of `.reg NAME, TARGET`: one register, an even pair `vN:vN+1`, or a half `vN.l`/`vN.h`.
pub(crate) fn check_alias_target(t: &str) -> Result<(), String> {
    let one = |s: &str| -> Result<(char, u64), String> {
        let (p, n) = register_number(s).ok_or_else(|| format!("`{s}` is not a register (v0..v127 or u0..u63)"))?;
        let count = if p == 'v' { VREGS } else { UREGS } as u64;
        if n >= count {
            return Err(format!("unknown register `{s}` (registers are {p}0..{p}{})", count - 1));
        }
        Ok((p, n))
    };
    if let Some((a, b)) = t.split_once(':') {
        let ((pa, na), (pb, nb)) = (one(a.trim())?, one(b.trim())?);
        if pa != pb || na % 2 != 0 || nb != na + 1 {
            return Err(format!("`{t}` is not a register pair (an even register and the next: v4:v5)"));
        }
        return Ok(());
    }
    if let Some((r, sel)) = t.rsplit_once('.') {
        let (p, _) = one(r)?;
        if p != 'v' || !matches!(sel, "l" | "h") {
            return Err(format!("`{t}` is not a register half (v3.l or v3.h)"));
        }
        return Ok(());
    }
    one(t).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_see_the_definition_of_their_time() {
        let mut s = Symbols::default();
        s.define("i", SymKind::Set, SymValue::Int(0), "t.s:1".into()).unwrap();
        let first = s.epoch();
        s.define("i", SymKind::Set, SymValue::Int(1), "t.s:3".into()).unwrap();
        assert_eq!(s.get("i", 0), None);
        assert_eq!(s.get("i", first), Some(&SymValue::Int(0)));
        assert_eq!(s.current("i"), Some(&SymValue::Int(1)));
    }

    #[test]
    fn redefinition_rules() {
        let mut s = Symbols::default();
        s.define("N", SymKind::Equ, SymValue::Int(4), "t.s:1".into()).unwrap();
        let e = s.define("N", SymKind::Set, SymValue::Int(5), "t.s:2".into()).unwrap_err();
        assert_eq!(e, "`N` is already defined (by `.equ` at t.s:1); only `.set` may set a `.set` name again");
        assert!(s.define("N", SymKind::Equ, SymValue::Int(4), "t.s:2".into()).is_err());
        s.define("acc", SymKind::Reg, SymValue::Reg("v1".into()), "t.s:3".into()).unwrap();
        s.define("acc", SymKind::Reg, SymValue::Reg("v2".into()), "t.s:4".into()).unwrap();
        assert!(s.define("acc", SymKind::Set, SymValue::Int(1), "t.s:5".into()).is_err());
        assert_eq!(s.alias("acc", s.epoch()), Some("v2"));
        assert!(s.define("v3", SymKind::Equ, SymValue::Int(1), "t.s:6".into()).unwrap_err().contains("register name"));
        assert!(s.define("1x", SymKind::Equ, SymValue::Int(1), "t.s:6".into()).unwrap_err().contains("bad name"));
    }

    #[test]
    fn alias_targets() {
        for ok in ["v0", "v127", "u63", "v4:v5", "u2:u3", "v3.l", "v3.h"] {
            check_alias_target(ok).unwrap();
        }
        for bad in ["v128", "u64", "v5:v6", "v4:u5", "u3.l", "v3.x", "acc", "", "v"] {
            assert!(check_alias_target(bad).is_err(), "{bad}");
        }
    }
}
