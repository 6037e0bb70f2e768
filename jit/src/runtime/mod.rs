//! Compiling a kernel into host functions of bounded size, and running waves on it. A compiled function enters
//! at the wave's pc (a jump table over its block starts), chains its blocks directly, and returns an [`Exit`]
//! status (`Continue` to go on in a block of another function); the run
//! loop hands single instructions to the interpreter where the compiled code asks for it (the `Interpret`
//! terminal), so execution always resumes in compiled code at the next block start.

use crate::abi::HelperFns;
pub use crate::abi::{Exit, JitCtx, Lowering, NextWave, Steps, Tier, NO_SLOT};
use crate::blocks::{discover, Block};
use crate::fx::Fx;
pub mod mem;
pub mod texels;

use crate::abi::Window;
use crate::access::{Access, Atomic};
use crate::lower;
use crate::lower::mem::uniform::UniformAccess;
use crate::options::{isa, JitOptions};
use crate::plan::{StartFacts, WavePlan};
use cranelift_codegen::ir::{types::*, AbiParam, InstBuilder, Signature, UserFuncName};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;
use lanejit_interp::{exec, Code, Memory, Stop, Trap, WaveEnv, WaveState};
use lanejit_isa::MemInsn;
use lanejit_isa::{UREGS, VREGS};
use mem::{try_access, try_atomic, WindowCache};
use std::time::{Duration, Instant};

/// A wave's `end` in compiled code: starts the next wave (1: `w` holds it at pc 0) or not (0).
extern "C" fn helper_next_wave(state: *mut WaveState, ctx: *mut JitCtx, _pc: u32) -> u32 {
    // SAFETY: as in `helper_interpret`.
    let (w, cx) = unsafe { (&mut *state, &mut *ctx) };
    let ended = w.retired;
    // Mutant 136: the next wave's environment is not passed on to compiled code (its `csr.r wave_id` reads the
    // last wave's).
    let mut stale;
    let env = if crate::mutants::active(136) {
        stale = cx.env;
        &mut stale
    } else {
        &mut cx.env
    };
    let started = match cx.next.as_deref_mut() {
        Some(n) => n.next(w, env),
        None => false,
    };
    if started {
        cx.ended_retired += ended;
    }
    started as u32
}

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A vector load or store that compiled code could not do inline: done in Rust when it provably cannot fault
/// (`runtime::mem`), else by the interpreter. Returns as `helper_interpret`.
extern "C" fn helper_mem(state: *mut WaveState, ctx: *mut JitCtx, pc: u32) -> u32 {
    let uniform = {
        // SAFETY: as in `helper_interpret`; the borrows end before it is called.
        let (w, cx) = unsafe { (&mut *state, &mut *ctx) };
        let Ok((lanejit_isa::Insn::Mem(i), _)) = cx.code.fetch(pc) else { return helper_interpret(state, ctx, pc) };
        let slot = cx.slot_of.get((pc / 4) as usize).copied().unwrap_or(NO_SLOT);
        // SAFETY: `windows` points at `CompiledKernel::mem_slots` entries (`WindowCache::entries_for`).
        let window = (slot != NO_SLOT).then(|| unsafe { &mut *cx.windows.add(slot as usize) });
        // (An atomic is decoded only when the instruction is not a plain access: this runs per call.)
        let done = match Access::of(i) {
            Some(a) => try_access(w, &mut *cx.mem, window, &a),
            None => Atomic::of(i).is_some_and(|a| try_atomic(w, &mut *cx.mem, window, &a)),
        };
        if done {
            return 0;
        }
        let image = image_base(i, w);
        if image.is_some() {
            let status = helper_interpret(state, ctx, pc);
            if let (0, Some((base, store))) = (status, image) {
                // SAFETY: as above; the interpreter's borrows have ended.
                let cx = unsafe { &mut *ctx };
                cache_image_window(cx, pc, base, store);
            }
            return status;
        }
        UniformAccess::of(i).map(|a| (a.address(&w.u), a))
    };
    let status = helper_interpret(state, ctx, pc);
    if let (0, Some((addr, a))) = (status, uniform) {
        // The interpreter did the access, so [addr, addr + bytes) is inside one region: cache it for the
        // inline path (`lower/mem/uniform.rs`).
        // SAFETY: as above.
        let cx = unsafe { &mut *ctx };
        let slot = cx.slot_of.get((pc / 4) as usize).copied().unwrap_or(NO_SLOT);
        let region = cx.mem.host_region(lanejit_isa::Sp::Global, addr, a.store).filter(|r| r.len >= a.bytes as u64);
        if let (Some(r), true) = (region, slot != NO_SLOT) {
            // SAFETY: as above.
            let window = unsafe { &mut *cx.windows.add(slot as usize) };
            // Mutant 131: the span is the region's length (an access may start at the region's end).
            let span = if crate::mutants::active(131) { r.len } else { r.len - a.bytes as u64 };
            *window = Window { lo: r.lo, span, host: r.host as u64 };
        }
    }
    status
}

