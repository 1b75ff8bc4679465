/* chain.c — the AR-chain integrator (chain.h says what it owns and how a
 * caller uses it).
 *
 * Method (Mikkola & Tanikawa 1999; Mikkola & Merritt 2008), in the c.m.
 * frame with chain links X_k, V_k:
 *   drift  D(h): dt = h/(T + B),  X += dt V,  t += dt
 *   kick   K(h): dt = h/U,        V += dt (A + F),  B -= dt sum_i m_i vbar_i.f_i
 * (U = sum m_i m_j/r_ij > 0, A, F the link differences of the internal and
 * external accelerations, vbar the mean velocity over the kick, which makes
 * the B update exact for a kick).  Along the exact solution T + B = U, so
 * both transformations are dt = ds/U; splitting them this way makes each
 * substep explicit and the leapfrog exact for two bodies up to a phase
 * error.  The composed leapfrog of n substeps is symmetric, so its error
 * has an expansion in even powers of h/n: polynomial (Aitken-Neville)
 * extrapolation in (1/n)^2 over n = 1, 2, 3, ... gives high order.
 * Polynomial rather than rational extrapolation: the state is smooth in h
 * (regularised), polynomial extrapolation has no poles to guard against and
 * is what modern GBS codes use (Hairer, Norsett & Wanner's ODEX); the
 * harmonic sequence is the cheapest for a symmetric base method (no
 * smoothing step needs even n).
 *
 * No TTL (the time-transformed leapfrog of Mikkola & Aarseth 2002) here:
 * TTL's point is that U, weighted by m_i m_j, ignores close approaches of
 * very light bodies (test particles, planets).  In a star-cluster chain the
 * masses differ by at most ~10^3, and the extrapolation's error control
 * shortens the step during a light pair's approach anyway (tested with a
 * mass ratio of 500 in test_chain.c); logH keeps the exact Kepler orbit that
 * TTL would give up.  */
#include "reg/chain.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define NL (CHAIN_NMAX - 1)
#define NY_MAX (6 * NL + 2) /* X, V, time increment, B */

/* ---- small vector helpers ------------------------------------------------- */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double norm3(const double a[3])
{
    return sqrt(dot3(a, a));
}

/* ---- what one step needs beside the state -------------------------------- */

typedef struct lf_ctx {
    int n, nl, ny;               /* members, links, state length */
    double mc[CHAIN_NMAX];       /* masses in chain order */
    double mright[NL];           /* mass right of link k over M: x_0 = -sum_k mright_k X_k */
    const int *ord;              /* chain position -> member index */
    chain_perturb_fn f;          /* external acceleration, or NULL */
    void *fctx;
    double tstart;               /* absolute time of the step's start */
    double acm[3];               /* mean external acceleration of the last kick */
    long long kicks;
} lf_ctx;

static void lf_setup(lf_ctx *w, const chain *c, chain_perturb_fn f, void *fctx)
{
    w->n = c->n;
    w->nl = c->n - 1;
    w->ny = 6 * w->nl + 2;
    for (int p = 0; p < c->n; p++) w->mc[p] = c->m[c->ord[p]];
    /* mass right of each link, for the c.m. position of the first member */
    double right = 0.0;
    for (int k = w->nl - 1; k >= 0; k--) {
        right += w->mc[k + 1];
        w->mright[k] = right / c->mtot;
    }
    w->ord = c->ord;
    w->f = f;
    w->fctx = fctx;
    w->tstart = c->t0 + c->tau;
    memset(w->acm, 0, sizeof w->acm);
    w->kicks = 0;
}

/* State vector layout: links X (3 nl), link velocities V (3 nl), the time
 * since the step's start (so that the landing test sees the step's own
 * rounding, not that of the absolute time), B. */
static void pack(const chain *c, double *y)
{
    int nl = c->n - 1;
    memcpy(y, c->X, sizeof(double) * 3 * nl);
    memcpy(y + 3 * nl, c->V, sizeof(double) * 3 * nl);
    y[6 * nl] = 0.0;
    y[6 * nl + 1] = c->B;
}

static void unpack(chain *c, const double *y)
{
    int nl = c->n - 1;
    memcpy(c->X, y, sizeof(double) * 3 * nl);
    memcpy(c->V, y + 3 * nl, sizeof(double) * 3 * nl);
    c->tau += y[6 * nl];
    c->B = y[6 * nl + 1];
}

/* c.m.-frame vectors of the members (chain order) from the links: the
 * member sums are only used where absolute accuracy suffices (kinetic
 * energy, the perturbation, diagnostics); relative vectors of pairs always
 * come from link sums. */
static void cm_vectors(int n, const double *mright, const double (*L)[3], double (*x)[3])
{
    double x0[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < n - 1; k++)
        for (int d = 0; d < 3; d++) x0[d] -= mright[k] * L[k][d];
    memcpy(x[0], x0, sizeof x0);
    for (int p = 1; p < n; p++)
        for (int d = 0; d < 3; d++) x[p][d] = x[p - 1][d] + L[p - 1][d];
}

static double kinetic(const lf_ctx *w, const double (*V)[3])
{
    double v[CHAIN_NMAX][3], t = 0.0;
    cm_vectors(w->n, w->mright, V, v);
    for (int p = 0; p < w->n; p++) t += w->mc[p] * dot3(v[p], v[p]);
    return 0.5 * t;
}

/* Internal accelerations (chain order) and U; the separation of chain
 * neighbours is the link itself, others are link sums. */
static double accel(const lf_ctx *w, const double (*X)[3], double (*a)[3])
{
    int n = w->n;
    double u = 0.0;
    memset(a, 0, sizeof(double) * 3 * n);
    for (int p = 0; p < n - 1; p++) {
        double r[3] = {0.0, 0.0, 0.0};
        for (int q = p + 1; q < n; q++) {
            for (int d = 0; d < 3; d++) r[d] += X[q - 1][d];
            double r2 = dot3(r, r), rr = sqrt(r2), inv3 = 1.0 / (r2 * rr);
            for (int d = 0; d < 3; d++) {
                a[p][d] += w->mc[q] * r[d] * inv3;
                a[q][d] -= w->mc[p] * r[d] * inv3;
            }
            u += w->mc[p] * w->mc[q] / rr;
        }
    }
    return u;
}

