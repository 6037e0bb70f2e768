; Debugger fixture: each lane writes lane * 3 to its private word 1, reads it back and stores it to out[lane].
; Arguments: out (u32, 32 of them).
.kernel private_words
.workgroup 32
.private 16
    u.ld.b64 u8, u0, 0          ; out
    wait sm=0
    u.li u20, 0
    v.li v4, 4                  ; private offset 4: word 1
    v.mul.i v5, v0, 3
    st.b32 v5, v4, u20, 0, sp=private
    wait ls=0
    ld.b32 v6, v4, u20, 0, sp=private
    wait ls=0
    v.shl.i v7, v0, 2
    st.b32 v6, v7, u8, 0
    end
