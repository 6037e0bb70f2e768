/* The checkers from C, as a harness uses them: a kernel that reads a load's result before its `wait`,
 * launched with LJ_CHECK_WAITS on every engine, reports one finding (in the stats and as JSON); without
 * checkers it reports none; with LJ_CHECK_BUFFERS on a device that tracks its memory, a buffer the host never
 * wrote is reported and a written one is not; the buffers check on a device that does not track, and an
 * unknown bit, are bad input. Exit status 0 when every check holds; otherwise the failed check on stderr. */
#include "check.h"
#include "lanejit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line 8 reads v6 before `wait vm=0` covers the load of line 7. */
static const char *PLANTED =
    ".kernel planted\n"
    ".workgroup 32\n"
    ".args 8\n"
    "    u.ld.b64 u6, u0, 0\n"
    "    wait sm=0\n"
    "    v.shl.i v5, v0, 2\n"
    "    ld.b32 v6, v5, u6, 0\n"
    "    v.add.i v7, v6, 1\n"
    "    wait vm=0\n"
    "    st.b32 v7, v5, u6, 0\n"
    "    wait vst=0\n"
    "    end\n";

/* Launches `k` on a fresh 32-word buffer of `dev` (written by the host when `write`) with `checks`. */
static LjStatus launch(LjDevice *dev, LjKernel *k, uint32_t engine, uint32_t checks, int write, LjStats *stats) {
    uint64_t buf;
    CHECK(lj_alloc(dev, 128, &buf) == LJ_STATUS_OK, "alloc");
    if (write) {
        uint8_t zeros[128] = {0};
        CHECK(lj_write(dev, buf, zeros, sizeof zeros) == LJ_STATUS_OK, "write");
    }
    LjLaunchConfig cfg = lj_launch_config_default();
    cfg.args = (const uint8_t *)&buf;
    cfg.args_len = sizeof buf;
    cfg.engine = engine;
    cfg.checks = checks;
    return lj_launch(dev, k, &cfg, stats, NULL);
}

int main(void) {
    LjDevice *dev;
    LjKernel *k;
    LjStats stats;
    CHECK(lj_device_new(0, &dev) == LJ_STATUS_OK, "device");
    CHECK(lj_kernel_from_asm("planted.s", PLANTED, &k) == LJ_STATUS_OK, "assemble");
    const uint32_t engines[] = {LJ_ENGINE_INTERP, LJ_ENGINE_JIT, LJ_ENGINE_AUTO};
    for (int e = 0; e < 3; e++) {
        CHECK(launch(dev, k, engines[e], LJ_CHECK_WAITS, 1, &stats) == LJ_STATUS_OK, "checked launch");
        CHECK(stats.findings == 1, "engine %u: %llu findings", engines[e], (unsigned long long)stats.findings);
        const char *json = lj_last_findings();
        CHECK(strstr(json, "\"kind\":\"read_before_wait\"") && strstr(json, "\"line\":8"), "findings %s", json);
        CHECK(strstr(json, "\"register\":\"v6\"") && strstr(json, "\"counter\":\"vm\""), "findings %s", json);
    }
    CHECK(launch(dev, k, LJ_ENGINE_JIT, 0, 1, &stats) == LJ_STATUS_OK, "unchecked launch");
    CHECK(stats.findings == 0 && strcmp(lj_last_findings(), "[]") == 0, "unchecked: %s", lj_last_findings());
    CHECK(launch(dev, k, LJ_ENGINE_JIT, 1u << 7, 1, &stats) == LJ_STATUS_BAD_INPUT, "unknown checker bit");
    CHECK(strstr(lj_last_error(), "LJ_CHECK_") != NULL, "message names the bits");
    /* The buffers check needs a device that tracks its memory from before the buffers are made. */
    CHECK(launch(dev, k, LJ_ENGINE_JIT, LJ_CHECK_BUFFERS, 0, &stats) == LJ_STATUS_BAD_INPUT, "untracked device");
    LjDevice *tracked;
    CHECK(lj_device_new(0, &tracked) == LJ_STATUS_OK, "device");
    CHECK(lj_device_track_uninit_memory(tracked) == LJ_STATUS_OK, "track");
    CHECK(launch(tracked, k, LJ_ENGINE_JIT, LJ_CHECK_BUFFERS, 0, &stats) == LJ_STATUS_OK, "buffers launch");
    CHECK(stats.findings == 1 && strstr(lj_last_findings(), "\"sink\":\"kernel_output\""), "fresh buffer: %s",
          lj_last_findings());
    CHECK(launch(tracked, k, LJ_ENGINE_JIT, LJ_CHECK_BUFFERS, 1, &stats) == LJ_STATUS_OK, "written buffer");
    CHECK(stats.findings == 0, "written buffer: %s", lj_last_findings());
    CHECK(lj_device_track_uninit_memory(NULL) == LJ_STATUS_BAD_INPUT, "NULL device");
    lj_kernel_free(k);
    lj_device_free(tracked);
    lj_device_free(dev);
    printf("checkers from C: ok\n");
    return 0;
}
