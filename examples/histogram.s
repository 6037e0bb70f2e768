; histogram: bins[a[i] >> 24] += 1 for i < n (256 bins of u32).
; Each workgroup counts into its own 256 bins in shared memory (shared atomics), then adds its non-zero bins
; to the global ones with one global atomic per bin. Thread t owns bin t, so the workgroup has 256 threads.
; Arguments: a, bins (8-byte addresses; bins zeroed), n, k (u32). Each thread reads k elements, strided by
; the workgroup size; grid: ceil(n / (256 * k)) workgroups.
.kernel histogram
.workgroup 256
.shared 1024
    u.ld.b64 u6, u0, 0          ; a
    u.ld.b64 u8, u0, 8          ; bins
    u.ld.b64 u10, u0, 16        ; u10 = n, u11 = k
    u.li u20, 0                 ; u20:u21 = shared base 0
    u.li u21, 0
    exec.get u22                ; the wave's threads
    v.shl.i v3, v0, 2           ; this thread's bin
    v.li v4, 0
    st.b32 v4, v3, u20, 0, sp=shared
    wait ls=0, sm=0
    barrier                     ; every shared bin is zero
    csr.r u12, wg_size_x
    u.mul u13, u12, u11
    u.mul u13, u13, u2
    v.add.vu v5, v0, u13        ; i
    u.mov u14, u11              ; iterations left
    b.z u14, flush
loop:
    cmp.lt.u32.vu u16, v5, u10
    exec.and.save u17, u16
    v.shl.i v6, v5, 2
    ld.b32 v7, v6, u6, 0
    wait vm=0
    v.shr.i v8, v7, 24          ; bin
    v.shl.i v8, v8, 2
    v.li v9, 1
    atom.add.u32 v9, v8, u20, 0, sp=shared  ; lanes hitting the same bin each add 1
    wait ls=0
    exec.set u22
    v.add.vu v5, v5, u12
    u.add.i u14, u14, -1
    b.nz u14, loop
flush:
    barrier                     ; every count of this workgroup is in shared memory
    ld.b32 v10, v3, u20, 0, sp=shared
    wait ls=0
    cmp.ne.i32.vi u16, v10, 0   ; empty bins need no global atomic
    exec.and.save u17, u16
    atom.add.u32 v10, v3, u8, 0
    wait vm=0
    end
