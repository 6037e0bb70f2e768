//! The lanejit ISA, generated from the YAML in this crate's directory (the single source of truth):
//! instruction enums with typed operands, format/kind/instruction tables, a table-driven decoder and
//! encoder, the assembler, the disassembler and the reference docs.

#![deny(missing_docs)]

pub mod asm;
pub mod codec;
pub mod container;
pub mod disasm;
pub mod docs;
pub mod elf_kernel;
pub mod expr;
pub mod facts;
pub mod meta;
pub mod operands;
mod vocab;

pub use asm::{
    assemble, assemble_module, assemble_module_with_lines, assemble_with_lines, AsmError, AsmErrors, KernelMeta,
    Program,
};
pub use codec::{decode_at, decode_raw, encode, encode_values, length_words, DecodeError, Encoded, Illegal};
pub use container::ContainerError;
pub use disasm::{disassemble, disassemble_module, format_insn};
pub use expr::WOp;
pub use facts::*;
pub use meta::*;
pub use operands::{LaneFormula, SignOp, SrcMods};

include!(concat!(env!("OUT_DIR"), "/isa_generated.rs"));

/// Lanes in a wave.
pub const LANES: usize = 32;

/// Looks an instruction up by mnemonic.
pub fn by_mnemonic(m: &str) -> Option<&'static InsnInfo> {
    INSNS.iter().find(|i| i.mnemonic == m)
}