/// An image load or store with some lane active: (its descriptor's base address, whether it stores).
fn image_base(i: &MemInsn, w: &WaveState) -> Option<(u64, bool)> {
    let (rs3, store) = match *i {
        MemInsn::ImgLoad { rs3, .. } => (rs3, false),
        MemInsn::ImgStore { rs3, .. } => (rs3, true),
        _ => return None,
    };
    (rs3.idx() + 1 < lanejit_isa::UREGS && w.exec != 0).then_some(())?;
    Some((w.u[rs3.idx()] as u64 | (w.u[rs3.idx() + 1] as u64) << 32, store))
}

/// After the interpreter did an image access: caches the allocation holding the image's base for the inline
/// path (`lower/mem/image.rs`), with a span that leaves room for the largest texel.
fn cache_image_window(cx: &mut JitCtx, pc: u32, base: u64, store: bool) {
    use crate::lower::mem::image::MAX_TEXEL_BYTES;
    let slot = cx.slot_of.get((pc / 4) as usize).copied().unwrap_or(NO_SLOT);
    let region = cx.mem.host_region(lanejit_isa::Sp::Global, base, store).filter(|r| r.len >= MAX_TEXEL_BYTES);
    if let (Some(r), true) = (region, slot != NO_SLOT) {
        // SAFETY: `windows` points at `CompiledKernel::mem_slots` entries (`WindowCache::entries_for`).
        let window = unsafe { &mut *cx.windows.add(slot as usize) };
        // Mutant 154: the span is the region's length (a texel may start at the region's end).
        let span = if crate::mutants::active(154) { r.len } else { r.len - MAX_TEXEL_BYTES };
        *window = Window { lo: r.lo, span, host: r.host as u64 };
    }
}

/// Executes one (non-control) instruction in the interpreter; returns 0, or 1 with the trap stored in the context.
extern "C" fn helper_interpret(state: *mut WaveState, ctx: *mut JitCtx, pc: u32) -> u32 {
    // SAFETY: compiled code passes the pointers it was called with, which `run` made from live references.
    let (w, cx) = unsafe { (&mut *state, &mut *ctx) };
    let (insn, len) = match cx.code.fetch(pc) {
        Ok(x) => x,
        Err(t) => {
            cx.trap = Some(t);
            return 1;
        }
    };
    match exec::step(
        &mut exec::Ctx { w, mem: &mut *cx.mem, env: &cx.env, pc, len, code_len: cx.code.len_bytes() },
        insn,
    ) {
        Ok(_) => {
            cx.interpreted += 1;
            0
        }
        Err(t) => {
            cx.trap = Some(t);
            1
        }
    }
}

type EntryFn = unsafe extern "C" fn(*mut WaveState, *mut JitCtx) -> u32;

