; The fixed twin of fadd_sum: the same sum of i^4 with an integer atomic, which no order changes.
.kernel iadd_sum
.workgroup 64
    u.ld.b64 u8, u0, 0          ; out
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12
    v.add.vu v3, v0, u12        ; i
    v.mul v5, v3, v3
    v.mul v5, v5, v5            ; i^4
    v.li v7, 0
    atom.add.u32 v5, v7, u8, 0
    end
