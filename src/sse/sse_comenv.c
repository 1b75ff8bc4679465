/* sse_comenv.c — common-envelope evolution of two stars in contact when
 * one of them is giant-like (sse.h: sse_comenv, sse_ce_collision): the
 * energy formalism of Hurley, Tout & Pols 2002 (MNRAS 329, 897; "HTP02"),
 * section 2.7.1, with NBODY6's choices (its collision routines call it
 * for a giant's collision):
 *   - alpha = 3 (the efficiency with which orbital energy unbinds the
 *     envelope), lambda (the envelope's structure constant) from HTP02's
 *     fit to detailed models without the ionisation energy;
 *   - an eccentric orbit (e > 0.01) is a grazing passage, not a spiral-in:
 *     it takes a fraction y of the envelope's binding energy, cubic in the
 *     depth of the pericentre q_p / (R1 + R2) and between 0.05 and 0.5 (all
 *     of it when less than 0.05 Msun of envelope is left); the energy goes
 *     from the orbit (which shrinks and circularises) to the envelope (of
 *     which the part it unbinds leaves); the stars never coalesce in it;
 *   - a circular orbit spirals in: the cores (or the core and a MS star)
 *     coalesce if one fills its Roche lobe at the final separation; the
 *     product keeps the part of the envelopes the orbital energy did not
 *     unbind (a fit in the total mass with the giant-branch exponent of
 *     HPT00's zpars[7]); merging degenerate cores may ignite (dgcore); a
 *     NS or BH engulfed leaves a Thorne-Zytkow object that keeps only it.
 * Masses in Msun, radii and separations in Rsun, ages in Myr. */
#include <math.h>
#include "sse/sse_internal.h"

#define CE_ALPHA 3.0        /* NBODY6's alpha_CE */
#define CE_K3 0.21          /* a core's gyration constant (spin) */
#define AU_RSUN 214.95
#define CE_TWOPI 6.283185307179586
#define CE_NEWTON 100       /* the product mass's Newton steps (a few suffice) */

/* One star as the formalism carries it: type, initial mass, mass, core,
 * age, spin, and its HR state and time scales. */
typedef struct ce_star {
    int kw;
    double m0, mt, mc, aj, jspin;
    double r, lum, rc, menv, k2;
    sse_tscales ts;
} ce_star;

/* The HR state at (kw, m0, mt, aj) with mc as the HR routine's input core,
 * from the time scales s->ts as they are (NBODY6's routines keep a star's
 * time scales from its last evaluation in places; ce_eval makes them
 * afresh). */
static void ce_hrdiag(const sse_consts *c, ce_star *s)
{
    sse_hr h = {.kw = s->kw, .m0 = s->m0, .mt = s->mt, .age = s->aj, .mc = s->mc};
    sse_hrdiag(c, &s->ts, &h);
    s->kw = h.kw;
    s->m0 = h.m0;
    s->mt = h.mt;
    s->aj = h.age;
    s->mc = h.mc;
    s->r = h.rad;
    s->lum = h.lum;
    s->rc = h.rc;
    s->menv = h.menv;
    s->k2 = h.k2;
}

/* Time scales and HR state afresh; clip: an age past the nuclear time is
 * cut to it first. */
static void ce_eval(const sse_consts *c, ce_star *s, int clip)
{
    sse_tscales_of(c, s->kw, s->m0, s->mt, &s->ts);
    if (clip && s->aj > s->ts.tn) s->aj = s->ts.tn;
    ce_hrdiag(c, s);
}

/* Moment of inertia per unit spin: envelope and core. */
static double inertia(const ce_star *s)
{
    return s->k2 * s->r * s->r * (s->mt - s->mc) + CE_K3 * s->rc * s->rc * s->mc;
}

/* Spin rate from spin angular momentum (0 for a body without inertia). */
static double spin_rate(const ce_star *s)
{
    const double k = inertia(s);
    return k > 0.0 ? s->jspin / k : 0.0;
}

double sse_roche_lobe(double q)     /* Eggleton 1983: R_L / a */
{
    const double p = cbrt(q);
    return 0.49 * p * p / (0.6 * p * p + log(1.0 + p));
}

