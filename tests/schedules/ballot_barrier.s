; The fixed twin of ballot_race: both waves meet at one barrier between the flags' stores and their loads.
.kernel ballot_barrier
.workgroup 64
    u.ld.b64 u8, u0, 0          ; buf
    wait sm=0
    csr.r u10, wave_id
    v.laneid v1
    v.shl.i v2, v1, 2           ; this lane's flag
    b.z u10, meet
    v.and.i v3, v1, 1
    st.b32 v3, v2, u8, 4        ; flags[lane] = lane & 1
    wait vst=0
meet:
    barrier
    b.nz u10, done
    ld.b32 v4, v2, u8, 4        ; flags[lane]
    wait vm=0
    ballot u11, v4
    u.st.b32 u11, u8, 0         ; buf[0] = the ballot
    wait sm=0
done:
    end
