//! Library-level limits and strict input of issue 11: launch validation (grid, workgroup, threads, private
//! memory, arguments, deadline) with overflow-free arithmetic, the deadline's own trap kind, the wave runner's
//! deadline and lone-wave barrier, the strict state loader, whole-u64 fuzz seeds, and the CLI's parsers.

use clap::Parser;
use lanejit::launch::{MAX_GRID_WORKGROUPS, MAX_PRIVATE_BYTES, MAX_THREADS};
use lanejit::state_json::{parse_hex, StateJson};
use lanejit::wave::{run_wave_limited, WaveLimits};
use lanejit::{Device, Engine, Kernel, LaunchConfig, LaunchError, TrapKind};
use lanejit_cli::cli::{exit_code, Cli, Failed, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};
use lanejit_cli::fuzz::program_seed;
use std::time::Duration;

fn kernel(src: &str) -> Kernel {
    Kernel::from_asm("k.s", src).unwrap()
}

fn config_error(cfg: LaunchConfig) -> String {
    let device = Device::with_capacity(1 << 24).unwrap();
    match device.launch(&kernel("    end\n"), &cfg) {
        Err(LaunchError::Config(e)) => e.to_string(),
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

#[test]
fn launch_refuses_grids_whose_workgroup_count_overflows_or_exceeds_the_limit() {
    let m = config_error(LaunchConfig { grid: [4_194_304; 3], ..Default::default() });
    assert!(m.contains("MAX_GRID_WORKGROUPS"), "{m}");
    let m = config_error(LaunchConfig { grid: [769_546, 494_770, 48_448_661], ..Default::default() });
    assert!(m.contains("18446744073709551620 workgroups"), "{m}");
    let m = config_error(LaunchConfig { grid: [65_536, 65_536, 1], ..Default::default() });
    assert!(m.contains(&MAX_GRID_WORKGROUPS.to_string()), "{m}");
}

#[test]
fn launch_workgroup_check_is_not_fooled_by_wrap_around() {
    let m = config_error(LaunchConfig { workgroup: Some([769_546, 494_770, 48_448_661]), ..Default::default() });
    assert!(m.contains("more than 1024"), "{m}");
}

#[test]
fn launch_refuses_threads_private_memory_arguments_and_deadlines_beyond_their_limits() {
    let m = config_error(LaunchConfig { threads: Some(MAX_THREADS + 1), ..Default::default() });
    assert!(m.contains("MAX_THREADS"), "{m}");
    let m = config_error(LaunchConfig { threads: Some(0), ..Default::default() });
    assert!(m.contains("MAX_THREADS"), "{m}");
    let m = config_error(LaunchConfig { private_bytes: Some(MAX_PRIVATE_BYTES + 1), ..Default::default() });
    assert!(m.contains("MAX_PRIVATE_BYTES"), "{m}");
    let m = config_error(LaunchConfig { args: vec![0; 4097], ..Default::default() });
    assert!(m.contains("MAX_ARG_BYTES"), "{m}");
    let m = config_error(LaunchConfig { deadline: Some(Duration::MAX), ..Default::default() });
    assert!(m.contains("MAX_DEADLINE"), "{m}");
}

const LOOP: &str = "top:\n    j top\n    end\n";

#[test]
fn a_launch_past_its_deadline_traps_with_deadline_exceeded_not_budget_exceeded() {
    let device = Device::with_capacity(1 << 24).unwrap();
    let cfg = LaunchConfig { deadline: Some(Duration::from_millis(50)), threads: Some(1), ..Default::default() };
    match device.launch(&kernel(LOOP), &cfg) {
        Err(LaunchError::Trap { trap, .. }) => assert_eq!(trap.kind, TrapKind::DeadlineExceeded, "{trap}"),
        other => panic!("expected a trap, got {other:?}"),
    }
}

#[test]
fn a_wave_with_a_huge_budget_ends_at_its_deadline() {
    let limits = WaveLimits { budget: u64::MAX, deadline: Some(Duration::from_millis(100)), install_seed: None };
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        let out = run_wave_limited(&kernel(LOOP), &StateJson::default(), engine, limits, None).unwrap();
        let trap = out.trap.expect("the deadline stops the loop");
        assert_eq!(trap.kind, TrapKind::DeadlineExceeded, "{engine:?}: {trap}");
    }
}

#[test]
fn a_lone_wave_passes_a_barrier_on_every_engine() {
    let k = kernel("    u.li u1, 1\n    barrier\n    u.li u2, 2\n    end\n");
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        let out = run_wave_limited(&k, &StateJson::default(), engine, WaveLimits::default(), None).unwrap();
        assert!(out.trap.is_none(), "{engine:?}: {:?}", out.trap);
        assert_eq!((out.state.u[1], out.state.u[2], out.state.retired), (1, 2, 4), "{engine:?}");
    }
}

#[test]
fn hex_is_pairs_of_hex_digits_only() {
    assert_eq!(parse_hex("0aff 10").unwrap(), vec![0x0a, 0xff, 0x10]);
    assert!(parse_hex("+f+f").is_err());
    assert!(parse_hex("0x10").is_err());
    assert!(parse_hex("abc").unwrap_err().contains("half a byte"));
    // Non-ASCII used to panic on slicing inside a character.
    assert!(parse_hex("0é").unwrap_err().contains("not a hex digit"));
    assert!(parse_hex("é0").is_err());
    assert!(parse_hex("0 f").is_err(), "whitespace may separate pairs, not split one");
}

