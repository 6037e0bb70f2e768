//! The static wait-hazard check (`lanejit::static_check`) on the planted kernels of `tests/check/`: each
//! `NAME.s` gives exactly the hazards its `; expect:` lines state, each `NAME_fixed.s` none and no note.

use lanejit::static_check::{check, reg_name, render_json, Finding};
use std::path::Path;

/// `(kind, register, counter, line)` of every hazard a kernel states in `; expect: KIND REG COUNTER LINE`.
fn expected(src: &str) -> Vec<(String, String, String, usize)> {
    let rows = src.lines().filter_map(|l| l.trim().strip_prefix("; expect:"));
    rows.map(|r| {
        let w: Vec<&str> = r.split_whitespace().collect();
        assert_eq!(w.len(), 4, "`; expect:` takes KIND REG COUNTER LINE, got `{r}`");
        (w[0].to_string(), w[1].to_string(), w[2].to_string(), w[3].parse().expect("a line number"))
    })
    .collect()
}

fn found(findings: &[Finding]) -> Vec<(String, String, String, usize)> {
    let hazards = findings.iter().filter(|f| f.kind.is_hazard());
    hazards
        .map(|f| {
            let reg = reg_name(f.reg.expect("a hazard names its register"));
            (f.kind.name().to_string(), reg, f.counter.name().to_string(), f.at.line.expect("assembled from text"))
        })
        .collect()
}

fn planted() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/check exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(p).unwrap()))
        .collect()
}

/// The findings on an assembled source, with its lines.
fn check_source(name: &str, src: &str) -> Vec<lanejit::static_check::Finding> {
    let (p, lines) = lanejit_isa::assemble_with_lines(name, src).unwrap();
    check(&p, Some(lines.as_slice()))
}

/// Each hazard's line and register.
fn hazard_lines(f: &[lanejit::static_check::Finding]) -> Vec<(Option<usize>, Option<String>)> {
    f.iter().filter(|f| f.kind.is_hazard()).map(|f| (f.at.line, f.reg.map(reg_name))).collect()
}

#[test]
fn planted_kernels_give_exactly_their_hazards_and_fixed_twins_nothing() {
    let kernels = planted();
    let (hazardous, fixed) = (kernels.iter().filter(|(n, _)| !n.ends_with("_fixed.s")).count(), kernels.len());
    assert!(hazardous >= 9 && fixed - hazardous == hazardous, "every planted kernel has its fixed twin");
    for (name, src) in &kernels {
        let (program, lines) = lanejit_isa::assemble_with_lines(name, src).expect("planted kernels assemble");
        let findings = check(&program, Some(lines.as_slice()));
        let mut want = expected(src);
        let mut got = found(&findings);
        want.sort();
        got.sort();
        assert_eq!(got, want, "{name}: hazards found (left) and planted (right)");
        if name.ends_with("_fixed.s") {
            assert!(want.is_empty(), "{name}: a fixed twin plants nothing");
            assert!(findings.is_empty(), "{name}: a fixed twin gives no report at all: {findings:?}");
        } else {
            assert!(!want.is_empty(), "{name}: plants at least one hazard");
            let twin = name.replace(".s", "_fixed.s");
            assert!(kernels.iter().any(|(n, _)| *n == twin), "{name} has no twin {twin}");
        }
    }
}

#[test]
fn every_counter_kind_is_planted() {
    let mut counters: Vec<String> = planted().iter().flat_map(|(_, s)| expected(s)).map(|e| e.2).collect();
    counters.sort();
    counters.dedup();
    let all: Vec<&str> = lanejit_isa::Counter::ALL.iter().map(|c| c.name()).collect();
    let mut all: Vec<String> = all.into_iter().map(String::from).collect();
    all.sort();
    assert_eq!(counters, all);
}

#[test]
fn producers_of_both_paths_are_named_at_a_join() {
    let src = ".kernel two\n u.ld.b64 u4, u0, 0\n wait sm=0\n b.z u2, other\n ld.b32 v5, v0, u4, 0\n j join\nother:\n ld.b32 v5, v0, u4, 4\njoin:\n v.add v6, v5, v5\n end\n";
    let f = check_source("two.s", src);
    assert_eq!(f.len(), 1, "{f:?}");
    let producers: Vec<Option<usize>> = f[0].producers.iter().map(|s| s.line).collect();
    assert_eq!(producers, [Some(5), Some(8)]);
    assert_eq!(f[0].at.line, Some(10));
}

