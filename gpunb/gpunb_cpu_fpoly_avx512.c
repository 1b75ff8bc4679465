/* gpunb_cpu_fpoly_avx512.c — fpoly_lanes_run (gpunb_cpu_fpoly.h) compiled
 * for AVX-512: the eight lanes of a batch in one vector of doubles.  The
 * same source as the baseline build, so the same bits. */
#include "gpunb_cpu_fpoly.h"

void gpunb_cpu_fpoly_lanes_avx512(const fpoly_src *c, const fpoly_lanes *L, fpoly_out *o)
{
    fpoly_lanes_run(c, L, o);
}
