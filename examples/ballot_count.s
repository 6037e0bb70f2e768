; ballot_count: *count += number of odd a[i] for i < n. Each wave takes the ballot of a[i] & 1 over its lanes
; in range, counts the mask's bits once (u.popc) and one elected lane adds the count with a single global
; atomic: one atomic per wave, every one on the same word.
; Arguments: a, count (8-byte addresses; count one zeroed word), n (u32). Grid: ceil(n / 64) workgroups.
.kernel ballot_count
.workgroup 64
    u.ld.b64 u6, u0, 0          ; a
    u.ld.b64 u8, u0, 8          ; count
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
    v.and.i v6, v5, 1
    ballot u15, v6              ; lanes in range holding an odd value
    u.popc u16, u15
    v.mov.u v7, u16
    v.li v8, 0                  ; offset 0: *count
    exec.elect u17              ; one lane adds for the whole wave
    atom.add.u32 v7, v8, u8, 0  ; the old value it returns is never read, so no wait
done:
    end