#[test]
fn a_wait_that_covers_all_but_the_newest_n_is_honoured() {
    // Three loads, `wait vm=1`: the first two are complete, the third may not be.
    let src = ".kernel n\n u.ld.b64 u4, u0, 0\n wait sm=0\n ld.b32 v5, v0, u4, 0\n ld.b32 v6, v0, u4, 4\n ld.b32 v7, v0, u4, 8\n wait vm=1\n v.add v8, v5, v6\n v.add v9, v7, v7\n end\n";
    let f = check_source("n.s", src);
    let hazards = hazard_lines(&f);
    assert_eq!(hazards, [(Some(9), Some("v7".to_string()))]);
}

#[test]
fn a_wait_stronger_than_needed_is_a_note_with_its_weakest_safe_value() {
    // Two loads, and only the older one's result is read: `wait vm=1` suffices. The `wait vm=0` before `end`
    // covers nothing that is read again: it could be dropped (vm=63). Each note holds with every other wait
    // in place (two notes may not both be taken).
    let src = ".kernel s\n u.ld.b64 u4, u0, 0\n wait sm=0\n ld.b32 v5, v0, u4, 0\n ld.b32 v6, v0, u4, 4\n wait vm=0\n v.add v8, v5, v5\n wait vm=0\n end\n";
    let f = check_source("s.s", src);
    let notes: Vec<_> = f.iter().map(|f| (f.kind.name(), f.at.line, f.field)).collect();
    assert_eq!(
        notes,
        [("wait_stronger_than_needed", Some(6), Some((0, 1))), ("wait_stronger_than_needed", Some(8), Some((0, 63))),]
    );
    let json = render_json("s.s", "s", &f);
    assert_eq!(json["hazards"], 0);
    assert_eq!(json["notes"], 2);
    assert_eq!(json["findings"][0]["weakest"], 1);
    assert_eq!(json["findings"][0]["counter"], "vm");
    assert_eq!(json["findings"][0]["line"], 6);
}

#[test]
fn a_loop_that_issues_more_operations_than_the_counter_holds_terminates() {
    // sm's maximum is 3: the loop issues uniform loads without end; the count saturates and the analysis ends.
    let src = ".kernel l\nloop:\n u.ld.b32 u4, u0, 0\n u.ld.b32 u5, u0, 4\n b.nz u2, loop\n wait sm=2\n u.add u6, u4, u4\n end\n";
    let f = check_source("l.s", src);
    // After `wait sm=2` the two newest loads (u4's and u5's of the last iteration) may be outstanding.
    let hazards = hazard_lines(&f);
    assert_eq!(hazards, [(Some(7), Some("u4".to_string()))]);
}

#[test]
fn a_binary_kernel_is_checked_without_lines() {
    let src = ".kernel b\n u.ld.b64 u4, u0, 0\n ld.b32 v5, v0, u4, 0\n end\n";
    let p = lanejit_isa::assemble("b.s", src).unwrap();
    let f = check(&p, None);
    assert_eq!(f.len(), 2);
    // u.ld.b64 is a 64-bit instruction: the load using its result is at pc 8.
    assert!(f.iter().all(|f| f.at.line.is_none() && f.at.pc == 8), "{f:?}");
}

#[test]
fn fuzzer_programs_and_random_words_are_checked_without_panic() {
    // The fuzzer's programs hold loops, calls through `jal`/`jr`, divergence and every memory kind; random words
    // hold illegal instructions and wild branch targets. The check ends on each and never panics.
    let mut hazards = 0;
    for seed in 0..300 {
        let case = lanejit_cli::fuzz::gen::generate(seed);
        let program = case.prog.render().expect("the generator's programs encode");
        hazards += lanejit::static_check::hazard_count(&check(&program, None));
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..300 {
        let words: Vec<u32> = (0..64)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u32
            })
            .collect();
        check(&lanejit_isa::Program { words, ..Default::default() }, None);
    }
    // The generator waits for nothing (every engine completes accesses at issue), so its programs have hazards.
    assert!(hazards > 0);
}

/// Every retired instruction of one wave, in order.
struct Record(Vec<(u32, lanejit_isa::Insn)>);

