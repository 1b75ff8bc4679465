/* sse_hrdiag.c — the state of a star at an age (NBODY6's hrdiag): which
 * phase it is in, its luminosity and radius from HPT00's phase formulae
 * (MS eqs 12-13, HG 26-27, GB 44-46, CHeB 59-64, AGB 73-75, naked He
 * 80-86, remnants section 6.2), the core mass, the transitions between
 * types including remnant formation (with NBODY6's defaults: ecflag = 1
 * electron-capture SNe, nsflag = 2 remnant masses, wdflag = 1 cooling),
 * the core's L and R that a thin envelope pulls the star towards
 * (section 6.3), and the convective envelope (sse_mrenv.c). */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

#define MLP 12.0            /* mass above which the HG radius ends at Rmin */
#define TAUMIN 5.0e-8       /* below it the tau^beta terms are dropped (underflow) */
#define LUM0 7.0e4
#define KAP (-0.5)

/* The working state of one evaluation. */
typedef struct hd {
    const sse_consts *c;
    sse_tscales *ts;
    int kw;
    double mass, mt, aj, mc;        /* effective initial mass, mass, age, core */
    double lum, r, rc, menv, renv, k2;
    double rzams, rtms, rg;         /* for the envelope fits */
    double lx, rx;                  /* the bare core's L and R */
    double mcx;                     /* AGB: the CO core */
    double mtc;                     /* He giants: the largest core */
    double tbagb;
} hd;

static void retime(hd *h)
{
    sse_tscales_of(h->c, h->kw, h->mass, h->mt, h->ts);
}

/* The core has reached the surface in the HG or on the GB: a He star
 * (non-degenerate core) or a He WD (degenerate core). */
static void exposed_core(hd *h, double mass_before)
{
    h->aj = 0.0;
    if (mass_before > h->c->zpars[2]) {
        h->mc = 0.0;
        h->mass = h->mt;
        h->kw = SSE_HEMS;
        retime(h);
    } else {
        h->mc = h->mt;
        h->mass = h->mt;
        h->kw = SSE_HEWD;
    }
}

static void main_sequence(hd *h)
{
    const sse_consts *c = h->c;
    const sse_tscales *ts = h->ts;
    const double m = h->mass, aj = h->aj;
    h->mc = 0.0;
    const double tau = aj / ts->tm;
    const double thook = sse_thook(c, m) * ts->t[1];
    const double zeta = 0.01;       /* the hook lasts the last 1 % to t_hook */
    const double tau1 = fmin(1.0, aj / thook);
    const double tau2 = fmax(0.0, fmin(1.0, (aj - (1.0 - zeta) * thook) / (zeta * thook)));
    /* luminosity, eq 12 */
    double dell = sse_lhook(c, m, c->zpars[1]);
    double dtau = sse_ipow(tau1, 2) - sse_ipow(tau2, 2);
    double alpha = sse_lalpha(c, m), beta = sse_lbeta(c, m), eta = sse_leta(c, m);
    double lx = log10(ts->l[2] / ts->l[1]);
    double xx;
    if (tau > TAUMIN)
        xx = alpha * tau + beta * pow(tau, eta) + (lx - alpha - beta) * sse_ipow(tau, 2) - dell * dtau;
    else
        xx = alpha * tau + (lx - alpha) * sse_ipow(tau, 2) - dell * dtau;
    h->lum = ts->l[1] * pow(10.0, xx);
    /* radius, eq 13 */
    const double delr = sse_rhook(c, m, c->zpars[1]);
    dtau = sse_ipow(tau1, 3) - sse_ipow(tau2, 3);
    alpha = sse_ralpha(c, m);
    beta = sse_rbeta(c, m);
    const double gamma = sse_rgamma(c, m);
    const double rx = log10(h->rtms / h->rzams);
    if (tau > TAUMIN)
        xx = alpha * tau + beta * sse_ipow(tau, 10) + gamma * sse_ipow(tau, 40) +
             (rx - alpha - beta - gamma) * sse_ipow(tau, 3) - delr * dtau;
    else
        xx = alpha * tau + (rx - alpha) * sse_ipow(tau, 3) - delr * dtau;
    h->r = h->rzams * pow(10.0, xx);
    if (m < c->zpars[1] - 0.3) {
        h->kw = SSE_LMMS;
        /* low-mass stars are partly degenerate: not smaller than a
         * degenerate sphere of the hydrogen abundance X */
        const double rdgen = 0.0258 * pow(1.0 + c->zpars[11], 5.0 / 3.0) * pow(m, -1.0 / 3.0);
        h->r = fmax(rdgen, h->r);
    } else {
        h->kw = SSE_MS;
    }
}

