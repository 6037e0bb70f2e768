; A global store's data register overwritten before `wait vst`: the store may send the new value.
; expect: store_source_overwritten v6 vst 9
.kernel vst_source_overwritten
    u.ld.b64 u4, u0, 0
    wait sm=0
    v.shl.i v4, v0, 2
    v.mov v6, v0
    st.b32 v6, v4, u4, 0
    v.li v6, 7
    st.b32 v6, v4, u4, 256
    end
