//! Launches reuse each worker's wave storage across workgroups: every wave must still start as the ABI says
//! (all registers zero but the ABI's), in every workgroup, whichever worker ran the workgroups before it.

use lanejit::{Device, Engine, Kernel, LaunchConfig};

/// Every thread adds 1 to v5 and u20 (zero at wave start) and stores v5 + u20 = 2 at its global index.
const SRC: &str = "
.workgroup 48
    u.ld.b64 u6, u0, 0
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12
    v.add.vu v3, v0, u12
    v.shl.i v4, v3, 2
    v.add.k v5, v5, 1
    u.add.i u20, u20, 1
    v.add.vu v5, v5, u20
    st.b32 v5, v4, u6, 0
    end
";

/// Runs `src` (one output word per thread at its global index, through the argument pointer) over `groups`
/// workgroups (of its `.workgroup` size) on every engine with one and two worker threads; word `i` must be
/// `want(i)`.
fn every_wave_stores(src: &str, groups: u32, want: impl Fn(usize) -> u32) {
    let kernel = Kernel::from_asm("launch.s", src).unwrap_or_else(|e| panic!("{e}"));
    let n = (groups * kernel.program.meta.workgroup.iter().product::<u32>()) as usize;
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        for threads in [1, 2] {
            let d = Device::new().unwrap();
            let out = d.alloc(4 * n as u64).unwrap().addr;
            let cfg = LaunchConfig {
                grid: [groups, 1, 1],
                args: out.to_le_bytes().to_vec(),
                engine,
                threads: Some(threads),
                ..Default::default()
            };
            d.launch(&kernel, &cfg).unwrap_or_else(|e| panic!("{engine:?}: {e}"));
            let got = d.read_u32s(out, n).unwrap();
            let bad: Vec<usize> = (0..n).filter(|&i| got[i] != want(i)).collect();
            assert!(
                bad.is_empty(),
                "{engine:?}, {threads} threads: {} wrong, first at {} = {}",
                bad.len(),
                bad[0],
                got[bad[0]]
            );
        }
    }
}

#[test]
fn every_wave_of_every_workgroup_starts_from_zero() {
    // 48-thread workgroups: the second wave of each is partial, so its inactive lanes are not written.
    every_wave_stores(SRC, 40, |_| 2);
}

/// Every thread writes, at 16 bytes per thread in launch order: its wave's `wave_id`, its workgroup's linear
/// index, the `retired` CSR at a fixed point, and v7 + u21 after adding 1 to each (2 when both started at
/// zero). `{decl}` is replaced by the memory declarations under test.
const IDS: &str = "
.workgroup 96
{decl}
    u.ld.b64 u6, u0, 0
    wait sm=0
    csr.r u10, grid_x
    csr.r u11, grid_y
    u.mul u12, u4, u11
    u.add u12, u12, u3
    u.mul u12, u12, u10
    u.add u12, u12, u2
    csr.r u13, wg_size_x
    u.mul u14, u12, u13
    v.add.vu v3, v0, u14
    v.shl.i v4, v3, 4
    csr.r u15, wave_id
    v.mov.u v5, u15
    st.b32 v5, v4, u6, 0
    v.mov.u v5, u12
    st.b32 v5, v4, u6, 4
    csr.r u16, retired
    v.mov.u v5, u16
    st.b32 v5, v4, u6, 8
    v.add.k v7, v7, 1
    u.add.i u21, u21, 1
    v.add.vu v7, v7, u21
    st.b32 v7, v4, u6, 12
    {tail}
";

const GRID: [u32; 3] = [5, 3, 2];
const THREADS_PER_WG: usize = 96;

fn ids_kernel(decl: &str, tail: &str) -> Kernel {
    let src = IDS.replace("{decl}", decl).replace("{tail}", tail);
    Kernel::from_asm("ids.s", &src).unwrap_or_else(|e| panic!("{e}"))
}

fn launch_ids(
    kernel: &Kernel,
    engine: Engine,
    threads: usize,
) -> (Vec<u32>, Result<lanejit::LaunchStats, lanejit::LaunchError>) {
    let n = GRID.iter().product::<u32>() as usize * THREADS_PER_WG;
    let d = Device::new().unwrap();
    let out = d.alloc(16 * n as u64).unwrap().addr;
    let cfg = LaunchConfig {
        grid: GRID,
        args: out.to_le_bytes().to_vec(),
        engine,
        threads: Some(threads),
        ..Default::default()
    };
    let r = d.launch(kernel, &cfg);
    (d.read_u32s(out, 4 * n).unwrap(), r)
}