static void hertzsprung_gap(hd *h)
{
    const sse_consts *c = h->c;
    const double *zp = c->zpars;
    const sse_tscales *ts = h->ts;
    const double m = h->mass;
    const double mcprev = h->mc;
    double mc;
    if (m <= zp[2])
        mc = sse_mc_of_l(ts->l[3], ts->gb, ts->l[6]);
    else
        mc = sse_mchei(c, m, zp[2], m <= zp[3] ? zp[9] : zp[10]);
    const double tau = (h->aj - ts->tm) / (ts->t[1] - ts->tm);
    /* the core grows from the TMS fraction to the BGB value (eq 30) and
     * never shrinks */
    mc = ((1.0 - tau) * sse_mctms(m) + tau) * mc;
    h->mc = fmax(mc, mcprev);
    if (h->mc >= h->mt) {
        exposed_core(h, m);
        return;
    }
    h->lum = ts->l[2] * pow(ts->l[3] / ts->l[2], tau);
    double rx;
    if (m <= zp[3]) {
        rx = h->rg;
    } else {
        /* He ignites in the gap, at Rmin */
        const double rmin = sse_rmin(c, m);
        const double ry = sse_ragb(c, h->mt, ts->l[4], zp[2]);
        rx = fmin(rmin, ry);
        if (m <= MLP) {
            const double texp = log(m / MLP) / log(zp[3] / MLP);
            rx = rmin * pow(h->rg / rmin, texp);
        }
        if (sse_tbl(c, m, zp[2], zp[3]) < SSE_TINY)
            rx = ry;
    }
    h->r = h->rtms * pow(rx / h->rtms, tau);
    h->kw = SSE_HG;
}

static void giant_branch(hd *h)
{
    const sse_consts *c = h->c;
    const double *zp = c->zpars;
    const sse_tscales *ts = h->ts;
    const double m = h->mass;
    h->kw = SSE_GB;
    h->lum = sse_l_of_t(h->aj, ts->gb[1], ts->gb, ts->t[4], ts->t[5], ts->t[6]);
    if (m <= zp[2]) {
        h->mc = sse_mc_of_l(h->lum, ts->gb, ts->l[6]);   /* degenerate core */
    } else {
        const double tau = (h->aj - ts->t[1]) / (ts->t[2] - ts->t[1]);
        const double mcx = sse_mchei(c, m, zp[2], zp[9]);
        const double mcy = sse_mchei(c, m, zp[2], zp[10]);
        h->mc = mcx + (mcy - mcx) * tau;
    }
    h->r = sse_rgb(c, h->mt, h->lum);
    h->rg = h->r;
    if (h->mc >= h->mt)
        exposed_core(h, m);
}

/* The blue-loop radius law of CHeB (eq 64): from rx through rmin to ry. */
static double loop_radius(double rx, double *rmin, double ry, double tau)
{
    double taul;
    if (*rmin < rx) {
        taul = pow(log(rx / *rmin), 1.0 / 3.0);
    } else {
        *rmin = rx;
        taul = 0.0;
    }
    const double tauh = pow(log(ry / *rmin), 1.0 / 3.0);
    const double tau2 = taul * (tau - 1.0) + tauh * tau;
    return *rmin * exp(sse_ipow(fabs(tau2), 3));
}

/* Low mass: He ignited in a flash; the star sits on the ZAHB and moves
 * towards the AGB. */
