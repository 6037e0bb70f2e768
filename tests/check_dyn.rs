//! The dynamic checkers (`lanejit::check`, issue 15) on small kernels in `tests/check_dyn/`: each planted
//! bug (a missing wait on each counter the interpreter runs, a shared-memory race, a skipped barrier, a barrier
//! under partial EXEC, waves at different barriers, a never-written register reaching an address or a branch,
//! never-written shared and private memory reaching a kernel output, a shuffle reading an inactive
//! never-written lane) is reported with its kind and the source line marked
//! `PLANTED`; each `*_fixed.s` twin reports nothing. The text and JSON renderings are checked too.

use lanejit::check::{render_json, render_text, Checks, Finding};
use lanejit::{Device, Engine, Kernel, KernelArgs, LaunchConfig, LaunchError, TrapKind};
use serde_json::Value;

#[path = "check_dyn/kernels.rs"]
mod kernels;
use kernels::source;

/// (kernel file, fields the one finding's JSON must hold, the trap the launch must stop with).
type Case = (&'static str, &'static [(&'static str, &'static str)], Option<TrapKind>);

const PLANTED: &[Case] = &[
    ("wait_vm", &[("check", "wait"), ("kind", "read_before_wait"), ("counter", "vm"), ("register", "v6")], None),
    (
        "wait_vst",
        &[("check", "wait"), ("kind", "store_source_overwritten"), ("counter", "vst"), ("register", "v7")],
        None,
    ),
    ("wait_ls", &[("check", "wait"), ("kind", "read_before_wait"), ("counter", "ls"), ("register", "v6")], None),
    ("wait_sm", &[("check", "wait"), ("kind", "read_before_wait"), ("counter", "sm"), ("register", "u6")], None),
    ("wait_sfu", &[("check", "wait"), ("kind", "read_before_wait"), ("counter", "sfu"), ("register", "v4")], None),
    ("race", &[("check", "race"), ("kind", "write_read")], None),
    ("barrier_skipped", &[("check", "barrier"), ("kind", "wave_ended_before_barrier")], None),
    ("barrier_partial_exec", &[("check", "barrier"), ("kind", "partial_exec")], None),
    ("barrier_different", &[("check", "barrier"), ("kind", "different_barriers")], Some(TrapKind::BarrierDeadlock)),
    ("uninit_address", &[("check", "uninit"), ("sink", "address"), ("register", "v5")], None),
    ("uninit_branch", &[("check", "uninit"), ("sink", "branch"), ("register", "u30")], None),
    ("uninit_shared", &[("check", "uninit"), ("sink", "kernel_output"), ("register", "v6")], None),
    ("uninit_private", &[("check", "uninit"), ("sink", "kernel_output"), ("register", "v6")], None),
    ("uninit_shuffle", &[("check", "uninit"), ("sink", "kernel_output"), ("register", "v6")], None),
];

/// Launches `name` (one workgroup, a 256-word buffer as its argument) with `checks` on `engine`: the findings
/// and the trap kind, if it trapped.
fn launch(name: &str, checks: Checks, engine: Engine) -> (Vec<Finding>, Option<TrapKind>) {
    let kernel = Kernel::from_asm(&format!("{name}.s"), &source(name)).unwrap();
    let device = Device::new().unwrap();
    let buf = device.alloc(1024).unwrap();
    let cfg =
        LaunchConfig { args: KernelArgs::new().ptr(buf.addr).into(), check: checks, engine, ..Default::default() };
    match device.launch(&kernel, &cfg) {
        Ok(stats) => (stats.findings, None),
        Err(LaunchError::Trap { trap, stats }) => (stats.findings, Some(trap.kind)),
        Err(e) => panic!("{name}: {e}"),
    }
}

/// The 1-based line of `name`'s source marked `PLANTED`.
fn planted_line(name: &str) -> u64 {
    kernels::planted_line(name).expect("a PLANTED line")
}

/// The source line a finding points at: the using instruction, the barrier (or end), or the race's later
/// access.
fn line_of(json: &Value) -> Option<u64> {
    json.get("line").or_else(|| json.get("second").and_then(|s| s.get("line"))).and_then(Value::as_u64)
}