/// A kernel compiled to host code. Shared by every wave and thread of a launch and across launches.
/// Its blocks are spread over functions bounded by `FUNCTION_WEIGHT` and `FUNCTION_CLIF` (so that a function's
/// stack frame and compile time are bounded whatever the kernel's size); a block jumps directly to the blocks
/// of its own function and returns to the run loop for the others.
pub struct CompiledKernel {
    /// Per code word: the function that enters the compiled block starting there.
    entry_of: Vec<Option<EntryFn>>,
    /// Time spent compiling this kernel (with the kernel it extends, if any).
    pub compile_time: Duration,
    /// Guest instructions compiled (with those of the kernel it extends): all blocks' instructions.
    pub guest_insns: usize,
    /// Window-cache entries the code uses (one per vector access in the code), and each word's entry.
    pub mem_slots: usize,
    slot_of: std::sync::Arc<[u32]>,
    /// What a wave's start writes (compiled code starts the next wave itself, `plan.rs`).
    start_facts: std::sync::Arc<StartFacts>,
    /// Unique per compilation in this process (1, 2, …).
    pub id: u64,
    /// The compiler that made it.
    pub tier: Tier,
    /// The options it was compiled with (`compile_more` compiles with them too).
    pub options: JitOptions,
    /// Every way each compiled instruction may run (by pc, sorted): several when an inline path has a
    /// fallback, or the block's variants differ.
    pub lowering: Vec<(u32, Lowering)>,
    /// Compiled functions, and the largest stack frame among them (bytes below the frame pointer: spill
    /// slots, saved registers, outgoing arguments).
    pub functions: usize,
    /// The largest stack frame of those functions, bytes (see `functions`).
    pub max_frame_bytes: u32,
    /// Functions built a second time because a lowering read a vector register its block had left unloaded
    /// (`Fx::begin_block_lazy`; the second build loads every register where its block begins). Zero unless an
    /// instruction's lowering reads a register the YAML says it only writes.
    pub rebuilt: usize,
    /// Machine code bytes of its functions (with those of the kernel it extends): what a code cache counts.
    pub code_bytes: usize,
    /// The code memory: this compilation's, and that of the kernel it extends (whose functions it calls).
    modules: Vec<std::sync::Arc<ModuleHolder>>,
}

/// Guest instructions one compiled function holds at most, each block weighing its instructions plus
/// `BLOCK_WEIGHT` (a block's head, budget check and exits make about as much CLIF as two `v.add`s, and cost
/// the register allocator more, see below). Cranelift's costs grow faster than linearly with a function's size: its
/// single-pass allocator gives every spilled value a slot of its own (so the frame grows with the function:
/// about 110 bytes per `v.add` in quick code), and keeps the values that cold blocks (laid out last) use live
/// across every block in between (time quadratic in the blocks). So a kernel is compiled as many bounded
/// functions rather than one.
pub const FUNCTION_WEIGHT: usize = 1024;
const BLOCK_WEIGHT: usize = 8;
/// CLIF instructions one function holds at most (plus its last block): guest instructions differ a hundredfold
/// in the CLIF they become (`v.add` 9, `f.min.f64` about 1,000), and Cranelift's time and frame follow the CLIF.
pub const FUNCTION_CLIF: usize = 20_000;
/// Code words one function's entry jump table spans at most (blocks compiled by `auto` may be far apart).
const FUNCTION_SPAN_WORDS: u32 = 4096;

/// Owns the code memory of one compilation and frees it when the last kernel using it drops. Compiled code
/// runs only inside `run`, whose caller holds the `CompiledKernel` (and so this) for the whole call.
struct ModuleHolder(std::mem::ManuallyDrop<JITModule>);
// SAFETY: the module is only read (its code run) after finalisation, and freed once, by the last owner.
unsafe impl Send for ModuleHolder {}
unsafe impl Sync for ModuleHolder {}

impl Drop for ModuleHolder {
    fn drop(&mut self) {
        // SAFETY: taken once, here; no kernel refers to this code any more (they hold an `Arc` to `self`).
        let module = unsafe { std::mem::ManuallyDrop::take(&mut self.0) };
        // SAFETY: nothing can call into the code: the last `CompiledKernel` holding it is being dropped, and
        // `run` borrows its kernels for as long as compiled code runs.
        unsafe { module.free_memory() };
    }
}

/// Why a kernel could not be compiled: Cranelift's message (host ISA detection, a setting, or a function
/// it refused).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("JIT compilation failed: {0}")]
pub struct JitError(pub String);

/// Registers named by any instruction (see `fx::touched`): these live in variables inside compiled code.
fn used_registers(blocks: &[Block]) -> ([bool; VREGS], [bool; UREGS]) {
    let (mut v, mut u) = ([false; VREGS], [false; UREGS]);
    for op in blocks.iter().flat_map(|b| &b.ops) {
        let (vs, us) = crate::fx::touched(&op.insn);
        vs.into_iter().for_each(|r| v[r] = true);
        us.into_iter().for_each(|r| u[r] = true);
    }
    (v, u)
}

/// Registers that some instruction of `code`, at any word offset, names (reads or writes): no other register
/// can influence what the kernel does. Sorted.
pub fn registers_named(code: &Code) -> (Vec<usize>, Vec<usize>) {
    registers_of(code, crate::fx::touched)
}

