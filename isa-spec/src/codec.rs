//! Table-driven decoder and encoder. A word decodes only if exactly its instruction's fixed bits match and
//! every reserved bit is zero; enum operands must hold a listed value and pair operands an even register.

use crate::meta::*;
use crate::{Insn, BY_OPCODE, INSNS};
use std::fmt;

/// Why a word is not a legal instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// The all-zero word (opcode 0) is never an instruction.
    ZeroOpcode,
    /// No instruction has this 7-bit opcode.
    UnknownOpcode(u8),
    /// The opcode is known, but no instruction has these function-field values.
    UnknownFunction {
        /// The word's opcode.
        opcode: u8,
    },
    /// Bits that must be zero are set.
    ReservedBits {
        /// The instruction whose opcode and function fields the word matches.
        mnemonic: &'static str,
        /// The reserved bits that are set (of the whole one- or two-word value).
        bits: u64,
    },
    /// An enum operand holds an unlisted value (or an image component mask is 0).
    BadEnum {
        /// The instruction the word encodes.
        mnemonic: &'static str,
        /// The operand's name in the syntax.
        operand: &'static str,
        /// The encoded value found in its field.
        value: u32,
    },
    /// A register-pair operand names an odd register.
    OddPair {
        /// The instruction the word encodes.
        mnemonic: &'static str,
        /// The operand's name in the syntax.
        operand: &'static str,
        /// The odd register number found.
        reg: u32,
    },
    /// A 64-bit instruction whose second word lies past the end of the code.
    Truncated,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Illegal::ZeroOpcode => write!(f, "opcode 0 is illegal"),
            Illegal::UnknownOpcode(o) => write!(f, "unknown opcode {o:#04x}"),
            Illegal::UnknownFunction { opcode } => write!(f, "unknown function value for opcode {opcode:#04x}"),
            Illegal::ReservedBits { mnemonic, bits } => write!(f, "{mnemonic}: reserved bits {bits:#x} are not zero"),
            Illegal::BadEnum { mnemonic, operand, value } => {
                write!(f, "{mnemonic}: operand {operand} has no value {value}")
            }
            Illegal::OddPair { mnemonic, operand, reg } => {
                write!(f, "{mnemonic}: operand {operand} names odd register {reg}, a pair must start even")
            }
            Illegal::Truncated => write!(f, "64-bit instruction truncated at the end of the code"),
        }
    }
}

/// A decode failure at a code address.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal instruction at pc {pc:#x} (word {word:#010x}): {reason}")]
pub struct DecodeError {
    /// Byte address of the instruction in the code.
    pub pc: u32,
    /// The instruction's raw value: one word, or two with the first word low.
    pub word: u64,
    /// Why it is illegal.
    pub reason: Illegal,
}

/// Instruction length in 32-bit words, from bit 0 of the opcode.
pub fn length_words(first_word: u32) -> usize {
    1 + (first_word & 1) as usize
}

/// Decodes the (one or two word) raw value of an instruction.
pub fn decode_raw(raw: u64) -> Result<Insn, Illegal> {
    let opcode = (raw & 0x7f) as u8;
    if opcode == 0 {
        return Err(Illegal::ZeroOpcode);
    }
    let candidates = BY_OPCODE[opcode as usize];
    if candidates.is_empty() {
        return Err(Illegal::UnknownOpcode(opcode));
    }
    let mut reserved_hit = None;
    for &id in candidates {
        let info = &INSNS[id as usize];
        if raw & info.fixed_mask != info.match_ {
            continue;
        }
        if raw & info.reserved != 0 {
            reserved_hit = Some(Illegal::ReservedBits { mnemonic: info.mnemonic, bits: raw & info.reserved });
            continue;
        }
        return build(info, raw);
    }
    Err(reserved_hit.unwrap_or(Illegal::UnknownFunction { opcode }))
}

fn build(info: &'static InsnInfo, raw: u64) -> Result<Insn, Illegal> {
    let mut vals = [0i64; Operands::MAX];
    for (n, op) in info.operands.iter().enumerate() {
        let k = op.kind();
        let field = op.extract(raw);
        let no_component = k.class == KindClass::DMask && field == 0;
        if k.class == KindClass::Enum && k.value_name(field).is_none() || no_component {
            return Err(Illegal::BadEnum { mnemonic: info.mnemonic, operand: op.name, value: field });
        }
        if k.pair && field & 1 != 0 {
            return Err(Illegal::OddPair { mnemonic: info.mnemonic, operand: op.name, reg: field });
        }
        vals[n] = k.decode_value(field);
    }
    Ok(Insn::from_operand_values(info.id, &vals[..info.operands.len()])
        .expect("a decoded field always fits its operand type"))
}

/// Decodes the instruction at word index `at` of `code`, reporting failures with the byte pc.
pub fn decode_at(code: &[u32], at: usize) -> Result<(Insn, usize), DecodeError> {
    let pc = (at * 4) as u32;
    let w0 = code[at];
    let len = length_words(w0);
    if len == 2 && at + 1 >= code.len() {
        return Err(DecodeError { pc, word: w0 as u64, reason: Illegal::Truncated });
    }
    let raw = if len == 2 { w0 as u64 | (code[at + 1] as u64) << 32 } else { w0 as u64 };
    decode_raw(raw).map(|i| (i, len)).map_err(|reason| DecodeError { pc, word: raw, reason })
}

/// An encoded instruction: `raw` holds `words` 32-bit words, low word first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The instruction's bits; the high word is 0 for a one-word instruction.
    pub raw: u64,
    /// Length in 32-bit words: 1 or 2.
    pub words: u32,
}

impl Encoded {
    /// Appends the instruction's words to `out`, low word first.
    pub fn push_to(&self, out: &mut Vec<u32>) {
        out.push(self.raw as u32);
        if self.words == 2 {
            out.push((self.raw >> 32) as u32);
        }
    }
}

/// Encodes an instruction; fails if an operand does not fit its field (e.g. `VReg(200)`).
pub fn encode(insn: &Insn) -> Result<Encoded, String> {
    let info = insn.id().info();
    encode_values(info, insn.operand_values().as_slice())
}

/// Encodes operand values (as the assembler produces them) for one instruction.
pub fn encode_values(info: &InsnInfo, vals: &[i64]) -> Result<Encoded, String> {
    let mut raw = info.match_;
    for (op, &v) in info.operands.iter().zip(vals) {
        let k = op.kind();
        let field = k.encode_value(v).map_err(|e| format!("{}: operand {}: {e}", info.mnemonic, op.name))?;
        if k.pair && field & 1 != 0 {
            return Err(format!("{}: operand {} must be an even register", info.mnemonic, op.name));
        }
        raw |= (field as u64) << op.lsb;
    }
    Ok(Encoded { raw, words: info.words })
}
