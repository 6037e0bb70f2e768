; bitonic: sorts each 32-element segment of a[0..n) ascending (u32), in place; n is a multiple of 32.
; One wave holds one segment, element j in lane j, and runs the whole bitonic network in registers: for each
; stage (k, j) a lane fetches its partner lane ^ j with shfl.xor and keeps the minimum or the maximum of the
; pair. Lane l keeps the minimum when ((l & j) == 0) == ((l & k) == 0), i.e. when it is the lower lane of an
; ascending pair or the upper lane of a descending one; these masks are constants (u.mov.k) selecting with
; v.cndmask between the minimum and the maximum.
; Arguments: a (8-byte address), n (u32).
; Written with the assembler's macros (docs/assembler.md): each stage is the macro `stage`, its mask computed by
; a constant expression over the 32 lanes, and the stages of each k come from the recursive macro `stages`.
.equ ARG_A, 0                   ; a: 8-byte address
.equ ARG_N, 8                   ; n: u32

; One stage (k, j): keep the minimum of the pair (lane, lane ^ j) where lane's mask bit is set, else the maximum.
.macro stage k, j
    .set mask, 0
    .set lane, 0
    .rept 32
    .set mask, mask | ((((lane & (\j)) == 0) == ((lane & (\k)) == 0)) << lane)
    .set lane, lane + 1
    .endr
    shfl.xor.vi v5, v4, \j
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, mask
    v.cndmask v4, v6, u10
.endm

; The stages (k, j), (k, j/2), ..., (k, 1).
.macro stages k, j
    stage \k, \j
    .if (\j) > 1
    stages \k, (\j) / 2
    .endif
.endm

.kernel bitonic
.workgroup 256
    u.ld.b64 u6, u0, ARG_A      ; a
    u.ld.b32 u8, u0, ARG_N      ; n
    wait sm=0
    csr.r u9, wg_size_x
    u.mul u9, u2, u9
    v.add.vu v3, v0, u9         ; i
    cmp.lt.u32.vu u11, v3, u8   ; whole waves: n is a multiple of 32
    exec.and.save u12, u11
    j.execz done
    v.shl.i v7, v3, 2
    ld.b32 v4, v7, u6, 0
    wait vm=0
    .irp k, 2, 4, 8, 16, 32
    stages \k, \k / 2
    .endr
    st.b32 v4, v7, u6, 0
done:
    end