/* HTP02's lambda fit (NBODY6's celamf) without the ionisation energy:
 * for a convective envelope from L and the initial mass, for a radiative
 * one (a HG star) from R / R_ZAMS, interpolated by the convective fraction
 * of the envelope; 0.5 for helium stars.  kw: the type before this
 * evaluation (the fits are chosen by it). */
static double envelope_lambda(const sse_consts *c, int kw, const ce_star *s)
{
    if (!(s->mt > s->mc)) return 0.5;
    if (kw > SSE_TPAGB) return 0.5;
    const double fconv = s->menv / (s->mt - s->mc);
    double lam_conv = 0.0, lam_rad = 0.0;
    if (fconv > 0.0) {
        const double logl = log10(s->lum), logm = log10(s->m0);
        if (kw <= SSE_EAGB) {
            const double m1 = kw > SSE_GB ? 100.0 : s->m0;
            lam_conv = fmin(3.0 / (2.4 + 1.0 / pow(m1, 1.5)) - 0.15 * logl, 0.8);
        } else {
            lam_conv = -3.5 - 0.75 * logm + logl;
        }
        if (kw > SSE_GB) {
            const double l2 = fmin(0.9, 0.58 + 0.75 * logm) - 0.08 * logl;
            lam_conv = kw < SSE_TPAGB ? fmin(l2, lam_conv) : fmin(fmax(l2, lam_conv), 1.0);
        }
        lam_conv *= 2.0;
    }
    if (fconv < 1.0) lam_rad = 2.0 * 0.42 * pow(sse_rzams(c, s->m0) / s->r, 0.4);
    if (fconv <= 0.0) return lam_rad;
    if (fconv >= 1.0) return lam_conv;
    return lam_rad + sqrt(fconv) * (lam_conv - lam_rad);
}

/* The radius of a core of type kw and mass mc (a rough estimate for
 * non-degenerate cores; the degenerate ones as white dwarfs, five times
 * larger for giants' hot subdwarf cores). */
static double core_radius(int kw, double mc, double m0, double mflash)
{
    if (kw == SSE_BH) return 4.24e-6 * mc;
    if (kw == SSE_NS) return 1.4e-5;
    if (kw <= SSE_MS || kw == SSE_HEMS) return 0.0;
    if (kw == SSE_CHEB || kw == SSE_EAGB || (kw <= SSE_GB && m0 > mflash)) return 0.2239 * pow(mc, 0.62);
    const double r = 0.0115 * sqrt(fmax(1.48204e-6, pow(SSE_MCH / mc, 2.0 / 3.0) - pow(mc / SSE_MCH, 2.0 / 3.0)));
    return kw <= SSE_HEGB ? 5.0 * r : r;
}

/* Two degenerate cores (types 2/3 below the He flash, 6, 10, 11, 12) merge
 * into a core of mass m3 and type *kw3: the energy their binding releases
 * unbinds part of the envelope (*ebinde); helium is taken to burn to
 * carbon, and the product is destroyed when the burning releases more than
 * binds it, or when a WD product exceeds the Chandrasekhar mass.  As
 * NBODY6's dgcore: helium always burns, carbon never (the temperature
 * tests are switched off there). */
