/* scale.c — energies by direct summation and the scaling to standard N-body
 * units (G = 1, M = 1, E = -1/4, centre of mass at rest at the origin), in
 * NBODY6's order: masses, centre of mass, virial ratio, then energy.
 *
 * The potential is summed in a fixed order whatever computes it: each row i
 * (the sum of m_j/r_ij over j > i, j ascending, gpunb_pot_rows's contract)
 * is summed alone, the rows are added serially in i order; so the scaled
 * bodies depend neither on OMP_NUM_THREADS nor on the GPUNB backend that
 * summed the rows (the GPU at large N: the N^2/2 pairs are most of a big
 * model's set-up on the host). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ic/ic.h"

typedef struct {
    double x[3];
    int k;
} placed;

static int cmp_placed(const void *a, const void *b)
{
    const placed *p = a, *q = b;
    for (int c = 0; c < 3; c++)
        if (p->x[c] != q->x[c])
            return (p->x[c] > q->x[c]) - (p->x[c] < q->x[c]);
    return (p->k > q->k) - (p->k < q->k);
}

/* Sorting by position puts equal positions side by side: O(n log n), where
 * comparing every pair would cost a big file's read minutes. */
int ic_find_coincident(int n, const double (*x)[3], int *a, int *b)
{
    if (n < 2)
        return 0;
    placed *p = malloc(sizeof(placed) * (size_t)n);
    if (!p)
        return -1;
    for (int k = 0; k < n; k++) {
        for (int c = 0; c < 3; c++)
            p[k].x[c] = x[k][c];
        p[k].k = k;
    }
    qsort(p, (size_t)n, sizeof *p, cmp_placed);
    int found = 0;
    for (int k = 1; k < n && !found; k++)
        if (p[k].x[0] == p[k - 1].x[0] && p[k].x[1] == p[k - 1].x[1] &&
            p[k].x[2] == p[k - 1].x[2]) {
            *a = p[k - 1].k; /* the lower index: the same position sorts by k */
            *b = p[k].k;
            found = 1;
        }
    free(p);
    return found;
}

double ic_kinetic(int n, const double *m, const double (*v)[3])
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += m[i] * (v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]);
    return 0.5 * t;
}

static double potential_row(int n, int i, const double *m, const double (*x)[3])
{
    double s = 0.0;
    for (int j = i + 1; j < n; j++) {
        const double dx = x[j][0] - x[i][0], dy = x[j][1] - x[i][1], dz = x[j][2] - x[i][2];
        s += m[j] / sqrt(dx * dx + dy * dy + dz * dz);
    }
    return s;
}

double ic_potential_nb(gpunb *nb, int n, const double *m, const double (*x)[3])
{
    double w = 0.0;
    double *row = malloc((size_t)(n > 0 ? n : 1) * sizeof *row);
    if (!row) { /* same order of operations, one thread */
        for (int i = 0; i < n; i++)
            w += m[i] * potential_row(n, i, m, x);
        return -w;
    }
    if (nb) {
        gpunb_pot_rows(nb, n, m, x, row);
    } else {
        /* Rows shrink with i: dynamic chunks balance the triangle. */
#pragma omp parallel for schedule(dynamic, 64)
        for (int i = 0; i < n; i++)
            row[i] = potential_row(n, i, m, x);
    }
    for (int i = 0; i < n; i++)
        w += m[i] * row[i];
    free(row);
    return -w;
}

double ic_potential(int n, const double *m, const double (*x)[3])
{
    return ic_potential_nb(NULL, n, m, x);
}

static void normalise_masses(int n, double *m)
{
    double mt = 0.0; /* summed again in the same order: the same total */
    for (int i = 0; i < n; i++)
        mt += m[i];
    for (int i = 0; i < n; i++)
        m[i] /= mt;
}

/* Total mass is 1 here, so the c.m. is the plain mass-weighted sum. */
static void centre_on_mass(int n, const double *m, double (*x)[3], double (*v)[3])
{
    double xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            xc[k] += m[i] * x[i][k];
            vc[k] += m[i] * v[i][k];
        }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            x[i][k] -= xc[k];
            v[i][k] -= vc[k];
        }
}

static void scale_arrays(int n, double (*a)[3], double f)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            a[i][k] *= f;
}

/* Lengths times s and velocities over sqrt(s) divide both T and W by s, so
 * s = E / (-1/4) brings the energy to -1/4 and keeps the virial ratio. */
static void scale_to_energy(int n, double (*x)[3], double (*v)[3], double e)
{
    const double s = e / -0.25;
    scale_arrays(n, x, s);
    scale_arrays(n, v, 1.0 / sqrt(s));
}

/* Edge cases: n < 2 has no potential energy: a single body ends at rest at
 * the origin with mass 1.  Bodies all at rest (T = 0) cannot be given a
 * virial ratio: they stay at rest and are treated as a cold start
 * (E = W = -1/4).  Refused (nonzero, message in err when err is not NULL),
 * with the bodies left as far as the scaling got: a total mass that is not
 * positive and finite; a potential energy that is not finite and negative
 * (coincident bodies); q outside [0, 1), where E = T + W >= 0 and no length
 * scale gives -1/4 (only the velocities have been scaled then). */
int scale_standard_nb(gpunb *nb, int n, double *m, double (*x)[3], double (*v)[3], double q,
                      char *err, size_t errlen)
{
    if (n <= 0)
        return 0;
    double mt = 0.0;
    for (int i = 0; i < n; i++)
        mt += m[i];
    if (!(mt > 0.0 && isfinite(mt))) {
        if (err)
            snprintf(err, errlen, "total mass %g: cannot scale to M = 1", mt);
        return 1;
    }
    normalise_masses(n, m);
    centre_on_mass(n, m, x, v);
    if (n < 2)
        return 0;
    const double w = ic_potential_nb(nb, n, m, (const double (*)[3])x);
    if (!(w < 0.0) || !isfinite(w)) {
        if (err)
            snprintf(err, errlen, "potential energy %g: bodies at the same position?", w);
        return 1;
    }
    double t = ic_kinetic(n, m, (const double (*)[3])v);
    if (q > 0.0 && t > 0.0) {
        scale_arrays(n, v, sqrt(q * -w / t));
        t = q * -w;
    } else {
        for (int i = 0; i < n; i++)
            v[i][0] = v[i][1] = v[i][2] = 0.0;
        t = 0.0;
    }
    const double e = t + w;
    if (!(e < 0.0)) {
        if (err)
            snprintf(err, errlen, "Q = %g gives E = %g >= 0: cannot scale to E = -1/4", q, e);
        return 1;
    }
    scale_to_energy(n, x, v, e);
    return 0;
}

int scale_standard_checked(int n, double *m, double (*x)[3], double (*v)[3], double q,
                           char *err, size_t errlen)
{
    return scale_standard_nb(NULL, n, m, x, v, q, err, errlen);
}

void scale_standard(int n, double *m, double (*x)[3], double (*v)[3], double q)
{
    (void)scale_standard_checked(n, m, x, v, q, NULL, 0);
}
