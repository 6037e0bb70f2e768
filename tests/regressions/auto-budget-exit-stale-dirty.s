; Found by the fuzzer when auto became block-by-block (threshold 2, chunks of 64): a block whose budget
; check failed stored registers the previously emitted block had changed, reading undefined variables.
; lanejit fuzz reproducer: seed 0x5eed00000707, state 1, auto Cold: auto diverges from interp
;   u32: interp 0x00000000, other 0x00000001
;   u33: interp 0x00000000, other 0xfffffa08
;   u39: interp 0xffffffff, other 0x00000000
;   pc: interp 0x70, other 0x38
;   retired: interp 0x94, other 0x4e20
;   lane_ops: interp 0x1214, other 0x97bf4
;   trap: interp none, other `BudgetExceeded at pc 0x38 (workgroup (0,0,0), wave 0): instruction budget of 20000 exhausted`
; replay: lanejit wave THIS.s --init THIS.json --engine jit   (compare with --engine interp)
.kernel fuzz
.workgroup 32, 1, 1
.shared 512
.args 0
.private 64
    j L_0004                             ; 0000: 0x00000460
L_0004:
    shfl.up.vu v0, v0, u0                ; 0004: 0x08000032
    u.li u32, 3                          ; 0008: 0x0001900a
L_000c:
    u.li u33, 3                          ; 000c: 0x0001908a
    exec.get u39                         ; 0010: 0x02001388
L_0014:
    ballot u0, v1                        ; 0014: 0x00002036
    exec.and.save u40, u0                ; 0018: 0x02101408
    j.execz L_0030                       ; 001c: 0x000014e0
    u.sgt.i u0, u0, 0                    ; 0020: 0x00200006
    u.and u0, u0, u0                     ; 0024: 0x20000002
    v.add.i v0, v0, 0                    ; 0028: 0x00000016
    cmp.u.f64 u0, v0:v1, v0:v1           ; 002c: 0xb8000042
L_0030:
    exec.set u40                         ; 0030: 0x020d0008
    cmp.ne.f64.vu u4, v0:v1, u0:u1       ; 0034: 0xc4000244
    exec.and.save u46, u4                ; 0038: 0x02109708
    u.add.i u33, u33, -1                 ; 003c: 0xffc43084
    b.z u33, L_0048                      ; 0040: 0x000110e4
    j.execnz L_0014                      ; 0044: 0xffffd160
L_0048:
    exec.set u39                         ; 0048: 0x020ce008
    u.max u0, u0, u0                     ; 004c: 0x42000002
    v.and.k v0, v0, 0                    ; 0050: 0x00400011 0x00000000
    v.mov.u.b64 v26:v27, u56:u57         ; 0058: 0x001e0d1a
    v.add.u64.u32 v0:v1, v0:v1, v0       ; 005c: 0x80000012
    atom.a64.min.u32 v0, v26:v27, 0      ; 0060: 0x20068053 0x00000040
    u.add.i u32, u32, -1                 ; 0068: 0xffc41004
    b.nz u32, L_000c                     ; 006c: 0xfff43064
    end                                  ; 0070: 0x00000068
