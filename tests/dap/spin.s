; Debugger fixture: a wave that never ends (until the budget), for pause and disconnect.
.kernel spin
.workgroup 32
loop:
    v.add.i v1, v1, 1
    j loop
