/* gpunb_cpu_lanes.h — the start-up derivatives (docs/ALGORITHMS.md §7) and the
 * potentials (per body, and the upper triangle's rows) of the "cpu-ref" backend for up to FPOLY_LANES i-bodies at
 * once, one i-body per lane, so that a compiler vectorises across i.  Each lane runs the scalar
 * formula's operations in the same order over j ascending (plain IEEE
 * multiplies, adds, divides and square roots, no contraction: the build's
 * -ffp-contract=off), so every build of this code, SIMD or not, gives each
 * body the same bits.  Included by gpunb_cpu.c (baseline instruction set)
 * and gpunb_cpu_lanes_avx512.c (AVX-512: eight doubles a vector). */
#ifndef NBODY6C_GPUNB_CPU_FPOLY_H
#define NBODY6C_GPUNB_CPU_FPOLY_H

#include <math.h>

enum { FPOLY_LANES = 8 };

/* The j-bodies: predicted x, v; a, jerk at t0 (physical); masses. */
typedef struct fpoly_src {
    const double (*xp)[3], (*vp)[3], (*a0)[3], (*j0)[3];
    const double *m;
    int jbeg, jend;
} fpoly_src;

/* The i-bodies of one batch, by lane: slot (excluded from the sums),
 * neighbour parameters, state. */
typedef struct fpoly_lanes {
    int n;                                     /* lanes in use, 1..FPOLY_LANES */
    int self[FPOLY_LANES];
    double h2[FPOLY_LANES], dtr[FPOLY_LANES];
    double x[3][FPOLY_LANES], v[3][FPOLY_LANES], a[3][FPOLY_LANES], j[3][FPOLY_LANES];
} fpoly_lanes;

/* Second and third derivatives, split irregular (j a neighbour of i by the
 * contract of gpunb.h) and regular, by lane. */
typedef struct fpoly_out {
    double d2i[3][FPOLY_LANES], d3i[3][FPOLY_LANES], d2r[3][FPOLY_LANES], d3r[3][FPOLY_LANES];
} fpoly_out;

/* nl: the lanes computed (FPOLY_LANES for a vector build, which costs the
 * same; L->n for the scalar baseline, which need not compute spare lanes). */
static inline void fpoly_lanes_run(const fpoly_src *c, const fpoly_lanes *L, fpoly_out *o, int nl)
{
    double s2i[3][FPOLY_LANES], s3i[3][FPOLY_LANES], s2r[3][FPOLY_LANES], s3r[3][FPOLY_LANES];
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < FPOLY_LANES; l++) s2i[k][l] = s3i[k][l] = s2r[k][l] = s3r[k][l] = 0.0;
    for (int j = c->jbeg; j < c->jend; j++) {
        const double xj0 = c->xp[j][0], xj1 = c->xp[j][1], xj2 = c->xp[j][2];
        const double vj0 = c->vp[j][0], vj1 = c->vp[j][1], vj2 = c->vp[j][2];
        const double aj0 = c->a0[j][0], aj1 = c->a0[j][1], aj2 = c->a0[j][2];
        const double jj0 = c->j0[j][0], jj1 = c->j0[j][1], jj2 = c->j0[j][2];
        const double mj = c->m[j];
#pragma omp simd
        for (int l = 0; l < nl; l++) {
            const double r0 = xj0 - L->x[0][l], r1 = xj1 - L->x[1][l], r2_ = xj2 - L->x[2][l];
            const double v0 = vj0 - L->v[0][l], v1 = vj1 - L->v[1][l], v2_ = vj2 - L->v[2][l];
            const double A0 = aj0 - L->a[0][l], A1 = aj1 - L->a[1][l], A2 = aj2 - L->a[2][l];
            const double J0 = jj0 - L->j[0][l], J1 = jj1 - L->j[1][l], J2 = jj2 - L->j[2][l];
            const double r2 = r0 * r0 + r1 * r1 + r2_ * r2_;
            /* the pair's terms (docs/ALGORITHMS.md §7), in the scalar code's operation order */
            const double rinv2 = 1.0 / (r0 * r0 + r1 * r1 + r2_ * r2_);
            const double mr3 = mj * rinv2 * sqrt(rinv2);
            const double rv = r0 * v0 + r1 * v1 + r2_ * v2_;
            const double v2 = v0 * v0 + v1 * v1 + v2_ * v2_;
            const double rA = r0 * A0 + r1 * A1 + r2_ * A2;
            const double vA = v0 * A0 + v1 * A1 + v2_ * A2;
            const double rJ = r0 * J0 + r1 * J1 + r2_ * J2;
            const double alpha = rv * rinv2;
            const double beta = (v2 + rA) * rinv2 + alpha * alpha;
            const double gamma = (3.0 * vA + rJ) * rinv2 + alpha * (3.0 * beta - 4.0 * alpha * alpha);
            const double w0 = v0 - 3.0 * alpha * r0, w1 = v1 - 3.0 * alpha * r1, w2 = v2_ - 3.0 * alpha * r2_;
            const double d2[3] = {mr3 * (A0 - 6.0 * alpha * w0 - 3.0 * beta * r0),
                                  mr3 * (A1 - 6.0 * alpha * w1 - 3.0 * beta * r1),
                                  mr3 * (A2 - 6.0 * alpha * w2 - 3.0 * beta * r2_)};
            const double d3[3] = {mr3 * (J0 - 9.0 * beta * w0 - 3.0 * gamma * r0) - 9.0 * alpha * d2[0],
                                  mr3 * (J1 - 9.0 * beta * w1 - 3.0 * gamma * r1) - 9.0 * alpha * d2[1],
                                  mr3 * (J2 - 9.0 * beta * w2 - 3.0 * gamma * r2_) - 9.0 * alpha * d2[2]};
            /* the neighbour contract (gpunb_cpu.c's is_neighbour) */
            const double px = r0 + L->dtr[l] * v0, py = r1 + L->dtr[l] * v1, pz = r2_ + L->dtr[l] * v2_;
            const double p2 = px * px + py * py + pz * pz;
            const double rmin2 = p2 < r2 ? p2 : r2;
            const int other = j != L->self[l];
            const int nb = other & (rmin2 < mj * L->h2[l]), reg = other & !nb;
            /* selected, not added as zero: the sums keep the scalar loop's bits */
            for (int k = 0; k < 3; k++) {
                s2i[k][l] = nb ? s2i[k][l] + d2[k] : s2i[k][l];
                s3i[k][l] = nb ? s3i[k][l] + d3[k] : s3i[k][l];
                s2r[k][l] = reg ? s2r[k][l] + d2[k] : s2r[k][l];
                s3r[k][l] = reg ? s3r[k][l] + d3[k] : s3r[k][l];
            }
        }
    }
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < FPOLY_LANES; l++) {
            o->d2i[k][l] = s2i[k][l];
            o->d3i[k][l] = s3i[k][l];
            o->d2r[k][l] = s2r[k][l];
            o->d3r[k][l] = s3r[k][l];
        }
}

