; Hand-made: float ops on special values (NaN payloads, denormals, -0, inf) under dynamic rounding with the
; f32 denormal flush set in fcsr, then f16 flush; f16 halves and packed pairs, an f64 pair, conversions.
.kernel floats
    csr.rwi u1, fcsr, 0x0b
    f.add.f32 v3, v1, v2
    f.mul.f32 v4, v1, v2, rm=rdn
    f.fma.f32 v5, v1, v2, v1
    f.div.f32 v6, v1, v2, rm=rne
    f.sqrt.f32 v7, |v1|
    f.cvt.i32.f32 v8, v1, rm=rmm
    f.cvt.f16.f32 v9, v2
    h.pk.add.f16 v10, v9.l, v9.h
    f.add.f64 v12:v13, v14:v15, v14:v15
    f.min.f32 v11, -v1, v2
    csr.rwi u2, fcsr, 0x10
    h.add.f16 v10.h, v9.l, v10.l
    f.rcp.f32 v16, v1
    wait sfu=0
    end