static void cheb_low(hd *h, double tau)
{
    const sse_consts *c = h->c;
    const double *zp = c->zpars;
    const sse_tscales *ts = h->ts;
    const double lx = ts->l[5], ly = ts->l[7];
    const double rx = sse_rzahb(c, h->mt, h->mc, zp[2]);
    double rg = sse_rgb(c, h->mt, lx);
    double rmin = rg * pow(zp[13], h->mass / zp[2]);
    const double texp = fmin(fmax(0.4, rmin / rx), 2.5);
    const double ry = sse_ragb(c, h->mt, ly, zp[2]);
    h->r = loop_radius(rx, &rmin, ry, tau);
    h->rg = rg + tau * (ry - rg);
    h->lum = lx * pow(ly / lx, pow(tau, texp));
}

/* High mass: He ignited at Rmin in the gap; a blue phase then red. */
static void cheb_high(hd *h, double tau)
{
    const sse_consts *c = h->c;
    const double *zp = c->zpars;
    const sse_tscales *ts = h->ts;
    const double m = h->mass;
    double tau2 = sse_tbl(c, m, zp[2], zp[3]);
    const double tloop = ts->t[2] + tau2 * ts->t[3];
    double rmin = sse_rmin(c, m);
    const double rg = sse_rgb(c, h->mt, ts->l[4]);
    double rx = sse_ragb(c, h->mt, ts->l[4], zp[2]);
    rmin = fmin(rmin, rx);
    if (m <= MLP) {
        const double texp = log(m / MLP) / log(zp[3] / MLP);
        rx = rmin * pow(rg / rmin, texp);
    } else {
        rx = rmin;
    }
    const double texp = fmin(fmax(0.4, rmin / rx), 2.5);
    h->lum = ts->l[4] * pow(ts->l[7] / ts->l[4], pow(tau, texp));
    if (h->aj < tloop) {
        const double ly = ts->l[4] * pow(ts->l[7] / ts->l[4], pow(tau2, texp));
        const double ry = sse_ragb(c, h->mt, ly, zp[2]);
        double taul = 0.0, tauh = 0.0;
        if (fabs(rmin - rx) > SSE_TINY)
            taul = pow(log(rx / rmin), 1.0 / 3.0);
        if (ry > rmin)
            tauh = pow(log(ry / rmin), 1.0 / 3.0);
        const double t = (h->aj - ts->t[2]) / (tau2 * ts->t[3]);
        tau2 = taul * (t - 1.0) + tauh * t;
        h->r = rmin * exp(sse_ipow(fabs(tau2), 3));
        h->rg = rg + t * (ry - rg);
    } else {
        h->r = sse_ragb(c, h->mt, h->lum, zp[2]);
        h->rg = h->r;
    }
}

/* Intermediate mass: a red phase then a blue loop. */
static void cheb_mid(hd *h)
{
    const sse_consts *c = h->c;
    const double *zp = c->zpars;
    const sse_tscales *ts = h->ts;
    const double tau2 = 1.0 - sse_tbl(c, h->mass, zp[2], zp[3]);
    const double tloop = ts->t[2] + tau2 * ts->t[3];
    if (h->aj < tloop) {
        const double tau = (tloop - h->aj) / (tau2 * ts->t[3]);
        h->lum = ts->l[5] * pow(ts->l[4] / ts->l[5], sse_ipow(tau, 3));
        h->r = sse_rgb(c, h->mt, h->lum);
        h->rg = h->r;
        return;
    }
    const double lx = ts->l[5], ly = ts->l[7];
    const double rx = sse_rgb(c, h->mt, lx);
    double rmin = sse_rmin(c, h->mt);
    const double texp = fmin(fmax(0.4, rmin / rx), 2.5);
    const double ry = sse_ragb(c, h->mt, ly, zp[2]);
    const double tau = (h->aj - tloop) / (ts->t[3] - (tloop - ts->t[2]));
    h->r = loop_radius(rx, &rmin, ry, tau);
    h->rg = rx + tau * (ry - rx);
    h->lum = lx * pow(ly / lx, pow(tau, texp));
}