static void degenerate_cores(int kw1, int kw2, int *kw3, double m1, double m2, double *m3, double *ebinde)
{
    const double ehe = 5.812e17, gmr = 1.906e15; /* He -> C energy per mass, G Msun / Rsun (cgs) */
    const double r1 = core_radius(kw1, m1, 1.0, 2.0), r2 = core_radius(kw2, m2, 1.0, 2.0);
    const double r3 = core_radius(*kw3, *m3, 1.0, 2.0);
    const double deleb = fabs(m1 * m1 / r1 + m2 * m2 / r2 - *m3 * *m3 / r3);
    *ebinde = fmax(0.0, *ebinde - deleb);
    if (kw1 > SSE_GB) return;
    double mhe = 0.0;
    const int kws[2] = {kw1, kw2};
    const double ms[2] = {m1, m2};
    for (int q = 0; q < 2; q++) {
        if (kws[q] <= SSE_GB || kws[q] == SSE_HEWD) mhe += ms[q];
    }
    const double enuc = ehe * mhe / gmr, ebindf = *m3 * *m3 / r3;
    const double de = ebindf + *ebinde - enuc;
    if (de >= 0.0) *ebinde = fmax(0.0, *ebinde - enuc);
    int k = *kw3;
    if (de < 0.0) k = SSE_MASSLESS;
    if (k == SSE_GB) k = SSE_TPAGB;             /* the helium burnt */
    else if (k == SSE_CHEB) k = SSE_TPAGB;
    if (k == SSE_TPAGB && *ebinde <= 0.0) k = SSE_COWD;
    if (k == SSE_HEWD) k = SSE_COWD;
    if (k >= SSE_HEWD && k <= SSE_ONEWD && *m3 >= SSE_MCH) k = SSE_MASSLESS;
    if (k == SSE_MASSLESS) *m3 = 0.0;
    *kw3 = k;
}

/* The grazing passage of an eccentric (or hyperbolic) orbit: star 1's
 * envelope gives up a fraction of its binding energy to the orbit's loss
 * of energy (HTP02 eq 69 per passage with NBODY6's depth fraction). */
static void eccentric_passage(const sse_consts *c, ce_star *s1, const ce_star *s2, double lamb1, double *ecc,
                              double *sep)
{
    const double ebindi = s1->mt * (s1->mt - s1->mc) / (lamb1 * s1->r);
    const double qp = *sep * (1.0 - *ecc) / (s1->r + s2->r), x = qp - 0.5;
    const double yp = fmin(fmax(0.5 * x * x * x - 0.375 * x + 0.125, 0.05), 0.5);
    double de = s1->mt - s1->mc < 0.05 ? ebindi : yp * ebindi;
    double ebindf = ebindi - de;
    const double mf = 0.5 * (s1->mc + sqrt(s1->mc * s1->mc + 4.0 * lamb1 * s1->r * ebindf));
    const double eorbi = mf * s2->mt / (2.0 * *sep), ecirc = eorbi / (1.0 - *ecc * *ecc);
    double eorbf = eorbi + de / CE_ALPHA;
    if (eorbf < ecirc) {
        s1->mt = mf;
        *ecc = sqrt(1.0 - eorbf / ecirc);
    } else {
        /* the orbit circularises first: only the envelope mass whose
         * binding the circular orbit's energy pays leaves */
        const double efac = *ecc * *ecc / (1.0 - *ecc * *ecc);
        const double aa = 1.0 / (lamb1 * s1->r);
        const double bb = (2.0 * s1->mt - s1->mc) / (lamb1 * s1->r) + CE_ALPHA * efac * s2->mt / (2.0 * *sep);
        const double cc = CE_ALPHA * efac * s1->mt * s2->mt / (2.0 * *sep);
        const double dm = (bb - sqrt(bb * bb - 4.0 * aa * cc)) / (2.0 * aa);
        s1->mt = fmax(s1->mt - dm, s1->mc);
        ebindf = s1->mt * (s1->mt - s1->mc) / (lamb1 * s1->r);
        de = ebindi - ebindf;
        eorbf = eorbi + de / CE_ALPHA;
        *ecc = 0.001;
    }
    *sep = s1->mt * s2->mt / (2.0 * eorbf);
    if (s1->mt - s1->mc < 1.0e-7) {
        s1->mt = s1->mc;            /* the bare core */
        ce_eval(c, s1, 0);
    } else if (s1->kw == SSE_CHEB) {
        /* a CHeB star keeps the fraction of its He burning done */
        s1->aj = (s1->aj - s1->ts.t[2]) / s1->ts.t[3];
        sse_gntage(c, &s1->mc, s1->mt, &s1->kw, &s1->m0, &s1->aj);
    }
}

/* The fraction of its helium burning that star s has done, for a
 * product that burns helium (types 4 and 7); *mcs its core (all of a
 * helium MS star). */