/// Registers that some instruction of `code`, at any word offset, may write (so whatever runs, no other
/// register changes): a launch re-zeroes only these when it reuses a wave's storage. Sorted.
pub fn registers_written(code: &Code) -> (Vec<usize>, Vec<usize>) {
    registers_of(code, crate::fx::written)
}

/// The union of `regs(insn)` over every word offset's instruction, sorted.
fn registers_of(code: &Code, regs: fn(&lanejit_isa::Insn) -> (Vec<usize>, Vec<usize>)) -> (Vec<usize>, Vec<usize>) {
    let (mut v, mut u) = ([false; VREGS], [false; UREGS]);
    for (insn, _) in code.decoded.iter().flatten() {
        let (vs, us) = regs(insn);
        vs.into_iter().for_each(|r| v[r] = true);
        us.into_iter().for_each(|r| u[r] = true);
    }
    ((0..VREGS).filter(|&r| v[r]).collect(), (0..UREGS).filter(|&r| u[r]).collect())
}

/// One window-cache slot per vector or uniform access in the code: (slot of each word, number of slots).
/// Numbered over the whole code, so that a kernel extending another shares its numbering.
fn window_slots(code: &Code) -> (Vec<u32>, usize) {
    let mut slot_of = vec![NO_SLOT; code.words.len()];
    let mut n = 0;
    for (w, d) in code.decoded.iter().enumerate() {
        if let Ok((lanejit_isa::Insn::Mem(m), _)) = d {
            let image = matches!(m, MemInsn::ImgLoad { .. } | MemInsn::ImgStore { .. });
            if Access::of(m).is_some() || UniformAccess::of(m).is_some() || Atomic::of(m).is_some() || image {
                slot_of[w] = n as u32;
                n += 1;
            }
        }
    }
    (slot_of, n)
}

/// The whole kernel with the `Opt` tier.
pub fn compile(code: &Code, opts: &JitOptions) -> Result<CompiledKernel, JitError> {
    compile_blocks(code, None, Tier::Opt, opts)
}

/// The whole kernel with the `Quick` tier.
pub fn compile_quick(code: &Code, opts: &JitOptions) -> Result<CompiledKernel, JitError> {
    compile_blocks(code, None, Tier::Quick, opts)
}

/// Byte pcs of every block start (what `compile_blocks` may be asked to compile).
pub fn block_starts(code: &Code) -> Vec<u32> {
    discover(code).iter().map(|b| b.start).collect()
}

/// Compiles the blocks whose start word is set in `only` (all blocks for `None`); entering any other block
/// returns to the run loop, which interprets until it reaches a compiled block (`auto` tiering).
pub fn compile_blocks(
    code: &Code,
    only: Option<&[bool]>,
    tier: Tier,
    opts: &JitOptions,
) -> Result<CompiledKernel, JitError> {
    compile_onto(code, only, tier, opts, None)
}

/// `base` plus the blocks of `only` it does not compile, compiled with `base`'s tier and options: only the new blocks are
/// compiled (in time proportional to them), and `base`'s code is shared, not copied.
pub fn compile_more(base: &CompiledKernel, code: &Code, only: &[bool]) -> Result<CompiledKernel, JitError> {
    compile_onto(code, Some(only), base.tier, &base.options, Some(base))
}

/// How many of `blocks` (in code order) the next function may hold: up to `FUNCTION_WEIGHT`, spanning at most
/// `FUNCTION_SPAN_WORDS` (at least one block).
fn next_group(blocks: &[Block]) -> usize {
    let mut weight = 0;
    for (i, b) in blocks.iter().enumerate() {
        weight += b.ops.len() + BLOCK_WEIGHT;
        let too_far = b.end().saturating_sub(blocks[0].start) / 4 > FUNCTION_SPAN_WORDS;
        if i > 0 && (weight > FUNCTION_WEIGHT || too_far) {
            return i;
        }
    }
    blocks.len()
}