static void core_helium_burning(hd *h)
{
    const sse_consts *c = h->c;
    const double *zp = c->zpars;
    if (h->kw == SSE_GB && h->mass <= zp[2]) {
        /* the He flash: the star restarts as its current mass, at He
         * ignition */
        h->mass = h->mt;
        retime(h);
        h->aj = h->ts->t[2];
    }
    const sse_tscales *ts = h->ts;
    double mcx;
    if (h->mass <= zp[2])
        mcx = sse_mc_of_l(ts->l[4], ts->gb, ts->l[6]);
    else
        mcx = sse_mchei(c, h->mass, zp[2], zp[10]);
    const double tau = (h->aj - ts->t[2]) / ts->t[3];
    h->mc = mcx + (sse_mcagb(c, h->mass) - mcx) * tau;
    if (h->mass <= zp[2])
        cheb_low(h, tau);
    else if (h->mass > zp[3])
        cheb_high(h, tau);
    else
        cheb_mid(h);
    if (h->mc >= h->mt) {
        /* envelope gone during CHeB: an evolved naked He MS star at the
         * same fraction of its He MS */
        const double x = (h->aj - ts->t[2]) / ts->t[3];
        h->kw = SSE_HEMS;
        h->mass = h->mt;
        retime(h);
        h->aj = x * h->ts->tm;
    } else {
        h->kw = SSE_CHEB;
    }
}

/* The end of nuclear burning of a core of mass mc (AGB or He giant):
 * white dwarf below the Chandrasekhar mass, else a supernova: no remnant
 * if the core never ignited carbon (mswitch < 1.6), else NS or BH.
 * wd_mass: the mass of the WD formed. */
static void end_of_burning(hd *h, double mcmax, double mswitch, double wd_mass)
{
    h->aj = 0.0;
    h->mc = mcmax;
    if (h->mc < SSE_MCH) {
        h->mt = wd_mass;
        h->kw = mswitch < 1.6 ? SSE_COWD : SSE_ONEWD;
        h->mass = h->mt;
    } else if (mswitch < 1.6) {
        h->kw = SSE_MASSLESS;
        h->mt = 0.0;
        h->lum = 1.0e-10;
        h->r = 1.0e-10;
    } else {
        h->mt = sse_ns_bh_mass(h->mc, h->mt, &h->kw);
        h->mc = h->mt;
    }
}

/* Returns 1 when the envelope is gone and the star went on as a He giant
 * (its He-star state then follows). */