/* ---- leapfrog -------------------------------------------------------------- */

/* Drift by h in s: returns 0, or -1 when T + B is not positive (a step far
 * too long has wrecked the state; the caller rejects it). */
static int drift(const lf_ctx *w, double *y, double h)
{
    int nl = w->nl;
    double(*X)[3] = (double(*)[3])y;
    const double(*V)[3] = (const double(*)[3])(y + 3 * nl);
    double l = kinetic(w, V) + y[6 * nl + 1];
    if (!(l > 0.0)) return -1;
    double dt = h / l;
    for (int k = 0; k < nl; k++)
        for (int d = 0; d < 3; d++) X[k][d] += dt * V[k][d];
    y[6 * nl] += dt;
    return 0;
}

/* Kick by h in s at the time the preceding drifts reached. */
static int kick(lf_ctx *w, double *y, double h)
{
    int n = w->n, nl = w->nl;
    const double(*X)[3] = (const double(*)[3])y;
    double(*V)[3] = (double(*)[3])(y + 3 * nl);
    double a[CHAIN_NMAX][3];
    double u = accel(w, X, a);
    if (!(u > 0.0) || !isfinite(u)) return -1;
    double dt = h / u;
    w->kicks++;
    if (w->f) {
        /* the caller sees c.m.-frame vectors in its member order */
        double xc[CHAIN_NMAX][3], vc[CHAIN_NMAX][3];
        double xm[CHAIN_NMAX][3], vm[CHAIN_NMAX][3], fm[CHAIN_NMAX][3], fp[CHAIN_NMAX][3];
        cm_vectors(n, w->mright, X, xc);
        cm_vectors(n, w->mright, (const double(*)[3])V, vc);
        for (int p = 0; p < n; p++) {
            memcpy(xm[w->ord[p]], xc[p], sizeof xc[p]);
            memcpy(vm[w->ord[p]], vc[p], sizeof vc[p]);
        }
        memset(fm, 0, sizeof fm);
        w->f(w->fctx, w->tstart + y[6 * nl], n, (const double(*)[3])xm, (const double(*)[3])vm, fm);
        /* the mean acceleration moves the c.m. (the caller's part), only the rest acts inside */
        double mean[3] = {0.0, 0.0, 0.0}, mt = 0.0;
        for (int p = 0; p < n; p++) {
            memcpy(fp[p], fm[w->ord[p]], sizeof fp[p]);
            for (int d = 0; d < 3; d++) mean[d] += w->mc[p] * fp[p][d];
            mt += w->mc[p];
        }
        for (int d = 0; d < 3; d++) mean[d] /= mt;
        memcpy(w->acm, mean, sizeof mean);
        /* work of the perturbation with the mean velocity over the kick (exact: v is linear in t) */
        double work = 0.0;
        for (int p = 0; p < n; p++) {
            for (int d = 0; d < 3; d++) fp[p][d] -= mean[d];
            for (int d = 0; d < 3; d++)
                work += w->mc[p] * (vc[p][d] + 0.5 * dt * (a[p][d] + fp[p][d])) * fp[p][d];
            for (int d = 0; d < 3; d++) a[p][d] += fp[p][d];
        }
        y[6 * nl + 1] -= dt * work;
    }
    for (int k = 0; k < nl; k++)
        for (int d = 0; d < 3; d++) V[k][d] += dt * (a[k + 1][d] - a[k][d]);
    return 0;
}

/* n substeps of D(h/2) K(h) D(h/2), h = H/n: adjacent half drifts merged. */
static int leapfrog(lf_ctx *w, double *y, double H, int nsub)
{
    double h = H / nsub;
    if (drift(w, y, 0.5 * h)) return -1;
    for (int i = 0; i < nsub; i++) {
        if (kick(w, y, h)) return -1;
        if (drift(w, y, i == nsub - 1 ? 0.5 * h : h)) return -1;
    }
    for (int i = 0; i < w->ny; i++)
        if (!isfinite(y[i])) return -1;
    return 0;
}

/* ---- extrapolation ----------------------------------------------------------- */

/* E + B of a state vector (zero along the exact solution), and its U. */
static double energy_defect(const lf_ctx *w, const double *y, double *u)
{
    double a[CHAIN_NMAX][3];
    *u = accel(w, (const double(*)[3])y, a);
    return kinetic(w, (const double(*)[3])(y + 3 * w->nl)) - *u + y[6 * w->nl + 1];
}

/* Error of a step as the largest relative difference of two tableau entries:
 * each link and link velocity against its own length (so that a tight pair
 * and a wide orbit are both held to tol), the time increment against
 * itself, B against |B| (its own scale, about |E|; 1e-3 U where B is near
 * zero), and the energy balance E + B against |B|.  B was held against U
 * before: at the pericentre of a tidally pumped binary with 1 - e ~ 1e-3,
 * U is 1000 |E|, and a step there put 3.6e-8 of E into the work B that
 * the trajectory had not done (the Jacobi integral of a static tide broke
 * by that much while E + B held to 1e-11).  The last one matters at the pericentre of a perturbed
 * eccentric pair: a relative error tol in its link there is an energy
 * error of tol U, about tol |E|/(1 - e).  Its scale has two floors: 1e-3 U
 * (orbits beyond e ~ 0.998 and unbound systems with E ~ 0 are held to
 * tol 1e-3 U instead), and the rounding of T - U itself (32 eps U per
 * evaluation, which tol must not ask to beat). */