static double he_fraction(const ce_star *s, int second, double *mcs)
{
    *mcs = s->mc;
    if (s->kw <= SSE_GB || (second && s->kw == SSE_HEWD)) return 0.0;
    if (second && s->kw == SSE_HEMS) {
        *mcs = s->mt;
        return s->aj / s->ts.tm;
    }
    if (s->kw >= SSE_TPAGB) return 1.0;
    return (s->aj - s->ts.t[2]) / (s->ts.t[13] - s->ts.t[2]);
}

/* The coalesced star: what is left of the envelopes (ebindf of ebindi
 * still bound) on the merged cores mc3, its type kw, age and spin from the
 * orbit at contact (separation sepl). */
static void coalesce(const sse_consts *c, ce_star *s1, ce_star *s2, int kw, double mc3, double ebindi,
                     double ebindf, double sepl)
{
    double mc22, f1 = 0.0, f2 = 0.0, mc1x;
    if (kw == SSE_CHEB || kw == SSE_HEMS) {
        f1 = he_fraction(s1, 0, &mc1x);
        f2 = he_fraction(s2, 1, &mc22);
    } else {
        mc22 = s2->mc;
    }
    const double tb = (sepl / AU_RSUN) * sqrt(sepl / (AU_RSUN * (s1->mc + s2->mc)));
    const double oorb = CE_TWOPI / tb, xx = 1.0 + c->zpars[7];
    double mf = mc3;
    if (ebindf > 0.0) {
        /* M^xx (M - Mc) scales with the envelope's binding energy */
        const double cst = pow(s1->mt + s2->mt, xx) * (s1->mt - s1->mc + s2->mt - mc22) * ebindf / ebindi;
        mf = fmax(s1->mc + mc22, (s1->mt + s2->mt) * pow(ebindf / ebindi, 1.0 / xx));
        for (int it = 0; it < CE_NEWTON; it++) {
            const double dely = pow(mf, xx) * (mf - s1->mc - mc22) - cst;
            if (fabs(dely / mf) <= 1.0e-3) break;
            mf -= dely / (pow(mf, c->zpars[7]) * ((1.0 + xx) * mf - xx * (s1->mc + mc22)));
        }
    }
    if (mc22 == 0.0) mf = fmax(mf, s1->mc + s2->mt);
    int fresh = 0; /* the time scales made again for the product (else star 1's) */
    s2->mt = 0.0;
    s2->kw = SSE_MASSLESS;
    s1->mt = mf;
    if (kw == SSE_HG) {
        /* a HG star keeps its place across the gap when its core fits */
        sse_tscales t2;
        sse_tscales_of(c, kw, s1->mt, s1->mt, &t2);
        if (t2.gb[9] >= s1->mc) {
            const double tm1 = s1->ts.tm, tb1 = s1->ts.t[1];
            s1->m0 = s1->mt;
            s1->aj = t2.tm + (t2.t[1] - t2.tm) * (s1->aj - tm1) / (tb1 - tm1);
            fresh = 1;
        }
    } else if (kw == SSE_HEMS) {
        s1->m0 = s1->mt;
        sse_tscales t1;
        sse_tscales_of(c, kw, s1->m0, s1->mt, &t1);
        s1->aj = t1.tm * (f1 * s1->mc + f2 * mc22) / (s1->mc + mc22);
        fresh = 1;
    } else if (kw == SSE_CHEB || s2->mc > 0.0 || kw != s1->kw) {
        if (kw == SSE_CHEB) s1->aj = (f1 * s1->mc + f2 * mc22) / (s1->mc + mc22);
        s1->mc += s2->mc;
        s2->mc = 0.0;
        sse_gntage(c, &s1->mc, s1->mt, &kw, &s1->m0, &s1->aj);
        fresh = 1;
    }
    s1->kw = kw;
    if (fresh) sse_tscales_of(c, s1->kw, s1->m0, s1->mt, &s1->ts);
    ce_hrdiag(c, s1);
    s1->jspin = oorb * inertia(s1);
    s2->jspin = 0.0;
}

/* The spiral-in of a circular orbit (HTP02 section 2.7.1): returns 1 when
 * the stars coalesce (star 1 is the product, star 2 massless), 0 when the
 * envelope(s) leave and two stars remain at *sep. */
