; reduce: *out += sum of a[0..n) (u32, wrapping).
; Each thread adds `k` elements (strided by the workgroup size, so a wave's loads are contiguous), each wave
; sums its lanes with xred.add.u32, the waves' sums meet in shared memory, wave 0 adds them with a
; shfl.down tree and one lane does a single atomic add per workgroup.
; Arguments: a, out (8-byte addresses), n, k (u32). Grid: ceil(n / (256 * k)) workgroups.
.kernel reduce
.workgroup 256
.shared 128                     ; one partial sum per wave (at most 32 waves)
    u.ld.b64 u6, u0, 0          ; a
    u.ld.b64 u8, u0, 8          ; out
    u.ld.b64 u10, u0, 16        ; u10 = n, u11 = k
    wait sm=0
    csr.r u12, wg_size_x        ; stride between one thread's elements
    u.mul u13, u12, u11         ; elements per workgroup
    u.mul u13, u13, u2          ; first element of this workgroup
    v.add.vu v3, v0, u13        ; i
    v.li v4, 0                  ; this thread's sum
    u.mov u14, u11              ; iterations left
    exec.get u15                ; the wave's threads, restored after each masked load
    b.z u14, wave_sum           ; k = 0: nothing to add
loop:
    cmp.lt.u32.vu u16, v3, u10  ; lanes with i < n
    exec.and.save u17, u16
    v.shl.i v5, v3, 2
    ld.b32 v6, v5, u6, 0
    wait vm=0
    v.add v4, v4, v6            ; only lanes in range add
    exec.set u15
    v.add.vu v3, v3, u12
    u.add.i u14, u14, -1
    b.nz u14, loop
wave_sum:
    xred.add.u32 u18, v4        ; sum over the wave's lanes
    u.li u20, 0                 ; u20:u21 = shared base 0
    u.li u21, 0
    csr.r u19, wave_id
    u.shl.i u22, u19, 2
    v.mov.u v7, u18
    v.mov.u v8, u22             ; shared[wave_id]
    exec.elect u23              ; one lane stores
    st.b32 v7, v8, u20, 0, sp=shared
    wait ls=0
    exec.set u15
    barrier
    b.nz u19, done              ; wave 0 combines the partial sums
    csr.r u24, wave_count
    v.laneid v9
    v.li v10, 0
    cmp.lt.u32.vu u25, v9, u24  ; lane j < wave_count loads shared[j], the others keep 0
    exec.and.save u26, u25
    v.shl.i v11, v9, 2
    ld.b32 v10, v11, u20, 0, sp=shared
    wait ls=0
    exec.set u26
    ; Tree over all LANES lanes: lane 0 ends with the total (lanes past 31 read their own value, which
    ; only reaches lanes whose sums are discarded).
    shfl.down.vi v12, v10, 16
    v.add v10, v10, v12
    shfl.down.vi v12, v10, 8
    v.add v10, v10, v12
    shfl.down.vi v12, v10, 4
    v.add v10, v10, v12
    shfl.down.vi v12, v10, 2
    v.add v10, v10, v12
    shfl.down.vi v12, v10, 1
    v.add v10, v10, v12
    exec.elect u27              ; lane 0 (the lowest active) holds the total
    v.li v13, 0
    atom.add.u32 v10, v13, u8, 0
    wait vm=0
done:
    end
