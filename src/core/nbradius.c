/* nbradius.c — neighbour-radius control (docs/ALGORITHMS.md §5, after NBODY6-GPU's
 * gpucor.f and adjust.f).  The aim is a predicted membership n_p that grows
 * like the square root of the local density, bounded by ZNBMIN and ZNBMAX,
 * with changes limited per step so that lists evolve smoothly. */
#include <math.h>
#include "core/nbradius.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double nbradius_rsfac(const sim *s)
{
    double f = 25.0 / s->tcr;
    if (s->rsmin > 0.0 && s->vc > 0.0) f = fmax(f, 1.5 * s->vc / s->rsmin);
    return f;
}

static double radius_without_neighbours(const sim *s, double rs, const double dx[3],
                                        const double v[3], double r2, double rh2)
{
    if (dot3(dx, v) > 0.0 && r2 > rh2) return fmax(0.75 * rs, 0.1 * s->rscale);
    rs *= 1.1;
    if (rs * rs < 0.01 * rh2) rs *= 2.0;
    return rs;
}

double nbradius_update(const sim *s, int i, int nnb0, double dtr, double rsfac, int overflowed)
{
    double rs = s->rs[i];
    int nnb = s->nnb[i];
    double dx[3] = {s->x0[i][0] - s->xd[0], s->x0[i][1] - s->xd[1], s->x0[i][2] - s->xd[2]};
    const double *v = s->v0[i];
    double r2 = dot3(dx, dx);
    double rh2 = s->rscale * s->rscale;

    if (nnb == 0) return radius_without_neighbours(s, rs, dx, v, r2, rh2);
    if (overflowed) return rs;

    /* predicted membership: square root of the local density */
    double np = fmin(s->alpha * sqrt(nnb * rs) / (rs * rs), s->znbmax);
    if (r2 > rh2)
        np *= s->rscale / sqrt(r2);
    else
        np = fmax(np, s->znbmin);
    double a4 = np / nnb;
    if ((np > nnb0 && np < nnb) || (np < nnb0 && np > nnb)) a4 = sqrt(a4);
    /* outside the core: anticipate the radial motion over the next step */
    if (r2 > s->rc2 && r2 < 9.0 * rh2) a4 *= 1.0 + dot3(dx, v) * dtr / r2;
    double lim = fmin(rsfac * dtr, 0.25);
    if (a4 - 1.0 > lim) a4 = 1.0 + lim;
    if (a4 - 1.0 < -lim) a4 = 1.0 - lim;

    double y = (a4 - 1.0) / 3.0;
    double a1 = 1.0 + y - y * y; /* cube root of the volume ratio */
    if (nnb < s->znbmin && s->znbmin < np && a1 < 1.0) a1 = 1.05;
    if (fabs(a1 - 1.0) > 0.003) {
        if (r2 < rs * rs && rs * rs < 2.0 * r2 && nnb > 5) a1 = sqrt(a1);
        rs *= a1;
    }
    if (rs > s->rc && nnb > s->znbmax && dot3(dx, v) < 0.0)
        rs *= 1.0 - (nnb - s->znbmax) / (3.0 * nnb);
    if (nnb <= 3 && r2 < rh2) rs = fmax(0.1 * s->rscale, 1.1 * rs);
    return rs;
}

double nbradius_alpha0(const sim *s)
{
    double nfield = s->n - s->npairs; /* bodies the field integration sees */
    double r3 = s->rscale * s->rscale * s->rscale;
    return s->p.nnbmax0 * sqrt(0.08 * r3 / nfield);
}

void nbradius_control(sim *s, double nbmean)
{
    switch (s->p.kz40) {
    case 0:
        s->alpha = nbradius_alpha0(s);
        break;
    case 1:
        if (nbmean < s->nnbmax / 4.0)
            s->alpha *= 1.0 + (s->nnbmax / 4.0 - nbmean) / (s->nnbmax / 4.0);
        break;
    default:
        s->alpha *= nbmean < s->nnbmax / 5.0 ? 1.1 : 0.9;
        break;
    }
    if (s->p.kz40 == 3) {
        /* NBZERO sqrt(N/N0): N stays N0 until escapers are removed */
        s->nnbmax = s->p.nnbmax0 * sqrt((double)s->n / s->n);
        s->znbmax = 0.9 * s->nnbmax;
        s->znbmin = fmax(0.2 * s->nnbmax, 1.0);
    }
}