#[test]
fn a_state_must_be_one_object_with_each_register_named_once() {
    assert!(StateJson::parse("[]").unwrap_err().contains("JSON object"));
    assert!(StateJson::parse("[1, {}, {}]").is_err());
    assert!(StateJson::parse(r#"{"memory": [[4294967296, "00"]]}"#).unwrap_err().contains("memory range"));
    assert!(StateJson::parse(r#"{"u": {"1": 5, "u1": 6}}"#).unwrap_err().contains("both name register u1"));
    assert!(StateJson::parse(r#"{"u": {"1": 5, "1": 6}}"#).unwrap_err().contains("appears twice"));
    assert!(StateJson::parse(r#"{"u": {"+1": 5}}"#).is_err());
    let ok = StateJson::parse(r#"{"u": {"1": 5, "u2": 6}, "fcsr": 27}"#).unwrap();
    let w = ok.to_wave().unwrap();
    assert_eq!((w.u[1], w.u[2], w.fcsr), (5, 6, 27));
}

#[test]
fn fcsr_values_the_isa_never_holds_are_refused() {
    for bad in [5, 6, 7, 0x20, 0x1d, u32::MAX] {
        assert!(StateJson::parse(&format!(r#"{{"fcsr": {bad}}}"#)).is_err(), "fcsr {bad:#x} accepted");
    }
    for good in [0, 4, 0x8, 0x10, 0x1c] {
        assert!(StateJson::parse(&format!(r#"{{"fcsr": {good}}}"#)).is_ok(), "fcsr {good:#x} refused");
    }
}

#[test]
fn fuzz_campaign_seeds_use_the_whole_u64() {
    assert_ne!(program_seed(7, 0), program_seed(4_294_967_303, 0));
    assert_ne!(program_seed(0, 5), program_seed(1 << 32, 5));
    // Campaign seeds below 2^32 keep the seeds they always had, so recorded seed ranges still replay.
    assert_eq!(program_seed(7, 3), (7 << 32) + 3);
}

#[test]
fn exit_codes_tell_failures_from_bad_input() {
    assert_eq!(exit_code(&Ok(())), EXIT_OK);
    assert_eq!(exit_code(&Err(Failed("trap".into()).into())), EXIT_FAILED);
    let wrapped: anyhow::Result<()> = Err(anyhow::Error::new(Failed("trap".into())).context("running k.s"));
    assert_eq!(exit_code(&wrapped), EXIT_FAILED);
    assert_eq!(exit_code(&Err(anyhow::anyhow!("no such file"))), EXIT_BAD_INPUT);
}

#[test]
fn cli_parsers_refuse_sizes_and_times_beyond_their_limits() {
    let parse = |args: &[&str]| {
        Cli::try_parse_from(std::iter::once("lanejit").chain(args.iter().copied())).err().map(|e| e.to_string())
    };
    for (args, needle) in [
        (&["run", "--grid", "65536,65536,65536"][..], "MAX_GRID_WORKGROUPS"),
        (&["run", "--wg", "769546,494770,48448661"], "more than 1024"),
        (&["run", "--threads", "10000"], "MAX_THREADS"),
        (&["run", "--deadline", "inf"], "finite number above 0"),
        (&["wave", "k.s", "--deadline", "1e30"], "MAX_DEADLINE"),
        (&["fuzz", "--time", "nan"], "finite number above 0"),
        (&["fuzz", "--jobs", "10000"], "MAX_THREADS"),
        (&["fuzz", "--size", "1000000"], "MAX_FUZZ_SIZE"),
        (&["fuzz", "--states", "0"], "MAX_FUZZ_STATES"),
        (&["fuzz", "--groups", "200"], "0..=100"),
        (&["fuzz", "--mutant", "9999"], "no planted bug 9999"),
    ] {
        let e = parse(args).unwrap_or_else(|| panic!("{args:?} parsed"));
        assert!(e.contains(needle), "{args:?}: {e}");
    }
    assert!(parse(&["fuzz", "--seed", "18446744073709551615", "--time", "0.5", "--jobs", "256"]).is_none());
    assert!(parse(&["run", "k.s", "--arg", "-1.5", "--arg", "-1", "--deadline", "604800"]).is_none());
}

/// A single-wave run that cannot start says why, by kind: a malformed state, memory that cannot be placed, or
/// a limit beyond what a run allows.
#[test]
fn a_wave_that_cannot_start_says_why_by_kind() {
    use lanejit::WaveError;
    let k = kernel("    end\n");
    // (`StateJson::parse` refuses this too; a state built in code meets the run's own check.)
    let bad_state = StateJson { v: [("3".to_string(), vec![1, 2])].into_iter().collect(), ..StateJson::default() };
    let r = run_wave_limited(&k, &bad_state, Engine::Interp, WaveLimits::default(), None);
    assert!(matches!(r, Err(WaveError::State(_))), "{r:?}");
    let overlapping =
        StateJson::parse(r#"{"memory": [{"addr": 4294967296, "hex": "00000000"}, {"addr": 4294967296, "hex": "00"}]}"#)
            .unwrap();
    let r = run_wave_limited(&k, &overlapping, Engine::Interp, WaveLimits::default(), None);
    assert!(matches!(r, Err(WaveError::Memory(_))), "{r:?}");
    let week_and_a_day = WaveLimits { deadline: Some(Duration::from_secs(8 * 24 * 3600)), ..WaveLimits::default() };
    let r = run_wave_limited(&k, &StateJson::default(), Engine::Interp, week_and_a_day, None);
    assert!(matches!(r, Err(WaveError::Limits(ref m)) if m.contains("MAX_DEADLINE")), "{r:?}");
}