fn compile_onto(
    code: &Code,
    only: Option<&[bool]>,
    tier: Tier,
    opts: &JitOptions,
    base: Option<&CompiledKernel>,
) -> Result<CompiledKernel, JitError> {
    let t0 = Instant::now();
    let mut blocks = discover(code);
    blocks.retain(|b| {
        let wanted = only.is_none_or(|keep| keep.get((b.start / 4) as usize).copied().unwrap_or(false));
        wanted && !base.is_some_and(|k| k.is_start(b.start))
    });
    let isa = isa(tier, opts)?;
    let mut holder = ModuleHolder(std::mem::ManuallyDrop::new(JITModule::new(JITBuilder::with_isa(
        isa.clone(),
        cranelift_module::default_libcall_names(),
    ))));
    let module = &mut *holder.0;
    let (slot_of, mem_slots) = match base {
        Some(k) => (k.slot_of.clone(), k.mem_slots),
        None => {
            let (s, n) = window_slots(code);
            (std::sync::Arc::from(s), n)
        }
    };
    let start_facts = base.map_or_else(|| std::sync::Arc::new(StartFacts::of(code)), |k| k.start_facts.clone());
    let trampolines = trampolines()?;
    let mut funcs = Vec::new();
    let mut max_frame_bytes = base.map_or(0, |k| k.max_frame_bytes);
    let mut rest: &[Block] = &blocks;
    let mut lowering = base.map_or_else(Vec::new, |k| k.lowering.clone());
    let mut rebuilt = base.map_or(0, |k| k.rebuilt);
    let mut code_bytes = base.map_or(0, |k| k.code_bytes);
    while !rest.is_empty() {
        let Defined { id, frame, emitted, lowering: lowered, rebuilt: again, bytes } = define_function(
            module,
            &isa,
            tier,
            opts,
            &rest[..next_group(rest)],
            (&slot_of, &start_facts),
            trampolines,
        )?;
        lowering.extend(lowered);
        rebuilt += again as usize;
        code_bytes += bytes;
        max_frame_bytes = max_frame_bytes.max(frame);
        funcs.push((id, &rest[..emitted]));
        rest = &rest[emitted..];
    }
    module.finalize_definitions().map_err(|e| JitError(e.to_string()))?;
    let mut entry_of = base.map_or_else(|| vec![None; code.words.len()], |k| k.entry_of.clone());
    for &(id, group) in &funcs {
        // SAFETY: every function was built with exactly this signature (`entry_signature`).
        let entry = unsafe { std::mem::transmute::<*const u8, EntryFn>(module.get_finalized_function(id)) };
        for b in group {
            entry_of[(b.start / 4) as usize] = Some(entry);
        }
    }
    lowering.sort_unstable();
    let new_insns: usize = blocks.iter().map(|b| b.ops.len()).sum();
    if opts.report.timing {
        eprintln!(
            "jit: {new_insns} insns in {} functions (largest frame {max_frame_bytes} bytes), total {:?}",
            funcs.len(),
            t0.elapsed()
        );
    }
    let mut modules = base.map_or_else(Vec::new, |k| k.modules.clone());
    modules.push(std::sync::Arc::new(holder));
    Ok(CompiledKernel {
        entry_of,
        compile_time: base.map_or(Duration::ZERO, |k| k.compile_time) + t0.elapsed(),
        guest_insns: base.map_or(0, |k| k.guest_insns) + new_insns,
        mem_slots,
        slot_of,
        start_facts,
        id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        tier,
        options: *opts,
        lowering,
        functions: base.map_or(0, |k| k.functions) + funcs.len(),
        max_frame_bytes,
        rebuilt,
        code_bytes,
        modules,
    })
}

/// The trampolines of the helpers (interpreter step, memory access, next wave, in that order), compiled once
/// per process into a module that is never freed: their addresses. Each is a function of the `preserve_all`
/// convention, which saves every register it (and the helper it calls) may change, that calls its helper with
/// (state, ctx, pc) and stores the helper's status at `CTX_STATUS_OFFSET`. Compiled code calls helpers only
/// on cold paths or between waves; through a trampoline such a call clobbers nothing, so the hot path does not
/// spill its values around it (a call clobbering every vector register had Cranelift store and reload the
/// values live across it on the hot path too).
fn trampolines() -> Result<[usize; 3], JitError> {
    static ADDRESSES: std::sync::OnceLock<Result<[usize; 3], String>> = std::sync::OnceLock::new();
    ADDRESSES.get_or_init(|| define_trampolines().map_err(|e| e.0)).clone().map_err(JitError)
}

/// The trampolines' signature: (state, ctx, pc), no result, `preserve_all`.
fn trampoline_signature(ptr: cranelift_codegen::ir::Type) -> Signature {
    let mut sig = Signature::new(CallConv::PreserveAll);
    sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr), AbiParam::new(I32)]);
    sig
}

