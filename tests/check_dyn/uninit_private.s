; Planted: private memory nothing wrote is loaded and stored to the output buffer.
.kernel uninit_private
.workgroup 32
.private 16
.args 8
    u.ld.b64 u6, u0, 0
    u.li u20, 0
    v.li v4, 4
    ld.b32 v6, v4, u20, 0, sp=private
    wait vm=0
    v.shl.i v5, v0, 2
    wait sm=0
    st.b32 v6, v5, u6, 0        ; PLANTED: v6 holds private bytes never written
    wait vst=0
    end
