//! Which instructions each JIT tier runs natively: a committed snapshot (`tests/snapshots/lowering.txt`), so
//! that an instruction silently falling back to the interpreter (or to the runtime) fails this test, and a
//! newly native one is a reviewed change of the file. Each instruction is compiled alone (followed by `end`)
//! with sample operands; the table lists every way the compiled code may run it (`+` between several: e.g.
//! an inline path with a runtime call when its check fails): `native` (host code), `runtime` (a call to the
//! JIT's Rust runtime, which hands over to the interpreter only to report a fault) or `interp`.
//!
//! After a deliberate change: `LANEJIT_BLESS=1 cargo test --release --test lowering` rewrites the snapshot.

use lanejit_interp::Code;
use lanejit_isa::{encode_values, KindClass, INSNS};
use lanejit_jit::{compile_blocks, Lowering, Tier};

const SNAPSHOT: &str = "tests/snapshots/lowering.txt";

/// Operand values that make a legal instruction for every entry: register 2 (even, so pairs and groups of
/// up to 8 fit), the first named value of an enumerated operand, component mask `r`, 0 for every other operand
/// (or the smallest value its field can hold).
fn sample(info: &lanejit_isa::InsnInfo) -> Vec<i64> {
    info.operands
        .iter()
        .map(|o| {
            let k = o.kind();
            match k.class {
                KindClass::VReg | KindClass::UReg | KindClass::VHalf => 2,
                // An empty component mask is illegal: sample `r`.
                KindClass::DMask => 1,
                _ if !k.values.is_empty() => k.decode_value(k.values[0].1),
                _ => {
                    let (lo, hi) = k.encoded_range();
                    if (lo..=hi).contains(&0) {
                        0
                    } else {
                        k.decode_value(lo as u32)
                    }
                }
            }
        })
        .collect()
}

fn name(ways: &[Lowering]) -> String {
    let names: Vec<&str> = ways
        .iter()
        .map(|l| match l {
            Lowering::Native => "native",
            Lowering::Runtime => "runtime",
            Lowering::Interpreter => "interp",
        })
        .collect();
    if names.is_empty() {
        "not-compiled".into()
    } else {
        names.join("+")
    }
}

/// The sample, and one row per value for `csr.r`'s CSR (reads of the launch environment are native, the others
/// not) and for an image op's dim (the inline image path handles 2d only).
fn samples(info: &lanejit_isa::InsnInfo) -> Vec<(String, Vec<i64>)> {
    let base = sample(info);
    let csr = info.operands.iter().position(|o| o.name == "csr").filter(|_| info.mnemonic == "csr.r");
    let dim = info.operands.iter().position(|o| o.name == "dim");
    match csr.or(dim) {
        Some(at) => info.operands[at]
            .kind()
            .values
            .iter()
            .map(|&(name, v)| {
                let mut vals = base.clone();
                vals[at] = info.operands[at].kind().decode_value(v);
                (format!("{} {name}", info.mnemonic), vals)
            })
            .collect(),
        None => vec![(info.mnemonic.to_string(), base)],
    }
}

fn table() -> String {
    let end = lanejit_isa::asm::assemble("end", "end").expect("`end` assembles").words;
    let mut out = String::from("# mnemonic: quick tier, optimising tier (see tests/lowering.rs)\n");
    for (info, (label, vals)) in INSNS.iter().flat_map(|i| samples(i).into_iter().map(move |s| (i, s))) {
        let Ok(enc) = encode_values(info, &vals) else {
            out += &format!("{label}: no sample encoding\n");
            continue;
        };
        let mut words = Vec::new();
        enc.push_to(&mut words);
        words.extend(&end);
        let code = Code::new(words);
        let how = |tier| {
            let ck = compile_blocks(&code, None, tier, &Default::default()).expect("compiles");
            name(&ck.lowering.iter().filter(|(pc, _)| *pc == 0).map(|(_, l)| *l).collect::<Vec<_>>())
        };
        out += &format!("{label}: {} {}\n", how(Tier::Quick), how(Tier::Opt));
    }
    out
}

#[test]
fn each_tier_lowers_the_instructions_the_snapshot_says() {
    let got = table();
    if std::env::var_os("LANEJIT_BLESS").is_some() {
        std::fs::write(SNAPSHOT, &got).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(SNAPSHOT).expect("snapshot present (LANEJIT_BLESS=1 writes it)");
    let diffs: Vec<String> =
        want.lines().zip(got.lines()).filter(|(w, g)| w != g).map(|(w, g)| format!("  was {w}\n  now {g}")).collect();
    assert!(
        diffs.is_empty() && want.lines().count() == got.lines().count(),
        "lowering changed ({} lines differ); if intended, bless it:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

#[test]
fn the_snapshot_names_every_instruction() {
    let want = std::fs::read_to_string(SNAPSHOT).expect("snapshot present");
    for info in INSNS.iter() {
        assert!(
            want.lines().any(|l| l.split(':').next().is_some_and(|m| m.split(' ').next() == Some(info.mnemonic))),
            "{}",
            info.mnemonic
        );
    }
}

/// Launch statistics say how much the interpreter did: everything under `interp`, a small share of saxpy
/// (whose instructions are all native or runtime fast paths) under the JIT optimised up front.
#[test]
fn launch_stats_count_interpreted_instructions() {
    use lanejit::{CompileConfig, Device, Engine, Kernel, LaunchConfig};
    use lanejit_cli::examples::{self, Size};
    let ex = examples::by_name("saxpy").expect("bundled");
    let run = |engine: Engine, threshold: u32| {
        let kernel = Kernel::from_asm(ex.name, ex.source)
            .expect("assembles")
            .with_config(CompileConfig { jit_hot: threshold, ..Default::default() });
        let device = Device::new().expect("device");
        let setup = (ex.setup)(&device, Size::Small).expect("setup");
        let stats =
            device.launch(&kernel, &LaunchConfig { engine, threads: Some(1), ..setup.cfg.clone() }).expect("runs");
        (setup.check)(&device).expect("right answer");
        stats
    };
    let s = run(Engine::Interp, 0);
    assert_eq!(s.interpreted, s.retired, "the interpreter does everything under interp");
    let s = run(Engine::Jit, 0);
    // Each worker's first uniform loads fill its memory windows through the interpreter (3 per run of
    // workgroups; a small launch gives every workgroup its own run): a few percent at this size.
    assert!(
        s.interpreted > 0 && s.interpreted * 20 < s.retired,
        "optimised saxpy: {} of {} interpreted",
        s.interpreted,
        s.retired
    );
}
