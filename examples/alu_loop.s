; alu_loop: integer ALU benchmark. Thread i runs `iterations` trips of a loop of 16 vector integer ops
; (add xor or mul sub shl shr min max and) plus 2 uniform ops (counter decrement, b.nz), then stores
; out[i] = a ^ b ^ c ^ d. Per trip, in Rust terms:
;   a += b; b ^= a; c *= a | 1; d -= c; b = b.rotate_left(7); d ^= b;
;   c += max(a, d) - min(a, d); a ^= c & 63; b += d        (unsigned, wrapping)
; Start: a = i, b = i ^ 0x5bd1e995, c = i | 1, d = !i.
; Arguments: out (8-byte address), iterations, n (u32).
.kernel alu_loop
.workgroup 256
    u.ld.b64 u6, u0, 0          ; out
    u.ld.b64 u8, u0, 8          ; u8 = iterations, u9 = n
    wait sm=0
    csr.r u10, wg_size_x
    u.mul u10, u2, u10
    v.add.vu v3, v0, u10        ; i
    cmp.lt.u32.vu u11, v3, u9
    exec.and.save u12, u11
    j.execz done
    v.mov v4, v3                ; a
    v.xor.k v5, v3, 0x5bd1e995  ; b
    v.or.i v6, v3, 1            ; c
    v.not v7, v3                ; d
    u.mov u13, u8               ; trips left
    b.z u13, store
loop:
    v.add v4, v4, v5
    v.xor v5, v5, v4
    v.or.i v8, v4, 1
    v.mul v6, v6, v8
    v.sub v7, v7, v6
    v.shl.i v8, v5, 7
    v.shr.i v9, v5, 25
    v.or v5, v8, v9
    v.xor v7, v7, v5
    v.min.u v8, v4, v7
    v.max.u v9, v4, v7
    v.sub v9, v9, v8
    v.add v6, v6, v9
    v.and.i v8, v6, 63
    v.xor v4, v4, v8
    v.add v5, v5, v7
    u.add.i u13, u13, -1
    b.nz u13, loop
store:
    v.xor v10, v4, v5
    v.xor v10, v10, v6
    v.xor v10, v10, v7
    v.shl.i v11, v3, 2
    st.b32 v10, v11, u6, 0
done:
    end
