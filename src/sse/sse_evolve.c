/* sse_evolve.c — a star's life as the N-body code drives it: the ZAMS
 * star with its spin and first update time (NBODY6's instar.f), and one
 * update (NBODY6's mdot.f for a single star): the wind rate at the start
 * of the step applied over it, the step cut so that the star loses at most
 * 2 % of its mass, its envelope, or 30 % (winds) / 3 % (magnetic braking)
 * of its spin; MS, HG and He-MS stars rejuvenated by the loss; the new
 * state and any remnant; the spin; the next update time (sse_trdot.c). */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

#define K3 0.21             /* k^2 of the core */
#define AURSUN 214.95       /* Rsun per AU */
#define TWOPI 6.283185307179586
/* The 2 % cap on the mass lost in one update.  NBODY6 writes it as a
 * single-precision literal (0.02 = 0.0199999996 in mdot.f); the same value
 * here keeps the tracks equal to NBODY6's to rounding. */
#define DMR_MAX ((double)0.02f)

static void copy_hr(sse_star *s, const sse_hr *hr)
{
    s->kw = hr->kw;
    s->m0 = hr->m0;
    s->mass = hr->mt;
    s->mc = hr->mc;
    s->lum = hr->lum;
    s->rad = hr->rad;
    s->rc = hr->rc;
    s->menv = hr->menv;
    s->renv = hr->renv;
    s->k2 = hr->k2;
}

void sse_init(const sse_consts *c, sse_star *s, double m, double t, double epoch)
{
    sse_hr hr;
    sse_state(c, SSE_MS, m, m, t - epoch, &hr);
    copy_hr(s, &hr);
    s->mzams = m;
    s->epoch = t - hr.age;
    /* ZAMS rotation of Lang (1992): omega = v/R in 1/yr (45.35 converts
     * km/s / Rsun) */
    const double ospin = 45.35 * sse_vrot(s->mass) / s->rad;
    s->jspin = hr.kw > SSE_MS ? 0.0 : s->k2 * s->mass * sse_ipow(s->rad, 2) * ospin;
    s->tlast = t;
    s->tnext = t + sse_trdot(c, s);
    if (s->kw >= SSE_NS)
        s->tnext = t;
}

/* The state at the start of the step (the last update's age). */
typedef struct step0 {
    double age, epoch, tm, tbgb, mc, rad, rc, menv, k2, lum;
    int kw_then;                    /* the type hrdiag finds now */
} step0;

static void start_state(const sse_consts *c, const sse_star *s, step0 *z)
{
    sse_tscales ts;
    sse_hr hr = {.kw = s->kw, .m0 = s->m0, .mt = s->mass, .age = fmax(s->tlast - s->epoch, 0.0)};
    z->age = hr.age;
    z->epoch = s->epoch;
    sse_tscales_of(c, s->kw, s->m0, s->mass, &ts);
    sse_hrdiag(c, &ts, &hr);
    z->tm = ts.tm;
    z->tbgb = ts.t[1];
    z->mc = hr.mc;
    z->rad = hr.rad;
    z->rc = hr.rc;
    z->menv = hr.menv;
    z->k2 = hr.k2;
    z->lum = hr.lum;
    z->kw_then = hr.kw;
}

/* The step (yr) after the wind, spin and envelope limits; *dmx the rate,
 * *djspin the spin-down rate. */
static double limit_step(const sse_star *s, const step0 *z, double dmx, double ospin,
                         double *djspin)
{
    double dt = 1.0e6 * (s->tnext - s->tlast);
    *djspin = (2.0 / 3.0) * dmx * z->rad * z->rad * ospin;
    if (*djspin > 0.0)
        dt = fmin(dt, 0.3 * s->jspin / *djspin);
    const double djmb = sse_magbrk(s->kw, s->mass, z->menv, z->rad, ospin);
    if (djmb > 0.0) {
        dt = fmin(dt, 0.03 * s->jspin / djmb);
        *djspin += djmb;
    }
    double dms = dmx * dt;
    const double dmr = fabs(dms / (s->mass + 1.0e-10));
    if (dmr > DMR_MAX) {
        dt = dt * DMR_MAX / dmr;
        dms = DMR_MAX * s->mass;
    }
    if (s->kw < SSE_HEWD) {
        const double dml = fmax(s->mass - z->mc, 1.0e-7);
        if (dml < dms)
            dt *= dml / dms;
    }
    return dt;
}