#[test]
fn each_planted_bug_is_reported_once_at_its_line() {
    for &(name, fields, trap) in PLANTED {
        let (findings, trapped) = launch(name, Checks::ALL, Engine::Interp);
        assert_eq!(trapped, trap, "{name}: trap");
        assert_eq!(findings.len(), 1, "{name}: {}", render_text(&findings));
        let json = findings[0].to_json();
        for (k, v) in fields {
            assert_eq!(json[k].as_str(), Some(*v), "{name}: field {k} of {json}");
        }
        assert_eq!(line_of(&json), Some(planted_line(name)), "{name}: {json}");
    }
}

#[test]
fn fixed_twins_report_nothing() {
    let fixed: Vec<String> =
        PLANTED.iter().map(|(n, _, _)| format!("{n}_fixed")).chain(["atomics_fixed".into()]).collect();
    for name in &fixed {
        let (findings, trapped) = launch(name, Checks::ALL, Engine::Interp);
        assert_eq!(trapped, None, "{name}");
        assert!(findings.is_empty(), "{name}: {}", render_text(&findings));
    }
}

#[test]
fn findings_are_the_same_whatever_engine_is_asked_for() {
    for &(name, _, _) in PLANTED {
        let on = |e| launch(name, Checks::ALL, e).0;
        let interp = on(Engine::Interp);
        assert_eq!(interp, on(Engine::Jit), "{name}");
        assert_eq!(interp, on(Engine::Auto), "{name}");
    }
}

#[test]
fn without_checks_nothing_is_reported_and_each_check_reports_only_its_own() {
    for &(name, fields, _) in PLANTED {
        assert!(launch(name, Checks::default(), Engine::Jit).0.is_empty(), "{name}");
        let check = fields.iter().find(|(k, _)| *k == "check").unwrap().1;
        let others = Checks {
            waits: check != "wait",
            races: check != "race",
            barriers: check != "barrier",
            uninit: check != "uninit",
            buffers: false,
        };
        assert!(launch(name, others, Engine::Interp).0.is_empty(), "{name} with only {others}");
    }
}

#[test]
fn text_and_json_renderings() {
    let (findings, _) = launch("wait_vm", Checks::ALL, Engine::Interp);
    let text = render_text(&findings);
    let line = planted_line("wait_vm");
    assert!(text.starts_with("wait hazard: read of v6 at pc 0x18 (line 9), produced by pc 0x10 (line 8)"), "{text}");
    assert!(text.contains("(counter vm) not yet waited for; workgroup [0, 0, 0] wave 0 lanes 0xffffffff"), "{text}");
    assert_eq!(line, 9);
    let json = render_json(&findings);
    assert_eq!(json[0]["producer_pc"], 0x10);
    assert_eq!(json[0]["producer_line"], 8);
    assert_eq!(json[0]["lanes"], u32::MAX);
    assert_eq!(json[0]["occurrences"], 1);
    let (race, _) = launch("race", Checks::ALL, Engine::Interp);
    let r = &render_json(&race)[0];
    assert_eq!((r["first"]["wave"].as_u64(), r["second"]["wave"].as_u64()), (Some(0), Some(1)));
    assert_eq!((r["first"]["write"].as_bool(), r["second"]["write"].as_bool()), (Some(true), Some(false)));
    assert_eq!(r["offset"], 0);
    assert!(render_text(&race).starts_with("shared-memory race (write_read) at offset 0x0: wave 0 lane 0 write at"));
}

#[test]
fn checks_parse_by_name_and_refuse_the_rest() {
    assert_eq!(Checks::parse("waits,races"), Ok(Checks { waits: true, races: true, ..Checks::default() }));
    assert_eq!(Checks::parse("all"), Ok(Checks::ALL));
    assert_eq!(Checks::parse("uninit"), Ok(Checks { uninit: true, ..Checks::default() }));
    assert!(Checks::parse("wait").unwrap_err().contains("unknown check `wait`"));
    assert_eq!(Checks::ALL.to_string(), "waits,races,barriers,uninit");
}
