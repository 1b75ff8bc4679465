/* gpunb_cuda.h — what the CUDA backend of GPUNB exposes beyond gpunb.h:
 * counters for tests and benchmarks (how often a j-slice's partial
 * neighbour list filled and the call was redone with a bigger buffer). */
#ifndef NBODY6C_GPUNB_CUDA_H
#define NBODY6C_GPUNB_CUDA_H

#include "gpunb/gpunb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpunb_cuda_stats {
    int ngpu;            /* GPUs in use */
    int fp64;            /* 1: FP64 coordinate differences (NBODY6C_GPU_FP64=1) */
    long regf_calls;     /* gpunb_regf calls */
    long slice_retries;  /* launches redone because a j-slice's list buffer filled */
    int slice_capacity;  /* entries per (slice, i) partial list now */
    /* wall time (s) by phase, on the host: pending set_jp queued outside
     * regf (irrf, fpoly; a regf sends them with its GPUs' work), and of the
     * regf calls: i-bodies packed, the GPUs' work (waited for), results
     * combined */
    double t_flush, t_pack, t_dev, t_combine;
    /* on GPU 0 between CUDA events, only with NBODY6C_GPUNB_TRACE=1 (the
     * events cost a little): prediction, i upload, force kernel, list
     * reduce/scan/gather, copy back */
    double k_predict, k_upload, k_force, k_lists, k_down;
    /* ... and of the regular forces begun by gpunb_regf_begin, [0] of up
     * to 4096 bodies, [1] more: the host's time between the begin and the
     * end, and the end's wait for the first chunk; on GPU 0 how many the end
     * waited for, of those how many had not started their prediction and
     * how many had their force kernel done, and the kernel's GPU time */
    double t_inflight[2], t_rfwait[2], rf_kforce[2];
    long rf_waits[2], rf_unstarted[2], rf_forced[2];
    long irrf_calls;     /* gpunb_irrf calls */
    long irrf_double;    /* bodies summed again in double (a neighbour within r_min) */
    long irrf_members;   /* gpunb_irrf_members calls whose i-bodies GPU 0 predicted itself */
    double t_irrf;       /* wall time (s) of the irrf calls, on the host */
    /* NBODY6C_GPUNB_TRACE: the irrf calls of at most 4096 bodies; the
     * host's queuing (flush, packing, copies and launches), wait and
     * hand-out; GPU 0's set_jp flush, prediction, upload, kernel, copy back
     * (a call of one chunk; several chunks: the upload spans them all) */
    long irr_small;
    double irr_host[3], irr_gpu[5];
} gpunb_cuda_stats;

/* Fills *s and returns 1 when g is the CUDA backend, else returns 0. */
int gpunb_cuda_get_stats(const gpunb *g, gpunb_cuda_stats *s);

#ifdef __cplusplus
}
#endif

#endif
