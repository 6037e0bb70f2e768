; wave_scan: y[i] = x[32w] + ... + x[i] for i < n, where w = i / 32 is i's wave (u32, wrapping): an inclusive
; prefix sum within each wave's 32 consecutive elements, stored per element. Lanes past n neither add to
; the sums nor are stored.
; Arguments: x, y (8-byte addresses), n (u32). Grid: ceil(n / 64) workgroups.
.kernel wave_scan
.workgroup 64
    u.ld.b64 u6, u0, 0          ; x
    u.ld.b64 u8, u0, 8          ; y
    u.ld.b32 u10, u0, 16        ; n
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12          ; first element of this workgroup
    v.add.vu v3, v0, u12        ; i
    cmp.lt.u32.vu u13, v3, u10  ; lanes with i < n
    exec.and.save u14, u13
    j.execz done                ; the whole wave is past the end
    v.shl.i v4, v3, 2           ; byte offset
    ld.b32 v5, v4, u6, 0        ; x[i]
    wait vm=0
    xscan.add.u32 v6, v5        ; sum over the active lanes up to this one
    st.b32 v6, v4, u8, 0
done:
    end
