//! The build script's loader refuses entries whose register or state facts are missing, impossible, or
//! contradict the flags, naming the entry. The loader (`build/model.rs`, `build/facts.rs`) is compiled into
//! this test and fed a tiny spec with one entry at a time.

#![allow(dead_code)]

#[path = "../src/expr.rs"]
mod expr;
#[path = "../build/facts.rs"]
mod facts;
#[path = "../build/gen.rs"]
mod gen;
#[path = "../build/gen_docs.rs"]
mod gen_docs;
#[path = "../build/images.rs"]
mod images;
#[path = "../build/model.rs"]
mod model;
#[path = "../src/vocab.rs"]
mod vocab;

const FORMATS: &str = r#"
formats:
  R: {width: 32, bits: "f3[31:29] fl[28] rs2[27:21] rs1[20:14] rd[13:7] opcode[6:0]", use: test, en: test}
  U: {width: 32, bits: "f7[31:25] rs2[24:19] rs1[18:13] rd[12:7] opcode[6:0]", use: test, en: test}
  M: {width: 32, bits: "f1[31] sp[30:28] rs2[27:21] rs1[20:14] rd[13:7] opcode[6:0]", use: test, en: test}
"#;

const KINDS: &str = r#"
operand_kinds:
  v:    {class: vreg, bits: 7, doc: v}
  "v*": {class: vreg, bits: 7, rmw: true, doc: v}
  vp:   {class: vreg, bits: 7, pair: true, doc: vp}
  u:    {class: ureg, bits: 6, doc: u}
  up:   {class: ureg, bits: 6, pair: true, doc: up}
  flag: {class: flag, bits: 1, default: 0, doc: f}
  sp:   {class: enum, bits: 3, default: global, doc: sp, values: {global: 0, shared: 1},
         props: {base_regs: {global: 2, shared: 1}}}
flags: {ur: u, ld: l, st: s, fm: f, br: b, sy: y, tr: t, we: w, re: r}
counters: [vm]
float_modes: {frm: {mask: 7, doc: r}}
"#;

/// A spec with one group holding `entry`; `flow_default` is the group's `flow:` line (or none).
fn load_with(entry: &str, flow_default: bool) -> Result<model::Spec, String> {
    let flow = if flow_default { "flow: none\n" } else { "" };
    let group = format!("group: 1\nname: t\ntitle: test\nunit: valu\n{flow}instructions:\n  - {entry}\n");
    model::load_texts(FORMATS, KINDS, &[("groups/1-t.yaml".to_string(), group)])
}

fn load(entry: &str) -> Result<model::Spec, String> {
    load_with(entry, true)
}

const ADD: &str = r#"{mnemonic: t.add, syntax: "rd:v rs1:v rs2:v", regs: "rd:out rs1:in rs2:in", format: R, opcode: 0x10, fn: "f3=0x0", latency: "fixed:1", flags: "", en: "d = s1 + s2"}"#;

/// Loads `ADD` with `from` replaced by `to`, expecting a refusal that names the entry and contains `want`.
fn refused(from: &str, to: &str, want: &str) {
    assert!(ADD.contains(from), "test setup: `{from}`");
    refused_entry(&ADD.replace(from, to), want);
}

fn refused_entry(entry: &str, want: &str) {
    match load(entry) {
        Ok(_) => panic!("loaded: {entry}"),
        Err(e) => {
            assert!(e.contains("groups/1-t.yaml: `t."), "does not name the entry: {e}");
            assert!(e.contains(want), "`{want}` not in: {e}");
        }
    }
}

#[test]
fn a_complete_entry_loads() {
    let spec = load(ADD).unwrap();
    let f = &spec.insns[0].facts;
    assert_eq!(
        f.regs.iter().flatten().map(|r| r.dir).collect::<Vec<_>>(),
        [vocab::Dir::Out, vocab::Dir::In, vocab::Dir::In]
    );
    assert_eq!(f.flow, vocab::Flow::None);
}