static double err_norm(const lf_ctx *w, const double *y0, const double *ya, const double *yb,
                       double mtot, double uscale, double tol)
{
    int nl = w->nl;
    double e = 0.0;
    for (int k = 0; k < nl; k++) {
        const double *xa = ya + 3 * k, *xb = yb + 3 * k, *x0 = y0 + 3 * k;
        double dx[3] = {xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]};
        double s = fmax(norm3(x0), norm3(xa));
        e = fmax(e, norm3(dx) / s);
        const double *va = ya + 3 * (nl + k), *vb = yb + 3 * (nl + k), *v0 = y0 + 3 * (nl + k);
        double dv[3] = {va[0] - vb[0], va[1] - vb[1], va[2] - vb[2]};
        /* a floor for links momentarily at rest (e.g. a start from rest) */
        double sv = fmax(fmax(norm3(v0), norm3(va)), 1e-3 * sqrt(mtot / s));
        e = fmax(e, norm3(dv) / sv);
    }
    e = fmax(e, fabs(ya[6 * nl] - yb[6 * nl]) / fabs(ya[6 * nl]));
    double bab = fabs(ya[6 * nl + 1]);
    e = fmax(e, fabs(ya[6 * nl + 1] - yb[6 * nl + 1]) / fmax(bab, 1e-3 * uscale));
    double ua, ub, da = energy_defect(w, ya, &ua), db = energy_defect(w, yb, &ub);
    double escale = fmax(bab, fmax(1e-3, 32.0 * DBL_EPSILON / tol) * fmax(uscale, ua));
    e = fmax(e, fabs(da - db) / escale);
    return isfinite(e) ? e : HUGE_VAL;
}

/* Substeps of stage i (0-based): the harmonic sequence. */
static int nseq(int i)
{
    return i + 1;
}

/* One extrapolated step of length H (signed) in s from y0: stages from 0
 * until the error is within tolerance (from stage 2 on, so that the error
 * estimate compares high orders) or stage kopt + 1 (kmax - 1 at most) fails.
 * Returns 1 with the result in y, or 0.  *hnext, *knext: the proposals for
 * the next step (magnitude, target stage), after a failure too. */
static int gbs_step(chain *c, lf_ctx *w, double tol, int kmax, const double *y0, double H,
                    double uscale, double *y, double *hnext, int *knext)
{
    int ny = w->ny;
    double tab[CHAIN_KMAX][NY_MAX], cur[NY_MAX], nxt[NY_MAX];
    double hk[CHAIN_KMAX], work[CHAIN_KMAX];
    int kopt = c->kopt, last = kopt + 1 < kmax - 1 ? kopt + 1 : kmax - 1;
    double aH = fabs(H), errprev = HUGE_VAL;
    int cost = 0; /* kicks so far in this step */
    for (int i = 0; i <= last; i++) {
        memcpy(cur, y0, sizeof(double) * ny);
        int bad = leapfrog(w, cur, H, nseq(i));
        cost += nseq(i);
        if (bad) {
            /* a wrecked leapfrog: the step is far too long */
            *hnext = 0.2 * aH;
            *knext = kopt;
            return 0;
        }
        /* Aitken-Neville in (1/n)^2: tab[j] holds row i-1, becomes row i */
        for (int j = 1; j <= i; j++) {
            double ratio = (double)nseq(i) / nseq(i - j), den = ratio * ratio - 1.0;
            for (int l = 0; l < ny; l++) nxt[l] = cur[l] + (cur[l] - tab[j - 1][l]) / den;
            memcpy(tab[j - 1], cur, sizeof(double) * ny);
            memcpy(cur, nxt, sizeof(double) * ny);
        }
        memcpy(tab[i], cur, sizeof(double) * ny);
        if (i == 0) continue;
        double err = err_norm(w, y0, tab[i], tab[i - 1], c->mtot, uscale, tol) / tol;
        /* local error of the order-2i entry tab[i-1] goes as H^(2i+1) */
        double fac = err > 0.0 ? 0.94 * pow(0.65 / err, 1.0 / (2 * i + 1)) : 4.0;
        fac = fmin(4.0, fmax(0.05, fac));
        hk[i] = aH * fac;
        work[i] = cost / hk[i];
        int decide = i >= 2 && (err <= 1.0 || i == last);
        /* the tableau diverging from stage 2 on: H is beyond the asymptotic range */
        if (i >= 3 && err > 1.0 && err > errprev) decide = 1;
        errprev = err;
        if (!decide) continue;
        if (err > 1.0) {
            *hnext = fmin(hk[i], 0.9 * aH);
            *knext = i < kopt ? (i > 2 ? i : 2) : kopt;
            return 0;
        }
        memcpy(y, tab[i], sizeof(double) * ny);
        /* order and step for next time (ODEX's work-per-step rule) */
        int kn = i;
        double hn = hk[i];
        if (i >= 3 && work[i - 1] < 0.8 * work[i]) {
            kn = i - 1;
            hn = hk[i - 1];
        } else if (i >= kopt && work[i] < 0.9 * work[i - 1] && i + 1 <= kmax - 2) {
            kn = i + 1;
            hn = hk[i] * (cost + nseq(i + 1)) / cost;
        }
        *hnext = fmin(hn, 4.0 * aH);
        *knext = kn < 2 ? 2 : kn;
        return 1;
    }
    return 0; /* not reached */
}

/* A first step in s: a tenth of the shortest pair time scale (free fall or
 * crossing), converted with dt = ds/U. */
