//! Single-block loops stop for their step budget exactly where the interpreter stops. The optimised tier
//! checks the budget of a loop that writes neither EXEC nor fcsr before the loop and on its back edge, inside a
//! loop per EXEC variant (jit/src/lower/mod.rs, `SelfLoop::back_edge_steps`); other loops check it at their
//! header. Each kernel below runs from budget 1 to past its end on every engine and JIT tier, under a full
//! and a partial EXEC, and the whole outcome (registers, pc, retired count, trap) must equal the interpreter's.

use lanejit::state_json::StateJson;
use lanejit::wave::{run_wave_limited, WaveLimits, WaveOutcome};
use lanejit::{Engine, Kernel, LANES};

/// butterfly's loop: the distance computed in the loop, a forked `shfl.xor.vu`, a register (v7) written
/// before it is read, so that it is not carried around the loop, and a loop-invariant multiplier (v6).
const XOR_LOOP: &str = "
    v.mov.k v6, 1664526
    u.li u15, 0
    u.li u16, 5
    u.li u17, 1
loop:
    u.rem.u u18, u15, u16
    u.shl u19, u17, u18
    shfl.xor.vu v7, v5, u19
    v.mad.u32 v5, v5, v6, v7
    u.add.i u15, u15, 1
    u.slt.u.i u20, u15, 12
    b.nz u20, loop
    v.add v8, v5, v7
    end
";

/// A loop whose body writes EXEC (each trip picks its variant again at its header): the budget stays there.
const EXEC_LOOP: &str = "
    u.li u15, 0
loop:
    v.add v5, v5, v1
    cmp.lt.u32.vu u13, v5, u16
    exec.and.save u14, u13
    v.xor v7, v5, v1
    u.add.i u15, u15, 1
    u.slt.u.i u20, u15, 9
    b.nz u20, loop
    end
";

/// How many instructions each kernel retires at most (the budgets run from 1 to this).
const LONGEST: u64 = 12 * 7 + 8;

fn lanes(f: impl Fn(u32) -> u32) -> Vec<u32> {
    (0..LANES as u32).map(f).collect()
}

fn initial(exec: u32) -> StateJson {
    let mut s = StateJson { exec: Some(exec), ..Default::default() };
    s.v.insert("1".into(), lanes(|l| 0x0101_0101u32.wrapping_mul(l + 3)));
    s.v.insert("5".into(), lanes(|l| 0x9e37_79b9u32.rotate_left(l) ^ l));
    s.v.insert("7".into(), lanes(|l| 0x7700_0000 | l));
    s.u.insert("16".into(), 0x8000_0000);
    s
}

fn run(kernel: &Kernel, init: &StateJson, engine: Engine, budget: u64) -> WaveOutcome {
    let limits = WaveLimits { budget, ..Default::default() };
    run_wave_limited(kernel, init, engine, limits, None).unwrap()
}

/// The engines and tiers compared with the interpreter: the promote threshold pinned on the kernel.
fn engines() -> [(&'static str, Engine, u32); 3] {
    [("jit-opt", Engine::Jit, 0), ("jit-quick", Engine::Jit, u32::MAX), ("auto-hot", Engine::Auto, 0)]
}

fn check(src: &str) {
    let kernel = Kernel::from_asm("loop.s", src).unwrap();
    let mut stopped_in_loop = 0;
    for exec in [u32::MAX, 0x6b3c_0e95] {
        let init = initial(exec);
        for budget in 1..=LONGEST {
            let want = run(&kernel, &init, Engine::Interp, budget);
            stopped_in_loop += want.trap.is_some() as u32;
            for (name, engine, hot) in engines() {
                kernel.jit_promotion.reset(hot);
                kernel.auto_tiering.reset(hot);
                let got = run(&kernel, &init, engine, budget);
                let what = format!("{name}, EXEC {exec:#x}, budget {budget}");
                let (g, w) = (&got.state, &want.state);
                assert!(
                    g == w,
                    "{what}: the states differ (pc {} / {}, retired {} / {})",
                    g.pc,
                    w.pc,
                    g.retired,
                    w.retired
                );
                assert_eq!(
                    got.trap.map(|t| (t.kind, t.pc)),
                    want.trap.as_ref().map(|t| (t.kind, t.pc)),
                    "{what}: the trap"
                );
            }
        }
    }
    // The budgets must stop the wave inside the loop many times, or the test would show nothing.
    assert!(stopped_in_loop > 60, "only {stopped_in_loop} runs stopped for the budget");
}

#[test]
fn a_loop_that_keeps_exec_stops_for_its_budget_where_the_interpreter_does() {
    check(XOR_LOOP);
}

#[test]
fn a_loop_that_writes_exec_stops_for_its_budget_where_the_interpreter_does() {
    check(EXEC_LOOP);
}