/* The potential sum_j m_j / r_ij (j != i) of the bodies i0 .. i0 + n - 1
 * of (m, x) (n <= FPOLY_LANES; nl lanes computed, as above), each row summed in ascending j with
 * Neumaier's compensation: the branch of the scalar loop is a select of
 * the same two expressions. */
static inline void pot_lanes_run(int nall, const double *m, const double (*x)[3], int i0, int n, double *pot,
                                 int nl)
{
    double xi[3][FPOLY_LANES], sum[FPOLY_LANES], comp[FPOLY_LANES];
    int self[FPOLY_LANES];
    for (int l = 0; l < FPOLY_LANES; l++) {
        const int i = i0 + (l < n ? l : 0); /* spare lanes repeat the first body */
        self[l] = i;
        for (int e = 0; e < 3; e++) xi[e][l] = x[i][e];
        sum[l] = comp[l] = 0.0;
    }
    for (int j = 0; j < nall; j++) {
        const double xj0 = x[j][0], xj1 = x[j][1], xj2 = x[j][2], mj = m[j];
#pragma omp simd
        for (int l = 0; l < nl; l++) {
            const double dx = xj0 - xi[0][l], dy = xj1 - xi[1][l], dz = xj2 - xi[2][l];
            const double term = mj / sqrt(dx * dx + dy * dy + dz * dz);
            const double t = sum[l] + term;
            const double c = fabs(sum[l]) >= fabs(term) ? (sum[l] - t) + term : (term - t) + sum[l];
            const int other = j != self[l];
            comp[l] = other ? comp[l] + c : comp[l];
            sum[l] = other ? t : sum[l];
        }
    }
    for (int l = 0; l < n; l++) pot[l] = sum[l] + comp[l];
}

/* The upper-triangle rows sum_{j > i} m_j / r_ij of the bodies i0 .. i0 +
 * n - 1 (n <= FPOLY_LANES; nl lanes computed, as above), each a plain sum
 * from 0 in ascending j: the scalar loop of gpunb_pot_rows's contract, the
 * terms with j <= i selected away. */
static inline void pot_rows_lanes_run(int nall, const double *m, const double (*x)[3], int i0, int n,
                                      double *row, int nl)
{
    double xi[3][FPOLY_LANES], sum[FPOLY_LANES];
    int self[FPOLY_LANES];
    for (int l = 0; l < FPOLY_LANES; l++) {
        const int i = i0 + (l < n ? l : 0); /* spare lanes repeat the first body */
        self[l] = i;
        for (int e = 0; e < 3; e++) xi[e][l] = x[i][e];
        sum[l] = 0.0;
    }
    for (int j = i0 + 1; j < nall; j++) {
        const double xj0 = x[j][0], xj1 = x[j][1], xj2 = x[j][2], mj = m[j];
#pragma omp simd
        for (int l = 0; l < nl; l++) {
            const double dx = xj0 - xi[0][l], dy = xj1 - xi[1][l], dz = xj2 - xi[2][l];
            const double term = mj / sqrt(dx * dx + dy * dy + dz * dz);
            sum[l] = j > self[l] ? sum[l] + term : sum[l];
        }
    }
    for (int l = 0; l < n; l++) row[l] = sum[l];
}

/* The AVX-512 builds of fpoly_lanes_run, pot_lanes_run and
 * pot_rows_lanes_run (gpunb_cpu_lanes_avx512.c); call only where the CPU
 * has AVX-512F. */
void gpunb_cpu_fpoly_lanes_avx512(const fpoly_src *c, const fpoly_lanes *L, fpoly_out *o);
void gpunb_cpu_pot_lanes_avx512(int nall, const double *m, const double (*x)[3], int i0, int n, double *pot);
void gpunb_cpu_pot_rows_lanes_avx512(int nall, const double *m, const double (*x)[3], int i0, int n, double *row);

#endif