static double first_hs(const chain *c)
{
    lf_ctx w;
    lf_setup(&w, c, NULL, NULL);
    double a[CHAIN_NMAX][3];
    double u = accel(&w, (const double(*)[3])c->X, a), tmin = HUGE_VAL;
    for (int p = 0; p < c->n - 1; p++) {
        double r[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        for (int q = p + 1; q < c->n; q++) {
            for (int d = 0; d < 3; d++) {
                r[d] += c->X[q - 1][d];
                v[d] += c->V[q - 1][d];
            }
            double rr = norm3(r), vv = norm3(v);
            double tff = sqrt(rr * rr * rr / (w.mc[p] + w.mc[q]));
            double tcr = vv > 0.0 ? rr / vv : HUGE_VAL;
            tmin = fmin(tmin, fmin(tff, tcr));
        }
    }
    return 0.1 * u * tmin;
}

/* ---- chain order ------------------------------------------------------------- */

/* Squared distances of all pairs by chain position, from link sums. */
static void pair_d2(const chain *c, double d2[CHAIN_NMAX][CHAIN_NMAX])
{
    for (int p = 0; p < c->n; p++) {
        double r[3] = {0, 0, 0};
        d2[p][p] = 0.0;
        for (int q = p + 1; q < c->n; q++) {
            for (int d = 0; d < 3; d++) r[d] += c->X[q - 1][d];
            d2[p][q] = d2[q][p] = dot3(r, r);
        }
    }
}

/* Greedy chain (NBODY6's select.f): the closest pair, then repeatedly the
 * closest body to either end.  neworder[k] = old index of the k-th body. */
static void greedy(int n, double d2[CHAIN_NMAX][CHAIN_NMAX], int *neworder)
{
    int used[CHAIN_NMAX] = {0}, lo = 0, hi = 0, seq[2 * CHAIN_NMAX];
    double best = HUGE_VAL;
    int bi = 0, bj = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (d2[i][j] < best) {
                best = d2[i][j];
                bi = i;
                bj = j;
            }
    /* seq is a deque around index CHAIN_NMAX */
    lo = CHAIN_NMAX;
    hi = CHAIN_NMAX + 1;
    seq[lo] = bi;
    seq[hi] = bj;
    used[bi] = used[bj] = 1;
    for (int len = 2; len < n; len++) {
        double b = HUGE_VAL;
        int who = -1, atlo = 0;
        for (int j = 0; j < n; j++) {
            if (used[j]) continue;
            if (d2[seq[lo]][j] < b) {
                b = d2[seq[lo]][j];
                who = j;
                atlo = 1;
            }
            if (d2[seq[hi]][j] < b) {
                b = d2[seq[hi]][j];
                who = j;
                atlo = 0;
            }
        }
        used[who] = 1;
        if (atlo)
            seq[--lo] = who;
        else
            seq[++hi] = who;
    }
    for (int k = 0; k < n; k++) neworder[k] = seq[lo + k];
}

/* New links from the old ones, for the order neworder (old positions). */
static void relink(chain *c, const int *neworder)
{
    double X[NL][3], V[NL][3];
    int ord[CHAIN_NMAX];
    for (int k = 0; k < c->n - 1; k++) {
        int a = neworder[k], b = neworder[k + 1], lo = a < b ? a : b, hi = a < b ? b : a;
        double sgn = a < b ? 1.0 : -1.0, sx[3] = {0, 0, 0}, sv[3] = {0, 0, 0};
        for (int l = lo; l < hi; l++)
            for (int d = 0; d < 3; d++) {
                sx[d] += c->X[l][d];
                sv[d] += c->V[l][d];
            }
        for (int d = 0; d < 3; d++) {
            X[k][d] = sgn * sx[d];
            V[k][d] = sgn * sv[d];
        }
    }
    for (int k = 0; k < c->n; k++) ord[k] = c->ord[neworder[k]];
    memcpy(c->X, X, sizeof(double) * 3 * (c->n - 1));
    memcpy(c->V, V, sizeof(double) * 3 * (c->n - 1));
    memcpy(c->ord, ord, sizeof(int) * c->n);
}

/* force: rebuild without the trigger test (after membership changes). */
static int reorder(chain *c, int force)
{
    int n = c->n;
    if (n < 3) return 0;
    double d2[CHAIN_NMAX][CHAIN_NMAX];
    pair_d2(c, d2);
    int trigger = force;
    /* a non-chained pair closer than every link at its two members */
    for (int p = 0; p < n && !trigger; p++)
        for (int q = p + 2; q < n && !trigger; q++) {
            double lim = HUGE_VAL;
            if (p > 0) lim = fmin(lim, d2[p - 1][p]);
            lim = fmin(lim, d2[p][p + 1]);
            lim = fmin(lim, d2[q - 1][q]);
            if (q < n - 1) lim = fmin(lim, d2[q][q + 1]);
            if (d2[p][q] < lim) trigger = 1;
        }
    if (!trigger) return 0;
    int no[CHAIN_NMAX], same = 1, rev = 1;
    greedy(n, d2, no);
    for (int k = 0; k < n; k++) {
        if (no[k] != k) same = 0;
        if (no[k] != n - 1 - k) rev = 0;
    }
    if (same || rev) return 0;
    relink(c, no);
    c->switches++;
    return 1;
}

int chain_reorder(chain *c)
{
    return reorder(c, 0);
}

/* ---- public API ---------------------------------------------------------------- */

void chain_params_default(chain_params *p)
{
    memset(p, 0, sizeof *p);
    p->tol = 1e-12;
    p->kmax = 10;
    p->max_steps = 100000000LL;
}

double chain_time(const chain *c)
{
    return c->t0 + c->tau;
}

static void cm_state(const chain *c, double (*x)[3], double (*v)[3])
{
    lf_ctx w;
    lf_setup(&w, c, NULL, NULL);
    cm_vectors(c->n, w.mright, (const double(*)[3])c->X, x);
    cm_vectors(c->n, w.mright, (const double(*)[3])c->V, v);
}

void chain_get_state(const chain *c, double (*x)[3], double (*v)[3])
{
    double xc[CHAIN_NMAX][3], vc[CHAIN_NMAX][3];
    cm_state(c, xc, vc);
    for (int p = 0; p < c->n; p++) {
        if (x) memcpy(x[c->ord[p]], xc[p], sizeof xc[p]);
        if (v) memcpy(v[c->ord[p]], vc[p], sizeof vc[p]);
    }
}

double chain_energy(const chain *c)
{
    lf_ctx w;
    lf_setup(&w, c, NULL, NULL);
    double a[CHAIN_NMAX][3];
    double u = accel(&w, (const double(*)[3])c->X, a);
    return kinetic(&w, (const double(*)[3])c->V) - u;
}

double chain_sync_energy(chain *c)
{
    double delta = chain_energy(c) + c->B;
    c->B -= delta;
    return delta;
}

int chain_find(const chain *c, long id)
{
    for (int i = 0; i < c->n; i++)
        if (c->id[i] == id) return i;
    return -1;
}

double chain_rsum(const chain *c)
{
    double s = 0.0;
    for (int k = 0; k < c->n - 1; k++) s += norm3(c->X[k]);
    return s;
}

/* Step control restarts after a change of the system. */
static void restart_control(chain *c)
{
    c->hs = first_hs(c);
    c->kopt = 5;
    c->rate = 0.0;
}

int chain_init(chain *c, int n, const double *m, const double (*x)[3], const double (*v)[3],
               const long *id, double t, double xcm[3], double vcm[3])
{
    memset(c, 0, sizeof *c);
    if (n < 2 || n > CHAIN_NMAX) {
        snprintf(c->err, sizeof c->err, "chain_init: %d members (2..%d)", n, CHAIN_NMAX);
        return -1;
    }
    double xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0}, mt = 0.0;
    for (int i = 0; i < n; i++) {
        if (!(m[i] > 0.0) || !isfinite(m[i])) {
            snprintf(c->err, sizeof c->err, "chain_init: member %d has mass %g", i, m[i]);
            return -1;
        }
        mt += m[i];
        for (int d = 0; d < 3; d++) {
            xc[d] += m[i] * x[i][d];
            vc[d] += m[i] * v[i][d];
        }
    }
    for (int d = 0; d < 3; d++) {
        xc[d] /= mt;
        vc[d] /= mt;
    }
    c->n = n;
    c->mtot = mt;
    for (int i = 0; i < n; i++) {
        c->m[i] = m[i];
        c->id[i] = id ? id[i] : i;
    }
    /* the chain order from the caller's own relative vectors */
    double d2[CHAIN_NMAX][CHAIN_NMAX];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double r[3] = {x[j][0] - x[i][0], x[j][1] - x[i][1], x[j][2] - x[i][2]};
            d2[i][j] = dot3(r, r);
            if (i != j && !(d2[i][j] > 0.0)) {
                snprintf(c->err, sizeof c->err, "chain_init: members %d and %d coincide", i, j);
                return -1;
            }
        }
    greedy(n, d2, c->ord);
    for (int k = 0; k < n - 1; k++) {
        int a = c->ord[k], b = c->ord[k + 1];
        for (int d = 0; d < 3; d++) {
            c->X[k][d] = x[b][d] - x[a][d];
            c->V[k][d] = v[b][d] - v[a][d];
        }
    }
    c->t0 = t;
    c->tau = 0.0;
    c->B = -chain_energy(c);
    restart_control(c);
    if (xcm) memcpy(xcm, xc, sizeof xc);
    if (vcm) memcpy(vcm, vc, sizeof vc);
    return 0;
}

