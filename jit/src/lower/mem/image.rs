//! `img.load` and `img.store` of 2d images in r32ui, r32f, rgba8 and rgba32f in optimised code under a full or
//! partial EXEC (plain forms: no d16, a16, voff or rsd). Compiled code hands the lanes' x, y (and a store's
//! data) to `runtime::texels::image_lanes`, which checks the descriptor (sizes, format) and each active lane's
//! texel address T = base + toff + y*P + x*B against the instruction's cached window (alignment included),
//! then loads (converted as the format says) or stores lane by lane, ascending. The routine replaced 32 lanes
//! of inline code (about 1,360 CLIF instructions an instruction, so a third of the fuzzer's compile time).
//! Anything else — another dim, format or form, a check that fails, a window not cached yet — calls the
//! runtime, which has the interpreter execute the instruction (it reports any trap) and caches the image's
//! region for the next time.

use super::lanes::{spill_at, unspill_at};
use crate::abi::{Window, CTX_WINDOWS_OFFSET};
use crate::fx::Fx;
use crate::lower::{Lowered, Site};
use crate::runtime::texels;
use cranelift_codegen::ir::{
    condcodes::IntCC, types::*, AbiParam, InstBuilder, Signature, StackSlot, StackSlotData, StackSlotKind, Value,
};
use cranelift_codegen::isa::CallConv;
use lanejit_interp::mem::ImgOp;
use lanejit_isa::{
    Dim, UReg, VReg, IMAGE_DESCRIPTOR_WORDS, IMAGE_WORD_BASE_HI, IMAGE_WORD_BASE_LO, IMAGE_WORD_FORMAT,
    IMAGE_WORD_HEIGHT, IMAGE_WORD_PITCH, IMAGE_WORD_WIDTH, LANES,
};

/// The largest texel (rgba32f): the runtime caches a window whose span leaves this many bytes.
pub const MAX_TEXEL_BYTES: u64 = 16;

/// Does this function lower `op` inline? Optimised code (the per-lane code is long), a plain 2d form, and every
/// register it names in variables.
pub fn supports(fx: &Fx, op: &ImgOp) -> bool {
    let plain = op.dim == Dim::D2d && !op.d16 && !op.a16 && !op.voff && !op.rsd;
    let data = op.rd.idx()..op.rd.idx() + op.data_regs();
    let regs = data.chain(op.rs1.idx()..op.rs1.idx() + 2).all(|r| r < lanejit_isa::VREGS && fx.has_v(r));
    let desc = (op.rs3.idx()..op.rs3.idx() + IMAGE_DESCRIPTOR_WORDS).all(|r| r < lanejit_isa::UREGS && fx.has_u(r));
    fx.tier() == crate::abi::Tier::Opt && plain && regs && desc
}

/// Spills x, y (and a store's data) to a stack buffer, calls `runtime::texels::image_lanes`, and on success
/// reads a load's components back; a refusal goes to the interpreter.
pub fn lower(fx: &mut Fx, site: &Site, op: &ImgOp, store: bool) -> Lowered {
    fx.note_lowering(site.pc, crate::abi::Lowering::Native);
    let slot = fx.window_slot(site.pc);
    debug_assert_ne!(slot, crate::abi::NO_SLOT, "every image load and store has a window slot");
    let (slow, join, done) = (fx.b.create_block(), fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(slow);
    let io = fx.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, texels::IO_BYTES, 4));
    spill_at(fx, op.rs1, io, texels::IO_X);
    spill_at(fx, VReg(op.rs1.0 + 1), io, texels::IO_Y);
    if store {
        for k in 0..op.data_regs() {
            spill_at(fx, VReg(op.rd.0 + k as u8), io, data_offset(k));
        }
    }
    let ok = call_routine(fx, op, slot, io, store);
    let entry = fx.dirty();
    fx.b.ins().brif(ok, done, &[], slow, &[]);
    fx.b.switch_to_block(done);
    if !store {
        for k in 0..op.data_regs() {
            let c = unspill_at(fx, io, data_offset(k));
            fx.set_v(VReg(op.rd.0 + k as u8), c);
        }
    }
    fx.b.ins().jump(join, &[]);
    let writes = if store { Vec::new() } else { (op.rd.idx()..op.rd.idx() + op.data_regs()).collect() };
    fx.runtime_arm((slow, join), entry, (site.pc, site.index), (writes, Vec::new()));
    Lowered::Native
}

