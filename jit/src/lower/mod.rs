//! Lowering guest blocks into the kernel function: one file per instruction group, each matching its group's
//! enum exhaustively and returning whether it emitted native code, left the instruction to the interpreter
//! (`Helper`: a call from compiled code), or ended the block itself (`Terminated`: control flow).

use crate::blocks::Block;
use crate::fx::Fx;
use crate::runtime::Exit;
use cranelift_codegen::ir::{self, condcodes::IntCC, types::*, InstBuilder, JumpTableData};
use lanejit_isa::Insn;
use std::collections::HashMap;

mod cmp;
mod ctrl;
mod mem;
mod uniform;
mod vfloat;
mod vint;
mod xlane;

/// What lowering one instruction did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowered {
    Native,
    /// Not compiled: the interpreter executes it, called from compiled code.
    Helper,
    /// Control flow: the block's counts are added and the block is left.
    Terminated,
}

/// Where an instruction sits, for lowerings that leave the block.
pub struct Site<'h> {
    pub pc: u32,
    pub len: u32,
    /// Position in the block (instructions before it retire first).
    pub index: u32,
    /// Instructions in the block (all retire when the block is left normally).
    pub block_len: u32,
    pub heads: &'h HashMap<u32, ir::Block>,
}

impl Site<'_> {
    pub fn next_pc(&self) -> u32 {
        self.pc + self.len
    }
}

impl Fx<'_> {
    /// Continues at guest address `target`: a direct jump when it is a block of this function.
    pub fn goto(&mut self, site: &Site, target: u32) {
        match site.heads.get(&target) {
            Some(&h) => {
                self.b.ins().jump(h, &[]);
            }
            None => self.exit(Exit::Continue, target),
        }
    }

    /// Conditional continuation: `cond != 0` goes to `taken`, else to `fall`.
    pub fn branch(&mut self, site: &Site, cond: ir::Value, taken: u32, fall: u32) {
        let (t, f) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(cond, t, &[], f, &[]);
        self.b.switch_to_block(t);
        self.goto(site, taken);
        self.b.switch_to_block(f);
        self.goto(site, fall);
    }
}

fn lower_op(fx: &mut Fx, insn: &Insn, site: &Site) -> Lowered {
    match insn {
        Insn::Uniform(i) => uniform::lower(fx, i),
        Insn::Vint(i) => vint::lower(fx, i),
        Insn::Vfloat(i) => vfloat::lower(fx, i, site),
        Insn::Cmp(i) => cmp::lower(fx, i),
        Insn::Xlane(i) => xlane::lower(fx, i),
        Insn::Mem(i) => mem::lower(fx, i, site),
        Insn::Ctrl(i) => ctrl::lower(fx, i, site),
    }
}

/// Emits the entry dispatch and every block.
pub fn emit_kernel(fx: &mut Fx, blocks: &[Block], code_len: u32) {
    let heads: HashMap<u32, ir::Block> = blocks.iter().map(|b| (b.start, fx.b.create_block())).collect();
    let other = fx.b.create_block();
    let pc = fx.b.ins().load(I32, crate::fx::flags(), fx.state, crate::fx::PC_OFFSET);
    let index = fx.b.ins().ushr_imm_u(pc, 2);
    let default = ir::BlockCall::new(other, [], &mut fx.b.func.dfg.value_lists);
    let table: Vec<ir::BlockCall> = (0..code_len / 4)
        .map(|w| ir::BlockCall::new(*heads.get(&(w * 4)).unwrap_or(&other), [], &mut fx.b.func.dfg.value_lists))
        .collect();
    let jt = fx.b.create_jump_table(JumpTableData::new(default, &table));
    fx.b.ins().br_table(index, jt);
    fx.b.switch_to_block(other);
    let s = fx.b.ins().iconst(I32, Exit::Interpret as i64);
    fx.b.ins().jump(fx.exit_block, &[s.into(), pc.into()]);
    for b in blocks {
        emit_block(fx, b, &heads);
    }
}

/// A block's head checks the step budget, then picks the full-EXEC or the masked variant.
fn emit_block(fx: &mut Fx, block: &Block, heads: &HashMap<u32, ir::Block>) {
    let n = block.ops.len() as i64;
    fx.b.switch_to_block(heads[&block.start]);
    let steps = fx.b.use_var(fx.steps);
    let short = fx.b.ins().icmp_imm_s(IntCC::SignedLessThan, steps, n.max(1));
    let (out, run) = (fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(out);
    fx.b.ins().brif(short, out, &[], run, &[]);
    fx.b.switch_to_block(out);
    fx.exit(Exit::Interpret, block.start);
    fx.b.switch_to_block(run);
    let steps = fx.b.ins().iadd_imm_s(steps, -n);
    fx.b.def_var(fx.steps, steps);
    // Memory instructions cost far more than the blends a full-EXEC copy saves, so such blocks get one copy.
    if block.ops.iter().any(|o| touches_memory(&o.insn)) {
        fx.full_exec = false;
        emit_ops(fx, block, heads);
        return;
    }
    let exec = fx.exec_val();
    let full = fx.b.ins().icmp_imm_s(IntCC::Equal, exec, 0xffff_ffffi64);
    let (bf, bm) = (fx.b.create_block(), fx.b.create_block());
    fx.b.ins().brif(full, bf, &[], bm, &[]);
    for (variant, full_exec) in [(bf, true), (bm, false)] {
        fx.b.switch_to_block(variant);
        fx.full_exec = full_exec;
        emit_ops(fx, block, heads);
    }
}

fn touches_memory(insn: &Insn) -> bool {
    let i = insn.id().info();
    i.has(lanejit_isa::flag::LD) || i.has(lanejit_isa::flag::ST)
}

fn emit_ops(fx: &mut Fx, block: &Block, heads: &HashMap<u32, ir::Block>) {
    let block_len = block.ops.len() as u32;
    fx.block_exec = Some(fx.exec_val());
    for (i, op) in block.ops.iter().enumerate() {
        let site = Site { pc: op.pc, len: op.len, index: i as u32, block_len, heads };
        fx.current = Some(op.insn);
        match lower_op(fx, &op.insn, &site) {
            Lowered::Native => {}
            Lowered::Helper => fx.call_interp(op.pc, i as u32),
            Lowered::Terminated => return,
        }
    }
    fx.count(block_len);
    match block.interp_at {
        Some(pc) => fx.exit(Exit::Interpret, pc),
        None => {
            let site = Site { pc: block.end(), len: 0, index: block_len, block_len, heads };
            fx.goto(&site, block.end());
        }
    }
}
