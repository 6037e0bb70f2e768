; bitonic: sorts each 32-element segment of a[0..n) ascending (u32), in place; n is a multiple of 32.
; One wave holds one segment, element j in lane j, and runs the whole bitonic network in registers: for each
; stage (k, j) a lane fetches its partner lane ^ j with shfl.xor and keeps the minimum or the maximum of the
; pair. Lane l keeps the minimum when ((l & j) == 0) == ((l & k) == 0), i.e. when it is the lower lane of an
; ascending pair or the upper lane of a descending one; these masks are constants (u.mov.k) selecting with
; v.cndmask between the minimum and the maximum.
; Arguments: a (8-byte address), n (u32).
.kernel bitonic
.workgroup 256
    u.ld.b64 u6, u0, 0          ; a
    u.ld.b32 u8, u0, 8          ; n
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
    ; k = 2, j = 1
    shfl.xor.vi v5, v4, 1
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0x99999999
    v.cndmask v4, v6, u10
    ; k = 4, j = 2
    shfl.xor.vi v5, v4, 2
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xc3c3c3c3
    v.cndmask v4, v6, u10
    ; k = 4, j = 1
    shfl.xor.vi v5, v4, 1
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xa5a5a5a5
    v.cndmask v4, v6, u10
    ; k = 8, j = 4
    shfl.xor.vi v5, v4, 4
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xf00ff00f
    v.cndmask v4, v6, u10
    ; k = 8, j = 2
    shfl.xor.vi v5, v4, 2
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xcc33cc33
    v.cndmask v4, v6, u10
    ; k = 8, j = 1
    shfl.xor.vi v5, v4, 1
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xaa55aa55
    v.cndmask v4, v6, u10
    ; k = 16, j = 8
    shfl.xor.vi v5, v4, 8
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xff0000ff
    v.cndmask v4, v6, u10
    ; k = 16, j = 4
    shfl.xor.vi v5, v4, 4
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xf0f00f0f
    v.cndmask v4, v6, u10
    ; k = 16, j = 2
    shfl.xor.vi v5, v4, 2
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xcccc3333
    v.cndmask v4, v6, u10
    ; k = 16, j = 1
    shfl.xor.vi v5, v4, 1
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0xaaaa5555
    v.cndmask v4, v6, u10
    ; k = 32, j = 16
    shfl.xor.vi v5, v4, 16
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0x0000ffff
    v.cndmask v4, v6, u10
    ; k = 32, j = 8
    shfl.xor.vi v5, v4, 8
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0x00ff00ff
    v.cndmask v4, v6, u10
    ; k = 32, j = 4
    shfl.xor.vi v5, v4, 4
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0x0f0f0f0f
    v.cndmask v4, v6, u10
    ; k = 32, j = 2
    shfl.xor.vi v5, v4, 2
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0x33333333
    v.cndmask v4, v6, u10
    ; k = 32, j = 1
    shfl.xor.vi v5, v4, 1
    v.min.u v6, v4, v5
    v.max.u v4, v4, v5
    u.mov.k u10, 0x55555555
    v.cndmask v4, v6, u10
    st.b32 v4, v7, u6, 0
done:
    end