/// Waves that run back to back in one wave state (no barrier; private memory or not, shared memory or not)
/// each see their own wave id, workgroup, instruction count and zeroed registers, and every engine counts
/// the same instructions and lane-ops.
#[test]
fn waves_run_back_to_back_each_see_their_own_ids_and_counts() {
    for decl in ["", ".shared 64", ".private 4"] {
        let kernel = ids_kernel(decl, "end");
        let mut reference = None;
        for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
            for threads in [1, 2] {
                let (got, r) = launch_ids(&kernel, engine, threads);
                let stats = r.unwrap_or_else(|e| panic!("{decl:?} {engine:?}: {e}"));
                let retired_csr = got[2];
                assert!(retired_csr > 0, "the retired CSR counts the instructions before it");
                for (t, rec) in got.chunks(4).enumerate() {
                    let (wg, tid) = (t / THREADS_PER_WG, t % THREADS_PER_WG);
                    let want = [(tid / 32) as u32, wg as u32, retired_csr, 2];
                    assert_eq!(rec, want, "{decl:?} {engine:?} {threads} threads: thread {tid} of workgroup {wg}");
                }
                let counts = (stats.retired, stats.lane_ops, retired_csr);
                let first = *reference.get_or_insert(counts);
                assert_eq!(
                    counts, first,
                    "{decl:?} {engine:?} {threads} threads: (retired, lane-ops, CSR) differ from the interpreter's"
                );
            }
        }
    }
}

/// A trap in the middle of waves that run back to back names the wave and workgroup it happened in.
#[test]
fn a_trap_between_back_to_back_waves_names_its_wave_and_workgroup() {
    // Traps in wave 1 of workgroup 7 (x 2, y 1, z 0) only.
    let tail = "
    u.add.i u17, u12, -7
    u.add.i u18, u15, -1
    u.or u19, u17, u18
    b.nz u19, fine
    trap 5
fine:
    end";
    for decl in ["", ".shared 64", ".private 4"] {
        let kernel = ids_kernel(decl, tail);
        for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
            for threads in [1, 2] {
                let (_, r) = launch_ids(&kernel, engine, threads);
                let Err(lanejit::LaunchError::Trap { trap, .. }) = r else {
                    panic!("{decl:?} {engine:?}: no trap: {r:?}")
                };
                assert_eq!(
                    (trap.kind, trap.code, trap.wave, trap.workgroup),
                    (lanejit::TrapKind::UserTrap, Some(5), 1, [2, 1, 0]),
                    "{decl:?} {engine:?} {threads} threads"
                );
            }
        }
    }
}

/// Gives up to `left` more waves, each a fresh full-EXEC wave at pc 0, and adds up what the ended ones retired.
struct Waves {
    left: u32,
    ended: u64,
}

impl lanejit_jit::NextWave for Waves {
    fn next(&mut self, w: &mut lanejit_interp::WaveState, env: &mut lanejit_interp::WaveEnv) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        self.ended += w.retired;
        *w = full_wave();
        env.wave_id += 1;
        true
    }
}

/// The memory of a wave that has neither shared nor private memory.
fn no_local_memory<'a>(d: &'a Device, table: &'a lanejit::arena::LaunchTable<'a>) -> lanejit::wavemem::WaveMemory<'a> {
    lanejit::wavemem::WaveMemory::new(&d.arena, table, &mut [], &mut [], 0)
}

fn full_wave() -> lanejit_interp::WaveState {
    lanejit_interp::WaveState { exec: lanejit_interp::FULL_EXEC, ..Default::default() }
}

/// An engine run that starts waves itself still stops after exactly `max_steps` instructions in all (the
/// chunk boundary the launch's budget and deadline checks rely on), on every engine and tier.
#[test]
fn a_run_of_several_waves_stops_after_exactly_max_steps() {
    let kernel = Kernel::from_asm("seven.s", ".workgroup 32\n    v.add.k v1, v1, 1\n    v.add.k v1, v1, 1\n    u.add.i u9, u9, 1\n    v.add.k v2, v1, 3\n    u.add.i u9, u9, 1\n    v.add.k v1, v1, 1\n    end\n").unwrap();
    let d = Device::new().unwrap();
    let table = d.arena.launch_table(&[]).unwrap();
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        let mut runner = lanejit::engine::Runner::new(&kernel, engine);
        for max_steps in [1u64, 7, 8, 25, 69, 70, 71] {
            let mut mem = no_local_memory(&d, &table);
            let mut w = full_wave();
            let mut env = lanejit_interp::WaveEnv::default();
            let mut waves = Waves { left: 9, ended: 0 };
            let mut windows = lanejit_jit::WindowCache::default();
            let stop = runner.run(&mut w, &mut mem, &mut env, max_steps, None, &mut windows, Some(&mut waves)).unwrap();
            let total = waves.ended + w.retired;
            // Ten waves of seven instructions: 70 in all, then the run ends.
            let (want_stop, want_total) =
                if max_steps < 70 { (lanejit_interp::Stop::Steps, max_steps) } else { (lanejit_interp::Stop::End, 70) };
            assert_eq!((stop, total), (want_stop, want_total), "{engine:?}, max_steps {max_steps}");
            assert_eq!(env.wave_id as u64, total.min(69) / 7, "{engine:?}: the environment follows the waves");
        }
    }
}

