/* tuning.c — the NBODY6C_* switches: their list and their one reader. */
#include <stdlib.h>
#include <string.h>
#include "common/tuning.h"

const tuning_switch tuning_switches[] = {
    {"NBODY6C_IRR_GPU_MIN", 0, "512",
     "block size from which the irregular force goes to the GPU (GPUNB on CUDA); 0: never"},
    {"NBODY6C_SETJP_EAGER", 0, "1024",
     "pending polynomial updates from which GPUNB's CUDA backend sends them at once; 0: at the next "
     "GPU call"},
    {"NBODY6C_NGPU", 0, "every GPU", "GPUs GPUNB's CUDA backend uses (--ngpu, when given, wins)"},
    {"NBODY6C_GPU_BLOCKS", 0, "2048", "thread blocks a regular-force kernel aims at"},
    {"NBODY6C_GPUNB_TRACE", 0, "0", "1: the GPU's phases timed into profile.txt"},
    {"NBODY6C_NPACT", 0, "1.0",
     "GPUIRR SIMD: list entries over N from which the whole system is predicted (NBODY6's NPACT)"},
    {"NBODY6C_PRED_OWNED", 0, "64,16384",
     "GPUIRR SIMD: MIN,MAX list entries of a block predicted by every thread for its own slots; 0,0: "
     "never"},
    {"NBODY6C_HOLD_SEND", 1, "1",
     "2: the held hand-over (a block's members to GPUNB, held, while the GPU computes its regular "
     "force) in every block with a regular member, not only where the new-list irregular force is "
     "on the GPU"},
    {"NBODY6C_IRR_GPU_ANY", 1, "0",
     "1: the GPU irregular-force path (resident lists) with any GPUNB backend, so the CPU tests "
     "cover it"},
    {"NBODY6C_GPU_FP64", 1, "0", "1: the CUDA kernels in double precision (checks of the two-float sums)"},
    {"NBODY6C_REVERSE_MEMBERS", 1, "0",
     "1: the block step's corrector loops take the members in reverse order (a run must not change)"},
    {"NBODY6C_FAULT", 1, "none",
     "KIND@K[,KIND@K]: the K-th and later durable writes of KIND (checkpoint, snapshot) fail"},
};
const int tuning_nswitches = (int)(sizeof tuning_switches / sizeof tuning_switches[0]);

static const char *env(const char *name)
{
    const char *e = getenv(name);
    return e && *e ? e : NULL;
}

static int env_int(const char *name)
{
    const char *e = env(name);
    return e ? atoi(e) : TUNING_UNSET;
}

tuning tuning_read(void)
{
    tuning t;
    memset(&t, 0, sizeof t);
    t.hold_send = env_int("NBODY6C_HOLD_SEND");
    t.irr_gpu_min = env_int("NBODY6C_IRR_GPU_MIN");
    t.irr_gpu_any = env_int("NBODY6C_IRR_GPU_ANY");
    t.reverse_members = env_int("NBODY6C_REVERSE_MEMBERS");
    const char *e = getenv("NBODY6C_NPACT");
    double f;
    t.npact = e && sscanf(e, "%lf", &f) == 1 && f > 0 ? f : 0.0;
    e = getenv("NBODY6C_PRED_OWNED");
    t.pred_owned_set = e && sscanf(e, "%ld,%ld", &t.pred_owned_min, &t.pred_owned_max) == 2;
    t.ngpu = env_int("NBODY6C_NGPU");
    t.gpu_blocks = env_int("NBODY6C_GPU_BLOCKS");
    t.gpu_fp64 = env_int("NBODY6C_GPU_FP64");
    t.setjp_eager = env_int("NBODY6C_SETJP_EAGER");
    t.gpunb_trace = env_int("NBODY6C_GPUNB_TRACE");
    t.fault = env("NBODY6C_FAULT");
    return t;
}

void tuning_describe(char *buf, size_t len)
{
    size_t at = 0;
    if (len) buf[0] = '\0';
    for (int k = 0; k < tuning_nswitches; k++) {
        const char *v = getenv(tuning_switches[k].name);
        if (!v || !*v || at >= len) continue;
        int w = snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", tuning_switches[k].name, v);
        if (w > 0) at += (size_t)w;
    }
    if (at == 0) snprintf(buf, len, "none");
}
