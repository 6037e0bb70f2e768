; Planted: in a 20-thread wave, lane 19 of a shuffle down by one reads lane 20, which is inactive and was never
; written; the value it stores is garbage on hardware.
.kernel uninit_shuffle
.workgroup 20
.args 8
    u.ld.b64 u6, u0, 0
    wait sm=0
    v.add.i v5, v0, 100         ; lanes 0..19 only
    shfl.down.vi v6, v5, 1
    v.shl.i v7, v0, 2
    st.b32 v6, v7, u6, 0        ; PLANTED: lane 19's v6 came from inactive lane 20
    wait vst=0
    end
