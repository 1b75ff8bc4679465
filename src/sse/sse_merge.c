/* sse_merge.c — the star two colliding stars make (sse.h): its type from
 * the collision rules of BSE (Hurley, Tout & Pols 2002, MNRAS 329, 897,
 * section 2.7 and their table of merger products; NBODY6 applies the same
 * table in its collision routine), its mass, core, initial mass and age as
 * NBODY6's mixing routine sets them in spirit.  docs/STELLAR_EVOLUTION.md
 * states each choice and what is simplified. */
#include <math.h>
#include "sse/sse.h"

/* The product's type for the types of the two stars (symmetric).  Values
 * above 100 are the common-envelope cases: one star is a giant (types 2-6,
 * 8, 9) whose core and the other star spiral in inside its envelope; the
 * value less 100 is the type of the star left when they coalesce.  The
 * rules, in words:
 *   - two main-sequence stars (0, 1) make a main-sequence star; two naked
 *     helium main-sequence stars (7) a main-sequence star, which the mixing
 *     below keeps a helium star;
 *   - a main-sequence star and a helium star (7) make a core-helium-burning
 *     star (4); with a white dwarf, a giant whose core is the white dwarf:
 *     a first-giant-branch star (3) around a helium WD, a thermally pulsing
 *     AGB star (6) around a CO or ONe WD;
 *   - a helium main-sequence star with a helium WD stays a helium MS star
 *     (7), with a CO or ONe WD becomes a helium giant (9);
 *   - white dwarfs: two helium WDs leave nothing (15, the helium ignites
 *     and disrupts the star), a helium WD and a CO/ONe WD make a helium
 *     giant (9), two CO WDs or a CO and an ONe WD an ONe WD (12), two ONe
 *     WDs an ONe WD (above the Chandrasekhar mass the HR evolution turns it
 *     into a neutron star or nothing);
 *   - a neutron star with anything below it makes a neutron star (13), two
 *     neutron stars a black hole (14), a black hole with anything a black
 *     hole;
 *   - with a giant (common envelope): the giant's type mostly, moved on
 *     where the core grows (a HG star with a giant or WD: a giant; two
 *     giants with a helium-burning core: type 4; TPAGB with CO cores: 5 or
 *     6), helium giants with helium stars or WDs: 9 (8 for two He HG). */
static const short ktype[15][15] = {
    /*        0    1    2    3    4    5    6    7    8    9   10   11   12   13   14 */
    /* 0 */ {  1,   1, 102, 103, 104, 105, 106,   4, 106, 106,   3,   6,   6,  13,  14},
    /* 1 */ {  1,   1, 102, 103, 104, 105, 106,   4, 106, 106,   3,   6,   6,  13,  14},
    /* 2 */ {102, 102, 103, 103, 104, 104, 105, 104, 104, 104, 103, 105, 105, 113, 114},
    /* 3 */ {103, 103, 103, 103, 104, 104, 105, 104, 104, 104, 103, 105, 105, 113, 114},
    /* 4 */ {104, 104, 104, 104, 104, 104, 104, 104, 104, 104, 104, 104, 104, 113, 114},
    /* 5 */ {105, 105, 104, 104, 104, 104, 104, 104, 104, 104, 104, 104, 104, 113, 114},
    /* 6 */ {106, 106, 105, 105, 104, 104, 106, 104, 106, 106, 105, 106, 106, 113, 114},
    /* 7 */ {  4,   4, 104, 104, 104, 104, 104,   1, 108, 109,   7,   9,   9,  13,  14},
    /* 8 */ {106, 106, 104, 104, 104, 104, 106, 108, 108, 109, 107, 109, 109, 113, 114},
    /* 9 */ {106, 106, 104, 104, 104, 104, 106, 109, 109, 109, 107, 109, 109, 113, 114},
    /*10 */ {  3,   3, 103, 103, 104, 104, 105,   7, 107, 107,  15,   9,   9,  13,  14},
    /*11 */ {  6,   6, 105, 105, 104, 104, 106,   9, 109, 109,   9,  12,  12,  13,  14},
    /*12 */ {  6,   6, 105, 105, 104, 104, 106,   9, 109, 109,   9,  12,  12,  13,  14},
    /*13 */ { 13,  13, 113, 113, 113, 113, 113,  13, 113, 113,  13,  13,  13,  14,  14},
    /*14 */ { 14,  14, 114, 114, 114, 114, 114,  14, 114, 114,  14,  14,  14,  14,  14},
};

int sse_collision_type(int k1, int k2)
{
    if (k1 < 0 || k1 > 14 || k2 < 0 || k2 > 14) return -1;
    return ktype[k1][k2];
}

int sse_giant_like(int kw) { return kw >= SSE_HG && kw <= SSE_HEGB && kw != SSE_HEMS; }

