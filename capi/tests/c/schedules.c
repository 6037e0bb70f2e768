/* Schedules and exploration from C: a planted order dependence (wave w reads the prefix wave w-1 wrote,
 * assuming it has run) is right in the fixed order; a random schedule gives the same bytes on every engine;
 * lj_explore finds the difference and names a schedule that, put in LjLaunchConfig.schedule, reproduces it;
 * an unparsable schedule or policy, a seed out of range and a NULL output are bad input with a message.
 * Exit status 0 when every check holds; otherwise the failed check on stderr. */
#include "check.h"
#include "lanejit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SCAN =
    ".kernel scan_assume\n"
    ".workgroup 128\n"
    "    u.ld.b64 u8, u0, 0\n"
    "    wait sm=0\n"
    "    v.add.i v1, v0, 1\n"
    "    xred.add.u32 u10, v1\n"
    "    csr.r u11, wave_id\n"
    "    u.shl.i u12, u11, 2\n"
    "    u.add.u64.u32 u14, u8, u12\n"
    "    u.li u16, 0\n"
    "    b.z u11, add\n"
    "    u.ld.b32 u16, u14, -4\n"
    "    wait sm=0\n"
    "add:\n"
    "    u.add u16, u16, u10\n"
    "    u.st.b32 u16, u14, 0\n"
    "    wait sm=0\n"
    "    end\n";

/* Zeroes the 4 prefix words at `buf`, launches `k` with `schedule` (NULL: fixed) on `engine`, reads them. */
static LjStatus run(LjDevice *dev, LjKernel *k, uint64_t buf, const char *schedule, uint32_t engine,
                    uint32_t out[4]) {
    uint32_t zeros[4] = {0};
    CHECK(lj_write(dev, buf, (const uint8_t *)zeros, sizeof zeros) == LJ_STATUS_OK, "write");
    LjLaunchConfig cfg = lj_launch_config_default();
    cfg.args = (const uint8_t *)&buf;
    cfg.args_len = sizeof buf;
    cfg.engine = engine;
    cfg.schedule = schedule;
    LjStatus st = lj_launch(dev, k, &cfg, NULL, NULL);
    if (st == LJ_STATUS_OK) {
        CHECK(lj_read(dev, buf, (uint8_t *)out, 16) == LJ_STATUS_OK, "read");
    }
    return st;
}

