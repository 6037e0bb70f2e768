; Two waves of one workgroup meet at a barrier: wave 1 stores lane + 100 to shared memory before it, wave 0 skips
; the store and loads after it. Waves run in order until they wait or end, so wave 0 sees the values only if the
; barrier really stops it (and shared memory really is the workgroup's). .workgroup makes this a 2-wave case:
; wave 0 starts from the .json state, wave 1 from fuzz::group::wave_state of it.
.kernel workgroup-shared-across-barrier
.workgroup 64, 1, 1
.shared 256
    csr.r u1, wave_id
    b.z u1, skip
    v.laneid v1
    v.shl.i v2, v1, 2
    v.add.i v3, v1, 100
    st.b32 v3, v2, u4:u5, 0, shared
skip:
    barrier
    v.laneid v1
    v.shl.i v2, v1, 2
    ld.b32 v6, v2, u4:u5, 0, shared
    xred.add.u32 u7, v6
    end
