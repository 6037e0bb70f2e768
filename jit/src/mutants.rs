//! Planted bugs for measuring the fuzzer's sensitivity (`lanejit fuzz --mutant ID`, tests/fuzz.rs).
//!
//! A lowering that has a mutant asks `mutants::active(ID)` while it emits code and, when it is active, emits a
//! deliberately wrong variant (an off-by-one shift mask, a missing EXEC blend, a swapped operand, …). The
//! check happens at compile time, never in compiled code, so even a build with the feature and no mutant selected
//! pays only one relaxed atomic load per lowered instruction and nothing at run time. Because the choice is baked into the code
//! when a kernel is compiled, select the mutant before compiling (kernels compiled earlier keep their code).
//!
//! IDs are small integers, one per planted bug, listed with a one-line description in `CATALOGUE` so that a
//! sensitivity run can name what it failed to catch.
//!
//! Planted bugs exist only in builds with the `mutants` cargo feature (the test suite turns it on through a
//! dev-dependency; `cargo build --release` leaves it off): without it `active` is a constant `false`, so every
//! `if mutants::active(N)` branch is dead code the compiler removes, and `set` refuses to select one.

/// This build has the planted bugs (`--features mutants`).
pub const ENABLED: bool = cfg!(feature = "mutants");

#[cfg(feature = "mutants")]
mod switch {
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

    /// No mutant selected.
    const NONE: u32 = u32::MAX;

    static ACTIVE: AtomicU32 = AtomicU32::new(NONE);

    /// Is planted bug `id` switched on?
    #[inline]
    pub fn active(id: u32) -> bool {
        ACTIVE.load(Relaxed) == id
    }

    pub fn set(id: Option<u32>) {
        ACTIVE.store(id.unwrap_or(NONE), Relaxed);
    }

    pub fn current() -> Option<u32> {
        match ACTIVE.load(Relaxed) {
            NONE => None,
            id => Some(id),
        }
    }
}

#[cfg(not(feature = "mutants"))]
mod switch {
    /// Never: this build has no planted bugs.
    #[inline(always)]
    pub const fn active(_id: u32) -> bool {
        false
    }

    pub fn set(_id: Option<u32>) {}

    pub fn current() -> Option<u32> {
        None
    }
}

/// Is planted bug `id` switched on? (Always false without the `mutants` feature.)
#[inline(always)]
pub fn active(id: u32) -> bool {
    switch::active(id)
}

/// Selects the planted bug to compile in (`None`: the correct JIT). Process-wide: tests that set it must not
/// run concurrently with other JIT tests in the same process. Refused (`Err`) by a build without the
/// `mutants` feature, which has no planted bugs to select.
pub fn set(id: Option<u32>) -> Result<(), NotBuiltIn> {
    if id.is_some() && !ENABLED {
        return Err(NotBuiltIn);
    }
    switch::set(id);
    Ok(())
}

/// The selected mutant, if any.
pub fn current() -> Option<u32> {
    switch::current()
}

/// `set` in a build without the `mutants` feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotBuiltIn;

impl std::fmt::Display for NotBuiltIn {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("this build has no planted bugs: rebuild with `--features mutants` to select one")
    }
}

impl std::error::Error for NotBuiltIn {}

