; xlane_loop: cross-lane benchmark. Thread i runs `iterations` trips of a loop mixing cross-lane ops with a
; few vector adds/xors, then stores out[i] = a ^ b. Per trip, lane l of a wave (t = temporary):
;   t = a[l ^ 1]                      (shfl.xor.vi)    b += t
;   t = b[l + 3] if l + 3 < 32 else b[l]   (shfl.down.vi)   a ^= t
;   t = a[(l & ~3) | (3 - (l & 3))]   (quad.swizzle 0x1b: reverse each quad)   b += t
;   t = b[0] + ... + b[l]             (xscan.add.u32)  a ^= t
;   s = a[0] + ... + a[31]            (xred.add.u32, uniform)   b += s   (v.add.vu)
;   t = b[(l + 7) & 31]               (shfl.rot.vi)    a += t
;   a ^= a >> 9; b ^= l               (all wrapping u32)
; Start: a = i * 0x9e3779b9, b = i ^ 0x7f4a7c15. Needs whole waves: n is a multiple of 32.
; Arguments: out (8-byte address), iterations, n (u32).
.kernel xlane_loop
.workgroup 256
    u.ld.b64 u6, u0, 0          ; out
    u.ld.b64 u8, u0, 8          ; u8 = iterations, u9 = n
    wait sm=0
    csr.r u10, wg_size_x
    u.mul u10, u2, u10
    v.add.vu v3, v0, u10        ; i
    cmp.lt.u32.vu u11, v3, u9
    exec.and.save u12, u11      ; whole waves in or out
    j.execz done
    v.mul.k v4, v3, 0x9e3779b9  ; a
    v.xor.k v5, v3, 0x7f4a7c15  ; b
    v.laneid v6                 ; l
    u.mov u13, u8               ; trips left
    b.z u13, store
loop:
    shfl.xor.vi v7, v4, 1
    v.add v5, v5, v7
    shfl.down.vi v7, v5, 3
    v.xor v4, v4, v7
    quad.swizzle v7, v4, 0x1b
    v.add v5, v5, v7
    xscan.add.u32 v7, v5
    v.xor v4, v4, v7
    xred.add.u32 u14, v4
    v.add.vu v5, v5, u14
    shfl.rot.vi v7, v5, 7
    v.add v4, v4, v7
    v.shr.i v7, v4, 9
    v.xor v4, v4, v7
    v.xor v5, v5, v6
    u.add.i u13, u13, -1
    b.nz u13, loop
store:
    v.xor v8, v4, v5
    v.shl.i v9, v3, 2
    st.b32 v8, v9, u6, 0
done:
    end