static int spiral_in(const sse_consts *c, ce_star *s1, ce_star *s2, int kw2_was, double lamb1, double *sep)
{
    double ebindi = s1->mt * (s1->mt - s1->mc) / (lamb1 * s1->r);
    double eorbi = s1->mc * s2->mt / (2.0 * *sep);
    if (sse_giant_like(s2->kw)) {
        ebindi += s2->mt * (s2->mt - s2->mc) / (envelope_lambda(c, kw2_was, s2) * s2->r);
        eorbi = s1->mc * s2->mc / (2.0 * *sep);
    }
    double eorbf = eorbi + ebindi / CE_ALPHA;
    const double ospin1 = spin_rate(s1), ospin2 = spin_rate(s2);
    const int ms2 = s2->kw <= SSE_MS || s2->kw == SSE_HEMS;
    /* the companion's body in the orbit: a MS star whole, else its core */
    const double m2 = ms2 ? s2->mt : s2->mc, r2 = ms2 ? s2->r : s2->rc;
    const double sepf = s1->mc * m2 / (2.0 * eorbf);
    const double rl1 = sse_roche_lobe(s1->mc / m2), rl2 = sse_roche_lobe(m2 / s1->mc);
    /* the one that fills its lobe first at the final separation */
    const int first = s1->rc / rl1 >= r2 / rl2;
    const double rfill = first ? s1->rc : r2, rl = first ? rl1 : rl2;
    if (rfill > rl * sepf) {
        const double sepl = rfill / rl;
        if (!ms2 && s2->kw >= SSE_NS) {
            /* a Thorne-Zytkow object: only the NS or BH is left */
            s1->mc = s1->mt = s2->mc;
            s1->kw = s2->kw;
            s1->aj = 0.0;
            s2->mc = s2->mt = 0.0;
            s2->kw = SSE_MASSLESS;
            *sep = 0.0;
            return 1;
        }
        int kw = sse_collision_type(s1->kw, s2->kw) - 100;
        double mc3 = s1->mc + (ms2 ? 0.0 : s2->mc);
        if (ms2 && s2->kw == SSE_HEMS && kw == SSE_CHEB) mc3 += s2->mt;
        eorbf = fmax(s1->mc * m2 / (2.0 * sepl), eorbi);
        double ebindf = ebindi - CE_ALPHA * (eorbf - eorbi);
        if (!ms2) {
            if (s1->kw == SSE_TPAGB && (s2->kw == SSE_TPAGB || s2->kw >= SSE_COWD))
                degenerate_cores(s1->kw, s2->kw, &kw, s1->mc, s2->mc, &mc3, &ebindf);
            const double mflash = c->zpars[2];
            if (s1->kw <= SSE_GB && s1->m0 <= mflash &&
                ((s2->kw >= SSE_HG && s2->kw <= SSE_GB && s2->m0 <= mflash) || s2->kw == SSE_HEWD)) {
                degenerate_cores(s1->kw, s2->kw, &kw, s1->mc, s2->mc, &mc3, &ebindf);
                if (kw >= SSE_HEWD) {
                    /* the merged cores are all that is left */
                    s1->kw = kw;
                    s1->mt = s1->mc = mc3;
                    if (kw < SSE_MASSLESS) s1->m0 = mc3;
                    s1->aj = 0.0;
                    s2->mc = s2->mt = 0.0;
                    s2->kw = SSE_MASSLESS;
                    *sep = 0.0;
                    return 1;
                }
            }
        }
        coalesce(c, s1, s2, kw, mc3, ebindi, ebindf, sepl);
        *sep = ms2 ? sepf : 0.0; /* no orbit is left; the value means nothing */
        return 1;
    }
    /* the envelopes leave: the giant (and a giant companion) become cores */
    s1->mt = s1->mc;
    ce_eval(c, s1, 0);
    if (!ms2) {
        s2->mt = s2->mc;
        ce_eval(c, s2, 0);
    }
    /* the cores keep their spin rates (tides act later), the companion's
     * capped at break-up */
    s1->jspin = ospin1 * inertia(s1);
    s2->jspin = ospin2 * inertia(s2);
    const double ospbru = CE_TWOPI * sqrt(s2->mt * AU_RSUN * AU_RSUN * AU_RSUN / (s2->r * s2->r * s2->r));
    s2->jspin = fmin(s2->jspin, ospbru * inertia(s2));
    *sep = sepf;
    return 0;
}

