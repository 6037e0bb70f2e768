; Found by lanejit fuzz (seed 0x1, shrunk). The JIT counted lane_ops of a block that ends in an EXEC writer
; with the EXEC the writer produced instead of the EXEC each instruction ran with (interp: 0xa0, jit: 0xc0).
.kernel fuzz
.workgroup 32, 1, 1
.shared 512
.args 0
.private 64
    exec.and.save u38, u1                ; 0000: 0x02103308
    j.execz L_0008                       ; 0004: 0x000004e0
L_0008:
    exec.set u38                         ; 0008: 0x020cc008
    exec.andn.save u46, u1               ; 000c: 0x02183708
    j.execz L_0014                       ; 0010: 0x000004e0
L_0014:
    exec.set u38                         ; 0014: 0x020cc008
    end                                  ; 0018: 0x00000068
