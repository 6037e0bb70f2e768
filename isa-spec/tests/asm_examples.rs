//! The bundled examples written with macros (issue 38) assemble to the very words of their hand expansion, as
//! they were written before: `examples/blur.s` (nine taps from `.irp` and a macro) and `examples/bitonic.s`
//! (fifteen stages from a recursive macro, each mask a constant expression).

use lanejit_isa::{assemble, assemble_with_lines, disassemble, Program};

fn program(name: &str, src: &str) -> Program {
    assemble(name, src).unwrap_or_else(|e| panic!("{e}"))
}

/// The nine taps of blur.s as the file once spelled them out.
fn blur_by_hand() -> String {
    let mut s = String::from(
        ".kernel blur\n.workgroup 16, 16\nu.ld.b256 u8, u0, 0\nu.ld.b256 u16, u0, 32\nu.ld.b64 u24, u0, 64\nwait sm=0\n\
         u.shl.i u28, u2, 4\nu.shl.i u29, u3, 4\nv.add.vu v3, v0, u28\nv.add.vu v4, v1, u29\n\
         cmp.lt.u32.vu u30, v3, u24\ncmp.lt.u32.vu u31, v4, u25\nu.and u30, u30, u31\nexec.and.save u32, u30\n\
         j.execz done\nv.li v20, 0\nv.li v21, 0\nv.li v22, 0\nv.li v23, 0\nv.li v24, 0\n",
    );
    for dy in [-1i32, 0, 1] {
        for dx in [-1i32, 0, 1] {
            s += &format!("v.mov.k v5, {:#x}\n", ((dy & 0x3f) << 8) | (dx & 0x3f));
            s += "img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff\nwait tex=0\n";
            for c in 0..4 {
                s += &format!("f.add.f32 v2{c}, v2{c}, v1{c}, rm=rne\n");
            }
            s += "v.add v24, v24, v14\n";
        }
    }
    s += "f.cvt.f32.u32 v25, v24, rm=rne\n";
    for r in 20..24 {
        s += &format!("f.div.f32 v{r}, v{r}, v25, rm=rne\n");
    }
    s + "img.store v20, v3, u16, 2d, dmask=rgba\ndone:\nend\n"
}

/// The fifteen stages of bitonic.s as the file once spelled them out, masks computed here.
fn bitonic_by_hand() -> String {
    let mut s = String::from(
        ".kernel bitonic\n.workgroup 256\nu.ld.b64 u6, u0, 0\nu.ld.b32 u8, u0, 8\nwait sm=0\ncsr.r u9, wg_size_x\n\
         u.mul u9, u2, u9\nv.add.vu v3, v0, u9\ncmp.lt.u32.vu u11, v3, u8\nexec.and.save u12, u11\nj.execz done\n\
         v.shl.i v7, v3, 2\nld.b32 v4, v7, u6, 0\nwait vm=0\n",
    );
    let mut k = 2u32;
    while k <= 32 {
        let mut j = k / 2;
        while j >= 1 {
            let mask: u32 = (0..32).filter(|l| ((l & j) == 0) == ((l & k) == 0)).map(|l| 1u32 << l).sum();
            s += &format!("shfl.xor.vi v5, v4, {j}\nv.min.u v6, v4, v5\nv.max.u v4, v4, v5\n");
            s += &format!("u.mov.k u10, {mask:#010x}\nv.cndmask v4, v6, u10\n");
            j /= 2;
        }
        k *= 2;
    }
    s + "st.b32 v4, v7, u6, 0\ndone:\nend\n"
}

#[test]
fn blur_expands_to_its_nine_taps() {
    let p = program("blur.s", include_str!("../../examples/blur.s"));
    assert_eq!(p, program("hand.s", &blur_by_hand()));
    assert_eq!(disassemble(&p).matches("img.load").count(), 9);
}

#[test]
fn bitonic_expands_to_its_fifteen_stages() {
    let p = program("bitonic.s", include_str!("../../examples/bitonic.s"));
    let hand = bitonic_by_hand();
    // The first mask is the one the file once wrote.
    assert!(hand.contains("u.mov.k u10, 0x99999999\n") && hand.contains("u.mov.k u10, 0x55555555\n"));
    assert_eq!(p, program("hand.s", &hand));
}

#[test]
fn the_rewritten_examples_round_trip_and_map_pcs_to_their_lines() {
    for (name, src) in
        [("blur.s", include_str!("../../examples/blur.s")), ("bitonic.s", include_str!("../../examples/bitonic.s"))]
    {
        let (p, lines) = assemble_with_lines(name, src).unwrap();
        let back = program("disasm.s", &disassemble(&p));
        assert_eq!((back.words, back.meta), (p.words.clone(), p.meta.clone()), "{name}");
        // Every instruction maps to a line of the file that holds its text or the macro call behind it.
        let text: Vec<&str> = src.lines().collect();
        for &l in lines.iter().filter(|&&l| l > 0) {
            let line = text[l as usize - 1].trim();
            assert!(!line.is_empty() && !line.starts_with(';'), "{name}:{l}");
        }
    }
}