static int asymptotic_giant_branch(hd *h)
{
    const sse_consts *c = h->c;
    const double *zp = c->zpars;
    sse_tscales *ts = h->ts;
    const double mcbagb = sse_mcagb(c, h->mass);
    double mcx = sse_mc_of_t(h->tbagb, ts->gb[8], ts->gb, ts->t[7], ts->t[8], ts->t[9]);
    double mcmax = fmax(fmax(SSE_MCH, 0.773 * mcbagb - 0.35), 1.02 * mcx);
    if (h->aj < ts->t[13]) {
        /* early AGB: the He core stays, the CO core inside it grows */
        mcx = sse_mc_of_t(h->aj, ts->gb[8], ts->gb, ts->t[7], ts->t[8], ts->t[9]);
        h->mc = mcbagb;
        h->lum = sse_l_of_mc(mcx, ts->gb);
        if (h->mt <= h->mc) {
            h->kw = SSE_HEGB;
            h->mt = h->mc;
            h->mass = h->mt;
            h->mc = mcx;
            retime(h);
            h->aj = fmax(sse_t_of_mc(h->mc, ts->gb[8], ts->gb, ts->t[4], ts->t[5]), ts->tm);
            return 1;
        }
        h->kw = SSE_EAGB;
    } else {
        h->kw = SSE_TPAGB;
        /* keep a slightly negative epoch from running the age off the fit */
        if (h->aj >= ts->t[11] - 2.0 * SSE_TINY)
            h->aj = ts->t[14] + 0.95 * (ts->t[11] - ts->t[14]);
        h->mc = sse_mc_of_t(h->aj, ts->gb[2], ts->gb, ts->t[10], ts->t[11], ts->t[12]);
        h->lum = sse_l_of_mc(h->mc, ts->gb);
        /* third dredge-up: a fraction lambda of the growth is mixed out */
        const double lambda = fmin(0.9, 0.3 + 0.001 * sse_ipow(h->mass, 5));
        mcx = sse_mc_of_t(ts->t[13], ts->gb[2], ts->gb, ts->t[10], ts->t[11], ts->t[12]);
        h->mc -= lambda * (h->mc - mcx);
        mcx = h->mc;
        mcmax = fmin(h->mt, mcmax);
    }
    h->r = sse_ragb(c, h->mt, h->lum, zp[2]);
    h->rg = h->r;
    h->mcx = mcx;
    if (mcmax - mcx < SSE_TINY) {
        end_of_burning(h, mcmax, mcbagb, mcmax);
    } else if (mcbagb >= 1.6 && mcbagb <= 2.25 && mcx >= 1.372) {
        /* electron-capture collapse of an ONe core (ecflag = 1): a 1.26 Msun
         * NS; NBODY6 keeps the age here (it is not reset to 0) */
        h->mt = 1.26;
        h->mc = h->mt;
        h->kw = SSE_NS;
    }
    return 0;
}

static void naked_helium(hd *h)
{
    const sse_tscales *ts = h->ts;
    h->rzams = sse_rzhe(h->mt);
    h->rx = h->rzams;
    if (h->aj < ts->tm) {
        h->kw = SSE_HEMS;
        const double tau = h->aj / ts->tm;
        double am = fmax(0.0, 0.85 - 0.08 * h->mass);
        h->lum = ts->l[1] * (1.0 + 0.45 * tau + am * sse_ipow(tau, 2));
        am = fmax(0.0, 0.4 - 0.22 * log10(h->mt));
        h->r = h->rx * (1.0 + am * (tau - sse_ipow(tau, 6)));
        h->rg = h->rx;
        /* no core: mass loss acts on mass and mt alike (the He MS has no
         * memory of its past) */
        h->mc = 0.0;
        if (h->mt < h->c->zpars[10])
            h->kw = SSE_HEWD;
        return;
    }
    h->kw = SSE_HEHG;
    h->lum = sse_l_of_t(h->aj, ts->gb[8], ts->gb, ts->t[4], ts->t[5], ts->t[6]);
    h->r = sse_rhehg(h->mt, h->lum, h->rx, ts->l[2]);
    h->rg = sse_rhegb(h->lum);
    if (h->r >= h->rg) {
        h->kw = SSE_HEGB;
        h->r = h->rg;
    }
    h->mc = sse_mc_of_l(h->lum, ts->gb, ts->l[6]);
    h->mtc = fmin(h->mt, 1.45 * h->mt - 0.31);
    const double mcmax = fmin(h->mtc, fmax(SSE_MCH, 0.773 * h->mass - 0.35));
    if (mcmax - h->mc < SSE_TINY) {
        const double wd = h->mass < 1.6 ? fmax(mcmax, (mcmax + 0.31) / 1.45) : mcmax;
        end_of_burning(h, mcmax, h->mass, wd);
    }
}

static void white_dwarf(hd *h)
{
    h->mc = h->mt;
    if (h->mc >= SSE_MCH && h->kw == SSE_ONEWD) {
        /* accretion-induced collapse: a minimum-mass NS */
        h->kw = SSE_NS;
        h->aj = 0.0;
        h->mt = 1.26;
    } else if (h->mc >= SSE_MCH - 0.06 && h->kw <= SSE_COWD) {
        /* He/CO WD at the Chandrasekhar mass: SN Ia, nothing left */
        h->kw = SSE_MASSLESS;
        h->aj = 0.0;
        h->mt = 0.0;
        h->lum = 1.0e-10;
        h->r = 1.0e-10;
    } else {
        h->lum = sse_wd_lum(h->c, h->kw, h->mt, h->aj);
        h->r = sse_wd_radius(h->mt);
    }
}