/* The sse_star of a ce_star at time t (Myr). */
static void to_star(const sse_consts *c, const ce_star *x, const sse_star *was, double t, sse_star *out)
{
    *out = *was;
    out->kw = x->kw;
    out->m0 = x->m0;
    out->mass = x->mt;
    out->mc = x->mc;
    out->lum = x->lum;
    out->rad = x->r;
    out->rc = x->rc;
    out->menv = x->menv;
    out->k2 = x->k2;
    out->jspin = x->jspin;
    out->epoch = t - x->aj;
    out->tlast = t;
    if (x->kw == SSE_MASSLESS || !(x->mt > 0.0)) {
        out->kw = SSE_MASSLESS;
        out->mass = out->m0 = out->mc = out->lum = out->rad = out->rc = 0.0;
        out->menv = out->renv = out->k2 = out->jspin = 0.0;
        out->tnext = t;
        return;
    }
    out->tnext = out->kw >= SSE_NS ? t : t + sse_trdot(c, out);
}

static void from_star(const sse_star *s, double t, ce_star *x)
{
    *x = (ce_star){.kw = s->kw, .m0 = s->m0, .mt = s->mass, .mc = 0.0, .aj = t - s->epoch, .jspin = s->jspin};
}

int sse_comenv(const sse_consts *c, sse_star *a, sse_star *b, double t, double *ecc, double *sep)
{
    ce_star s1, s2;
    from_star(a, t, &s1);
    from_star(b, t, &s2);
    const int kw1 = s1.kw, kw2 = s2.kw;
    ce_eval(c, &s1, 1);
    const double lamb1 = envelope_lambda(c, kw1, &s1);
    ce_eval(c, &s2, 1);
    int coel = 0;
    if (*ecc > 0.01) {
        eccentric_passage(c, &s1, &s2, lamb1, ecc, sep);
    } else {
        coel = spiral_in(c, &s1, &s2, kw2, lamb1, sep);
        if (coel) *ecc = 0.001;
    }
    /* each star that is left evaluated afresh (its type may move on) */
    s1.aj = fmax(s1.aj, 1.0e-10);
    s2.aj = fmax(s2.aj, 1.0e-10);
    if (s1.kw != SSE_MASSLESS && s1.mt > 0.0) ce_eval(c, &s1, 0);
    if (!coel && s2.kw != SSE_MASSLESS && s2.mt > 0.0) ce_eval(c, &s2, 0);
    sse_star a2, b2;
    to_star(c, &s1, a, t, &a2);
    to_star(c, &s2, b, t, &b2);
    *a = a2;
    *b = b2;
    return coel;
}

int sse_ce_collision(const sse_consts *c, sse_star *a, sse_star *b, double t, double *ecc, double *sep)
{
    const sse_star a0 = *a, b0 = *b;
    const double ecc0 = *ecc;
    if (sse_comenv(c, a, b, t, ecc, sep)) return SSE_CE_COALESCED;
    /* touching still: a collision of what is left (as NBODY6 checks after) */
    if (*sep < a->rad || *sep < b->rad) return SSE_CE_TOUCH;
    if (fabs(a->mass + b->mass - a0.mass - b0.mass) < 1.0e-10) {
        *a = a0;
        *b = b0;
        return SSE_CE_NONE;
    }
    /* circularised and filling a Roche lobe: the spiral-in follows (once) */
    if (ecc0 > 0.001 && *ecc <= 0.001) {
        const double rl1 = sse_roche_lobe(a->mass / b->mass), rl2 = sse_roche_lobe(b->mass / a->mass);
        if (a->rad > rl1 * *sep || b->rad > rl2 * *sep) {
            if (sse_comenv(c, a, b, t, ecc, sep)) return SSE_CE_COALESCED;
            if (*sep < a->rad || *sep < b->rad) return SSE_CE_TOUCH;
        }
    }
    return SSE_CE_BINARY;
}
