; Planted (with the `buffers` check): an accumulation into a device buffer nothing initialised. The word read
; was never written by the host or a kernel, so the value stored back is garbage on hardware.
.kernel uninit_buffer
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0          ; the buffer
    wait sm=0
    v.shl.i v5, v0, 2
    ld.b32 v6, v5, u6, 0
    wait vm=0
    v.add.i v7, v6, 1
    st.b32 v7, v5, u6, 0        ; PLANTED: v7 = a never-written word + 1
    wait vst=0
    end