/// Byte offset of data register k in the buffer.
fn data_offset(k: usize) -> i32 {
    texels::IO_DATA + (4 * LANES * k) as i32
}

/// Calls the routine with the descriptor's words, the window entry and EXEC; true (i8) when it did the access.
fn call_routine(fx: &mut Fx, op: &ImgOp, slot: u32, io: StackSlot, store: bool) -> Value {
    let word = |fx: &mut Fx, k: usize| fx.u(UReg(op.rs3.0 + k as u8));
    let lo32 = word(fx, IMAGE_WORD_BASE_LO);
    let hi32 = word(fx, IMAGE_WORD_BASE_HI);
    let lo64 = fx.b.ins().uextend(I64, lo32);
    let hi64 = fx.b.ins().uextend(I64, hi32);
    let hi64 = fx.b.ins().ishl_imm_u(hi64, 32);
    let base = fx.b.ins().bor(lo64, hi64);
    let start = fx.b.ins().iadd_imm_s(base, op.toff as i64);
    let (width, height) = (word(fx, IMAGE_WORD_WIDTH), word(fx, IMAGE_WORD_HEIGHT));
    let pitch = word(fx, IMAGE_WORD_PITCH);
    let pitch = fx.b.ins().uextend(I64, pitch);
    let format = word(fx, IMAGE_WORD_FORMAT);
    let format = fx.b.ins().uextend(I64, format);
    let format = fx.b.ins().ishl_imm_u(format, 32);
    let pitch_format = fx.b.ins().bor(pitch, format);
    let ctx = fx.ctx();
    let windows = fx.b.ins().load(I64, crate::fx::flags(), ctx, CTX_WINDOWS_OFFSET);
    let window = fx.b.ins().iadd_imm_s(windows, (slot as usize * std::mem::size_of::<Window>()) as i64);
    let io_addr = fx.b.ins().stack_addr(I64, io, 0);
    let exec = fx.exec_val();
    let flags = fx.b.ins().iconst(I32, routine_flags(op, store) as i64);
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend([I64, I64, I64, I32, I32, I64, I32, I32].map(AbiParam::new));
    sig.returns.push(AbiParam::new(I32));
    let sig = fx.b.import_signature(sig);
    let f = fx.b.ins().iconst(I64, texels::image_lanes as *const () as usize as i64);
    let args = [io_addr, window, start, width, height, pitch_format, exec, flags];
    let call = fx.b.ins().call_indirect(sig, f, &args);
    let done = fx.b.inst_results(call)[0];
    fx.b.ins().icmp_imm_u(IntCC::NotEqual, done, 0)
}

/// The routine's flags: store or load, the component mask, and the planted bugs of this build chosen now.
fn routine_flags(op: &ImgOp, store: bool) -> u32 {
    let mut flags = u32::from(op.dmask & 0xf) << texels::DMASK_SHIFT;
    if store {
        flags |= texels::STORE;
    }
    // Mutant 150: the texel alignment is not tested (a misaligned texel is accessed instead of trapping).
    // Mutant 151: x is compared with W + 1 (a texel one past the row's end is accessed).
    // Mutant 152: multiplied by 1/255 instead of divided by 255 (off by an ulp for some bytes).
    // Mutant 153: lanes stored in descending order (the lowest lane wins a shared texel).
    let planted = [
        (150, texels::MUTANT_NO_ALIGN),
        (151, texels::MUTANT_X_PAST_ROW),
        (152, texels::MUTANT_RECIPROCAL),
        (153, texels::MUTANT_DESCENDING),
    ];
    for (id, bit) in planted {
        if crate::mutants::active(id) {
            flags |= bit;
        }
    }
    flags
}