/// `(id, where, what)` of every planted bug. IDs 1..99 are in the lowerings of the ALU, cross-lane, compare
/// and control groups and the block budget; 100..=119 in memory accesses (inline path, window cache, the
/// runtime's per-lane path); 120 and up in EXEC handling and block state (variants, blends, counters, write-back).
pub const CATALOGUE: &[(u32, &str, &str)] = &[
    (1, "lower/xlane.rs:source", "shfl.up.vi bound off by one: the lane whose source is lane 0 keeps its own value"),
    (2, "lower/xlane.rs:source", "shfl.down.vi wraps around the wave instead of keeping the lane's own value"),
    (3, "lower/xlane.rs:shift_dynamic", "shfl.up/down (.vu and per-lane) truncate the delta to 5 bits"),
    (4, "lower/xlane.rs:shift_dynamic", "shfl.down bound off by one: lane + delta = 32 reads lane 0"),
    (5, "lower/xlane.rs:readfirst", "readfirst reads lane 0 instead of the lowest active lane"),
    (6, "lower/xlane.rs:lower", "xred.min.i32 identity 0 instead of INT_MAX for inactive lanes"),
    (7, "lower/xlane.rs:lower", "xred.max.u32 identity all-ones (min's) instead of 0"),
    (8, "lower/xlane.rs:lower", "xscan.add.u32 exclusive instead of inclusive"),
    (9, "lower/xlane.rs:lower", "ballot ignores EXEC (inactive lanes are counted)"),
    (10, "lower/xlane.rs:source", "quad.swizzle selector fields read in reverse order"),
    (11, "lower/xlane.rs:lower", "vote.all compares with all 32 lanes instead of EXEC"),
    (12, "lanes.rs:gather", "dynamic shuffle index masked to 15 instead of 31"),
    (13, "lower/xlane.rs:reduce", "xred.* leave out the last vector (lanes 28..31)"),
    (14, "lanes.rs:prefix_sum", "xscan carry into the next vector taken from lane 2 instead of lane 3"),
    (15, "lower/vint/shift.rs:by_scalar", "v.shl/shr/sra.vu amount not masked to 5 bits (counts >= 32 saturate)"),
    (16, "lower/vint.rs:lower", "v.sub operands swapped (s2 - s1)"),
    (17, "lower/vint/shift.rs:bfe_scalar", "v.bfe.s.vu/.k drop the sign extension of the field"),
    (18, "lower/vint/mul.rs:hi_slice", "signed mulhi/mad.hi multiply zero-extended operands"),
    (19, "lower/vint.rs:lower", "v.min.u compares signed"),
    (20, "lower/vint/lop3.rs:slice", "v.lop3 truth-table halves swapped (s1 = 0 and s1 = 1 exchanged)"),
    (21, "lower/vint/prmt.rs:slice", "v.prmt ignores selector bit 3 (sign replication)"),
    (22, "lower/vint.rs:cndmask", "v.cndmask writes lanes outside EXEC"),
    (23, "lower/vint.rs:lower", "v.sext.b sign-extends from bit 15 instead of bit 7"),
    (24, "lower/vint/wide.rs:add64", "64-bit lane add: carry detected with a signed compare"),
    (25, "lower/cmp.rs:lower", "cmp.lt.i32 compares unsigned"),
    (26, "lower/cmp.rs:lower", "cmp.le.i32.vi lowered as lt (wrong condition code)"),
    (27, "lower/cmp.rs:set_mask", "integer compare masks not ANDed with EXEC"),
    (28, "lower/uniform.rs:div", "u.div/u.div.u by zero give 0 instead of all ones"),
    (29, "lower/uniform/pair.rs:shift", "u.shl/shr.u64 amount masked to 5 bits instead of 6"),
    (30, "lower/uniform.rs:exec_save", "exec.*.save/exec.elect write the new EXEC to rd instead of the old one"),
    (31, "lower/uniform.rs:lower", "exec.andn.save computes m & !EXEC instead of EXEC & !m"),
    (32, "lower/uniform.rs:lower", "u.sra.i shifts logically"),
    (33, "lower/ctrl.rs:lower", "b.ge branches on > 0 instead of >= 0"),
    (34, "lower/ctrl.rs:jump", "jal links its own pc instead of the next instruction's"),
    (35, "lower/ctrl.rs:lower", "b.lt compares unsigned (never taken)"),
    (36, "lower/vfloat/ops32.rs:min_max", "f.min/max.f32 propagate NaN (Cranelift fmin/fmax) instead of minimumNumber"),
    (37, "lower/vfloat/ops32.rs:Mods::src", "neg modifier honoured for source 1 only"),
    (38, "lower/vfloat/ops32.rs:saturate", "sat clamps only at 1.0 (negatives, -0 and NaN pass)"),
    (39, "lower/vfloat/ops32.rs:to_int", "f.cvt.u32.f32 converts through the signed saturating conversion"),
    (40, "lower/vfloat/ops64.rs:pair", "f64 neg/abs modifiers act on bit 31 of the low word, not the sign"),
    (41, "lower/vfloat/ops64.rs:from_int", "f.cvt.f64.i32 does not subtract the 2^31 bias"),
    (42, "lower/ctrl.rs:lower", "barrier lowered as nop: the wave does not wait for the others"),
    (43, "lower/mod.rs:budget_check", "a block that needs one step more than the budget has left still runs compiled"),
    (
        100,
        "runtime/mem.rs:try_access",
        "window cached with room for one lane's word, not the 32 lanes of an inline access",
    ),
    (101, "lower/mem.rs:inline_check", "inline access: alignment test dropped"),
    (102, "runtime/mem.rs:try_access", "per-lane path checks only the first active lane's address"),
    (103, "runtime/mem.rs:try_access", "sub-word loads never sign-extend"),
    (104, "runtime/mem.rs:store", "lanes stored in descending order (the lowest lane wins an overlap)"),
    (105, "runtime/mem.rs:load", "loaded registers written in every lane, EXEC ignored"),
    (106, "lower/mem.rs:access", "inline path also in the masked variant: stores write lanes outside EXEC"),
    (
        108,
        "runtime/mem.rs:try_access",
        "window cached with the region's whole length (inline accesses run past its end)",
    ),
    (109, "lower/mem.rs:inline_check", "inline host address leaves out the immediate (the check included it)"),
    (120, "lower/mod.rs:emit_block", "full-EXEC variant taken whenever lane 31 is active"),
    (121, "fx/lanes.rs:lane_mask", "lane masks of vector k taken from the EXEC bits of vector k + 1"),
    (122, "fx/regs.rs:blend_exec", "new and old values swapped in the EXEC blend"),
    (123, "fx/exits.rs:counted", "lane-ops counted with EXEC at the block's end, not at its start"),
    (124, "fx/exits.rs:call_runtime", "registers changed in the block not written back before an interpreter call"),
    (125, "lower/mod.rs:emit_block", "a failed budget check stores the previous block's changed registers"),
    (130, "lower/mem/uniform.rs:inline_check", "uniform access alignment not checked inline"),
    (131, "runtime.rs:helper_mem", "uniform window span is the region's length (an access may start at its end)"),
    (132, "lower/uniform.rs:csr_read", "csr.r wg_size_x and grid_x read the next field (y)"),
    (133, "runtime/mem.rs:try_atomic", "atomics check only the first active lane's address"),
    (134, "runtime/mem.rs:try_atomic", "atomic lanes applied in descending order"),
    (135, "lower/xlane.rs:switched", "uniform-operand shuffle switch keeps 4 bits of the value"),
    (136, "runtime.rs:helper_next_wave", "a wave started by compiled code reads the previous wave's environment"),
    (137, "fx/mod.rs:Fx::new", "a wave started by compiled code keeps the previous wave's EXEC"),
    (138, "lower/mem/lanes.rs:Lanes::check", "inline lane loops (atomics, masked accesses) with several lanes check only the largest offset of lanes 0-3"),
    (139, "lower/mem/atomic.rs:lower", "inline atomics return the data sent instead of the word's old value"),
    (140, "runtime/mem.rs:try_atomic", "the inline atomic window spans the whole region (a word may start at its end)"),
    (
        141,
        "lower/mem/gather.rs:scatter",
        "inline scattered stores go lanes descending (the lowest lane wins an overlap)",
    ),
    (142, "lower/mem/gather.rs:lanes_ok", "the inline gather/scatter check does not test the lanes' alignment"),
    (143, "lower/mod.rs:goto_end", "registers changed before a block that only ends the wave are never stored, even when the run keeps final states"),
    (144, "lower/mod.rs:emit_segment", "after an EXEC write inside a block, only the masked variant's changed registers are stored later"),
    (145, "lower/xlane.rs:xor_uniform", "shfl.xor.vu's vector part of the distance keeps 2 bits (16 and more read the wrong half)"),
    (146, "lower/mem/slices.rs:transpose", "inline 8- and 16-byte lane accesses swap each lane's second and third words"),
    (147, "lower/mem/slices.rs:wide_store", "an inline 8-byte lane store writes 16 bytes (zeros over the next 8)"),
    (148, "lower/mem/slices.rs:slices_follow", "the slice checks (contiguous or uniform) compare only each slice's first two lanes"),
    (150, "lower/mem/image.rs:image", "inline image texels' alignment is not tested (a misaligned texel is accessed)"),
    (151, "lower/mem/image.rs:check_lanes", "an inline image access takes x = W as in range (a texel past the row's end)"),
    (152, "lower/mem/image.rs:unorm8", "an inline rgba8 load multiplies by 1/255 instead of dividing by 255"),
    (153, "lower/mem/image.rs:store_lanes", "an inline image store goes lanes descending (the lowest lane wins a texel)"),
    (154, "runtime/mod.rs:cache_image_window", "an image's cached window spans the whole region (a texel may start at its end)"),
    (156, "lower/mod.rs:emit_ops", "an instruction other than f32 arithmetic reads f32 results with their host NaN payloads"),
    (157, "fx/regs.rs:set_v_float", "masked f32 arithmetic blends in results with their host NaN payloads"),
    (159, "lower/mod.rs:emit_segment", "quick code runs blocks entered with a partial EXEC as full-EXEC ones (no blend)"),
    (160, "fx/facts.rs:forget_offset_facts", "offset facts outlive a write of their register (later accesses trust old checks)"),
    (161, "fx/regs.rs:load_unloaded", "a masked variant blends into a register its block left unloaded (never loaded)"),
    (162, "fx/exits.rs:runtime_arm", "the runtime path of an inline access stores the destination the inline path wrote"),
    (163, "lower/mod.rs:written_first", "registers an instruction reads and writes are left unloaded (the function is built again)"),
    (164, "fx/next_wave.rs:move_to_following_workgroup", "a wave started by compiled code after a row's last workgroup keeps the row's y"),
    (165, "fx/next_wave.rs:zero_clear_set", "a wave started by compiled code keeps the last wave's vector registers of the clear set"),
    (166, "fx/next_wave.rs:write_wave_abi", "a wave started by compiled code gets the EXEC of its workgroup's first wave"),
    (168, "fx/next_wave.rs:advance_wave", "a wave started by compiled code reads the last wave's wave_id"),
    (169, "lower/mem/masked.rs:lower", "an inline masked access skips its lowest active lane"),
    (170, "lower/mem/masked.rs:lower", "an inline masked load writes every lane (inactive lanes get stack leftovers)"),
    (171, "fx/regs.rs:v_from_state", "a register its block only reads is loaded at each use from its first 16 bytes for every slice"),
    (172, "lower/mem/atomic.rs:lower_unrolled", "a full-EXEC inline atomic applies its lanes descending (old values in their own lanes)"),
    (173, "lower/mem/group.rs:check", "a run of accesses differing in their immediate is checked for its lowest access only"),
    (174, "lower/mem/group.rs:run_after", "a run of accesses goes on past a write of its offset register"),
    (175, "lower/mem/uniform.rs:run_check", "a run of uniform accesses from one address pair is checked for its lowest access only"),
    (179, "lower/xlane.rs:xor_if_set", "shfl.xor.vu by 4 or 8 in optimised code rotates the vectors instead of swapping them"),
    (180, "lower/xlane.rs:xor_if_set", "shfl.xor.vu by 1 or 2 in optimised code takes the other one's permutation within each vector"),
    (181, "runtime/mod.rs:run", "a wave the interpreter left inside a block (compiled code installed meanwhile, or an interpreted instruction) enters compiled code at that block's start"),
];
