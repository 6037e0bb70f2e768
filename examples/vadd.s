; vadd: c[i] = a[i] + b[i] for i < n.
; Arguments (constant buffer at u0:u1): a, b, c (8-byte addresses), n (u32).
.kernel vadd
.workgroup 64
    u.ld.b64 u4, u0, 0          ; a
    u.ld.b64 u6, u0, 8          ; b
    u.ld.b64 u8, u0, 16         ; c
    u.ld.b32 u10, u0, 24        ; n
    wait sm=0
    csr.r u11, wg_size_x
    u.mul u12, u2, u11          ; first index of this workgroup
    v.add.vu v3, v0, u12        ; i
    cmp.lt.u32.vu u13, v3, u10  ; lanes with i < n
    exec.and.save u14, u13
    v.shl.i v4, v3, 2           ; byte offset
    ld.b32 v5, v4, u4, 0
    ld.b32 v6, v4, u6, 0
    wait vm=0
    v.add v7, v5, v6
    st.b32 v7, v4, u8, 0
    end
