; atomic_reduce: *out += sum of a[0..n) (u32, wrapping), one element per thread.
; Each wave sums its active lanes with xred.add.u32 and one elected lane adds that sum to *out with a single
; global atomic: one atomic per wave, every one on the same word.
; Arguments: a, out (8-byte addresses; out one zeroed word), n (u32). Grid: ceil(n / 64) workgroups.
.kernel atomic_reduce
.workgroup 64
    u.ld.b64 u6, u0, 0          ; a
    u.ld.b64 u8, u0, 8          ; out
    u.ld.b32 u10, u0, 16        ; n
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12          ; first element of this workgroup
    v.add.vu v3, v0, u12        ; i
    cmp.lt.u32.vu u13, v3, u10  ; lanes with i < n
    exec.and.save u14, u13
    j.execz done                ; the whole wave is past the end
    v.shl.i v4, v3, 2           ; byte offset
    ld.b32 v5, v4, u6, 0        ; a[i]
    wait vm=0
    xred.add.u32 u15, v5        ; the wave's sum over its lanes in range
    v.mov.u v6, u15
    v.li v7, 0                  ; offset 0: *out
    exec.elect u16              ; one lane adds for the whole wave
    atom.add.u32 v6, v7, u8, 0  ; the old value it returns is never read, so no wait
done:
    end