/// A chunked run (`Runner::chunked`, a launch's) may stop before a compiled block its steps do not cover,
/// having retired at least one instruction, instead of interpreting the block's first instructions; it never
/// retires more than its steps, and a run given fewer steps than any block still makes progress.
#[test]
fn a_chunked_run_stops_at_a_block_boundary_and_always_makes_progress() {
    let kernel = Kernel::from_asm("seven.s", ".workgroup 32\n    v.add.k v1, v1, 1\n    v.add.k v1, v1, 1\n    u.add.i u9, u9, 1\n    v.add.k v2, v1, 3\n    u.add.i u9, u9, 1\n    v.add.k v1, v1, 1\n    end\n").unwrap();
    let d = Device::new().unwrap();
    let table = d.arena.launch_table(&[]).unwrap();
    for engine in [Engine::Jit, Engine::Auto] {
        for max_steps in [1u64, 3, 7, 10, 25, 69] {
            let mut runner = lanejit::engine::Runner::new(&kernel, engine).chunked();
            let mut mem = no_local_memory(&d, &table);
            let (mut w, mut env) = (full_wave(), lanejit_interp::WaveEnv::default());
            let mut waves = Waves { left: 9, ended: 0 };
            let mut windows = lanejit_jit::WindowCache::default();
            let mut calls = Vec::new();
            loop {
                let before = waves.ended + w.retired;
                let stop =
                    runner.run(&mut w, &mut mem, &mut env, max_steps, None, &mut windows, Some(&mut waves)).unwrap();
                let done = waves.ended + w.retired - before;
                assert!((1..=max_steps).contains(&done), "{engine:?}, max_steps {max_steps}: a call retired {done}");
                calls.push(done);
                if stop == lanejit_interp::Stop::End {
                    break;
                }
            }
            assert_eq!(calls.iter().sum::<u64>(), 70, "{engine:?}, max_steps {max_steps}: ten waves of seven");
            if engine == Engine::Jit && max_steps == 10 {
                // The compiled wave (one block of seven) does not fit the three steps left after the first:
                // the call stops there rather than interpreting three of them.
                assert_eq!(calls[0], 7, "{calls:?}");
            }
        }
    }
}

/// The address setup every kernel below starts with: v4 = 4 × global thread index, u6:u7 = the output.
const PROLOGUE: &str = "
.workgroup 64
    u.ld.b64 u6, u0, 0
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12
    v.add.vu v3, v0, u12
    v.shl.i v4, v3, 2
";

/// Lane mask of this wave: the even lanes in even workgroups, the odd lanes in odd ones (u20), so that each
/// wave leaves values in the lanes the next wave does not write.
const ALTERNATE_LANES: &str = "
    u.and.i u19, u2, 1
    u.mov.k u20, 0x55555555
    u.shl u20, u20, u19
    exec.and.save u21, u20
";

/// A register written only in this wave's half of the lanes, then read across lanes (`shfl.idx` from the lane
/// above, which belongs to the other half): those lanes were never written in this wave, so they must read
/// zero, not what the previous workgroup's wave left there. The clearing proof must count the cross-lane read.
#[test]
fn lanes_a_wave_never_wrote_read_zero_across_lanes() {
    let src = format!(
        "{PROLOGUE}{ALTERNATE_LANES}
    u.mov.k u22, 7
    v.mov.u v9, u22
    v.add.k v10, v0, 1
    shfl.idx v11, v9, v10
    st.b32 v11, v4, u6, 0
    end
"
    );
    // Active lanes store 0 (the lane above was never written); inactive ones store nothing (the buffer's 0).
    every_wave_stores(&src, 9, |_| 0);
    let k = Kernel::from_asm("clear.s", &src).unwrap();
    assert!(k.registers_to_clear().0.contains(&9), "v9 is read across lanes: it must be cleared");
}

