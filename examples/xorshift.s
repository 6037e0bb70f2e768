; xorshift: y[i] = 256 rounds of v ^= v << 13; v ^= v >> 17; v ^= v << 5; v = v * 0x9e3779b1 + k from
; v = x[i] (u32, wrapping; shifts logical), for i < n.
; Arguments: x, y (8-byte addresses), n, k (u32). Grid: ceil(n / 64) workgroups.
.kernel xorshift
.workgroup 64
    u.ld.b64 u6, u0, 0          ; x
    u.ld.b64 u8, u0, 8          ; y
    u.ld.b64 u10, u0, 16        ; u10 = n, u11 = k
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12          ; first element of this workgroup
    v.add.vu v3, v0, u12        ; i
    cmp.lt.u32.vu u13, v3, u10  ; lanes with i < n
    exec.and.save u14, u13
    j.execz done                ; the whole wave is past the end
    v.shl.i v4, v3, 2           ; byte offset
    ld.b32 v5, v4, u6, 0        ; v = x[i]
    v.mov.k v6, 0x9e3779b1      ; the multiplier and k as vectors (v.mad.u32 takes vector sources only)
    v.mov.u v7, u11
    u.li u15, 256               ; rounds left
    wait vm=0
loop:
    v.shl.i v8, v5, 13
    v.xor v5, v5, v8
    v.shr.i v8, v5, 17
    v.xor v5, v5, v8
    v.shl.i v8, v5, 5
    v.xor v5, v5, v8
    v.mad.u32 v5, v5, v6, v7
    u.add.i u15, u15, -1
    b.nz u15, loop
    st.b32 v5, v4, u8, 0
done:
    end