int main(void) {
    LjDevice *dev;
    LjKernel *k;
    uint64_t buf;
    CHECK(lj_device_new(0, &dev) == LJ_STATUS_OK, "device");
    CHECK(lj_kernel_from_asm("scan_assume.s", SCAN, &k) == LJ_STATUS_OK, "assemble");
    CHECK(lj_alloc(dev, 16, &buf) == LJ_STATUS_OK, "alloc");

    /* The fixed order: the inclusive scan of the waves' sums (wave w adds 32*32w + 528). */
    uint32_t fixed[4], got[4], expect = 0;
    CHECK(run(dev, k, buf, NULL, LJ_ENGINE_INTERP, fixed) == LJ_STATUS_OK, "fixed launch");
    for (uint32_t w = 0; w < 4; w++) {
        expect += 32 * 32 * w + 528;
        CHECK(fixed[w] == expect, "fixed prefix[%u] = %u, expected %u", w, fixed[w], expect);
    }
    CHECK(run(dev, k, buf, "fixed", LJ_ENGINE_JIT, got) == LJ_STATUS_OK && memcmp(got, fixed, 16) == 0, "\"fixed\"");

    /* A random schedule: the same bytes on every engine. */
    uint32_t first[4];
    CHECK(run(dev, k, buf, "random:3", LJ_ENGINE_INTERP, first) == LJ_STATUS_OK, "random:3 on interp");
    const uint32_t engines[] = {LJ_ENGINE_JIT, LJ_ENGINE_AUTO};
    for (int e = 0; e < 2; e++) {
        CHECK(run(dev, k, buf, "random:3", engines[e], got) == LJ_STATUS_OK, "random:3 on engine %u", engines[e]);
        CHECK(memcmp(got, first, 16) == 0, "random:3 differs between engines");
    }

    /* Exploration finds the order dependence and names a schedule that replays it. */
    CHECK(lj_write(dev, buf, (const uint8_t *)(uint32_t[4]){0}, 16) == LJ_STATUS_OK, "write");
    LjLaunchConfig cfg = lj_launch_config_default();
    cfg.args = (const uint8_t *)&buf;
    cfg.args_len = sizeof buf;
    cfg.engine = LJ_ENGINE_INTERP;
    LjExploreConfig ex = lj_explore_config_default();
    CHECK(ex.schedules == 100 && ex.policy == NULL && ex.stop_at_first == 1, "explore defaults");
    LjExploreResult res;
    CHECK(lj_explore(dev, k, &cfg, &ex, &res) == LJ_STATUS_OK, "explore");
    CHECK(res.differs == 1 && res.differing == 1 && res.schedules_run >= 1, "explore found %u", res.differing);
    CHECK(strncmp(res.schedule, "random:", 7) == 0 && strstr(res.schedule, ",switches=") != NULL, "schedule %s",
          res.schedule);
    const char *json = lj_last_exploration();
    CHECK(strstr(json, "\"differ\":true") && strstr(json, res.schedule), "report %s", json);
    CHECK(lj_read(dev, buf, (uint8_t *)got, 16) == LJ_STATUS_OK && memcmp(got, fixed, 16) == 0,
          "memory after exploring holds the fixed run's results");
    CHECK(run(dev, k, buf, res.schedule, LJ_ENGINE_JIT, got) == LJ_STATUS_OK, "replay %s", res.schedule);
    CHECK(memcmp(got, fixed, 16) != 0, "the replayed schedule %s gives the fixed results", res.schedule);

    /* Every schedule when asked; pct (depth 3 unless given) finds it too. */
    ex.schedules = 20;
    ex.policy = "random:0";
    ex.stop_at_first = 0;
    /* (From zeroed prefixes: a wave reading the fixed run's values where its predecessor's belong is right.) */
    CHECK(lj_write(dev, buf, (const uint8_t *)(uint32_t[4]){0}, 16) == LJ_STATUS_OK, "write");
    CHECK(lj_explore(dev, k, &cfg, &ex, &res) == LJ_STATUS_OK, "explore all");
    CHECK(res.schedules_run == 20 && res.differing >= 1 && res.differing <= 20, "random: %u of %u", res.differing,
          res.schedules_run);
    ex.schedules = 100;
    ex.policy = "pct:0";
    ex.stop_at_first = 1;
    CHECK(lj_write(dev, buf, (const uint8_t *)(uint32_t[4]){0}, 16) == LJ_STATUS_OK, "write");
    CHECK(lj_explore(dev, k, &cfg, &ex, &res) == LJ_STATUS_OK && res.differs == 1, "explore pct");
    CHECK(strncmp(res.schedule, "pct:", 4) == 0, "pct schedule %s", res.schedule);
    CHECK(strstr(lj_last_exploration(), "\"explore\":\"pct:0,3\"") != NULL, "%s", lj_last_exploration());

    /* Bad input, each with a message. */
    CHECK(run(dev, k, buf, "random:18446744073709551616", LJ_ENGINE_INTERP, got) == LJ_STATUS_BAD_INPUT,
          "seed out of range");
    CHECK(strstr(lj_last_error(), "config.schedule") && strstr(lj_last_error(), "0..=18446744073709551615"), "msg");
    CHECK(run(dev, k, buf, "sometimes", LJ_ENGINE_INTERP, got) == LJ_STATUS_BAD_INPUT, "unknown schedule");
    CHECK(strstr(lj_last_error(), "unknown schedule") != NULL, "msg");
    CHECK(run(dev, k, buf, "pct:1,65", LJ_ENGINE_INTERP, got) == LJ_STATUS_BAD_INPUT, "depth out of range");
    ex.policy = "rr:4";
    CHECK(lj_explore(dev, k, &cfg, &ex, &res) == LJ_STATUS_BAD_INPUT, "explore rr:4");
    CHECK(strstr(lj_last_error(), "explore_config.policy") != NULL, "msg");
    CHECK(strcmp(lj_last_exploration(), "null") == 0, "a refused exploration leaves no report");
    ex.policy = "random:99999999999999999999";
    CHECK(lj_explore(dev, k, &cfg, &ex, &res) == LJ_STATUS_BAD_INPUT, "explore seed out of range");
    ex.policy = NULL;
    CHECK(lj_explore(dev, k, &cfg, &ex, NULL) == LJ_STATUS_BAD_INPUT, "NULL result_out");
    CHECK(lj_explore(dev, k, NULL, &ex, &res) == LJ_STATUS_BAD_INPUT, "NULL config");
    cfg.schedule = "bogus";
    CHECK(lj_explore(dev, k, &cfg, &ex, &res) == LJ_STATUS_BAD_INPUT, "a bad schedule in the config");

    lj_kernel_free(k);
    lj_device_free(dev);
    printf("schedules from C: ok\n");
    return 0;
}
