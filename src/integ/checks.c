/* checks.c — energies and structure of the cluster at a check time
 * (docs/ALGORITHMS.md §8, §9).  Sums run in a fixed order (serially over per-body
 * terms computed in parallel) so that the result does not depend on the
 * number of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "integ/checks.h"
#include "evol/evol.h"
#include "reg/ks.h"
#include "common/predict.h"

const double lagr_fractions[NLAGR] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.625, 0.75, 0.9};

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Neumaier's compensated sum: the energy must resolve errors of 1e-9 and below. */
typedef struct { double s, c; } ksum;
static void ksum_add(ksum *k, double x)
{
    double t = k->s + x;
    if (fabs(k->s) >= fabs(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}

static void energies(sim *s, const vec3 *x, const vec3 *v, diag *d)
{
    int i0 = s->ifirst, nb = s->ntot - s->ifirst;
    double ebin = 0.0;
    ksum w = {0, 0}, t = {0, 0};
    const double w0 = omp_get_wtime();
    if (ks_needs_correction(s)) {
        /* KS (§8): the pairs and the chain as the forces model them, EBIN
         * and the chain's internal energy apart (ks.h); a chain with no KS
         * pair beside it needs this too (measured as a point mass, its
         * binding energy was left out: +0.1 of E on plummer-imf-1024) */
        ksum_add(&w, ks_measure_potential(s, (const double(*)[3])x, &ebin));
    } else {
        double *pot = malloc(sizeof(double) * nb);
        gpunb_pot(s->nb, nb, s->m + i0, (const double(*)[3])(x + i0), pot);
        for (int k = 0; k < nb; k++) ksum_add(&w, -0.5 * s->m[i0 + k] * pot[k]);
        free(pot);
    }
    s->ptm.checks_pot += omp_get_wtime() - w0;
    ksum et = {0, 0}; /* KZ(14): the tidal potential energy of singles and c.m. bodies */
    for (int k = 0; k < nb; k++) {
        int i = i0 + k;
        ksum_add(&t, 0.5 * s->m[i] * dot3(v[i], v[i]));
        if (tide_on(&s->tide)) ksum_add(&et, tide_potential_energy(&s->tide, s->m[i], x[i]));
    }
    d->kin = t.s + t.c;
    d->pot = w.s + w.c;
    d->etide = et.s + et.c;
    d->rtide = tide_radius(&s->tide, s->mtot);
    d->etot = d->kin + d->pot + d->etide + ebin + ks_energy_booked(s) + ks_energy_merged(s) + s->e_escaped +
              evol_booked(s);
    d->qvir = d->pot != 0.0 ? d->kin / fabs(d->pot) : 0.0;
    s->rscale = 0.5 * s->mtot * s->mtot / fabs(d->pot);
    if (d->etot < 0.0) s->tcr = pow(s->mtot, 2.5) / pow(-2.0 * d->etot, 1.5);
}

/* Local density from the 6 nearest list members: rho = m(5 nearest)/r6^3. */
static double local_density(const sim *s, const vec3 *x, int i)
{
    int nnb = s->nnb[i];
    if (nnb < 6) return 0.0;
    const int *L = sim_list(s, i);
    double r2[6];
    int who[6], n = 0;
    for (int q = 0; q < nnb; q++) {
        int j = L[q];
        double dx[3] = {x[j][0] - x[i][0], x[j][1] - x[i][1], x[j][2] - x[i][2]};
        double d2 = dot3(dx, dx);
        if (n < 6 || d2 < r2[n - 1]) {
            int p = n < 6 ? n++ : 5;
            while (p > 0 && r2[p - 1] > d2) {
                r2[p] = r2[p - 1];
                who[p] = who[p - 1];
                p--;
            }
            r2[p] = d2;
            who[p] = j;
        }
    }
    double m5 = 0.0;
    for (int q = 0; q < 5; q++) m5 += s->m[who[q]];
    return m5 / (r2[5] * sqrt(r2[5]));
}

static void density_centre(sim *s, const vec3 *x, const vec3 *v, diag *d, int first)
{
    int i0 = s->ifirst, nb = s->ntot - s->ifirst;
    double rcore2 = first ? s->rscale * s->rscale : fmax(9.0 * s->rc2, s->rscale * s->rscale);
    double *rho = calloc(nb, sizeof(double));
    int *cand = malloc(sizeof(int) * nb);
    int nc;
    for (;;) { /* widen until a fifth of the bodies take part */
        nc = 0;
        for (int k = 0; k < nb; k++) {
            int i = i0 + k;
            double dx[3] = {x[i][0] - s->xd[0], x[i][1] - s->xd[1], x[i][2] - s->xd[2]};
            if (dot3(dx, dx) < rcore2) cand[nc++] = i;
        }
        if (nc >= nb / 5 || nc == nb) break;
        rcore2 *= 1.5 * 1.5;
    }
#pragma omp parallel for schedule(static)
    for (int q = 0; q < nc; q++) rho[q] = local_density(s, x, cand[q]);
    double srho = 0.0, sx[3] = {0, 0, 0};
    for (int q = 0; q < nc; q++) {
        srho += rho[q];
        for (int c = 0; c < 3; c++) sx[c] += rho[q] * x[cand[q]][c];
    }
    double rs3 = s->rscale * s->rscale * s->rscale;
    double norm = fmax(srho, s->mtot / rs3);
    for (int c = 0; c < 3; c++) s->xd[c] = sx[c] / norm;
    double srho2 = 0.0, sr2 = 0.0;
    for (int q = 0; q < nc; q++) {
        int i = cand[q];
        double dx[3] = {x[i][0] - s->xd[0], x[i][1] - s->xd[1], x[i][2] - s->xd[2]};
        srho2 += rho[q] * rho[q];
        sr2 += rho[q] * rho[q] * dot3(dx, dx);
    }
    s->rc2 = srho2 > 0.0 ? sr2 / srho2 : s->rscale * s->rscale;
    /* KS (KZ(16)): core density sum rho^2/sum rho in units of M/RSCALE^3 */
    s->rhod = srho > 0.0 ? srho2 / srho * rs3 / s->mtot : 0.0;
    s->rc = sqrt(s->rc2);
    int ncore = 0;
    double sv2 = 0.0;
    for (int k = 0; k < nb; k++) {
        int i = i0 + k;
        double dx[3] = {x[i][0] - s->xd[0], x[i][1] - s->xd[1], x[i][2] - s->xd[2]};
        if (dot3(dx, dx) < s->rc2) {
            ncore++;
            sv2 += dot3(v[i], v[i]);
        }
    }
    s->nc = ncore > 2 ? ncore : 2;
    s->vc = ncore > 0 ? sqrt(sv2 / ncore) : 0.0;
    memcpy(d->xd, s->xd, sizeof d->xd);
    d->rc = s->rc;
    d->nc = s->nc;
    d->vc = s->vc;
    free(rho);
    free(cand);
}

typedef struct { double r2, m; int i; } rm;
static int cmp_rm(const void *a, const void *b)
{
    double x = ((const rm *)a)->r2, y = ((const rm *)b)->r2;
    return (x > y) - (x < y);
}

/* The mass within r_J = (M_b / TIDAL(1))^(1/3): from the whole mass down
 * to the fixed point (r_J shrinks with M_b, so the sequence falls). */
static int jacobi_bound(const sim *s, const rm *r, const double *mcum, int nb)
{
    double mb = mcum[nb - 1];
    int k = nb;
    for (int it = 0; it < 200; it++) {
        const double rj = tide_radius(&s->tide, mb);
        while (k > 0 && r[k - 1].r2 > rj * rj) k--;
        const double next = k > 0 ? mcum[k - 1] : 0.0;
        if (next == mb) break;
        mb = next;
    }
    return k; /* the first k bodies by radius are bound */
}

/* Bound mass and its velocity dispersion (diag's comment); r sorted by
 * radius from the density centre, mcum its running mass. */
static void bound_mass(const sim *s, const vec3 *v, const rm *r, const double *mcum, int nb,
                       diag *d)
{
    unsigned char *bound = calloc((size_t)nb, 1);
    double vm[3] = {0, 0, 0};
    for (int k = 0; k < nb; k++)
        for (int c = 0; c < 3; c++) vm[c] += r[k].m * v[r[k].i][c];
    for (int c = 0; c < 3; c++) vm[c] /= mcum[nb - 1];
    if (tide_on(&s->tide)) {
        const int kb = jacobi_bound(s, r, mcum, nb);
        for (int k = 0; k < kb; k++) bound[k] = 1;
    } else {
        /* phi(r_k) = -M(< r_k)/r_k - sum over the bodies outside of m/r */
        double outer = 0.0;
        for (int k = nb - 1; k >= 0; k--) {
            const double rk = sqrt(r[k].r2);
            const double phi = rk > 0.0 ? -(mcum[k] - r[k].m) / rk - outer : -INFINITY;
            const double *vi = v[r[k].i];
            const double dv[3] = {vi[0] - vm[0], vi[1] - vm[1], vi[2] - vm[2]};
            bound[k] = 0.5 * dot3(dv, dv) + phi < 0.0;
            if (rk > 0.0) outer += r[k].m / rk;
        }
    }
    double mb = 0.0, mv[3] = {0, 0, 0}, mv2 = 0.0;
    for (int k = 0; k < nb; k++) {
        if (!bound[k]) continue;
        const double *vi = v[r[k].i];
        mb += r[k].m;
        for (int c = 0; c < 3; c++) mv[c] += r[k].m * vi[c];
        mv2 += r[k].m * dot3(vi, vi);
    }
    d->mbound = mb;
    d->sigma = mb > 0.0 ? sqrt(fmax(mv2 / mb - dot3(mv, mv) / (mb * mb), 0.0)) : 0.0;
    free(bound);
}

static void lagrangian_radii(const sim *s, const vec3 *x, const vec3 *v, diag *d)
{
    int i0 = s->ifirst, nb = s->ntot - s->ifirst;
    rm *r = malloc(sizeof(rm) * nb);
    double *mcum = malloc(sizeof(double) * nb);
    for (int k = 0; k < nb; k++) {
        int i = i0 + k;
        double dx[3] = {x[i][0] - s->xd[0], x[i][1] - s->xd[1], x[i][2] - s->xd[2]};
        r[k].r2 = dot3(dx, dx);
        r[k].m = s->m[i];
        r[k].i = i;
    }
    qsort(r, nb, sizeof(rm), cmp_rm);
    double mc = 0.0;
    int f = 0;
    for (int k = 0; k < nb; k++) {
        mc += r[k].m;
        mcum[k] = mc;
        while (f < NLAGR && mc >= lagr_fractions[f] * s->mtot) d->rlagr[f++] = sqrt(r[k].r2);
    }
    while (f < NLAGR) d->rlagr[f++] = sqrt(r[nb - 1].r2);
    bound_mass(s, v, r, mcum, nb, d);
    free(mcum);
    free(r);
}

static void binary_counts(sim *s, diag *d)
{
    ks_binary *b;
    const int n = ks_binaries(s, &b);
    const double ebh = ks_hard_energy(s);
    d->nbin = n > 0 ? n : 0;
    d->nbin_hard = 0;
    for (int k = 0; k < n; k++) d->nbin_hard += b[k].eb < ebh;
    free(b);
}

double checks_energy(sim *s)
{
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    diag d;
    ks_advance(s, s->time);
    ks_chain_sync(s, s->time, NULL, -1);
    sim_predict_all(s, x, v);
    energies(s, x, v, &d);
    free(x);
    free(v);
    return d.etot;
}

void checks_measure(sim *s, diag *d, int first)
{
    const double w0 = omp_get_wtime();
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    ks_advance(s, s->time); /* KS: every pair within one step of the check time */
    ks_chain_sync(s, s->time, NULL, -1);
    sim_predict_all(s, x, v);
    d->t = s->time;
    energies(s, x, v, d);
    density_centre(s, x, v, d, first);
    lagrangian_radii(s, x, v, d);
    long sum = 0;
    for (int i = s->ifirst; i < s->ntot; i++) sum += s->nnb[i];
    d->nbmean = (double)sum / (s->ntot - s->ifirst);
    free(x);
    free(v);
    binary_counts(s, d);
    s->ptm.checks += omp_get_wtime() - w0;
    s->ptm.nchecks++;
}
