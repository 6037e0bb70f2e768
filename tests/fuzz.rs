//! The fuzzer in CI: a fixed-seed campaign of 20,000 programs (each compiled once and run from two initial
//! states; a tenth of them as a workgroup of 2-4 waves with barriers and shared memory) must show no
//! divergence between the engines and must execute every mnemonic with a full, a partial and an empty EXEC.
//! Plus unit tests of the generator, the shrinker, the workgroup runner and the mutant switch.
//!
//! `LANEJIT_FUZZ_PROGRAMS=N` changes the campaign size (coverage is asserted only at the full size).

use lanejit::{Kernel, TrapKind};
use lanejit_cli::fuzz::campaign::{reproducer_source, Options};
use lanejit_cli::fuzz::prog::{GenProgram, Node};
use lanejit_cli::fuzz::shrink::shrink;
use lanejit_cli::fuzz::{campaign, check, generate, generate_states, AutoMode, GenConfig};
use lanejit_jit::RegAlloc;
use std::time::Instant;

const CI_PROGRAMS: u64 = 20_000;
const CI_SEED: u64 = 0x5eed;

/// Small programs keep JIT compile time (the dominant cost) low enough for 20,000 programs in well under
/// five minutes on two cores; two states per program reuse each compile.
const CI_GEN: GenConfig = GenConfig { max_len: 10, states: 2, group_pct: 10 };

#[test]
fn ci_campaign_finds_no_divergence() {
    let programs = std::env::var("LANEJIT_FUZZ_PROGRAMS").ok().and_then(|s| s.parse().ok()).unwrap_or(CI_PROGRAMS);
    let opts = Options { seed: CI_SEED, count: Some(programs), gen: CI_GEN, max_shrinks: 4, ..Options::default() };
    let t0 = Instant::now();
    let sum = campaign(&opts).expect("campaign runs");
    println!("{} ({:.1} s)", sum.line(), t0.elapsed().as_secs_f64());
    print!("{}", sum.coverage.report());
    assert!(sum.errors.is_empty(), "harness errors: {:?}", sum.errors);
    let reports: Vec<String> = sum
        .findings
        .iter()
        .take(4)
        .map(|f| {
            let (p, _, d) = f.shrunk.as_ref().map_or((&f.case.prog, &f.case.init, &f.div), |(p, s, d)| (p, s, d));
            format!(
                "seed {:#x} state {}: {}\n{}",
                f.case.seed,
                f.state,
                f.div.summary(),
                reproducer_source(f, p, d).unwrap_or_default()
            )
        })
        .collect();
    assert!(
        sum.findings.is_empty(),
        "{} divergences (replay: lanejit fuzz --seed-range SEED..SEED+1 --size {} --states {}):\n{}",
        sum.findings.len(),
        CI_GEN.max_len,
        CI_GEN.states,
        reports.join("\n")
    );
    if programs >= CI_PROGRAMS {
        assert_eq!(sum.coverage.percent(), 100.0, "mnemonic x EXEC coverage is incomplete:\n{}", sum.coverage.report());
    }
}

#[test]
fn generation_is_deterministic_per_seed() {
    for seed in [0, 1, 0x5eed_0000_0007, u64::MAX] {
        let cfg = GenConfig::default();
        assert_eq!(generate_states(seed, &cfg), generate_states(seed, &cfg));
    }
    assert_ne!(generate(1).prog, generate(2).prog);
}