impl lanejit_interp::Tracer for Record {
    fn retired(&mut self, pc: u32, insn: &lanejit_isa::Insn, _: &lanejit::WaveState, _: &lanejit::WaveState) {
        self.0.push((pc, *insn));
    }
}

/// One outstanding operation on the executed path: its pc and the registers it will write and still reads.
struct Op {
    pc: u32,
    dest: lanejit_isa::RegSet,
    source: lanejit_isa::RegSet,
}

/// The hazards on one executed path, computed exactly (each counter a queue in issue order, `wait c=N` keeps
/// the newest N), with the same conventions as the static check: one report per outstanding register, a new
/// operation of a counter takes over the registers of older ones of the same counter.
fn path_hazards(trace: &[(u32, lanejit_isa::Insn)]) -> Vec<(u32, String, &'static str, &'static str, u32)> {
    use lanejit_isa::{Counter, RegSet};
    let n = Counter::ALL.len();
    let mut queues: Vec<std::collections::VecDeque<Op>> = (0..n).map(|_| Default::default()).collect();
    let mut out = Vec::new();
    let index = |c: Counter| Counter::ALL.iter().position(|&x| x == c).unwrap();
    for (pc, insn) in trace {
        let info = insn.id().info();
        let vals = insn.operand_values();
        for (op, &v) in info.operands.iter().zip(vals.as_slice()) {
            let Some(c) = Counter::ALL.iter().position(|c| op.kind().name == format!("cnt_{}", c.name())) else {
                continue;
            };
            if v < op.kind().encoded_range().1 {
                while queues[c].len() > v as usize {
                    queues[c].pop_front();
                }
            }
        }
        let own = insn.counter().map(index);
        let (reads, writes) = (insn.reads(), insn.writes());
        let mut source = RegSet::new();
        if let Some(d) = info.access.map(|a| a.data).or(info.image.map(|a| a.data)) {
            for u in insn.reg_uses().as_slice().iter().filter(|u| u.operand == d) {
                source.insert_group(u.file, u.first as usize, u.read as usize);
            }
        }
        for (c, q) in queues.iter_mut().enumerate() {
            let name = Counter::ALL[c].name();
            for o in q.iter_mut() {
                for r in o.dest.intersection(reads).iter().collect::<Vec<_>>() {
                    out.push((*pc, reg_name(r), "read_before_wait", name, o.pc));
                }
                o.dest = o.dest.difference(reads);
                if own == Some(c) {
                    // A newer operation of the same counter completes after this one: covering it covers
                    // this one, so it takes over the registers it also writes, or also still reads.
                    o.dest = o.dest.difference(writes);
                    o.source = o.source.difference(source);
                    continue;
                }
                for r in o.dest.intersection(writes).iter().collect::<Vec<_>>() {
                    out.push((*pc, reg_name(r), "overwrite_before_wait", name, o.pc));
                }
                for r in o.source.intersection(writes).iter().collect::<Vec<_>>() {
                    out.push((*pc, reg_name(r), "store_source_overwritten", name, o.pc));
                }
                o.dest = o.dest.difference(writes);
                o.source = o.source.difference(writes);
            }
        }
        if let Some(c) = own {
            queues[c].push_back(Op { pc: *pc, dest: writes, source });
        }
    }
    out
}

#[test]
fn every_hazard_on_an_executed_path_is_reported_statically() {
    // Soundness on real paths: each fuzzer program runs one wave in the interpreter; the hazards of the executed
    // instruction sequence, computed exactly, must all be among the static findings, with their producer.
    let (mut dynamic, mut programs) = (0, 0);
    for seed in 0..200 {
        let case = lanejit_cli::fuzz::gen::generate(seed);
        let program = case.prog.render().expect("the generator's programs encode");
        let kernel = lanejit::Kernel::from_program(program.clone());
        let mut rec = Record(Vec::new());
        let run = lanejit::wave::run_wave(&kernel, &case.init, lanejit::Engine::Interp, 20_000, Some(&mut rec));
        if run.is_err() {
            continue; // a state the runner refuses: nothing executed
        }
        programs += 1;
        let findings = check(&program, None);
        for (pc, reg, kind, counter, producer) in path_hazards(&rec.0) {
            dynamic += 1;
            let hit = findings.iter().any(|f| {
                f.at.pc == pc
                    && f.kind.name() == kind
                    && f.counter.name() == counter
                    && f.reg.map(reg_name).as_deref() == Some(reg.as_str())
                    && f.producers.iter().any(|p| p.pc == producer)
            });
            assert!(hit, "seed {seed}: {kind} of {reg} ({counter}) at pc {pc:#x} from pc {producer:#x} not reported");
        }
    }
    assert!(programs >= 150 && dynamic >= 100, "{programs} programs ran, {dynamic} hazards on their paths");
}

