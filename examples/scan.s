; scan: y = inclusive prefix sum of x[0..n) (u32, wrapping), in one launch.
; Pass 1: workgroup b scans its block of 256*k elements in k chunks of 256: xscan.add.u32 within each wave,
; the waves' totals meet in shared memory (double-buffered, so one barrier per chunk), and a running carry
; links the chunks. It stores bsum[b] = block total and counts itself on a global counter.
; Pass 2: the workgroup that finds itself last (counter = grid - 1) adds to every later block the sum of the
; blocks before it. No workgroup ever waits for another, so any execution order is correct.
; Arguments: x, y, bsum, counter (8-byte addresses; bsum holds grid words, counter one zeroed word), n, k >= 1.
.kernel scan
.workgroup 256
.shared 260                     ; two buffers of per-wave totals (32 words each), then the `last` flag
    u.ld.b64 u6, u0, 0          ; x
    u.ld.b64 u8, u0, 8          ; y
    u.ld.b64 u10, u0, 16        ; bsum
    u.ld.b64 u12, u0, 24        ; counter
    u.ld.b64 u14, u0, 32        ; u14 = n, u15 = k
    wait sm=0
    csr.r u16, wg_size_x        ; elements per chunk
    u.mul u17, u16, u15         ; elements per block
    u.mul u18, u17, u2          ; first element of this block
    csr.r u19, wave_id
    u.shl.i u27, u19, 2         ; this wave's slot in a totals buffer
    csr.r u26, wave_count
    u.li u20, 0                 ; u20:u21 = shared base 0
    u.li u21, 0
    exec.get u22                ; the wave's threads
    v.laneid v30
    v.shl.i v31, v30, 2         ; lane j reads slot j
    cmp.lt.u32.vu u33, v30, u26 ; lanes that read a wave total
    v.add.vu v3, v0, u18        ; i
    u.li u23, 0                 ; carry: sum of this block's earlier chunks
    u.mov u24, u15              ; chunks left
    u.li u25, 0                 ; totals buffer of this chunk (0 or 128)
    b.z u24, pass1_done
chunk:
    v.li v4, 0                  ; elements past n count as 0
    cmp.lt.u32.vu u28, v3, u14
    exec.and.save u32, u28
    v.shl.i v5, v3, 2
    ld.b32 v4, v5, u6, 0
    wait vm=0
    exec.set u22
    xscan.add.u32 v6, v4        ; inclusive prefix within the wave
    xred.add.u32 u30, v4        ; the wave's total
    v.mov.u v7, u30
    u.add u31, u25, u27
    v.mov.u v8, u31
    exec.elect u32
    st.b32 v7, v8, u20, 0, sp=shared
    wait ls=0
    exec.set u22
    barrier
    v.li v9, 0
    exec.and.save u32, u33
    v.add.vu v10, v31, u25
    ld.b32 v9, v10, u20, 0, sp=shared
    wait ls=0
    exec.set u22
    xscan.add.u32 v11, v9       ; prefix over the wave totals
    v.sub v12, v11, v9          ; exclusive
    readlane.u u34, v12, u19    ; total of the waves before this one
    xred.add.u32 u35, v9        ; the chunk's total
    u.add u34, u34, u23
    wait vst=0                  ; the previous chunk's store has read v13
    v.add.vu v13, v6, u34
    exec.and.save u32, u28
    st.b32 v13, v5, u8, 0
    exec.set u22
    u.add u23, u23, u35
    u.xor.i u25, u25, 128       ; the next chunk writes the other buffer, so no second barrier is needed
    v.add.vu v3, v3, u16
    u.add.i u24, u24, -1
    b.nz u24, chunk
pass1_done:
    fence device                ; this wave's part of y is visible before the block is counted
    barrier
    b.nz u19, read_flag
    ; wave 0: publish the block total, then count the block.
    v.mov.u v14, u23
    v.mov.u v16, u2
    v.shl.i v16, v16, 2
    v.li v15, 0
    v.li v17, 1
    exec.elect u32
    st.b32 v14, v16, u10, 0     ; bsum[block]
    fence device                ; bsum and y before the counter
    atom.add.u32 v17, v15, u12, 0
    wait vm=0
    readfirst u36, v17          ; blocks counted before this one
    exec.set u22
    csr.r u37, grid_x
    u.add.i u37, u37, -1
    u.seq u36, u36, u37         ; 1 if every other block is done
    v.mov.u v18, u36
    v.li v19, 256
    exec.elect u32
    st.b32 v18, v19, u20, 0, sp=shared
    wait ls=0
    exec.set u22
read_flag:
    barrier
    v.li v20, 256
    ld.b32 v21, v20, u20, 0, sp=shared
    wait ls=0
    readfirst u38, v21
    b.z u38, done
    ; Pass 2 (last block only): block b >= 1 gets the sum of bsum[0..b).
    fence device
    u.li u23, 0                 ; offset of block b
    u.mov.u64 u40, u10          ; &bsum[b - 1]
    u.mov u42, u17              ; first element of block b
    csr.r u43, grid_x
    u.add.i u43, u43, -1        ; blocks left
    b.z u43, done
block:
    u.ld.b32 u44, u40, 0
    wait sm=0
    u.add u23, u23, u44
    u.add.u64.k u40, u40, 4
    v.add.vu v3, v0, u42
    u.mov u24, u15
chunk2:
    cmp.lt.u32.vu u28, v3, u14
    exec.and.save u32, u28
    v.shl.i v5, v3, 2
    wait vst=0                  ; the previous chunk's store has read v4
    ld.b32 v4, v5, u8, 0
    wait vm=0
    v.add.vu v4, v4, u23
    st.b32 v4, v5, u8, 0
    exec.set u22
    v.add.vu v3, v3, u16
    u.add.i u24, u24, -1
    b.nz u24, chunk2
    u.add u42, u42, u17
    u.add.i u43, u43, -1
    b.nz u43, block
done:
    end
