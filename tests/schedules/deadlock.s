; A deadlocking launch (for replay): the two waves wait at different barriers.
.kernel deadlock
.workgroup 64
    u.ld.b64 u8, u0, 0          ; buf
    wait sm=0
    csr.r u10, wave_id
    v.laneid v1
    v.shl.i v2, v1, 2           ; this lane's flag
    b.z u10, reader
    v.and.i v3, v1, 1
    st.b32 v3, v2, u8, 4        ; flags[lane] = lane & 1
    wait vst=0
    barrier
    end
reader:
    barrier
    ld.b32 v4, v2, u8, 4        ; flags[lane]
    wait vm=0
    ballot u11, v4
    u.st.b32 u11, u8, 0         ; buf[0] = the ballot
    wait sm=0
    end
