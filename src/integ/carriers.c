/* carriers.c — the bodies whose steps carried an energy check's error
 * (carriers.h): the step tally of the block step read by name, the bodies
 * found in the layout, their nearest neighbour's orbit at the check. */
#include <math.h>
#include <string.h>
#include "integ/carriers.h"

/* The nearest body on slot i's list at s->time, its distance and the
 * two-body orbit of the two. */
static void nearest(const sim *s, int i, step_carrier *c)
{
    double xi[3], vi[3];
    sim_predict_one(s, i, s->time, xi, vi);
    const int *L = sim_list(s, i);
    double best = INFINITY, dv2 = 0.0, rv = 0.0;
    for (int q = 0; q < s->nnb[i]; q++) {
        int j = L[q];
        double xj[3], vj[3];
        sim_predict_one(s, j, s->time, xj, vj);
        double dx[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
        double dv[3] = {vj[0] - vi[0], vj[1] - vi[1], vj[2] - vi[2]};
        double r2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
        if (r2 >= best) continue;
        best = r2;
        c->nb_name = s->name[j];
        c->nb_m = s->m[j];
        dv2 = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
        rv = dx[0] * dv[0] + dx[1] * dv[1] + dx[2] * dv[2];
    }
    if (!c->nb_name) return;
    double r = sqrt(best), M = c->m + c->nb_m;
    c->nb_r = r;
    double ainv = 2.0 / r - dv2 / M;
    c->nb_a = 1.0 / ainv;
    double e2 = (1.0 - r * ainv) * (1.0 - r * ainv) + rv * rv * ainv / M;
    c->nb_e = sqrt(fmax(e2, 0.0));
}

/* The name with the largest key not taken yet (0: none left above zero):
 * by the regular corrections' work or by the irregular steps. */
static int next_largest(const step_tally *tl, int names, const step_carrier *out, int k, int by_work)
{
    int best = 0;
    double bv = 0.0;
    for (int name = 1; name < names; name++) {
        double v = by_work ? tl[name].wreg : (double)tl[name].nirr;
        if (!(v > bv)) continue;
        int taken = 0;
        for (int c = 0; c < k; c++) taken |= out[c].name == name;
        if (taken) continue;
        bv = v;
        best = name;
    }
    return best;
}

int carriers_top(const sim *s, const block_scratch *b, step_carrier *out, int max, int64_t *nirr,
                 int64_t *nreg, double *wreg)
{
    int names, k = 0;
    const step_tally *tl = block_tally(b, &names);
    *nirr = *nreg = 0;
    *wreg = 0.0;
    for (int name = 1; name < names; name++) {
        *nirr += tl[name].nirr;
        *nreg += tl[name].nreg;
        *wreg += tl[name].wreg;
    }
    /* half by the work of the regular corrections, the rest by steps */
    for (int pass = 0; pass < 2; pass++) {
        int lim = pass == 0 ? (max + 1) / 2 : max;
        while (k < lim) {
            int name = next_largest(tl, names, out, k, pass == 0);
            if (!name) break;
            memset(&out[k], 0, sizeof out[k]);
            out[k].name = name;
            out[k].nirr = tl[name].nirr;
            out[k].nreg = tl[name].nreg;
            out[k].wreg = tl[name].wreg;
            out[k].slot = -1;
            k++;
        }
    }
    for (int i = 0; i < s->ntot; i++) {
        int nm = s->name[i] < 0 ? -s->name[i] : s->name[i];
        for (int c = 0; c < k; c++) {
            if (out[c].name != nm || out[c].slot >= 0) continue;
            out[c].slot = i;
            out[c].m = s->m[i];
            out[c].ks = i < s->ifirst;
            if (!out[c].ks) {
                out[c].dt = s->dt[i];
                out[c].dtr = s->dtr[i];
                out[c].rs = s->rs[i];
                nearest(s, i, &out[c]);
            }
        }
    }
    return k;
}
