; matmul: C = A * B (f32, row-major; A is M x K, B is K x N), M, N, K multiples of 16.
; A 16x16 workgroup computes a 16x16 tile of C, one element per thread (thread (tx, ty) -> C[row][col],
; row = 16*wg_y + ty, col = 16*wg_x + tx). For each 16-wide step of k it stages a tile of A and a tile of B
; in shared memory (barrier), then accumulates acc = fma(As[ty][k], Bs[k][tx], acc) for k in order, one
; correctly rounded fma each (barrier again before the tiles are overwritten).
; Arguments: A, B, C (8-byte addresses), M, N, K (u32). Grid: N/16 x M/16.
.kernel matmul
.workgroup 16, 16
.shared 2048                    ; As at 0, Bs at 1024 (16 x 16 f32 each)
    u.ld.b64 u6, u0, 0          ; A
    u.ld.b64 u8, u0, 8          ; B
    u.ld.b64 u10, u0, 16        ; C
    u.ld.b64 u12, u0, 24        ; u12 = M (implied by the grid), u13 = N
    u.ld.b32 u14, u0, 32        ; K
    u.li u20, 0                 ; u20:u21 = shared base 0
    u.li u21, 0
    wait sm=0
    u.shl.i u15, u3, 4
    u.shl.i u16, u2, 4
    v.add.vu v3, v1, u15        ; row
    v.add.vu v4, v0, u16        ; col
    v.mul.vu v5, v3, u14
    v.add v5, v5, v0
    v.shl.i v5, v5, 2           ; &A[row][tx] - A, advances 16 columns per step
    v.mul.vu v6, v1, u13
    v.add v6, v6, v4
    v.shl.i v6, v6, 2           ; &B[ty][col] - B, advances 16 rows per step
    v.shl.i v7, v1, 4
    v.add v7, v7, v0
    v.shl.i v7, v7, 2           ; this thread's slot (ty*16 + tx) in As and in Bs
    v.shl.i v8, v1, 6           ; As row ty
    v.shl.i v9, v0, 2           ; Bs column tx (plus 1024 in the load offsets)
    u.shl.i u17, u13, 6         ; 16 rows of B in bytes
    u.shr.i u18, u14, 4         ; steps left
    v.li v10, 0                 ; acc = +0.0
    b.z u18, store
step:
    ld.b32 v11, v5, u6, 0
    ld.b32 v12, v6, u8, 0
    wait vm=0
    st.b32 v11, v7, u20, 0, sp=shared
    st.b32 v12, v7, u20, 1024, sp=shared
    wait ls=0
    barrier                     ; both tiles complete
    ; k = 0..7: As[ty][k] from two 16-byte loads, Bs[k][tx] one word each
    ld.b128 v20, v8, u20, 0, sp=shared
    ld.b128 v24, v8, u20, 16, sp=shared
    ld.b32 v40, v9, u20, 1024, sp=shared
    ld.b32 v41, v9, u20, 1088, sp=shared
    ld.b32 v42, v9, u20, 1152, sp=shared
    ld.b32 v43, v9, u20, 1216, sp=shared
    ld.b32 v44, v9, u20, 1280, sp=shared
    ld.b32 v45, v9, u20, 1344, sp=shared
    ld.b32 v46, v9, u20, 1408, sp=shared
    ld.b32 v47, v9, u20, 1472, sp=shared
    wait ls=0
    f.fma.f32 v10, v20, v40, v10, rm=rne
    f.fma.f32 v10, v21, v41, v10, rm=rne
    f.fma.f32 v10, v22, v42, v10, rm=rne
    f.fma.f32 v10, v23, v43, v10, rm=rne
    f.fma.f32 v10, v24, v44, v10, rm=rne
    f.fma.f32 v10, v25, v45, v10, rm=rne
    f.fma.f32 v10, v26, v46, v10, rm=rne
    f.fma.f32 v10, v27, v47, v10, rm=rne
    ; k = 8..15: As[ty][k] from two 16-byte loads, Bs[k][tx] one word each
    ld.b128 v20, v8, u20, 32, sp=shared
    ld.b128 v24, v8, u20, 48, sp=shared
    ld.b32 v40, v9, u20, 1536, sp=shared
    ld.b32 v41, v9, u20, 1600, sp=shared
    ld.b32 v42, v9, u20, 1664, sp=shared
    ld.b32 v43, v9, u20, 1728, sp=shared
    ld.b32 v44, v9, u20, 1792, sp=shared
    ld.b32 v45, v9, u20, 1856, sp=shared
    ld.b32 v46, v9, u20, 1920, sp=shared
    ld.b32 v47, v9, u20, 1984, sp=shared
    wait ls=0
    f.fma.f32 v10, v20, v40, v10, rm=rne
    f.fma.f32 v10, v21, v41, v10, rm=rne
    f.fma.f32 v10, v22, v42, v10, rm=rne
    f.fma.f32 v10, v23, v43, v10, rm=rne
    f.fma.f32 v10, v24, v44, v10, rm=rne
    f.fma.f32 v10, v25, v45, v10, rm=rne
    f.fma.f32 v10, v26, v46, v10, rm=rne
    f.fma.f32 v10, v27, v47, v10, rm=rne
    barrier                     ; every wave is done reading the tiles
    v.add.i v5, v5, 64
    v.add.vu v6, v6, u17
    u.add.i u18, u18, -1
    b.nz u18, step
store:
    v.mul.vu v13, v3, u13
    v.add v13, v13, v4
    v.shl.i v13, v13, 2
    st.b32 v10, v13, u10, 0
    end
