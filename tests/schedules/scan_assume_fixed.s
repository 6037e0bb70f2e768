; The fixed twin of scan_assume: every wave stores its own sum, all meet at a barrier, then each adds the
; sums of the waves before it.
; Arguments: buf (u32 x 8: the prefixes, then the sums). Grid: 1 workgroup of 128 (4 waves).
.kernel scan_barrier
.workgroup 128
    u.ld.b64 u8, u0, 0          ; buf
    wait sm=0
    v.add.i v1, v0, 1
    xred.add.u32 u10, v1        ; this wave's sum
    csr.r u11, wave_id
    u.shl.i u12, u11, 2
    u.add.u64.u32 u14, u8, u12  ; &buf[wave]
    u.st.b32 u10, u14, 16       ; sums[wave]
    wait sm=0
    barrier
    u.mov u16, u10
    u.mov.u64 u18, u8           ; &sums[j] - 16, j from 0
loop:
    u.slt.u u20, u18, u14       ; j < wave (compared as the low address words: one buffer)
    b.z u20, store
    u.ld.b32 u21, u18, 16
    wait sm=0
    u.add u16, u16, u21
    u.add.u64.k u18, u18, 4
    j loop
store:
    u.st.b32 u16, u14, 0
    wait sm=0
    end