/* Mass lost on the MS, HG or He MS: the star continues as a star of its
 * new mass at the same fraction of its phase (HPT00 section 7.1). */
static void rejuvenate(const sse_consts *c, const sse_star *s, const step0 *z, double m1,
                       double *m0, double *epoch)
{
    const double m10 = *m0;
    sse_tscales ts;
    *m0 = m1;
    sse_tscales_of(c, s->kw, *m0, m1, &ts);
    if (s->kw == SSE_HG) {
        /* not when the core would exceed the new BGB core, nor above MFGB */
        if (ts.gb[9] < z->mc || m10 > c->zpars[3]) {
            *m0 = m10;
        } else {
            const double a = ts.tm + (ts.t[1] - ts.tm) * (z->age - z->tm) / (z->tbgb - z->tm);
            *epoch = s->tlast - a;
        }
    } else {
        *epoch = s->tlast - z->age * ts.tm / z->tm;
    }
}

/* Keep the spin below break-up of the star as it was, and give a new NS
 * or BH a 1 s period. */
static void update_spin(sse_star *s, const step0 *z, double mass_before, double djspin,
                        const sse_hr *hr, int kw_before)
{
    if (hr->kw != kw_before && hr->kw >= SSE_NS)
        s->jspin = K3 * hr->rc * hr->rc * hr->mc * 2.0e8;
    s->jspin = fmax(s->jspin - djspin, 1.0e-10);
    const double obru = TWOPI * sqrt(mass_before * sse_ipow(AURSUN, 3) / sse_ipow(z->rad, 3));
    const double jbru = (z->k2 * (mass_before - z->mc) * z->rad * z->rad +
                         K3 * z->mc * z->rc * z->rc) * obru;
    if (s->jspin > jbru)
        s->jspin = jbru;
}

void sse_update(const sse_consts *c, sse_star *s, sse_change *ch)
{
    step0 z;
    start_state(c, s, &z);
    /* a type change found at the start waits for the end of the step: the
     * wind rate is the old type's */
    double m1 = s->mass;
    const double dmx = sse_mlwind(c, s->kw, z.lum, z.rad, m1, z.mc, 0.0);
    const double ospin = s->jspin / (z.k2 * z.rad * z.rad * (m1 - z.mc) + K3 * z.rc * z.rc * z.mc);
    double djspin;
    const double dt = limit_step(s, &z, dmx, ospin, &djspin);
    const double dms = dmx * dt;
    double m0 = s->m0, epoch = z.epoch;
    if (fabs(dms / (s->mass + 1.0e-10)) > SSE_TINY) {
        m1 -= dms;
        if (s->kw <= SSE_HG || s->kw == SSE_HEMS)
            rejuvenate(c, s, &z, m1, &m0, &epoch);
    }
    djspin *= dt;
    const double t = s->tlast + dt / 1.0e6;
    sse_tscales ts;
    sse_hr hr = {.kw = s->kw, .m0 = m0, .mt = m1, .age = t - epoch, .mc = z.mc};
    const double age1 = hr.age;
    sse_tscales_of(c, s->kw, m0, m1, &ts);
    if (hr.age - ts.tn > 1.0e-2) {
        /* past the nuclear time (rounding of a late step): keep the age on
         * the fit */
        if (s->kw <= SSE_TPAGB) {
            hr.age = fmin(hr.age, 0.9999 * ts.t[11]);
        } else {
            hr.age = fmin(hr.age, 0.9999 * ts.t[5]);
            hr.age = fmin(hr.age, 1.0001 * ts.tn);
        }
    }
    sse_hrdiag(c, &ts, &hr);
    const int kw_before = s->kw;
    const double mass_before = s->mass;
    ch->kw_old = kw_before;
    ch->kw_new = hr.kw;
    ch->dm = mass_before - hr.mt;
    ch->t = t;
    update_spin(s, &z, mass_before, djspin, &hr, kw_before);
    copy_hr(s, &hr);
    /* the epoch absorbs any reset of the age (new remnant, capped age) */
    s->epoch = age1 + epoch - hr.age;
    s->tlast = t;
    s->tnext = t + sse_trdot(c, s);
}

double sse_evolve(const sse_consts *c, sse_star *s, double t)
{
    double dm = 0.0;
    while (s->tnext <= t && s->kw != SSE_MASSLESS) {
        sse_change ch;
        sse_update(c, s, &ch);
        dm += ch.dm;
    }
    return dm;
}