/// A random structured kernel over few registers: private and shared loads and stores, transcendental ops, ALU
/// reads and writes, `wait`s with random fields, branches both ways and counted loops, so that joins, back
/// edges and partial waits all matter. Every access is at address 0 of shared or private memory (no trap).
fn random_kernel(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut src = String::from(".kernel r\n.shared 256\n.private 64\n");
    let mut labels = 0;
    fn items(src: &mut String, next: &mut dyn FnMut(u64) -> u64, labels: &mut u32, depth: u32) {
        for _ in 0..3 + next(6) {
            let (a, b) = (next(5) + 1, next(5) + 1);
            let line = match next(12) {
                0 => format!("ld.b32 v{a}, v100, u60, 0, sp=private"),
                1 => format!("ld.b32 v{a}, v100, u60, 0, sp=shared"),
                2 => format!("st.b32 v{a}, v100, u60, 0, sp=private"),
                3 => format!("st.b32 v{a}, v100, u60, 0, sp=shared"),
                4 => format!("f.rcp.f32 v{a}, v{b}"),
                5 | 6 => format!("v.add v{a}, v{b}, v{}", next(5) + 1),
                7 | 8 => {
                    let c = ["vm", "vst", "ls", "sfu"][next(4) as usize];
                    format!("wait {c}={}", next(3))
                }
                9 if depth < 2 => {
                    let l = *labels;
                    *labels += 1;
                    src.push_str(&format!("    u.li u{}, {}\n    b.z u{}, skip{l}\n", 10 + depth, next(2), 10 + depth));
                    items(src, next, labels, depth + 1);
                    format!("skip{l}:")
                }
                10 if depth < 2 => {
                    let l = *labels;
                    *labels += 1;
                    src.push_str(&format!("    u.li u{}, {}\nloop{l}:\n", 20 + depth, 1 + next(3)));
                    items(src, next, labels, depth + 1);
                    format!("u.add.i u{0}, u{0}, -1\n    b.nz u{0}, loop{l}", 20 + depth)
                }
                _ => format!("v.mov v{a}, v{b}"),
            };
            src.push_str(&format!("    {line}\n"));
        }
    }
    items(&mut src, &mut next, &mut labels, 0);
    src + "    end\n"
}

#[test]
fn every_hazard_on_an_executed_path_of_a_random_kernel_with_waits_is_reported() {
    let (mut dynamic, mut waits) = (0, 0);
    for seed in 0..400 {
        let src = random_kernel(seed);
        let program = lanejit_isa::assemble("r.s", &src).unwrap_or_else(|e| panic!("{src}\n{e}"));
        waits += src.matches("wait ").count();
        let kernel = lanejit::Kernel::from_program(program.clone());
        let mut rec = Record(Vec::new());
        let init = lanejit::state_json::StateJson::default();
        lanejit::wave::run_wave(&kernel, &init, lanejit::Engine::Interp, 20_000, Some(&mut rec))
            .unwrap_or_else(|e| panic!("{src}\n{e}"));
        let findings = check(&program, None);
        for (pc, reg, kind, counter, producer) in path_hazards(&rec.0) {
            dynamic += 1;
            let hit = findings.iter().any(|f| {
                f.at.pc == pc
                    && f.kind.name() == kind
                    && f.counter.name() == counter
                    && f.reg.map(reg_name).as_deref() == Some(reg.as_str())
                    && f.producers.iter().any(|p| p.pc == producer)
            });
            assert!(hit, "seed {seed}: {kind} of {reg} ({counter}) at pc {pc:#x} from pc {producer:#x} not reported:\n{src}\n{findings:?}");
        }
    }
    eprintln!("{waits} waits, {dynamic} path hazards");
    assert!(waits >= 300 && dynamic >= 300, "{waits} waits, {dynamic} path hazards");
}
