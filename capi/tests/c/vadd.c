/* The C ABI end to end, as a harness written in C uses it: assemble a vector add, launch it on every engine,
 * check the answer; then a kernel that stores past its buffer, whose trap report must name the kind, the pc,
 * the lanes and the first faulting address; then bad input, which must be reported, never crash.
 * Exit status 0 when every check holds; otherwise the failed check on stderr. */
#include "check.h"
#include "lanejit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *VADD =
    ".kernel vadd\n"
    ".workgroup 64\n"
    ".args 28\n"
    "    u.ld.b64 u4, u0, 0\n"
    "    u.ld.b64 u6, u0, 8\n"
    "    u.ld.b64 u8, u0, 16\n"
    "    u.ld.b32 u10, u0, 24\n"
    "    wait sm=0\n"
    "    csr.r u11, wg_size_x\n"
    "    u.mul u12, u2, u11\n"
    "    v.add.vu v3, v0, u12\n"
    "    cmp.lt.u32.vu u13, v3, u10\n"
    "    exec.and.save u14, u13\n"
    "    v.shl.i v4, v3, 2\n"
    "    ld.b32 v5, v4, u4, 0\n"
    "    ld.b32 v6, v4, u6, 0\n"
    "    wait vm=0\n"
    "    v.add v7, v5, v6\n"
    "    st.b32 v7, v4, u8, 0\n"
    "    end\n";

/* Arguments: three 8-byte addresses and a 4-byte count, packed as the kernel reads them. */
static void pack_args(uint8_t out[28], uint64_t a, uint64_t b, uint64_t c, uint32_t n) {
    memcpy(out, &a, 8);
    memcpy(out + 8, &b, 8);
    memcpy(out + 16, &c, 8);
    memcpy(out + 24, &n, 4);
}

static void vector_add_on(LjDevice *dev, LjKernel *k, uint32_t engine) {
    enum { N = 1000 };
    static uint32_t a[N], b[N], c[N];
    for (uint32_t i = 0; i < N; i++) { a[i] = i * 3u; b[i] = 0xfffff000u + i; }
    uint64_t da, db, dc;
    CHECK(lj_alloc(dev, sizeof a, &da) == LJ_STATUS_OK, "alloc a");
    CHECK(lj_alloc(dev, sizeof b, &db) == LJ_STATUS_OK, "alloc b");
    CHECK(lj_alloc(dev, sizeof c, &dc) == LJ_STATUS_OK, "alloc c");
    CHECK(lj_write(dev, da, (const uint8_t *)a, sizeof a) == LJ_STATUS_OK, "write a");
    CHECK(lj_write(dev, db, (const uint8_t *)b, sizeof b) == LJ_STATUS_OK, "write b");
    uint8_t args[28];
    pack_args(args, da, db, dc, N);
    LjLaunchConfig cfg = lj_launch_config_default();
    cfg.grid[0] = (N + 63) / 64;
    cfg.args = args;
    cfg.args_len = sizeof args;
    cfg.engine = engine;
    LjStats stats;
    LjStatus st = lj_launch(dev, k, &cfg, &stats, NULL);
    CHECK(st == LJ_STATUS_OK, "launch on engine %u returned %d", engine, (int)st);
    CHECK(stats.workgroups == (N + 63) / 64, "workgroups %llu", (unsigned long long)stats.workgroups);
    CHECK(lj_read(dev, dc, (uint8_t *)c, sizeof c) == LJ_STATUS_OK, "read c");
    for (uint32_t i = 0; i < N; i++) CHECK(c[i] == a[i] + b[i], "engine %u: c[%u] = %u", engine, i, c[i]);
    CHECK(lj_free(dev, da) == LJ_STATUS_OK && lj_free(dev, db) == LJ_STATUS_OK && lj_free(dev, dc) == LJ_STATUS_OK,
          "free");
}

/* Lane i stores to buffer + 4 * i: with a 64-byte buffer, lanes 16..31 of the one wave fault. */
static void trap_is_reported(LjDevice *dev) {
    const char *src =
        ".kernel oob\n"
        ".workgroup 32\n"
        ".args 8\n"
        "    u.ld.b64 u4, u0, 0\n"
        "    wait sm=0\n"
        "    v.shl.i v1, v0, 2\n"
        "    st.b32 v0, v1, u4, 0\n"
        "    end\n";
    LjKernel *k = NULL;
    CHECK(lj_kernel_from_asm("oob.s", src, &k) == LJ_STATUS_OK, "assemble oob");
    uint64_t buf;
    CHECK(lj_alloc(dev, 64, &buf) == LJ_STATUS_OK, "alloc");
    LjLaunchConfig cfg = lj_launch_config_default();
    cfg.args = (const uint8_t *)&buf;
    cfg.args_len = 8;
    LjTrap trap;
    LjStats stats;
    LjStatus st = lj_launch(dev, k, &cfg, &stats, &trap);
    CHECK(st == LJ_STATUS_TRAP, "status %d", (int)st);
    CHECK(trap.kind == LJ_TRAP_KIND_MEMORY_FAULT, "kind %d", (int)trap.kind);
    CHECK(trap.pc == 16, "pc %u", trap.pc);
    CHECK(trap.lanes == 0xffff0000u, "lanes %#x", trap.lanes);
    CHECK(trap.address_count == 16 && trap.addresses[0] == buf + 64, "addresses %u, first %#llx", trap.address_count,
          (unsigned long long)trap.addresses[0]);
    CHECK(strstr(lj_last_error(), "MemoryFault") != NULL, "message: %s", lj_last_error());
    lj_kernel_free(k);
}

/* An endless kernel launched with a cancelled handle stops with a CANCELLED trap (lj_cancel may come from any
 * thread; here it comes first, so that the test needs no threads). */