fn define_trampolines() -> Result<[usize; 3], JitError> {
    let isa = isa(Tier::Quick, &JitOptions::default())?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, cranelift_module::default_libcall_names()));
    let ptr = module.target_config().pointer_type();
    let helpers = [
        helper_interpret as *const () as usize,
        helper_mem as *const () as usize,
        helper_next_wave as *const () as usize,
    ];
    let mut ids = Vec::with_capacity(helpers.len());
    for helper in helpers {
        let sig = trampoline_signature(ptr);
        let id = module.declare_anonymous_function(&sig).map_err(|e| JitError(e.to_string()))?;
        let mut ctx = module.make_context();
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let mut hsig = Signature::new(CallConv::SystemV);
        hsig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr), AbiParam::new(I32)]);
        hsig.returns.push(AbiParam::new(I32));
        let hsig = b.import_signature(hsig);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let args = b.block_params(entry).to_vec();
        let f = b.ins().iconst(ptr, helper as i64);
        let call = b.ins().call_indirect(hsig, f, &args);
        let status = b.inst_results(call)[0];
        b.ins().store(crate::fx::flags(), status, args[1], crate::abi::CTX_STATUS_OFFSET);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(module.target_config());
        module.define_function(id, &mut ctx).map_err(|e| JitError(format!("{e:?}")))?;
        ids.push(id);
    }
    module.finalize_definitions().map_err(|e| JitError(e.to_string()))?;
    let addresses = [ids[0], ids[1], ids[2]].map(|id| module.get_finalized_function(id) as usize);
    // The code lives as long as the process: every kernel compiled later calls it.
    std::mem::forget(module);
    Ok(addresses)
}

/// What every compiled function is called with: (state, context) -> exit status.
fn entry_signature(ptr: cranelift_codegen::ir::Type) -> Signature {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr)]);
    sig.returns.push(AbiParam::new(I32));
    sig
}

/// One compiled function: its id in the module, its frame size, how many blocks it holds, and how each of
/// its instructions may run.
struct Defined {
    id: cranelift_module::FuncId,
    frame: u32,
    emitted: usize,
    lowering: Vec<(u32, Lowering)>,
    /// Built twice (see `CompiledKernel::rebuilt`).
    rebuilt: bool,
    /// Machine code bytes.
    bytes: usize,
}

/// Builds and compiles one function holding the first blocks of `blocks` (as many as `FUNCTION_CLIF` allows).
fn define_function(
    module: &mut JITModule,
    isa: &crate::options::TargetIsa,
    tier: Tier,
    opts: &JitOptions,
    blocks: &[Block],
    (slot_of, start_facts): (&std::sync::Arc<[u32]>, &std::sync::Arc<StartFacts>),
    trampolines: [usize; 3],
) -> Result<Defined, JitError> {
    let t0 = Instant::now();
    let ptr = module.target_config().pointer_type();
    let sig = entry_signature(ptr);
    let id = module.declare_anonymous_function(&sig).map_err(|e| JitError(e.to_string()))?;
    let (mut ctx, mut fctx) =
        CONTEXTS.with(|c| c.take()).unwrap_or_else(|| (module.make_context(), FunctionBuilderContext::new()));
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let (used_v, used_u) = used_registers(blocks);
    let mut emitted;
    let mut lowering: Vec<(u32, Lowering)>;
    // Built again, loading every register where its block begins, if a lowering read a register that its
    // block left unloaded (`Fx::begin_block_lazy`): a register the YAML says an instruction only writes.
    let mut lazy = true;
    loop {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let [step, mem, next_wave] = trampolines;
        let helpers = HelperFns { step, mem, next_wave, sig: b.import_signature(trampoline_signature(ptr)) };
        let mut fx = Fx::new(b, &used_v, &used_u, helpers, tier);
        fx.set_window_slots(slot_of.clone());
        fx.set_start_facts(start_facts.clone());
        fx.set_report_insts(opts.report.insts);
        fx.set_mark_blocks(opts.mark_blocks);
        if !lazy {
            fx.disable_lazy_loads();
        }
        emitted = lower::emit_function(&mut fx, blocks, FUNCTION_CLIF);
        fx.emit_exit_block();
        fx.b.seal_all_blocks();
        lowering = fx.take_lowering().into_iter().collect();
        let again = fx.lazy_violated();
        fx.b.finalize(isa.frontend_config());
        // (A build without unloaded registers cannot read one.)
        if !again || !lazy {
            break;
        }
        if opts.report.timing {
            eprintln!("jit: a lowering read a register its block left unloaded: building the function again");
        }
        lazy = false;
        ctx.func.clear();
        ctx.func.signature = entry_signature(ptr);
        ctx.func.name = UserFuncName::user(0, id.as_u32());
    }
    let t_ir = t0.elapsed();
    if opts.report.clif {
        eprintln!("{}", ctx.func.display());
    }
    ctx.set_disasm(opts.report.disasm);
    let defined = module.define_function(id, &mut ctx).map_err(|e| JitError(format!("{e:?}")));
    if let Some(text) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
        eprintln!("{text}");
    }
    let frame = ctx.compiled_code().and_then(|c| c.buffer.frame_layout()).map_or(0, |f| f.frame_to_fp_offset);
    let bytes = ctx.compiled_code().map_or(0, |c| c.code_info().total_size as usize);
    if opts.report.timing {
        eprintln!(
            "jit: function of {} insns, IR built in {:?}, total {:?}, {} CLIF insts, frame {frame} bytes",
            blocks[..emitted].iter().map(|b| b.ops.len()).sum::<usize>(),
            t_ir,
            t0.elapsed(),
            ctx.func.dfg.num_insts()
        );
    }
    // Keep the working memory only when it was sized by a small function: the buffers keep the capacity of the
    // largest function they ever held, so caching after a large one would ratchet a long-running process's
    // resident memory up with every new record size (a 30-minute fuzz campaign grew 29 → 53 MB that way).
    if ctx.func.dfg.num_insts() <= KEEP_CONTEXT_CLIF {
        module.clear_context(&mut ctx);
        CONTEXTS.with(|c| c.set(Some((ctx, fctx))));
    }
    defined?;
    Ok(Defined { id, frame, emitted, lowering, rebuilt: !lazy, bytes })
}

