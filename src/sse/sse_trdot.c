/* sse_trdot.c — the interval to a star's next evolution update (NBODY6's
 * trdot.f; Hurley et al. 2001 section 2.2): a fraction of the current
 * phase's time scale (5 % on the MS, HG, CHeB and He MS, 2 % of the
 * core-growth clock on the giant branches), cut at the end of the phase,
 * then shortened until the radius changes by at most 10 %, and never
 * below 100 yr.  0 when the type changes at the current time. */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

#define PTS1 0.05
#define PTS2 0.02
#define EPS 1.0e-6
#define ALPHA2 0.09
#define TOL 1.0e-10
#define DTMIN 1.0e-4    /* Myr */
/* The 10 % bound on the radius change; single precision in NBODY6's
 * trdot.f (0.1 = 0.100000001), kept so that update times match NBODY6's. */
#define DRMAX ((double)0.1f)

/* The phase's own step dtm and the time left in the phase dtr. */
static void phase_steps(int kw, double age, double lum, const sse_tscales *ts, double *dtm,
                        double *dtr)
{
    const double *t = ts->t;
    const double tm = ts->tm, tn = ts->tn;
    switch (kw) {
    case SSE_LMMS:
    case SSE_MS:
    case SSE_HEMS:
        *dtm = PTS1 * tm;
        *dtr = tm - age;
        break;
    case SSE_HG:
        *dtm = PTS1 * (t[1] - tm);
        *dtr = t[1] - age;
        break;
    case SSE_GB:
        *dtm = PTS2 * ((age < t[6] ? t[4] : t[5]) - age);
        *dtr = fmin(t[2], tn) - age;
        break;
    case SSE_CHEB:
        *dtm = PTS1 * t[3];
        *dtr = fmin(tn, t[2] + t[3]) - age;
        break;
    case SSE_EAGB:
        *dtm = PTS2 * ((age < t[9] ? t[7] : t[8]) - age);
        *dtr = fmin(tn, t[13]) - age;
        break;
    case SSE_TPAGB:
        *dtm = PTS2 * ((age < t[12] ? t[10] : t[11]) - age);
        *dtr = tn - age;
        break;
    case SSE_HEHG:
    case SSE_HEGB:
        *dtm = PTS2 * ((age < t[6] ? t[4] : t[5]) - age);
        *dtr = tn - age;
        break;
    default:            /* remnants: on the cooling time */
        *dtm = sqrt(10.0 / lum);
        *dtr = *dtm;
        break;
    }
}

/* The radius at age, continuing from the evaluation state st (type,
 * masses and time scales carry over from one trial to the next, as in
 * NBODY6, where hrdiag is called again without a new call to star). */
static double radius_at(const sse_consts *c, sse_tscales *ts, sse_hr *st, double age, double mc)
{
    st->age = age;
    st->mc = mc;
    sse_hrdiag(c, ts, st);
    return st->rad;
}

double sse_trdot(const sse_consts *c, const sse_star *s)
{
    sse_tscales ts;
    sse_hr st = {.kw = s->kw, .m0 = s->m0, .mt = s->mass, .age = s->tlast - s->epoch};
    sse_tscales_of(c, s->kw, s->m0, s->mass, &ts);
    sse_hrdiag(c, &ts, &st);
    const int kw0 = st.kw;
    /* a change of type due now: update at once */
    if ((s->kw <= SSE_TPAGB && kw0 > SSE_TPAGB) || (s->kw <= SSE_HEGB && kw0 > SSE_HEGB))
        return 0.0;
    const double age0 = st.age, rm0 = st.rad, mc = st.mc;
    double dtm, dtr;
    phase_steps(kw0, age0, st.lum, &ts, &dtm, &dtr);
    if (kw0 >= SSE_HEWD)
        return fmax(dtm, DTMIN);
    if (dtr - dtm <= TOL) {
        /* the phase ends within the step: step to its end unless the radius
         * jumps by more than 10 % there */
        const double rm = radius_at(c, &ts, &st, fmax(age0, age0 * (1.0 - EPS) + dtr), mc);
        const double dr = rm - rm0;
        if (!(fabs(dr) > DRMAX * rm0 && st.kw < SSE_HEWD))
            return fmax(dtr, DTMIN);
        dtm = dtr - age0 * EPS;
        dtm = ALPHA2 * fmax(rm, rm0) * dtm / fabs(dr);
    }
    /* shrink the step until the radius changes by at most 10 % (giving up
     * after 30 tries; halving from the 20th) */
    for (int it = 1;; it++) {
        const double rm = radius_at(c, &ts, &st, age0 + dtm, mc);
        const double dr = rm - rm0;
        if ((it == 20 && st.kw == SSE_CHEB) || (st.kw != kw0 && st.kw >= SSE_NS) || it > 30)
            break;
        if (!(fabs(dr) > DRMAX * rm0))
            break;
        dtm = ALPHA2 * fmax(rm0, rm) * dtm / fabs(dr);
        if (it >= 20)
            dtm *= 0.5;
    }
    return fmax(dtm, DTMIN);
}