/// The same half-lane write, then EXEC grows back (`exec.set`) and a lane-wise read sees the other half:
/// lanes can rejoin, so the proof gives up and every written register is cleared.
#[test]
fn lanes_that_rejoin_exec_read_zero() {
    let src = format!(
        "{PROLOGUE}{ALTERNATE_LANES}
    u.mov.k u22, 7
    v.mov.u v9, u22
    exec.set u20
    u.mov.k u23, -1
    exec.set u23
    st.b32 v9, v4, u6, 0
    end
"
    );
    let kernel = Kernel::from_asm("clear.s", &src).unwrap_or_else(|e| panic!("{e}"));
    let (v, _) = kernel.registers_to_clear();
    assert!(v.contains(&9), "EXEC can grow: every written register is cleared ({v:?})");
    // Even workgroups wrote 7 in the even lanes; odd ones in the odd lanes; the other lanes read 0.
    every_wave_stores(&src, 9, |i| if i % 32 % 2 == i / 64 % 2 { 7 } else { 0 });
}

/// A literal that, decoded on its own, is `v.add v12, v1, v2` (0x00404610): with every path known, no wave runs
/// it, so v12, which the kernel only reads, is not cleared between waves and reads 0 in every wave.
#[test]
fn a_literal_that_decodes_as_a_write_does_not_make_a_register_cleared() {
    let src = format!(
        "{PROLOGUE}
    v.mov.k v9, 0x00404610
    v.add v10, v12, v9
    st.b32 v10, v4, u6, 0
    end
"
    );
    let kernel = Kernel::from_asm("clear.s", &src).unwrap_or_else(|e| panic!("{e}"));
    let (v, _) = kernel.registers_to_clear();
    assert!(!v.contains(&12), "only the literal writes v12: {v:?}");
    every_wave_stores(&src, 9, |_| 0x0040_4610);
}

/// Written lane-wise before every read, with EXEC only shrinking: not cleared between waves, and the results
/// stay exact (saxpy-like: the proof's main case).
#[test]
fn registers_written_before_read_are_not_cleared_and_stay_exact() {
    let src = format!(
        "{PROLOGUE}{ALTERNATE_LANES}
    v.add.k v9, v3, 5
    v.add v10, v9, v9
    st.b32 v10, v4, u6, 0
    end
"
    );
    let kernel = Kernel::from_asm("clear.s", &src).unwrap_or_else(|e| panic!("{e}"));
    let (v, _) = kernel.registers_to_clear();
    assert!(!v.contains(&9) && !v.contains(&10), "v9 and v10 are written before read: {v:?}");
    every_wave_stores(&src, 9, |i| if i % 32 % 2 == i / 64 % 2 { 2 * (i as u32 + 5) } else { 0 });
}

/// Written in this wave's half of the lanes, then read only by instructions that read active lanes alone (YAML
/// `lanes: active`: a lane-mask compare, a reduction, a ballot): the other half's stale values cannot reach a
/// result, so the register is not cleared between waves, and every engine stays exact.
#[test]
fn registers_read_only_in_active_lanes_are_not_cleared_and_stay_exact() {
    let src = format!(
        "{PROLOGUE}{ALTERNATE_LANES}
    v.add.k v9, v3, 5
    u.mov.k u23, 40
    cmp.lt.u32.vu u22, v9, u23
    xred.add.u32 u24, v9
    ballot u25, v9
    u.popc u22, u22
    u.add u24, u24, u22
    u.popc u25, u25
    u.add u24, u24, u25
    v.mov.u v10, u24
    st.b32 v10, v4, u6, 0
    end
"
    );
    let kernel = Kernel::from_asm("clear.s", &src).unwrap_or_else(|e| panic!("{e}"));
    let (v, _) = kernel.registers_to_clear();
    assert!(!v.contains(&9), "v9 is read only in active lanes: {v:?}");
    let active = |i: usize| i % 32 % 2 == i / 64 % 2;
    every_wave_stores(&src, 9, |i| {
        if !active(i) {
            return 0;
        }
        let lanes: Vec<u32> = (i / 32 * 32..i / 32 * 32 + 32).filter(|&j| active(j)).map(|j| j as u32 + 5).collect();
        let sum = lanes.iter().fold(0u32, |s, &x| s.wrapping_add(x));
        sum + lanes.iter().filter(|&&x| x < 40).count() as u32 + lanes.len() as u32
    });
}