static void neutron_star(hd *h)
{
    h->mc = h->mt;
    if (h->mc > SSE_MXNS) {
        h->kw = SSE_BH;             /* accretion-induced BH */
        h->aj = 0.0;
    } else {
        h->lum = 0.02 * pow(h->mt, 0.67) / sse_ipow(fmax(h->aj, 0.1), 2);
        h->r = 1.4e-5;
    }
}

/* The bare core's L and R (lx, rx) and the core radius rc. */
static void core_properties(hd *h)
{
    const sse_consts *c = h->c;
    const double zf = c->zpars[14];
    int kw = h->kw;
    if (kw <= SSE_MS || kw == SSE_HEMS) {
        h->rc = 0.0;
    } else if (kw <= SSE_GB) {
        if (h->mass > c->zpars[2]) {
            h->lx = sse_lzhe(h->mc);
            h->rx = sse_rzhe(h->mc);
            h->rc = h->rx;
        } else {
            h->lx = 300.0 * h->mc * zf / pow(4.0 * 0.1, 1.18);  /* a young He WD */
            h->rx = sse_degenerate_core_radius(h->mc);
            h->rc = 5.0 * h->rx;
        }
    } else if (kw == SSE_CHEB) {
        /* a He MS star of the core's mass at the same burning fraction */
        const double tau = (h->aj - h->ts->t[2]) / h->ts->t[3];
        sse_tscales_of(c, SSE_HEMS, h->mc, h->mc, h->ts);
        double am = fmax(0.0, 0.85 - 0.08 * h->mc);
        h->lx = h->ts->l[1] * (1.0 + 0.45 * tau + am * sse_ipow(tau, 2));
        am = fmax(0.0, 0.4 - 0.22 * log10(h->mc));
        h->rx = sse_rzhe(h->mc) * (1.0 + am * (tau - sse_ipow(tau, 6)));
        retime(h);
        h->rc = h->rx;
    } else if (kw == SSE_EAGB) {
        /* a He HG star of the core's mass, its L following the CO core */
        double tau = 0.0;
        if (h->ts->tn > h->tbagb)
            tau = 3.0 * (h->aj - h->tbagb) / (h->ts->tn - h->tbagb);
        sse_tscales_of(c, SSE_HEGB, h->mc, h->mc, h->ts);
        h->lx = sse_l_of_mc(h->mcx, h->ts->gb);
        if (tau < 1.0)
            h->lx = h->ts->l[2] * pow(h->lx / h->ts->l[2], tau);
        h->rx = sse_rzhe(h->mc);
        h->rx = fmin(sse_rhehg(h->mc, h->lx, h->rx, h->ts->l[2]), sse_rhegb(h->lx));
        retime(h);
        h->rc = h->rx;
    } else if (kw <= SSE_HEGB) {
        h->lx = 300.0 * h->mc * zf / pow(16.0 * 0.1, 1.18);     /* a young CO WD */
        h->rx = sse_degenerate_core_radius(h->mc);
        h->rc = 5.0 * h->rx;
    } else {
        h->rc = h->r;
        h->menv = 1.0e-10;
        h->renv = 1.0e-10;
        h->k2 = 0.21;
    }
}

/* A thin envelope pulls L and R towards the core's (eqs 97-102). */
static void small_envelope(hd *h)
{
    const int kw = h->kw;
    if (kw < SSE_HG || kw > SSE_HEGB || kw == SSE_HEMS)
        return;
    double mu = ((h->mt - h->mc) / h->mt) * fmin(5.0, fmax(1.2, pow(h->lum / LUM0, KAP)));
    if (kw >= SSE_HEHG)
        mu = ((h->mtc - h->mc) / h->mtc) * 5.0;
    if (mu < 1.0) {
        double x = sse_lpert(h->mt, mu);
        h->lum = h->lx * pow(h->lum / h->lx, x);
        x = h->r <= h->rx ? 0.0 : sse_rpert(h->mt, mu, h->r, h->rx);
        h->r = h->rx * pow(h->r / h->rx, x);
    }
    h->rc = fmin(h->rc, h->r);
}