static void cancel_stops_a_launch(LjDevice *dev) {
    LjKernel *k = NULL;
    CHECK(lj_kernel_from_asm("loop.s", "loop:\n v.add v3, v3, v0\n j loop\n", &k) == LJ_STATUS_OK, "assemble loop");
    LjCancel *cancel = NULL;
    CHECK(lj_cancel_new(&cancel) == LJ_STATUS_OK, "cancel handle");
    CHECK(lj_cancel(cancel) == LJ_STATUS_OK, "cancel");
    LjLaunchConfig cfg = lj_launch_config_default();
    cfg.cancel = cancel;
    cfg.deadline_ms = LJ_NO_DEADLINE;
    LjTrap trap;
    CHECK(lj_launch(dev, k, &cfg, NULL, &trap) == LJ_STATUS_TRAP, "cancelled launch");
    CHECK(trap.kind == LJ_TRAP_KIND_CANCELLED, "kind %d", (int)trap.kind);
    lj_cancel_free(cancel);
    lj_kernel_free(k);
}

/* Two kernels in one source, looked up by name; the handle taken from the module outlives it. */
static void module_lookup(LjDevice *dev) {
    LjModule *m = NULL;
    const char *src = ".kernel first\n end\n.kernel second\n.workgroup 64\n trap 9\n";
    CHECK(lj_module_from_asm("m.s", src, &m) == LJ_STATUS_OK, "assemble module");
    CHECK(lj_module_kernel_count(m) == 2, "count %u", lj_module_kernel_count(m));
    CHECK(strcmp(lj_module_kernel_name(m, 1), "second") == 0 && lj_module_kernel_name(m, 2) == NULL, "names");
    LjKernel *k = NULL;
    CHECK(lj_module_kernel(m, "third", &k) == LJ_STATUS_BAD_INPUT && strstr(lj_last_error(), "first, second"),
          "unknown name: %s", lj_last_error());
    CHECK(lj_module_kernel(m, "second", &k) == LJ_STATUS_OK, "lookup");
    lj_module_free(m);
    LjKernelInfo info;
    CHECK(lj_kernel_info(k, &info) == LJ_STATUS_OK && info.workgroup[0] == 64, "the second kernel's metadata");
    LjLaunchConfig cfg = lj_launch_config_default();
    LjTrap trap;
    CHECK(lj_launch(dev, k, &cfg, NULL, &trap) == LJ_STATUS_TRAP && trap.code == 9, "the second kernel ran");
    lj_kernel_free(k);
}

static void bad_input_is_reported(LjDevice *dev) {
    LjKernel *k = NULL;
    CHECK(lj_kernel_from_asm("bad.s", "v.add v1, v2\n", &k) == LJ_STATUS_BAD_INPUT && k == NULL, "bad assembly");
    CHECK(strstr(lj_last_error(), "bad.s:1:") != NULL, "assembly error names file and line: %s", lj_last_error());
    CHECK(lj_kernel_from_asm(NULL, "end\n", &k) == LJ_STATUS_BAD_INPUT, "NULL file name");
    CHECK(lj_write(dev, 0x10, (const uint8_t *)"x", 1) == LJ_STATUS_BAD_INPUT, "write outside every allocation");
    CHECK(lj_read(NULL, 0, NULL, 0) == LJ_STATUS_BAD_INPUT, "NULL device");
    CHECK(lj_free(dev, 12345) == LJ_STATUS_BAD_INPUT, "free of no allocation");
    uint8_t word[4] = {0xff, 0xff, 0xff, 0xff};
    CHECK(lj_kernel_from_bytes(word, 3, &k) == LJ_STATUS_BAD_INPUT, "3 bytes are no kernel");
    LjLaunchConfig cfg = lj_launch_config_default();
    cfg.engine = 7;
    CHECK(lj_kernel_from_asm("end.s", ".kernel e\n end\n", &k) == LJ_STATUS_OK, "assemble end");
    LjStatus st = lj_launch(dev, k, &cfg, NULL, NULL);
    CHECK(st == LJ_STATUS_BAD_INPUT, "engine 7: status %d", (int)st);
    cfg = lj_launch_config_default();
    cfg.grid[0] = 0;
    CHECK(lj_launch(dev, k, &cfg, NULL, NULL) == LJ_STATUS_BAD_INPUT, "empty grid: %s", lj_last_error());
    lj_kernel_free(k);
}

int main(void) {
    LjDevice *dev = NULL;
    CHECK(lj_device_new(0, &dev) == LJ_STATUS_OK, "device");
    LjKernel *k = NULL;
    CHECK(lj_kernel_from_asm("vadd.s", VADD, &k) == LJ_STATUS_OK, "assemble vadd");
    CHECK(strcmp(lj_kernel_name(k), "vadd") == 0, "name %s", lj_kernel_name(k));
    LjKernelInfo info;
    CHECK(lj_kernel_info(k, &info) == LJ_STATUS_OK && info.workgroup[0] == 64 && info.arg_bytes == 28, "info");
    vector_add_on(dev, k, LJ_ENGINE_INTERP);
    vector_add_on(dev, k, LJ_ENGINE_JIT);
    vector_add_on(dev, k, LJ_ENGINE_AUTO);
    trap_is_reported(dev);
    cancel_stops_a_launch(dev);
    module_lookup(dev);
    bad_input_is_reported(dev);
    lj_kernel_free(k);
    lj_device_free(dev);
    lj_kernel_free(NULL);
    lj_device_free(NULL);
    printf("C ABI: vadd on 3 engines, trap report and bad input checked (lanejit %s)\n", lj_version());
    return 0;
}