/* Accepts a step's result as the new state; the switching test follows. */
static void commit(chain *c, const double *y, double H)
{
    unpack(c, y);
    c->rate = y[6 * (c->n - 1)] / H;
    c->steps++;
    reorder(c, 0);
}

/* U and dU/dt of the current state, from link sums. */
static void u_udot(const chain *c, double *u, double *udot)
{
    lf_ctx w;
    lf_setup(&w, c, NULL, NULL);
    *u = *udot = 0.0;
    for (int p = 0; p < c->n - 1; p++) {
        double r[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        for (int q = p + 1; q < c->n; q++) {
            for (int d = 0; d < 3; d++) {
                r[d] += c->X[q - 1][d];
                v[d] += c->V[q - 1][d];
            }
            double rr = norm3(r), mm = w.mc[p] * w.mc[q];
            *u += mm / rr;
            *udot -= mm * dot3(r, v) / (rr * rr * rr);
        }
    }
}

/* One adaptive step of H from the current state: 1 accepted (and committed
 * if commit_it), 0 rejected.  *dtau gets its time increment, acm the mean
 * external acceleration of its last kick, *hn, *kn the proposals. */
static int try_step(chain *c, chain_perturb_fn perturb, void *ctx, double tol, int kmax, double H,
                    int commit_it, double *y, double *dtau, double acm[3], double *hn, int *kn)
{
    lf_ctx w;
    lf_setup(&w, c, perturb, ctx);
    double y0[NY_MAX], a[CHAIN_NMAX][3];
    pack(c, y0);
    double u0 = accel(&w, (const double(*)[3])c->X, a);
    int ok = gbs_step(c, &w, tol, kmax, y0, H, u0, y, hn, kn);
    c->kicks += w.kicks;
    if (!ok) return 0;
    *dtau = y[6 * w.nl];
    memcpy(acm, w.acm, 3 * sizeof(double));
    if (commit_it) {
        memcpy(c->acm, w.acm, sizeof c->acm);
        commit(c, y, H);
    }
    return 1;
}

/* Short corrections onto the end time (either direction) from the local
 * dt/ds, each converging quadratically while the second-order estimate is
 * valid (U changes little over the remaining interval); the extrapolation
 * of such a short step stops at its first stages (kopt 2: at most 4).  The
 * step control's state is left as it was.  Stops at landtol, at an invalid
 * estimate or a rejection (the caller then aims again). */
static void land_corrections(chain *c, chain_perturb_fn perturb, void *ctx, double tol, int kmax,
                             double tauend, double landtol)
{
    double hkeep = c->hs, rkeep = c->rate;
    int kkeep = c->kopt;
    for (int it = 0; it < 8; it++) {
        double rem = tauend - c->tau, u, udot, y[NY_MAX], dtau, acm[3], hn;
        int kn;
        if (fabs(rem) <= landtol) break;
        u_udot(c, &u, &udot);
        if (fabs(udot * rem) > 0.2 * u) break;
        c->kopt = 2;
        int ok = try_step(c, perturb, ctx, tol, kmax, u * rem + 0.5 * udot * rem * rem, 1, y, &dtau,
                          acm, &hn, &kn);
        c->land_iters++;
        if (!ok) break;
    }
    c->hs = hkeep;
    c->kopt = kkeep;
    c->rate = rkeep;
}

/* One attempt at landing on tauend from the current state.  Every attempt
 * is an accurate step: one that ends short of the end time is committed
 * (progress), one that ends beyond it is kept as a bracket *hb (its
 * s-length from the current state; 0 none), *db (its time increment),
 * shifted along the same s-trajectory as later attempts are committed.
 * The s-length comes from H(d) = U d + c d^2 (the exact slope dt/ds = 1/U
 * at the current state), c from the bracket or from dU/dt; an attempt
 * within 1 % of its length from the end time is committed and the
 * corrections finish.  Returns LAND_REJECTED (c->hs shortened),
 * LAND_SHORT (a step committed short of the end), LAND_BEYOND (a bracket,
 * nothing committed) or LAND_DONE. */
enum { LAND_REJECTED, LAND_SHORT, LAND_BEYOND, LAND_DONE };
static int land(chain *c, chain_perturb_fn perturb, void *ctx, double tol, int kmax, double tauend,
                double landtol, double *hb, double *db)
{
    double rem = tauend - c->tau, dir = rem > 0.0 ? 1.0 : -1.0, u, udot, H;
    double y[NY_MAX], dtau, acm[3], hn;
    int kn;
    u_udot(c, &u, &udot);
    if (*hb != 0.0) {
        double cq = (*hb - u * *db) / (*db * *db);
        H = u * rem + cq * rem * rem;
        /* a turning quadratic: linear inside the bracket instead */
        if (!(H / *hb > 0.02 && H / *hb < 0.98)) H = *hb * rem / *db;
    } else {
        /* second order where U changes little over the interval, else by the mean rate */
        double rate = c->rate > 0.0 ? c->rate : 1.0 / u;
        H = fabs(udot * rem) <= 0.2 * u ? u * rem + 0.5 * udot * rem * rem : rem / rate;
        if (!(dir * H > 0.0)) H = rem / rate;
    }
    int capped = fabs(H) >= c->hs;
    if (capped) H = dir * c->hs;
    c->land_iters++;
    if (!try_step(c, perturb, ctx, tol, kmax, H, 0, y, &dtau, acm, &hn, &kn)) {
        c->rejects++;
        c->hs = hn;
        c->kopt = kn;
        return LAND_REJECTED;
    }
    double g = dtau - rem;
    if (dir * g > 0.0 && fabs(g) > 0.01 * fabs(dtau)) {
        *hb = H;
        *db = dtau;
        return LAND_BEYOND;
    }
    memcpy(c->acm, acm, sizeof c->acm);
    commit(c, y, H);
    if (fabs(g) <= 0.01 * fabs(dtau)) {
        c->landings++;
        /* a step cut short by the end time says little about the next one:
         * the proposal from before stays unless this one allows more */
        c->hs = fmax(c->hs, hn);
        land_corrections(c, perturb, ctx, tol, kmax, tauend, landtol);
        *hb = 0.0;
        return LAND_DONE;
    }
    if (capped) {
        /* a full-length step short of the end: an ordinary step */
        c->hs = hn;
        c->kopt = kn;
    }
    if (*hb != 0.0) {
        *hb -= H;
        *db -= dtau;
    }
    return LAND_SHORT;
}

int chain_advance(chain *c, double t_end, const chain_params *par, chain_perturb_fn perturb,
                  void *ctx)
{
    chain_params def;
    if (!par) {
        chain_params_default(&def);
        par = &def;
    }
    double tol = fmin(1e-3, fmax(1e-14, par->tol));
    int kmax = par->kmax < 4 ? 4 : (par->kmax > CHAIN_KMAX ? CHAIN_KMAX : par->kmax);
    if (c->kopt > kmax - 2) c->kopt = kmax - 2;
    if (c->kopt < 2) c->kopt = 2;
    double tauend = t_end - c->t0;
    /* the landing is exact to a few units of rounding of the call's interval */
    double landtol = 8.0 * DBL_EPSILON * fabs(tauend - c->tau);
    double hb = 0.0, db = 0.0; /* an attempt known to end beyond t_end (land) */
    long long attempts = 0;
    int nrej = 0; /* consecutive rejections */
    c->err[0] = '\0';
    for (;;) {
        double rem = tauend - c->tau;
        if (fabs(rem) <= landtol) {
            /* re-based on the block time, so that later calls measure from it */
            c->land_resid = -rem;
            c->t0 = t_end;
            c->tau = 0.0;
            return 0;
        }
        if (par->max_steps > 0 && ++attempts > par->max_steps) {
            snprintf(c->err, sizeof c->err, "chain_advance: more than %lld steps", par->max_steps);
            return -1;
        }
        if (nrej > 50 || !(c->hs > 0.0) || !isfinite(c->hs)) {
            /* each rejection shortens by 0.9..0.05: fifty in a row is a step of nothing */
            snprintf(c->err, sizeof c->err, "chain_advance: step underflow at t = %.17g",
                     chain_time(c));
            return -1;
        }
        double dir = rem > 0.0 ? 1.0 : -1.0, y[NY_MAX], dtau, hn, acm[3];
        int kn, shortstep = 0;
        double u, udot;
        u_udot(c, &u, &udot);
        /* dt/ds: the last step's mean rate, or 1/U for a first step */
        double rate = c->rate > 0.0 ? c->rate : 1.0 / u;
        double H = dir * c->hs;
        if (hb != 0.0 || fabs(H) * rate >= 0.5 * fabs(rem)) {
            /* the end may be within reach */
            int r = land(c, perturb, ctx, tol, kmax, tauend, landtol, &hb, &db);
            nrej = r == LAND_REJECTED ? nrej + 1 : 0;
            shortstep = r == LAND_SHORT;
        } else if (!try_step(c, perturb, ctx, tol, kmax, H, 0, y, &dtau, acm, &hn, &kn)) {
            c->rejects++;
            c->hs = hn;
            c->kopt = kn;
            nrej++;
        } else if (dir * (dtau - rem) > 0.0) {
            /* beyond the end (the mean rate misled): a bracket for the landing */
            nrej = 0;
            hb = H;
            db = dtau;
        } else {
            nrej = 0;
            memcpy(c->acm, acm, sizeof c->acm);
            commit(c, y, H);
            c->hs = hn;
            c->kopt = kn;
            shortstep = 1;
        }
        if (shortstep && (par->one_step || (par->stop && par->stop(par->stop_ctx, c)))) return 1;
    }
}

/* ---- membership ------------------------------------------------------------------ */

int chain_add_member(chain *c, double m, const double x[3], const double v[3], long id,
                     double xcm[3], double vcm[3], double *de)
{
    if (c->n >= CHAIN_NMAX || !(m > 0.0) || !isfinite(m)) {
        snprintf(c->err, sizeof c->err, "chain_add_member: %d members, mass %g", c->n, m);
        return -1;
    }
    double e0 = chain_energy(c);
    double xc[CHAIN_NMAX][3], vc[CHAIN_NMAX][3], dx[3], dv[3];
    cm_state(c, xc, vc);
    int n = c->n, last = n - 1;
    for (int d = 0; d < 3; d++) {
        dx[d] = x[d] - (xcm ? xcm[d] : 0.0);
        dv[d] = v[d] - (vcm ? vcm[d] : 0.0);
    }
    /* a new link from the chain's last member; the re-ordering below routes it */
    for (int d = 0; d < 3; d++) {
        c->X[last][d] = dx[d] - xc[last][d];
        c->V[last][d] = dv[d] - vc[last][d];
    }
    c->m[n] = m;
    c->id[n] = id;
    c->ord[n] = n;
    double mold = c->mtot;
    c->n = n + 1;
    c->mtot = mold + m;
    for (int d = 0; d < 3; d++) {
        if (xcm) xcm[d] += m * dx[d] / c->mtot;
        if (vcm) vcm[d] += m * dv[d] / c->mtot;
    }
    reorder(c, 1);
    double e1 = chain_energy(c);
    if (de) *de = e1 - e0;
    c->B -= e1 - e0;
    restart_control(c);
    return 0;
}

int chain_remove_member(chain *c, int i, double x[3], double v[3], double xcm[3], double vcm[3],
                        double *de)
{
    if (c->n < 3 || i < 0 || i >= c->n) {
        snprintf(c->err, sizeof c->err, "chain_remove_member: member %d of %d", i, c->n);
        return -1;
    }
    double e0 = chain_energy(c);
    double xc[CHAIN_NMAX][3], vc[CHAIN_NMAX][3];
    cm_state(c, xc, vc);
    int n = c->n, p = 0;
    while (c->ord[p] != i) p++;
    double mi = c->m[i], mrest = c->mtot - mi;
    for (int d = 0; d < 3; d++) {
        double x0 = xcm ? xcm[d] : 0.0, v0 = vcm ? vcm[d] : 0.0;
        if (x) x[d] = x0 + xc[p][d];
        if (v) v[d] = v0 + vc[p][d];
        /* the remaining members' c.m. moves opposite to the removed body */
        if (xcm) xcm[d] = x0 - mi * xc[p][d] / mrest;
        if (vcm) vcm[d] = v0 - mi * vc[p][d] / mrest;
    }
    /* links: an end member takes its link along, a middle one joins its two links */
    if (p > 0 && p < n - 1)
        for (int d = 0; d < 3; d++) {
            c->X[p - 1][d] += c->X[p][d];
            c->V[p - 1][d] += c->V[p][d];
        }
    int drop = p == 0 ? 0 : p == n - 1 ? n - 2 : p;
    for (int k = drop; k < n - 2; k++) {
        memcpy(c->X[k], c->X[k + 1], sizeof c->X[k]);
        memcpy(c->V[k], c->V[k + 1], sizeof c->V[k]);
    }
    for (int k = p; k < n - 1; k++) c->ord[k] = c->ord[k + 1];
    for (int k = 0; k < n - 1; k++)
        if (c->ord[k] > i) c->ord[k]--;
    for (int j = i; j < n - 1; j++) {
        c->m[j] = c->m[j + 1];
        c->id[j] = c->id[j + 1];
    }
    c->n = n - 1;
    c->mtot = mrest;
    reorder(c, 1);
    double e1 = chain_energy(c);
    if (de) *de = e1 - e0;
    c->B -= e1 - e0;
    restart_control(c);
    return 0;
}

/* ---- diagnostics ---------------------------------------------------------------- */

/* Relative x_j - x_i, v_j - v_i of members i, j from link sums. */
static void pair_rel(const chain *c, int i, int j, double r[3], double v[3])
{
    int pi = 0, pj = 0;
    for (int p = 0; p < c->n; p++) {
        if (c->ord[p] == i) pi = p;
        if (c->ord[p] == j) pj = p;
    }
    int lo = pi < pj ? pi : pj, hi = pi < pj ? pj : pi;
    double sgn = pi < pj ? 1.0 : -1.0;
    memset(r, 0, 3 * sizeof(double));
    memset(v, 0, 3 * sizeof(double));
    for (int l = lo; l < hi; l++)
        for (int d = 0; d < 3; d++) {
            r[d] += sgn * c->X[l][d];
            v[d] += sgn * c->V[l][d];
        }
}

/* Two-body energy, a and e of relative r, v with masses m1, m2. */
static void two_body(double m1, double m2, const double r[3], const double v[3], double *en,
                     double *a, double *e, double *rr, double *rdot)
{
    double mt = m1 + m2, d = norm3(r), v2 = dot3(v, v);
    double eps = 0.5 * v2 - mt / d;                /* specific energy */
    double h[3] = {r[1] * v[2] - r[2] * v[1], r[2] * v[0] - r[0] * v[2], r[0] * v[1] - r[1] * v[0]};
    *en = m1 * m2 / mt * eps;
    *a = -mt / (2.0 * eps);
    *e = sqrt(fmax(0.0, 1.0 + 2.0 * eps * dot3(h, h) / (mt * mt)));
    *rr = d;
    *rdot = dot3(r, v) / d;
}

void chain_pair(const chain *c, int i, int j, chain_pair_info *out)
{
    double r[3], v[3];
    pair_rel(c, i, j, r, v);
    out->i = i;
    out->j = j;
    memcpy(out->dx, r, sizeof r);
    memcpy(out->dv, v, sizeof v);
    two_body(c->m[i], c->m[j], r, v, &out->energy, &out->a, &out->e, &out->r, &out->rdot);
}

void chain_dominant_pair(const chain *c, chain_pair_info *out)
{
    chain_pair_info t;
    out->energy = HUGE_VAL;
    for (int i = 0; i < c->n; i++)
        for (int j = i + 1; j < c->n; j++) {
            chain_pair(c, i, j, &t);
            if (t.energy < out->energy) *out = t;
        }
}

void chain_member_info(const chain *c, int i, chain_member_stat *out)
{
    double xc[CHAIN_NMAX][3], vc[CHAIN_NMAX][3];
    chain_get_state(c, xc, vc);
    out->nearest = -1;
    out->rnear = HUGE_VAL;
    for (int j = 0; j < c->n; j++) {
        if (j == i) continue;
        double r[3], v[3];
        pair_rel(c, i, j, r, v);
        double d = norm3(r);
        if (d < out->rnear) {
            out->rnear = d;
            out->nearest = j;
        }
    }
    /* in the c.m. frame the rest's c.m. is at -m_i x_i/(M - m_i) */
    double mr = c->mtot - c->m[i], s = c->mtot / mr, r[3], v[3], a, e;
    for (int d = 0; d < 3; d++) {
        r[d] = s * xc[i][d];
        v[d] = s * vc[i][d];
    }
    two_body(c->m[i], mr, r, v, &out->energy, &a, &e, &out->rrest, &out->rdot);
}

/* A group of members (1 or 2, member indices) against the rest (xc, vc:
 * the members' c.m.-frame state). */
static void group_vs_rest(const chain *c, const double (*xc)[3], const double (*vc)[3], int ng,
                          const int *g, chain_escape *out)
{
    double mg = 0.0, xg[3] = {0, 0, 0}, vg[3] = {0, 0, 0};
    for (int k = 0; k < ng; k++) {
        mg += c->m[g[k]];
        for (int d = 0; d < 3; d++) {
            xg[d] += c->m[g[k]] * xc[g[k]][d];
            vg[d] += c->m[g[k]] * vc[g[k]][d];
        }
    }
    double mr = c->mtot - mg, s = c->mtot / (mg * mr), r[3], v[3], a, e;
    /* group c.m. at xg/mg, rest c.m. at -xg/mr */
    for (int d = 0; d < 3; d++) {
        r[d] = s * xg[d];
        v[d] = s * vg[d];
    }
    out->nesc = ng;
    out->mem[0] = g[0];
    out->mem[1] = ng > 1 ? g[1] : -1;
    two_body(mg, mr, r, v, &out->energy, &a, &e, &out->r, &out->rdot);
    out->e_int = 0.0;
    if (ng == 2) {
        chain_pair_info pi;
        chain_pair(c, g[0], g[1], &pi);
        out->e_int = pi.energy;
    }
}

int chain_group_info(const chain *c, int ng, const int *mem, double rmin, chain_escape *out)
{
    memset(out, 0, sizeof *out);
    out->mem[0] = out->mem[1] = -1;
    if (ng < 1 || ng > 2 || ng >= c->n || mem[0] < 0 || mem[0] >= c->n ||
        (ng == 2 && (mem[1] < 0 || mem[1] >= c->n || mem[1] == mem[0])))
        return -1;
    double xc[CHAIN_NMAX][3], vc[CHAIN_NMAX][3];
    chain_get_state(c, xc, vc);
    group_vs_rest(c, (const double(*)[3])xc, (const double(*)[3])vc, ng, mem, out);
    out->escaping = out->r > rmin && out->rdot > 0.0 && out->energy > 0.0 && (ng == 1 || out->e_int < 0.0);
    return out->escaping;
}

int chain_find_escaper(const chain *c, double rmin, chain_escape *out)
{
    memset(out, 0, sizeof *out);
    out->mem[0] = out->mem[1] = -1;
    if (c->n < 3) return 0;
    int kl = 0;
    for (int k = 1; k < c->n - 1; k++)
        if (dot3(c->X[k], c->X[k]) > dot3(c->X[kl], c->X[kl])) kl = k;
    double xc[CHAIN_NMAX][3], vc[CHAIN_NMAX][3];
    chain_get_state(c, xc, vc);
    chain_escape cand[2];
    int nc = 0;
    /* left side: positions 0..kl, right side: kl+1..n-1 */
    int sizes[2] = {kl + 1, c->n - 1 - kl};
    for (int side = 0; side < 2; side++) {
        int sz = sizes[side], g[2] = {0, 0};
        if (sz > 2 || sz == c->n) continue;
        for (int k = 0; k < sz; k++) g[k] = c->ord[side == 0 ? k : kl + 1 + k];
        if (sz == 2) {
            chain_pair_info pi;
            chain_pair(c, g[0], g[1], &pi);
            if (pi.energy >= 0.0) continue; /* two separate bodies, not an escaping pair */
        }
        group_vs_rest(c, (const double(*)[3])xc, (const double(*)[3])vc, sz, g, &cand[nc]);
        cand[nc].escaping = cand[nc].r > rmin && cand[nc].rdot > 0.0 && cand[nc].energy > 0.0;
        nc++;
    }
    if (nc == 0) return 0;
    /* the two sides of one link share r, rdot and energy: the smaller group
     * is the one leaving (a single before a pair, then the lighter) */
    int best = 0;
    if (nc == 2) {
        double m0 = 0, m1 = 0;
        for (int k = 0; k < cand[0].nesc; k++) m0 += c->m[cand[0].mem[k]];
        for (int k = 0; k < cand[1].nesc; k++) m1 += c->m[cand[1].mem[k]];
        if (cand[0].nesc != cand[1].nesc)
            best = cand[1].nesc < cand[0].nesc;
        else
            best = m1 < m0;
    }
    *out = cand[best];
    return out->escaping;
}