/* Hydrogen-star phases by age; returns 1 when the AGB handed over to a He
 * giant (whose state is then evaluated as such). */
static int hydrogen_phases(hd *h)
{
    const sse_consts *c = h->c;
    const sse_tscales *ts = h->ts;
    h->tbagb = ts->t[2] + ts->t[3];
    h->rzams = sse_rzams(c, h->mass);
    h->rtms = sse_rtms(c, h->mass);
    if (h->aj < ts->t[1]) {
        h->rg = sse_rgb(c, h->mt, ts->l[3]);
        if (h->aj < ts->tm)
            main_sequence(h);
        else
            hertzsprung_gap(h);
    } else if (h->aj < ts->t[2]) {
        giant_branch(h);
    } else if (h->aj < h->tbagb) {
        core_helium_burning(h);
    } else {
        return asymptotic_giant_branch(h);
    }
    return 0;
}

void sse_hrdiag(const sse_consts *c, sse_tscales *ts, sse_hr *hr)
{
    hd h = {0};
    h.c = c;
    h.ts = ts;
    h.kw = hr->kw;
    h.mass = hr->m0;
    h.mt = hr->mt;
    h.aj = hr->age;
    h.mc = hr->mc;
    h.menv = hr->menv;
    h.renv = hr->renv;
    h.k2 = hr->k2;
    if (h.kw <= SSE_TPAGB) {
        if (h.kw < 0)               /* pre-MS is not supported: start on the ZAMS */
            h.kw = SSE_MS;
        hydrogen_phases(&h);
    }
    if (h.kw >= SSE_HEMS && h.kw <= SSE_HEGB)
        naked_helium(&h);
    if (h.kw >= SSE_HEWD && h.kw <= SSE_ONEWD)
        white_dwarf(&h);
    if (h.kw == SSE_NS)
        neutron_star(&h);
    if (h.kw == SSE_MASSLESS) {
        h.lum = 1.0e-10;            /* what NBODY6 leaves in a massless remnant */
        h.r = 1.0e-10;
    }
    if (h.kw == SSE_BH) {
        h.mc = h.mt;
        h.lum = 1.0e-10;
        h.r = 4.24e-6 * h.mt;       /* Schwarzschild radius */
    }
    core_properties(&h);
    small_envelope(&h);
    if (h.kw >= 0 && h.kw < SSE_HEWD)
        sse_mrenv(h.kw, h.mass, h.mt, h.mc, h.lum, h.r, h.rc, h.aj, ts->tm, ts->l[2], ts->l[3],
                  ts->l[4], h.rzams, h.rtms, h.rg, &h.menv, &h.renv, &h.k2);
    hr->kw = h.kw;
    hr->m0 = h.mass;
    hr->mt = h.mt;
    hr->age = h.aj;
    hr->mc = h.mc;
    hr->lum = h.lum;
    hr->rad = h.r;
    hr->rc = h.rc;
    hr->menv = h.menv;
    hr->renv = h.renv;
    hr->k2 = h.k2;
}

void sse_state(const sse_consts *c, int kw, double m0, double mt, double age, sse_hr *hr)
{
    sse_tscales ts;
    sse_tscales_of(c, kw, m0, mt, &ts);
    hr->kw = kw;
    hr->m0 = m0;
    hr->mt = mt;
    hr->age = age;
    hr->mc = 0.0;
    hr->menv = hr->renv = hr->k2 = 0.0;
    sse_hrdiag(c, &ts, hr);
}

double sse_teff(double lum, double rad)
{
    /* NBODY6's relation (mlwind.f, hrplot.f): Teff,sun = 10^3.762 K */
    return pow(10.0, 3.762 + 0.25 * log10(lum) - 0.5 * log10(rad));
}
