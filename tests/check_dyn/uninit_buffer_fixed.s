; The fixed twin of uninit_buffer.s: the kernel zeroes its word before accumulating into it.
.kernel uninit_buffer_fixed
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0          ; the buffer
    wait sm=0
    v.shl.i v5, v0, 2
    v.li v6, 0
    st.b32 v6, v5, u6, 0
    wait vst=0
    ld.b32 v6, v5, u6, 0
    wait vm=0
    v.add.i v7, v6, 1
    st.b32 v7, v5, u6, 0
    wait vst=0
    end
