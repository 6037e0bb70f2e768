; butterfly: 64 rounds of v = v * 1664526 + shfl.xor(v, 1 << (r % 5)) (u32, wrapping; both terms read the
; v of the previous round), r = 0..63 the round, from v = x[i]; then y[i] = v. The shuffle distance is
; computed in the loop into a uniform register and used by the uniform-operand form shfl.xor.vu.
; The multiplier is even on purpose: with an odd one (issue 10 says 1664525) every round is I + P (P the
; lane exchange) modulo 2, whose products vanish, so after 37 rounds every lane is 0 whatever the input and
; no check could see a wrong answer. An even one makes each round invertible for the same work.
; Lanes exchange values, so every wave must be whole: n is a multiple of 32 (waves past n do nothing).
; Arguments: x, y (8-byte addresses), n (u32). Grid: ceil(n / 64) workgroups.
.kernel butterfly
.workgroup 64
    u.ld.b64 u6, u0, 0          ; x
    u.ld.b64 u8, u0, 8          ; y
    u.ld.b32 u10, u0, 16        ; n
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12          ; first element of this workgroup
    v.add.vu v3, v0, u12        ; i
    cmp.lt.u32.vu u13, v3, u10  ; whole waves are in or out
    exec.and.save u14, u13
    j.execz done
    v.shl.i v4, v3, 2           ; byte offset
    ld.b32 v5, v4, u6, 0        ; v = x[i]
    v.mov.k v6, 1664526         ; the multiplier (v.mad.u32 takes vector sources only)
    u.li u15, 0                 ; r
    u.li u16, 5
    u.li u17, 1
    wait vm=0
loop:
    u.rem.u u18, u15, u16       ; r % 5
    u.shl u19, u17, u18         ; distance 1 << (r % 5)
    shfl.xor.vu v7, v5, u19
    v.mad.u32 v5, v5, v6, v7
    u.add.i u15, u15, 1
    u.slt.u.i u20, u15, 64
    b.nz u20, loop
    st.b32 v5, v4, u8, 0
done:
    end
