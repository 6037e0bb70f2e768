; Twin of tex_query.s.
.kernel tex_query_fixed
    img.query v2, u8, 2d
    wait tex=0
    v.add v3, v2, v2
    end
