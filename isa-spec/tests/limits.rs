//! Documented input limits of the assembler and the container loader (`.private`, `.args`, `.workgroup`),
//! a leading byte order mark, and the length of tokens echoed in error messages.

// The documented limits, written out so that this file also builds (and fails) against an assembler without them.
const MAX_PRIVATE_BYTES: u32 = 64 * 1024;
const MAX_ARG_BYTES: u32 = 4096;

#[test]
fn the_documented_limits_are_the_ones_enforced() {
    assert_eq!(lanejit_isa::asm::MAX_PRIVATE_BYTES, MAX_PRIVATE_BYTES);
    assert_eq!(lanejit_isa::asm::MAX_ARG_BYTES, MAX_ARG_BYTES);
}
use lanejit_isa::{assemble, container, AsmError};

fn single_error(src: &str) -> AsmError {
    match assemble("k.s", src) {
        Ok(p) => panic!("`{src}` assembled: {:?}", p.meta),
        Err(e) => {
            assert_eq!(e.errors.len(), 1, "expected one error for `{src}`, got:\n{e}");
            e.errors[0].clone()
        }
    }
}

#[test]
fn private_memory_above_the_limit_is_refused_with_line_and_column() {
    let e = single_error("    .private 4294967295\n    end\n");
    assert_eq!((e.line, e.col), (1, 14));
    assert!(e.message.contains("MAX_PRIVATE_BYTES"), "{}", e.message);
    let e = single_error(&format!("end\n  .private {}\n", MAX_PRIVATE_BYTES + 1));
    assert_eq!((e.line, e.col), (2, 12));
    let ok = assemble("k.s", &format!(".private {MAX_PRIVATE_BYTES}\nend\n")).expect("the limit itself is allowed");
    assert_eq!(ok.meta.private_bytes, MAX_PRIVATE_BYTES);
}

#[test]
fn argument_block_above_the_limit_is_refused() {
    let e = single_error(&format!(".args {}\nend\n", MAX_ARG_BYTES + 1));
    assert!(e.message.contains("MAX_ARG_BYTES"), "{}", e.message);
    assert!(assemble("k.s", &format!(".args {MAX_ARG_BYTES}\nend\n")).is_ok());
}

#[test]
fn workgroup_whose_thread_count_wraps_around_is_refused() {
    // 769546 × 494770 × 48448661 = 2^64 + 4: a wrapping product would pass as 4 threads.
    let e = single_error(".workgroup 769546, 494770, 48448661\nend\n");
    assert!(e.message.contains("18446744073709551620 threads"), "{}", e.message);
    let e = single_error(".workgroup 4294967295, 4294967295, 4294967295\nend\n");
    assert!(e.message.contains("more than 1024"), "{}", e.message);
}

fn container_with(private_bytes: u32, arg_bytes: u32) -> Vec<u8> {
    let p = assemble("k.s", "end\n").unwrap();
    let mut bytes = container::write(&p);
    // Header fields after the magic: size, wg x, y, z, shared, args, private, name length, code length.
    bytes[4 + 5 * 4..4 + 6 * 4].copy_from_slice(&arg_bytes.to_le_bytes());
    bytes[4 + 6 * 4..4 + 7 * 4].copy_from_slice(&private_bytes.to_le_bytes());
    bytes
}

#[test]
fn container_loader_refuses_what_the_assembler_refuses() {
    let e = container::read(&container_with(u32::MAX, 0)).unwrap_err().to_string();
    assert!(e.contains("MAX_PRIVATE_BYTES"), "{e}");
    let e = container::read(&container_with(0, MAX_ARG_BYTES + 1)).unwrap_err().to_string();
    assert!(e.contains("MAX_ARG_BYTES"), "{e}");
    assert!(container::read(&container_with(MAX_PRIVATE_BYTES, MAX_ARG_BYTES)).is_ok());
}

#[test]
fn leading_byte_order_mark_is_skipped() {
    let with = assemble("k.s", "\u{feff}    v.add.i v1, v1, 1\n    end\n").expect("a leading BOM is skipped");
    let without = assemble("k.s", "    v.add.i v1, v1, 1\n    end\n").unwrap();
    assert_eq!(with.words, without.words);
}

#[test]
fn byte_order_mark_inside_the_file_is_named() {
    let e = single_error("    end\n\u{feff}    end\n");
    assert_eq!((e.line, e.col), (2, 1));
    assert!(e.message.contains("byte order mark"), "{}", e.message);
}

#[test]
fn a_huge_token_is_echoed_short() {
    let token = "x".repeat(10_000_000);
    let e = single_error(&format!("{token}\n"));
    let shown = e.to_string();
    assert!(shown.len() < 200, "{} bytes echoed", shown.len());
    assert!(shown.contains(&"x".repeat(79)) && shown.contains('…'), "{shown}");
    assert!(e.text.chars().count() <= 81, "{} chars kept in `text`", e.text.len());
}

/// A kernel name with a NUL cannot be an ELF symbol or section name: `asm -o k.elf` panicked in the ELF writer.
/// The assembler and the loaders refuse it.
#[test]
fn a_kernel_name_with_a_nul_is_refused() {
    let e = single_error(".kernel \"a\\0b\"\nend\n");
    assert_eq!((e.line, e.col), (1, 9));
    assert!(e.message.contains("NUL"), "{}", e.message);
    let p = assemble("k.s", ".kernel ab\nend\n").unwrap();
    let mut bytes = container::write(&p);
    let at = bytes.len() - 4 - 1; // the name's last byte, before the code word
    bytes[at] = 0;
    let e = container::read(&bytes).unwrap_err().to_string();
    assert!(e.contains("NUL"), "{e}");
}