int sse_merge(const sse_consts *c, const sse_star *a, const sse_star *b, double t, sse_star *out,
              double *dm)
{
    /* star 1 is the more evolved one (the higher type; of two MS stars the
     * heavier), as NBODY6's mixing orders them: the product carries its name */
    const int first = a->kw <= SSE_MS && b->kw <= SSE_MS ? a->mass >= b->mass
                      : a->kw != b->kw                  ? a->kw > b->kw
                                                         : a->mass >= b->mass;
    const sse_star *s1 = first ? a : b, *s2 = first ? b : a;
    const int k1 = s1->kw, k2 = s2->kw;
    int icase = sse_collision_type(k1, k2);
    const double m3 = s1->mass + s2->mass;
    double age1 = t - s1->epoch, age2 = t - s2->epoch;
    /* a helium WD below 0.05 Msun (a planet) or a CO/ONe WD below 0.15
     * Msun adds its mass and nothing else (mix.f): a MS star fed by it
     * mixes completely */
    if (k1 == SSE_HEWD && s1->mass < 0.05) {
        icase = k2 <= SSE_MS ? SSE_MS : k2;
        if (k2 <= SSE_MS) age1 = 0.0;
    } else if (k1 >= SSE_COWD && s1->mass < 0.15 && icase == SSE_TPAGB) {
        icase = SSE_MS;
    }
    if (k2 == SSE_HEWD && s2->mass < 0.05) {
        icase = k1 <= SSE_MS ? SSE_MS : k1;
        if (k1 <= SSE_MS) age2 = 0.0;
    }
    int kw = icase;
    double m0 = m3, mt = m3, age = 0.0, mc = 0.0;
    *out = *s1;
    if (icase > 100) {
        /* common envelope (BSE's treatment is binary evolution): the giant
         * keeps its evolutionary state (initial mass, age: its core) and
         * takes the other star into its envelope */
        const sse_star *g = sse_giant_like(k1) ? s1 : s2;
        kw = icase - 100;
        m0 = g->m0;
        age = t - g->epoch;
    } else if (icase == SSE_MS) {
        /* complete mixing: the product's age is its main-sequence time
         * times the fraction of hydrogen its parts burned, a tenth of
         * the mass-weighted fractions (mix.f's rule) */
        if (k1 == SSE_HEMS) kw = SSE_HEMS;
        m0 = s1->m0 + s2->m0;
        sse_tscales t1, t2, t3;
        sse_tscales_of(c, k1, s1->m0, s1->mass, &t1);
        sse_tscales_of(c, k2, s2->m0, s2->mass, &t2);
        sse_tscales_of(c, kw, m0, mt, &t3);
        age = 0.1 * t3.tm * (age1 * s1->m0 / t1.tm + age2 * s2->m0 / t2.tm) / m0;
    } else if (icase == SSE_HEMS) {
        /* a helium MS star and a helium WD: the star's burnt fraction
         * spread over the new mass */
        const sse_star *h = k1 == SSE_HEMS ? s1 : s2;
        sse_tscales th, t3;
        sse_tscales_of(c, SSE_HEMS, h->m0, h->mass, &th);
        sse_tscales_of(c, SSE_HEMS, m3, m3, &t3);
        age = t3.tm * ((t - h->epoch) * h->mass / th.tm) / m3;
    } else if (icase >= SSE_HEWD && icase <= SSE_ONEWD) {
        age = 0.0; /* a new white dwarf, cooling from now */
    } else if (icase == SSE_NS || icase == SSE_BH) {
        if (k2 < SSE_HEWD) {
            /* a star swallowed by a NS or BH (a Thorne-Zytkow object):
             * its envelope is blown away, the remnant is left */
            kw = k1;
            m0 = mt = s1->mass;
        } else if (icase == SSE_NS && m3 > 3.0) {
            kw = SSE_BH; /* above the largest NS mass */
        }
        age = 0.0;
    } else if (icase == SSE_MASSLESS) {
        *out = *s1;
        out->kw = SSE_MASSLESS;
        out->mass = out->m0 = out->mc = out->lum = out->rad = out->rc = 0.0;
        out->menv = out->renv = out->k2 = out->jspin = 0.0;
        out->tlast = out->tnext = t;
        *dm = m3;
        return first;
    } else if (icase == SSE_GB || icase == SSE_TPAGB || icase == SSE_HEGB || icase == SSE_CHEB) {
        /* a giant around a core that was the more evolved star (a WD, a
         * helium star): its initial mass and age fitted to that core
         * (gntage); a CHeB product keeps the helium star's burnt fraction */
        mc = s1->mass;
        if (icase == SSE_CHEB) {
            sse_tscales t1;
            sse_tscales_of(c, k1, s1->m0, s1->mass, &t1);
            age = fmin(age1 / t1.tm, 0.99); /* (mix.f warns past 1) */
        }
        sse_gntage(c, &mc, m3, &kw, &m0, &age);
    }
    sse_hr hr;
    sse_tscales ts;
    sse_tscales_of(c, kw, m0, mt, &ts);
    hr = (sse_hr){.kw = kw, .m0 = m0, .mt = mt, .age = age, .mc = mc};
    sse_hrdiag(c, &ts, &hr);
    out->kw = hr.kw;
    out->m0 = hr.m0;
    out->mass = hr.mt;
    out->mc = hr.mc;
    out->lum = hr.lum;
    out->rad = hr.rad;
    out->rc = hr.rc;
    out->menv = hr.menv;
    out->renv = hr.renv;
    out->k2 = hr.k2;
    out->mzams = s1->mzams + s2->mzams;
    out->epoch = t - hr.age;
    out->jspin = s1->jspin + s2->jspin;
    out->tlast = t;
    out->tnext = out->kw >= SSE_NS ? t : t + sse_trdot(c, out);
    *dm = m3 - out->mass;
    return first;
}
