; saxpy: y[i] = a * x[i] + y[i] (f32, one correctly rounded fma) for i < n.
; Arguments (constant buffer at u0:u1): x, y (8-byte addresses), a (f32 bits), n (u32).
.kernel saxpy
.workgroup 256
    u.ld.b64 u6, u0, 0          ; x
    u.ld.b64 u8, u0, 8          ; y
    u.ld.b64 u10, u0, 16        ; u10 = a, u11 = n (one 8-byte load)
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12          ; first index of this workgroup
    v.add.vu v3, v0, u12        ; i
    cmp.lt.u32.vu u13, v3, u11  ; lanes with i < n
    exec.and.save u14, u13
    j.execz done                ; the whole wave is past the end
    v.shl.i v4, v3, 2           ; byte offset
    ld.b32 v5, v4, u6, 0        ; x[i]
    ld.b32 v6, v4, u8, 0        ; y[i]
    v.mov.u v7, u10             ; a in every lane (f.fma takes vector sources only)
    wait vm=0
    f.fma.f32 v8, v7, v5, v6, rm=rne
    st.b32 v8, v4, u8, 0
done:
    end
