/* tuning.h — every NBODY6C_* environment switch, in one list: the names,
 * what each does, and one reader for all of them.
 *
 * The tuning switches choose between ways of computing the same forces; their
 * defaults were measured (docs/notes/benchmarks-history.md).  Test hooks exist for the
 * tests only: they make a run fail on purpose, take a path the run would not
 * take on this machine, or change the GPU's arithmetic.
 * README.md's table "Environment switches" lists the same names
 * (tests/test_tuning.c checks it against tuning_switches).
 *
 * tuning_read() reads the environment each time it is called; each module
 * calls it where it sets itself up (a library's open, the block step's
 * scratch), so a test may set a switch before the module it steers opens. */
#ifndef NBODY6C_TUNING_H
#define NBODY6C_TUNING_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An integer switch that is not set (absent or empty): the module's default. */
#define TUNING_UNSET INT_MIN

typedef struct tuning {
    /* the block step (integ/block.c) and forces of given bodies (core/forces.c) */
    int hold_send;        /* NBODY6C_HOLD_SEND */
    int irr_gpu_min;      /* NBODY6C_IRR_GPU_MIN */
    int irr_gpu_any;      /* NBODY6C_IRR_GPU_ANY (test hook) */
    int reverse_members;  /* NBODY6C_REVERSE_MEMBERS (test hook) */
    /* GPUIRR's SIMD backend (gpuirr/gpuirr_simd.c) */
    double npact;         /* NBODY6C_NPACT; 0: not set */
    int pred_owned_set;   /* NBODY6C_PRED_OWNED=MIN,MAX given */
    long pred_owned_min, pred_owned_max;
    /* GPUNB's CUDA backend (gpunb/gpunb_cuda.cu) */
    int ngpu;             /* NBODY6C_NGPU */
    int gpu_blocks;       /* NBODY6C_GPU_BLOCKS */
    int gpu_fp64;         /* NBODY6C_GPU_FP64 (test hook) */
    int setjp_eager;      /* NBODY6C_SETJP_EAGER */
    int gpunb_trace;      /* NBODY6C_GPUNB_TRACE */
    /* durable writes (io/durable.c) */
    const char *fault;    /* NBODY6C_FAULT (test hook); NULL: not set */
} tuning;

typedef struct tuning_switch {
    const char *name;     /* NBODY6C_... */
    int test_hook;        /* 1: for the tests only */
    const char *dflt;     /* the default, in words */
    const char *what;     /* what it sets */
} tuning_switch;

extern const tuning_switch tuning_switches[];
extern const int tuning_nswitches;

/* The switches as the environment sets them now. */
tuning tuning_read(void);

/* The switches that are set, "NAME=value NAME=value", or "none" (for
 * log.txt's header and summary.json). */
void tuning_describe(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