#[test]
fn an_entry_missing_a_direction_is_refused() {
    refused(r#"regs: "rd:out rs1:in rs2:in""#, r#"regs: "rd:out rs1:in""#, "`rs2` has no direction");
    refused(r#"regs: "rd:out rs1:in rs2:in", "#, "", "`rd` has no direction");
}

#[test]
fn impossible_directions_and_widths_are_refused() {
    refused("rd:out rs1", "rd:write rs1", "direction `write`");
    refused("rd:out rs1", "rd:out[0] rs1", "width 0");
    refused("rd:out rs1", "rd:out[9] rs1", "width 9");
    refused("rd:out rs1:in rs2:in", "rd:out rs2:in rs1:in", "out of syntax order");
    refused("rd:out rs1:in rs2:in", "rd:out rs1:in rs2:in rs1:in", "twice");
    refused("rd:out rs1", "rd:out[rs1] rs1", "register operand `rs1`");
    refused("rd:out rs1", "rd:out[1,1] rs1", "inout");
    refused("rd:out rs1", "rd:out[2 +] rs1", "ends early");
    // The destination of a read-modify-write kind (`v*`) is read.
    refused("rd:v rs1", "rd:v* rs1", "inout");
}

#[test]
fn a_formula_that_can_give_zero_is_refused() {
    let e = r#"{mnemonic: t.f, syntax: "rd:v rs1:v rs2:v fl:flag", regs: "rd:out[WIDTH] rs1:in rs2:in", format: R, opcode: 0x10, fn: "f3=0x0", latency: "fixed:1", flags: "", en: "x"}"#;
    refused_entry(&e.replace("WIDTH", "fl"), "gives 0 when fl=0");
    refused_entry(&e.replace("WIDTH", "2 / (fl - fl)"), "gives no value");
    assert!(load(&e.replace("WIDTH", "fl ? 2 : 1")).is_ok());
    assert!(load(&e.replace("WIDTH", "1 + fl")).is_ok());
}

#[test]
fn facts_that_contradict_the_flags_are_refused() {
    // A uniform destination needs `ur`, and `ur` needs a uniform destination.
    let u = r#"{mnemonic: t.u, syntax: "rd:u rs1:u rs2:u", regs: "rd:out rs1:in rs2:in", format: U, opcode: 0x02, fn: "f7=0x0", latency: "fixed:1", flags: "FLAGS", en: "x"}"#;
    refused_entry(&u.replace("FLAGS", ""), "flag `ur`");
    refused_entry(&u.replace("rd:out", "rd:in").replace("FLAGS", "ur"), "flag `ur`");
    assert!(load(&u.replace("FLAGS", "ur")).is_ok());
    refused(r#"flags: """#, r#"flags: "fm""#, "`fm`");
    refused(r#"flags: """#, r#"flags: "fm", fmode: "ftz64""#, "unknown float mode");
    refused(r#"flags: """#, r#"flags: "br""#, "flow `none`");
    refused(r#"flags: """#, r#"flags: "", flow: sideways"#, "unknown flow");
    refused(r#"flags: """#, r#"flags: "ld""#, "needs `access:`");
    match load_with(ADD, false) {
        Err(e) => assert!(e.contains("no `flow:`"), "{e}"),
        Ok(_) => panic!("an entry without a flow in a group without a default loaded"),
    }
}

#[test]
fn accesses_must_agree_with_the_data_register() {
    let st = r#"{mnemonic: t.st, access: "SIZE data=rd space=sp", syntax: "rd:KIND rs1:v rs2:up sp:sp", regs: "rd:DIR rs1:in rs2:in[sp.base_regs]", format: M, opcode: 0x50, fn: "f1=0x0", latency: "counter:vm", flags: "st", en: "x"}"#;
    let mk = |size: &str, kind: &str, dir: &str| st.replace("SIZE", size).replace("KIND", kind).replace("DIR", dir);
    assert!(load(&mk("b32", "v", "in")).is_ok());
    assert!(load(&mk("b64", "vp", "in")).is_ok());
    refused_entry(&mk("b32", "v", "out"), "a store makes it In"); // store data is read, not written
    refused_entry(&mk("b64", "v", "in"), "moves 2 register(s)");
    refused_entry(&mk("b128", "vp", "in"), "moves 4 register(s)"); // a pair is not 4 registers
    refused_entry(&mk("b96", "v", "in[3]"), "align="); // 12 bytes: alignment must be stated
    assert!(load(&mk("b96 align=4", "v", "in[3]")).is_ok());
    refused_entry(&mk("b32", "v", "in").replace("space=sp", "space=rs1"), "not of kind sp");
    refused_entry(&mk("b32", "v", "in").replace(" data=rd", ""), "data=");
    refused_entry(&mk("b32 atomic=add", "v", "in"), "atomic=");
}

#[test]
fn the_real_spec_loads_and_matches_the_generated_tables() {
    let spec = model::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert_eq!(spec.insns.len(), lanejit_isa::INSNS.len());
    for (i, info) in spec.insns.iter().zip(lanejit_isa::INSNS.iter()) {
        assert_eq!(i.def.mnemonic, info.mnemonic);
        let dirs: Vec<Option<vocab::Dir>> = i.facts.regs.iter().map(|r| r.as_ref().map(|r| r.dir)).collect();
        let gen_dirs: Vec<Option<vocab::Dir>> = info
            .operands
            .iter()
            .map(|o| {
                o.dir.map(|d| match d {
                    lanejit_isa::Dir::In => vocab::Dir::In,
                    lanejit_isa::Dir::Out => vocab::Dir::Out,
                    lanejit_isa::Dir::InOut => vocab::Dir::InOut,
                })
            })
            .collect();
        assert_eq!(dirs, gen_dirs, "{}", info.mnemonic);
    }
}

#[test]
fn an_exec_writer_must_say_how_it_writes_exec() {
    refused(r#"flags: """#, r#"flags: "we""#, "no `exec: shrinks|sets`");
    refused(r#"flags: """#, r#"exec: grows, flags: "we""#, "`exec: grows`");
    refused(r#"flags: """#, r#"exec: shrinks, flags: """#, "does not write EXEC");
    assert!(load(&ADD.replace(r#"flags: """#, r#"exec: shrinks, flags: "we""#)).is_ok());
}

#[test]
fn lanes_active_needs_an_exec_read_and_words_that_say_so() {
    refused(r#"flags: """#, r#"lanes: active, flags: """#, "does not read EXEC");
    refused(r#"flags: """#, r#"lanes: active, flags: "re""#, "does not say which lanes");
    refused(r#"flags: """#, r#"lanes: all, flags: "re""#, "`lanes: all`");
    let said = ADD
        .replace(r#"flags: """#, r#"lanes: active, flags: "re""#)
        .replace("d = s1 + s2", "d = s1 + s2 in active lanes");
    assert!(load(&said).is_ok());
}

/// The real spec's `images:` section with `from` replaced by `to`, loaded in a one-entry group.
fn load_images(from: &str, to: &str) -> Result<model::Spec, String> {
    let real = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/groups/6-mem.yaml")).unwrap();
    let start = real.find("\nimages:\n").expect("6-mem.yaml has an images section") + 1;
    let end = start + real[start..].find("\ninstructions:").unwrap() + 1;
    let section = &real[start..end];
    assert!(section.contains(from), "test setup: `{from}`");
    let group = format!(
        "group: 1\nname: t\ntitle: test\nunit: valu\nflow: none\n{}instructions:\n  - {ADD}\n",
        section.replace(from, to)
    );
    model::load_texts(FORMATS, KINDS, &[("groups/1-t.yaml".to_string(), group)])
}

#[test]
fn the_images_section_is_checked() {
    assert!(load_images("max_size: 16384", "max_size: 16384").unwrap().images.is_some());
    let refusals = [
        ("rgba16f: {code: 3", "rgba16f: {code: 7", "code 7 must be its position 3"),
        ("bytes: 16", "bytes: 12", "bytes 12 is not channels * component bytes = 16"),
        ("{name: pitch,", "{name: stride,", "must name the words"),
        ("component: unorm8", "component: unorm4", "`unorm4` is not in images.component_bytes"),
        ("y: 3, z: 5", "y: 2, z: 5", "overlap"),
        ("mirror: 2", "mirror: 4", "does not fit 2 bits"),
        (", absent: [0, 0, 1]", "", "needs `absent`"),
    ];
    for (from, to, want) in refusals {
        match load_images(from, to) {
            Ok(_) => panic!("loaded with `{to}`"),
            Err(e) => assert!(e.contains("groups/1-t.yaml: images") && e.contains(want), "`{want}` not in: {e}"),
        }
    }
}
