/* gpunb_cpu_lanes_avx512.c — fpoly_lanes_run, pot_lanes_run and
 * pot_rows_lanes_run (gpunb_cpu_lanes.h) compiled for AVX-512: the eight lanes of a batch in
 * one vector of doubles.  The
 * same source as the baseline build, so the same bits. */
#include "gpunb/gpunb_cpu_lanes.h"

void gpunb_cpu_fpoly_lanes_avx512(const fpoly_src *c, const fpoly_lanes *L, fpoly_out *o)
{
    fpoly_lanes_run(c, L, o, FPOLY_LANES);
}

void gpunb_cpu_pot_lanes_avx512(int nall, const double *m, const double (*x)[3], int i0, int n, double *pot)
{
    pot_lanes_run(nall, m, x, i0, n, pot, FPOLY_LANES);
}

void gpunb_cpu_pot_rows_lanes_avx512(int nall, const double *m, const double (*x)[3], int i0, int n, double *row)
{
    pot_rows_lanes_run(nall, m, x, i0, n, row, FPOLY_LANES);
}
