; An image query's result (counter tex) read before `wait tex`.
; expect: read_before_wait v2 tex 5
.kernel tex_query
    img.query v2, u8, 2d
    v.add v3, v2, v2
    end