/// Largest function (CLIF instructions) whose Cranelift working memory is kept for the next compilation.
const KEEP_CONTEXT_CLIF: usize = 8000;

thread_local! {
    /// Cranelift's per-function working memory, kept between compilations on this thread (allocating it anew is
    /// a measurable part of compiling a small kernel). Taken while a compilation runs.
    static CONTEXTS: std::cell::Cell<Option<(cranelift_codegen::Context, FunctionBuilderContext)>> = const { std::cell::Cell::new(None) };
}

impl CompiledKernel {
    fn is_start(&self, pc: u32) -> bool {
        self.entry_at(pc).is_some()
    }

    /// Mutant 181's wrong entry: the nearest block start up to 16 words before `pc`, and its function.
    fn entry_before(&self, pc: u32) -> Option<(u32, EntryFn)> {
        (1..=16u32).filter_map(|k| pc.checked_sub(4 * k)).find_map(|p| self.entry_at(p).map(|e| (p, e)))
    }

    /// The function that runs the compiled block starting at `pc`.
    fn entry_at(&self, pc: u32) -> Option<EntryFn> {
        if !pc.is_multiple_of(4) {
            return None;
        }
        self.entry_of.get((pc / 4) as usize).copied().flatten()
    }
}

/// Runs a wave on compiled code with the interpreter's contract (`lanejit_interp::run`): until `end`, a barrier,
/// a trap, or `steps.max` retired instructions (exactly, or, for a chunked run, up to the last block that fits,
/// `Steps::exact`). Each block runs in the first of `tiers` that compiled
/// it (so hot blocks in `Opt` code, the others in `Quick` code), else in the interpreter.
/// `hits`, when given, counts block starts by pc (`hits[pc / 4]`): every instruction run in the interpreter, and
/// every block `Quick` code starts, for tiering.
/// `cache` holds the memory windows found by earlier calls (see `WindowCache` for how long they stay valid).
/// With `next`, a wave's `end` goes on with the next wave `next` gives (in compiled code or here) until it
/// gives none; `env` then describes the wave running last, and `steps` counts the instructions of all.
#[allow(clippy::too_many_arguments)]
pub fn run(
    tiers: &[&CompiledKernel],
    code: &Code,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &mut WaveEnv,
    steps: Steps,
    mut hits: Option<&mut [u32]>,
    cache: &mut WindowCache,
    mut next: Option<&mut dyn NextWave>,
) -> Result<Stop, Trap> {
    let mut left = steps.max;
    let mut interpret_next = false;
    while left > 0 {
        let ck = if interpret_next { None } else { tiers.iter().find_map(|ck| ck.entry_at(w.pc).map(|e| (ck, e))) };
        // Mutant 181: a wave the interpreter left inside a block enters compiled code at that block's start.
        let ck = ck.or_else(|| {
            let (ck, (start, e)) = (!interpret_next && crate::mutants::active(181))
                .then(|| tiers.iter().find_map(|ck| ck.entry_before(w.pc).map(|found| (ck, found))))
                .flatten()?;
            w.pc = start;
            Some((ck, e))
        });
        let Some((ck, entry)) = ck else {
            interpret_next = false;
            if let Some(mark) = &cache.block_mark {
                mark.store(w.pc | mem::MARK_INTERPRETED, std::sync::atomic::Ordering::Relaxed);
            }
            if let Some(h) = hits.as_deref_mut().and_then(|h| h.get_mut((w.pc / 4) as usize)) {
                *h = h.saturating_add(1);
            }
            let r0 = w.retired;
            let stop = exec::run(code, w, mem, env, 1, None)?;
            cache.interpreted += w.retired - r0;
            left -= w.retired - r0;
            match stop {
                Stop::Steps => {}
                Stop::End if next_wave(&mut next, w, env) => {}
                stop => return Ok(stop),
            }
            continue;
        };
        let r0 = w.retired;
        let windows = cache.entries_for(ck).as_mut_ptr();
        let mut unsampled_mark = mem::MARK_IDLE;
        let block_mark = cache.block_mark.as_ref().map_or(&raw mut unsampled_mark, |m| m.as_ptr());
        let (status, trap, interpreted, ended) = with_hits(hits.as_deref_mut(), code.words.len(), |hits| {
            let discard_final = next.as_ref().is_some_and(|n| n.discards_registers()) as u8;
            let mut idle = WavePlan::idle();
            let plan: *mut WavePlan = match next.as_mut().and_then(|n| n.plan()) {
                Some(p) => p,
                None => &mut idle,
            };
            let mut cx = JitCtx {
                discard_final,
                steps_left: left as i64,
                code,
                mem: &mut *mem,
                env: *env,
                trap: None,
                windows,
                slot_of: &ck.slot_of,
                hits,
                interpreted: 0,
                plan,
                next: next.as_mut().map(|n| &mut **n as &mut dyn NextWave),
                ended_retired: 0,
                block_mark,
                helper_status: 0,
            };
            // SAFETY: `w` and `cx` outlive the call; the compiled code only touches them through these pointers.
            let status = unsafe { entry(w, &mut cx) };
            *env = cx.env;
            (status, cx.trap.take(), cx.interpreted, cx.ended_retired)
        });
        cache.interpreted += interpreted;
        // (The waves that ended in the call retired `ended` in all; the running one started from 0 if any did.)
        left -= if ended > 0 { ended - r0 + w.retired } else { w.retired - r0 };
        match status {
            s if s == Exit::End as u32 && !next_wave(&mut next, w, env) => {
                return Ok(Stop::End);
            }
            s if s == Exit::Barrier as u32 => return Ok(Stop::Barrier),
            s if s == Exit::Trap as u32 => return Err(trap.expect("a trap exit carries its trap")),
            s if s == Exit::Interpret as u32 => interpret_next = true,
            // (A chunked run that has retired nothing interprets, so that every call makes progress.)
            s if s == Exit::Budget as u32 && !steps.exact && left < steps.max => return Ok(Stop::Steps),
            s if s == Exit::Budget as u32 => interpret_next = true,
            _ => {}
        }
    }
    Ok(Stop::Steps)
}

/// The wave in `w` ended: goes on with the next one, if there is a `next` and it gives one.
fn next_wave(next: &mut Option<&mut dyn NextWave>, w: &mut WaveState, env: &mut WaveEnv) -> bool {
    next.as_deref_mut().is_some_and(|n| n.next(w, env))
}

thread_local! {
    /// Where `Quick` code counts block starts when the caller does not want the counts.
    static SCRATCH_HITS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Calls `f` with a pointer to `words` block-start counters: the caller's, or this thread's scratch buffer.
fn with_hits<R>(hits: Option<&mut [u32]>, words: usize, f: impl FnOnce(*mut u32) -> R) -> R {
    match hits {
        Some(h) => {
            assert!(h.len() >= words, "a hit counter per code word");
            f(h.as_mut_ptr())
        }
        None => SCRATCH_HITS.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < words {
                s.resize(words, 0);
            }
            f(s.as_mut_ptr())
        }),
    }
}
