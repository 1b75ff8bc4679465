/* setup.c — the deck turned into the values core/, reg/ and evol/ take. */
#include "io/setup.h"
#include "io/snapshot.h"

void setup_params(const deck *d, int nbmax, params *p)
{
    *p = (params){0};
    p->etai = d->etai;
    p->etar = d->etar;
    p->rs0 = d->rs0;
    p->dtadj = d->dtadj;
    p->deltat = d->deltat;
    p->tcrit = d->tcrit;
    p->qe = d->qe;
    p->smax = d->smax;
    p->dtmin = d->dtmin;
    p->rmin = d->rmin;
    p->etau = d->etau;
    p->eclose = d->eclose;
    p->gmin = d->gmin;
    p->gmax = d->gmax;
    p->nnbmax0 = d->nnbmax;
    p->kz40 = d->kz[40];
    p->nbmax = nbmax > 0 ? nbmax : (d->nnbmax + 50 > 400 ? d->nnbmax + 50 : 400);
}

tide_spec setup_tide(const deck *d)
{
    return (tide_spec){.kind = d->kz[14], .rbar = d->rbar, .zmbar = d->zmbar, .gmg = d->gmg,
                       .rg0 = d->rg0};
}

ks_options setup_ks(const deck *d)
{
    return (ks_options){.kz16 = d->kz[16],
                        .chain = d->kz[15] >= 1 && d->kz[30] != 0,
                        .merge = d->kz[15] >= 1,
                        .merge_log = d->kz[18] >= 1,
                        .nprim = setup_primordial_pairs(d)};
}

int setup_primordial_pairs(const deck *d)
{
    if (d->nbin0 <= 0)
        return 0;
    if (d->kz[8] == 1 || d->kz[8] >= 3)
        return d->idorm > 0 ? 0 : d->nbin0;
    /* KZ(8) = 0 or 2: the first 2 NBIN0 bodies of a file are the pairs */
    return d->kz[22] >= 2 ? d->nbin0 : 0;
}

sim *setup_sim(const deck *d, int n, const double *m, const double (*x)[3], const double (*v)[3],
               int nbmax, char *err, size_t errlen)
{
    params p;
    setup_params(d, nbmax, &p);
    tide td;
    const tide_spec ts = setup_tide(d);
    if (tide_init(&td, &ts, n, err, errlen)) return NULL;
    return sim_create(&p, &td, n, m, x, v, err, errlen);
}

int setup_evol(const deck *d, int nzero, const char *kicks, evol_options *o, char *err, size_t errlen)
{
    if (d->kz[19] != 3) return 0;
    int clamped;
    *o = (evol_options){.z = sse_clamp_z(d->zmet, &clamped),
                        .epoch0 = d->epoch0,
                        .tstar = snapshot_tstar_myr(d->rbar, d->zmbar, nzero),
                        .munit = d->zmbar * nzero,
                        .vstar = snapshot_vstar_kms(d->rbar, d->zmbar, nzero),
                        /* NBODY6's solar radius and parsec (Rsun per pc) */
                        .rstar = d->rbar * 3.0857e18 / 6.96e10,
                        .kicks = evol_kicks_default(d->kz[25]),
                        .seed = (uint64_t)(d->nrand > 0 ? d->nrand : 1)};
    if (kicks && evol_kicks_parse(kicks, &o->kicks, err, errlen)) return -1;
    return 1;
}