/// Reproducers are written as disassembly: it must reassemble to the very same code.
#[test]
fn generated_programs_reassemble_from_their_disassembly() {
    for seed in 0..400 {
        let p = generate(seed).prog.render().unwrap();
        let text = lanejit_isa::disassemble(&p);
        let back = lanejit_isa::assemble("gen.s", &text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(back.words, p.words, "seed {seed}");
        assert_eq!(back.meta, p.meta, "seed {seed}");
    }
}

/// Termination is by construction (forward branches, bounded loops, no recursion): no program may need the
/// instruction budget.
#[test]
fn generated_programs_terminate() {
    for seed in 0..400 {
        let c = generate(seed);
        let k = Kernel::from_program(c.prog.render().unwrap());
        let out = lanejit_cli::fuzz::group::run_case(
            &k,
            &c.init,
            lanejit::Engine::Interp,
            lanejit_cli::fuzz::oracle::FUZZ_BUDGET,
            None,
        )
        .unwrap();
        assert!(out.trap().is_none_or(|(_, t)| t.kind != TrapKind::BudgetExceeded), "seed {seed} hit the budget");
    }
}

/// Counts instructions with mnemonic `m` in a program tree.
fn count(ns: &[Node], m: &str) -> usize {
    ns.iter()
        .map(|n| match n {
            Node::Op(o) => (o.info().mnemonic == m) as usize,
            Node::Skip { body, .. } | Node::Loop { body, .. } => count(body, m),
            Node::If { then, els, .. } => count(then, m) + els.as_deref().map_or(0, |e| count(e, m)),
            Node::Call { .. } | Node::Barrier => 0,
        })
        .sum()
}

fn total(p: &GenProgram, m: &str) -> usize {
    count(&p.main, m) + p.funcs.iter().map(|f| count(f, m)).sum::<usize>()
}

/// The shrinker reduces a large case to the one instruction a (synthetic) failure depends on, with a default
/// initial state.
#[test]
fn shrinker_reduces_to_the_culprit() {
    let (seed, c) =
        (0..).map(|s| (s, generate(s))).find(|(_, c)| c.prog.op_count() > 30 && total(&c.prog, "v.and.k") > 0).unwrap();
    let pred = |p: &GenProgram, _: &lanejit::state_json::StateJson| total(p, "v.and.k") > 0;
    let (p, s, evals) = shrink(c.prog.clone(), c.init.clone(), pred, 5000);
    assert_eq!(total(&p, "v.and.k"), 1, "seed {seed}");
    assert!(p.op_count() <= 2, "seed {seed}: {} ops left: {p:?}", p.op_count());
    assert!(s.v.is_empty() && s.u.is_empty() && s.memory.is_empty(), "state not simplified: {s:?}");
    println!("seed {seed}: {} ops shrunk to {} in {evals} evaluations", c.prog.op_count(), p.op_count());
}

/// A failure that needs a partial EXEC shrinks to the bare instruction with those lanes in the initial state,
/// not to the if/else (save, skip, restore) that made EXEC partial.
#[test]
fn shrinker_moves_an_if_mask_into_the_state() {
    let and_k = lanejit_isa::by_mnemonic("v.and.k").unwrap().id;
    let body = vec![Node::Op(lanejit_cli::fuzz::prog::op(and_k, &[("rd", 1), ("rs1", 2), ("imm", 7)]))];
    let prog = GenProgram {
        main: vec![Node::If { mask: 3, depth: 0, skip_empty: true, then: body, els: Some(vec![]) }],
        tail: None,
        funcs: vec![],
        shared: 0,
        private: 0,
        waves: 1,
        launch: false,
    };
    let init = lanejit::state_json::StateJson { u: [("3".to_string(), 0x00ff_00f0)].into(), ..Default::default() };
    fn has_if(ns: &[Node]) -> bool {
        ns.iter().any(|n| matches!(n, Node::If { .. }))
    }
    // "Fails" while v.and.k runs on a partial EXEC, however that EXEC came about.
    let pred = |p: &GenProgram, s: &lanejit::state_json::StateJson| {
        total(p, "v.and.k") > 0 && (has_if(&p.main) || s.exec.is_some_and(|e| e != u32::MAX))
    };
    let (p, s, _) = shrink(prog, init, pred, 500);
    assert!(!has_if(&p.main) && p.op_count() <= 2, "{p:?}");
    assert_eq!(s.exec, Some(0x00ff_00f0));
}

/// A workgroup case: wave 1 stores to shared memory before the barrier, wave 0 (which skips the store) loads it
/// after. Waves run in order until they wait or end, so without the barrier wave 0 would load zeros. Every
/// engine agrees.
#[test]
fn workgroup_cases_share_memory_across_a_barrier() {
    let src = "csr.r u1, wave_id\nb.z u1, skip\nv.laneid v1\nv.shl.i v2, v1, 2\nv.add.i v3, v1, 100\n\
               st.b32 v3, v2, u4:u5, 0, shared\nskip:\nbarrier\nv.laneid v1\nv.shl.i v2, v1, 2\n\
               ld.b32 v6, v2, u4:u5, 0, shared\nend\n";
    let p = lanejit_isa::assemble("t.s", &format!(".kernel t\n.workgroup 64, 1, 1\n.shared 256\n{src}")).unwrap();
    let init = lanejit::state_json::StateJson::default();
    for mode in [AutoMode::Cold, AutoMode::Hot] {
        for regalloc in [RegAlloc::Backtracking, RegAlloc::SinglePass] {
            assert!(check(&p, &init, (mode, regalloc), None, &[]).unwrap().is_none());
        }
    }
    let k = Kernel::from_program(p);
    let out = lanejit_cli::fuzz::group::run_case(&k, &init, lanejit::Engine::Jit, 1000, None).unwrap();
    assert_eq!(out.waves.len(), 2);
    assert!(out.trap().is_none());
    let want: Vec<u32> = (0..lanejit::LANES as u32).map(|l| l + 100).collect();
    assert_eq!(out.waves[0].state.v[6].to_vec(), want);
    assert_eq!(&out.shared[..4], &100u32.to_le_bytes());
}

/// Wave k's initial state differs from wave 0's, and only where the generator's values live.
#[test]
fn wave_states_are_derived_from_wave_0() {
    let c = generate(3);
    let w1 = lanejit_cli::fuzz::group::wave_state(&c.init, 1);
    assert_eq!(lanejit_cli::fuzz::group::wave_state(&c.init, 0), c.init);
    assert!(w1.memory.is_empty() && w1.v != c.init.v);
    assert_eq!(w1.u["56"], c.init.u["56"], "base address registers are the workgroup's");
    assert_eq!(w1.u["0"], c.init.u["0"].wrapping_add(1));
}

/// The oracle accepts agreeing engines and its comparison names what differs.
#[test]
fn oracle_compares_everything() {
    let p = lanejit_isa::assemble("t.s", "v.add.i v1, v1, 1\nu.add.i u2, u2, 1\nend\n").unwrap();
    let init = lanejit::state_json::StateJson { exec: Some(0x0000_ffff), ..Default::default() };
    for mode in [AutoMode::Cold, AutoMode::Hot] {
        for regalloc in [RegAlloc::Backtracking, RegAlloc::SinglePass] {
            assert!(check(&p, &init, (mode, regalloc), None, &[]).unwrap().is_none());
        }
    }
    let k = Kernel::from_program(p);
    let run = |s: &lanejit::state_json::StateJson| {
        lanejit::wave::run_wave(&k, s, lanejit::Engine::Interp, 100, None).unwrap()
    };
    let other = lanejit::state_json::StateJson { exec: Some(0x0000_fff7), ..Default::default() };
    let diffs = lanejit_cli::fuzz::oracle::compare(&run(&init), &run(&other));
    assert!(diffs.iter().any(|d| d.starts_with("v1 lanes 0x00000008")), "{diffs:?}");
    assert!(
        diffs.iter().any(|d| d.starts_with("exec")) && diffs.iter().any(|d| d.starts_with("lane_ops")),
        "{diffs:?}"
    );
}

#[test]
fn mutant_switch_selects_one_id() {
    // An ID no lowering uses, so that a campaign running concurrently in this process is unaffected.
    const UNUSED: u32 = 0xdead_0001;
    lanejit_jit::mutants::set(Some(UNUSED)).expect("the test suite builds the planted bugs");
    assert!(lanejit_jit::mutants::active(UNUSED) && !lanejit_jit::mutants::active(0));
    assert_eq!(lanejit_jit::mutants::current(), Some(UNUSED));
    lanejit_jit::mutants::set(None).expect("deselecting always works");
    assert!(!lanejit_jit::mutants::active(UNUSED));
    assert_eq!(lanejit_jit::mutants::current(), None);
}

// The planted-bug sensitivity run (every mutant of jit/src/mutants.rs caught, shrunk to a few instructions) is
// tests/mutants.rs: a binary of its own, because the mutant switch is process-wide.
