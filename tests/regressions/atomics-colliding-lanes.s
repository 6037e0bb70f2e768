; Hand-made: atomics where 8 lanes share each address (applied lane by lane in ascending order), cas with the
; compare value in rd+1, overlapping byte stores and colliding word stores (the highest lane's bytes stay),
; then a misaligned load that traps in every active lane.
.kernel atomics
    v.laneid v1
    v.and.i v2, v1, 3
    v.shl.i v2, v2, 2
    atom.add.u32 v3, v2, u56:u57, 0
    v.mov v5, v1
    atom.cas.b32 v4:v5, v2, u56:u57, 16
    atom.max.i32 v6, v2, u56:u57, 32
    atom.inc.u32 v7, v2, u56:u57, 48
    atom.fadd.f32 v8, v2, u56:u57, 64
    wait vm=0
    ld.b32 v9, v2, u56:u57, 0
    st.b8 v1, v1, u56:u57, 96
    st.b32 v1, v2, u56:u57, 128
    wait vm=0, vst=0
    u.ld.b128 u8, u56:u57, 96
    ld.b32 v10, v2, u56:u57, 2
    end
