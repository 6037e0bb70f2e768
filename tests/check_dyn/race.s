; Planted: wave 0 writes shared memory that wave 1 reads, with no barrier between them.
.kernel race
.workgroup 64
.shared 128
.args 8
    u.ld.b64 u6, u0, 0
    u.li u20, 0                 ; shared base
    csr.r u19, wave_id
    v.laneid v6
    v.shl.i v5, v6, 2
    b.nz u19, read
    st.b32 v6, v5, u20, 0, sp=shared
    wait ls=0
read:
    b.z u19, done
    ld.b32 v7, v5, u20, 0, sp=shared ; PLANTED: wave 1 reads what wave 0 wrote, no barrier between
    wait ls=0
    wait sm=0
    st.b32 v7, v5, u6, 0
    wait vst=0
done:
    end
