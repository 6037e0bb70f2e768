; Fuzz finding (seed 0x1092_0000_004e family, 2026-12-01; shrunk with the equivalent planted bug 144): an EXEC write
; inside a block (exec.and.save) after a load done inline in the full-EXEC variant and through the runtime in the
; masked one; the rest of the block stored only the masked variant's changed registers, so v6 loaded inline was
; never written back.
.kernel fuzz
.workgroup 32, 1, 1
.shared 512
.args 0
.private 64
    u.li u32, 5                          ; 0000: 0x0002900a
    exec.get u38                         ; 0004: 0x02001308
L_0008:
    v.and.k v24, v6, 508                 ; 0008: 0x00418c11 0x000001fc
    ld.b32 v6, v24, u56:u57, 0           ; 0010: 0x27060351 0x00000000
    cmp.ne.f32.vu u0, v0, u2             ; 0018: 0x44200044
    exec.and.save u46, u0                ; 001c: 0x02101708
    u.add.i u32, u32, -1                 ; 0020: 0xffc41004
    b.z u32, L_002c                      ; 0024: 0x00011064
    j.execnz L_0008                      ; 0028: 0xffffe160
L_002c:
    exec.set u38                         ; 002c: 0x020cc008
    end                                  ; 0030: 0x00000068
