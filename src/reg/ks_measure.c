/* ks_measure.c — the energy check's view of the KS pairs and the chain
 * (docs/ALGORITHMS.md §8, §10): the resolved state and binding energy,
 * the energy measure as the forces model the pairs, the tidal energy booked
 * at changes of model, the run's KS summary and profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "common/predict.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double ks_physical_state(sim *s, const double (*x)[3], const double (*v)[3], double *m,
                         double (*xo)[3], double (*vo)[3], double *mutual)
{
    double ebin = 0.0, mut = 0.0;
    double t = s->time;
    for (int i = s->ifirst; i < s->n; i++) {
        m[i] = s->m[i];
        memcpy(xo[i], x[i], sizeof(double) * 3);
        memcpy(vo[i], v[i], sizeof(double) * 3);
    }
    const ks_chain *ch = &s->ks->ch;
    if (ch->active) {
        /* the c.m. slot and the ghosts are the members */
        double xi[CHAIN_NMAX][3], vi[CHAIN_NMAX][3], xc[3], vc[3];
        memcpy(xc, x[ch->icm], sizeof xc);
        memcpy(vc, v[ch->icm], sizeof vc);
        chain_get_state(&ch->c, xi, vi);
        for (int k = 0; k < ch->c.n; k++) {
            int b = ch->slot[k];
            m[b] = ch->c.m[k];
            for (int c = 0; c < 3; c++) {
                xo[b][c] = xc[c] + xi[k][c];
                vo[b][c] = vc[c] + vi[k][c];
            }
            for (int q = k + 1; q < ch->c.n; q++) {
                double d[3] = {xi[k][0] - xi[q][0], xi[k][1] - xi[q][1], xi[k][2] - xi[q][2]};
                mut += ch->c.m[k] * ch->c.m[q] / sqrt(dot3(d, d));
            }
        }
        ebin -= ch->c.B;
    }
    for (int k = 0; k < s->npairs; k++) {
        const ks_pair *kp = &s->ks->pair[k];
        int icm = s->n + k, i1 = 2 * k, i2 = 2 * k + 1;
        double m1 = s->m[i1], m2 = s->m[i2], M = m1 + m2, q[3], qd[3];
        double h = ks_orbit_predict_h(&kp->o, t, q, qd);
        for (int c = 0; c < 3; c++) {
            xo[i1][c] = x[icm][c] + m2 / M * q[c];
            vo[i1][c] = v[icm][c] + m2 / M * qd[c];
            xo[i2][c] = x[icm][c] - m1 / M * q[c];
            vo[i2][c] = v[icm][c] - m1 / M * qd[c];
        }
        m[i1] = m1;
        m[i2] = m2;
        double dx[3] = {xo[i1][0] - xo[i2][0], xo[i1][1] - xo[i2][1], xo[i1][2] - xo[i2][2]};
        mut += m1 * m2 / sqrt(dot3(dx, dx));
        ebin += m1 * m2 * h / M;
    }
    /* merged hierarchies: the inner c.m. and its ghost are the inner pair
     * at its frozen relative state */
    for (int g = 0; g < s->ks->nmerge; g++) {
        const ks_merger *mg = &s->ks->mg[g];
        int i1 = -1, i2 = -1;
        for (int i = 0; i < s->n; i++) {
            if (s->name[i] == -mg->name1) i1 = i;
            if (s->name[i] == -mg->name2) i2 = i;
        }
        if (i1 < 0 || i2 < 0) continue;
        double M = mg->m1 + mg->m2, xc[3], vc[3];
        memcpy(xc, xo[i1], sizeof xc);
        memcpy(vc, vo[i1], sizeof vc);
        for (int c = 0; c < 3; c++) {
            xo[i1][c] = xc[c] + mg->m2 / M * mg->q[c];
            vo[i1][c] = vc[c] + mg->m2 / M * mg->qd[c];
            xo[i2][c] = xc[c] - mg->m1 / M * mg->q[c];
            vo[i2][c] = vc[c] - mg->m1 / M * mg->qd[c];
        }
        m[i1] = mg->m1;
        m[i2] = mg->m2;
        mut += mg->m1 * mg->m2 / sqrt(dot3(mg->q, mg->q));
        ebin += mg->ein;
    }
    *mutual = mut;
    return ebin;
}

int ks_hard_binaries(const sim *s, double *ebin_hard)
{
    int nh = 0;
    double e = 0.0;
    for (int k = 0; s->ks && k < s->npairs; k++) {
        double m1 = s->m[2 * k], m2 = s->m[2 * k + 1];
        double eb = m1 * m2 * s->ks->pair[k].o.h / (m1 + m2);
        if (eb < s->ks->ebh) {
            nh++;
            e += eb;
        }
    }
    for (int g = 0; s->ks && g < s->ks->nmerge; g++)
        if (s->ks->mg[g].ein < s->ks->ebh) { /* a merged inner pair is a binary too */
            nh++;
            e += s->ks->mg[g].ein;
        }
    *ebin_hard = e;
    return nh;
}

void ks_summarise(const sim *s, ks_summary *out)
{
    memset(out, 0, sizeof *out);
    if (!s->ks) return;
    out->formed = s->ks->formed;
    out->terminated = s->ks->terminated;
    out->steps = s->ks->steps;
    out->pairs = s->npairs;
    out->hard = ks_hard_binaries(s, &out->ebin_hard);
    const ks_chain *ch = &s->ks->ch;
    out->chains_started = ch->started;
    out->chains_ended = ch->ended;
    out->chain_steps = ch->steps_total + (ch->active ? ch->steps : 0);
    out->chain_members = ch->active ? ch->c.n : 0;
    out->chain_energy = ch->active ? -ch->c.B : 0.0;
    out->merged = s->ks->merged;
    out->splits = s->ks->splits;
    out->mergers = s->ks->nmerge;
    out->emerge = s->ks->emerge;
    out->partial_made = s->ks->partial_made;
    out->partial_flushed = s->ks->partial_flushed;
}

void ks_profile_print(const sim *s, FILE *f)
{
    if (!s->ks) return;
    static const char *names[KS_EVT_PHASES] = {"scan", "relabel", "send", "regf", "irrf", "fpoly"};
    const ks_state *ks = s->ks;
    double sum = 0.0;
    fprintf(f, "# KS events (%lld formed, %lld terminated, %lld chains, %lld mergers): wall time (s) "
               "by phase, inside ks_end\n", (long long)ks->formed, (long long)ks->terminated,
            (long long)ks->ch.started, (long long)ks->merged);
    for (int q = 0; q < KS_EVT_PHASES; q++) {
        fprintf(f, "%s %.4f\n", names[q], ks->evt[q]);
        sum += ks->evt[q];
    }
    fprintf(f, "sum %.4f\n", sum);
}

/* ---- the energy measure ---------------------------------------------------
 *
 * The total energy is measured as the forces model the pairs: a perturbed
 * pair by its two components (its own mutual term left out: it is in EBIN),
 * an unperturbed pair as a point mass at its c.m. (the forces leave out the
 * tidal field of the rest of the cluster on it, and so does the measure).
 * Between two changes of mode the measure is then the quantity the
 * integration conserves.  At a change of mode the model itself gains or
 * drops the tidal energy of the pair with every other body; that amount is
 * booked in ks->etide (NBODY6's ECOLL/EMERGE role at its own model changes,
 * e.g. kstide.f, merge.f) and is part of the total, so the measure is
 * continuous across the change and its drift is the integration's error. */

/* The bodies as the measure sees them at time t, pair skip left out
 * (-1: none): singles, components of perturbed pairs, c.m. points of the
 * others.  x: every slot predicted to t by sim_predict_one, or NULL to
 * predict here.  Returns the count; *ebin (optional) gets sum mu h(t),
 * *mutual the perturbed pairs' sum m1 m2 / R. */
static int measure_bodies(const sim *s, double t, const vec3 *x, int skip, int skip1, int skip2,
                          double *mb, vec3 *xb, double *ebin, double *mutual)
{
    int nb = 0;
    double eb = 0.0, mut = 0.0;
    const ks_chain *ch = &s->ks->ch;
    for (int i = s->ifirst; i < s->n; i++) {
        if (s->m[i] == 0.0 || i == skip1 || i == skip2) continue; /* ghosts; skipped singles */
        if (x) memcpy(xb[nb], x[i], sizeof(vec3));
        else {
            double v[3];
            sim_predict_one(s, i, t, xb[nb], v);
        }
        if (ch->active && i == ch->icm) {
            /* the members at their c.m. + the chain's state (at t: the
             * chain is advanced to every block and check time) */
            double xi[CHAIN_NMAX][3], vi[CHAIN_NMAX][3], xc[3];
            memcpy(xc, xb[nb], sizeof xc);
            chain_get_state(&ch->c, xi, vi);
            for (int k = 0; k < ch->c.n; k++) {
                for (int c = 0; c < 3; c++) xb[nb][c] = xc[c] + xi[k][c];
                mb[nb++] = ch->c.m[k];
                for (int q = k + 1; q < ch->c.n; q++) {
                    double d[3] = {xi[k][0] - xi[q][0], xi[k][1] - xi[q][1], xi[k][2] - xi[q][2]};
                    mut += ch->c.m[k] * ch->c.m[q] / sqrt(dot3(d, d));
                }
            }
            eb -= ch->c.B; /* the integrated internal energy, as mu h for a pair */
            continue;
        }
        mb[nb++] = s->m[i];
    }
    for (int k = 0; k < s->npairs; k++) {
        const ks_pair *kp = &s->ks->pair[k];
        int icm = s->n + k;
        double m1 = s->m[2 * k], m2 = s->m[2 * k + 1], M = m1 + m2, q[3], qd[3], xc[3], vc[3];
        double h = ks_orbit_predict_h(&kp->o, t, q, qd);
        eb += m1 * m2 * h / M;
        if (k == skip) continue;
        if (x) memcpy(xc, x[icm], sizeof xc);
        else sim_predict_one(s, icm, t, xc, vc);
        if (!ks_pair_perturbed(kp)) {
            memcpy(xb[nb], xc, sizeof(vec3));
            mb[nb++] = M;
            continue;
        }
        for (int c = 0; c < 3; c++) {
            xb[nb][c] = xc[c] + m2 / M * q[c];
            xb[nb + 1][c] = xc[c] - m1 / M * q[c];
        }
        mb[nb] = m1;
        mb[nb + 1] = m2;
        nb += 2;
        mut += m1 * m2 / sqrt(dot3(q, q));
    }
    if (ebin) *ebin = eb;
    if (mutual) *mutual = mut;
    return nb;
}

double ks_measure_potential(sim *s, const double (*x)[3], double *ebin)
{
    int n = s->n + CHAIN_NMAX;
    double *m = malloc(sizeof(double) * n), *pot = malloc(sizeof(double) * n), mutual;
    vec3 *xb = malloc(sizeof(vec3) * n);
    int nb = measure_bodies(s, s->time, (const vec3 *)x, -1, -1, -1, m, xb, ebin, &mutual);
    gpunb_pot(s->nb, nb, m, (const double(*)[3])xb, pot);
    /* Neumaier: the terms of hard pairs are large next to the total */
    double sum = mutual, comp = 0.0;
    for (int i = 0; i < nb; i++) {
        double term = -0.5 * m[i] * pot[i], tt = sum + term;
        comp += fabs(sum) >= fabs(term) ? (sum - tt) + term : (term - tt) + sum;
        sum = tt;
    }
    free(m); free(pot); free(xb);
    return sum + comp;
}

double ks_energy_booked(const sim *s) { return s->ks ? s->ks->etide : 0.0; }

double ks_energy_merged(const sim *s) { return s->ks ? s->ks->emerge : 0.0; }

/* The potential energy of bodies m1 at x1 and m2 at x2 with every body of
 * the measure at time t (pair skip_pair and singles i1, i2 left out), minus
 * that of their c.m. point. */
static double tidal_sum(const sim *s, double t, int skip_pair, int i1, int i2, double m1,
                        double m2, const double x1[3], const double x2[3])
{
    int n = s->n + CHAIN_NMAX;
    double *m = malloc(sizeof(double) * n);
    vec3 *xb = malloc(sizeof(vec3) * n);
    if (!m || !xb) {
        fprintf(stderr, "nbody6c: out of memory at a change of KS model\n");
        exit(1);
    }
    int nb = measure_bodies(s, t, NULL, skip_pair, i1, i2, m, xb, NULL, NULL);
    double M = m1 + m2, xc[3], w = 0.0;
    for (int c = 0; c < 3; c++) xc[c] = (m1 * x1[c] + m2 * x2[c]) / M;
    for (int b = 0; b < nb; b++) {
        double d1[3], d2[3], dc[3];
        for (int c = 0; c < 3; c++) {
            d1[c] = xb[b][c] - x1[c];
            d2[c] = xb[b][c] - x2[c];
            dc[c] = xb[b][c] - xc[c];
        }
        w -= m[b] * (m1 / sqrt(dot3(d1, d1)) + m2 / sqrt(dot3(d2, d2)) - M / sqrt(dot3(dc, dc)));
    }
    free(m);
    free(xb);
    return w;
}

/* The potential energy of pair k resolved minus that of its c.m. point,
 * with every other body of the measure at time t. */
static double tidal_energy(const sim *s, int k, double t)
{
    const ks_pair *kp = &s->ks->pair[k];
    double m1 = s->m[2 * k], m2 = s->m[2 * k + 1], M = m1 + m2, q[3], qd[3], xc[3], vc[3];
    ks_orbit_predict(&kp->o, t, q, qd);
    sim_predict_one(s, s->n + k, t, xc, vc);
    double x1[3], x2[3];
    for (int c = 0; c < 3; c++) {
        x1[c] = xc[c] + m2 / M * q[c];
        x2[c] = xc[c] - m1 / M * q[c];
    }
    return tidal_sum(s, t, k, -1, -1, m1, m2, x1, x2);
}

double ks_tidal_two(const sim *s, double t, int i1, int i2, double m1, double m2,
                    const double x1[3], const double x2[3])
{
    return tidal_sum(s, t, -1, i1, i2, m1, m2, x1, x2);
}

void ks_book_mode(sim *s, int k, int was_resolved, int now_resolved, double t)
{
    if (was_resolved == now_resolved) return;
    double w = tidal_energy(s, k, t);
    /* measure(before) + etide(before) = measure(after) + etide(after) */
    double booked = was_resolved ? w : -w;
    s->ks->etide += booked;
    const ks_orbit *o = &s->ks->pair[k].o;
    ledger_record(&s->led, LED_TIDE, t, s->name[2 * k], s->name[2 * k + 1], booked,
                  ks_orbit_semi(o), ks_orbit_ecc(o), o->gamma);
}

double ks_pending_inconsistency(const sim *s, double t)
{
    if (!s->ks) return 0.0;
    double sum = 0.0;
    for (int k = 0; k < s->npairs; k++) {
        const ks_orbit *o = &s->ks->pair[k].o;
        double m1 = s->m[2 * k], m2 = s->m[2 * k + 1], q[3], qd[3];
        double h = ks_orbit_predict_h(o, t, q, qd);
        double hs = 0.5 * dot3(qd, qd) - o->m / sqrt(dot3(q, q));
        sum += m1 * m2 / o->m * (hs - h);
    }
    return sum;
}

double ks_total_energy(sim *s)
{
    int n = s->n;
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    sim_predict_all(s, x, v);
    double ebin = 0.0, w = n > 0 ? ks_measure_potential(s, (const double(*)[3])x, &ebin) : 0.0;
    long double kin = 0.0L;
    for (int i = s->ifirst; i < s->ntot; i++)
        kin += 0.5L * s->m[i] * (v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]);
    free(x); free(v);
    return (double)kin + w + ebin + s->ks->etide + s->ks->emerge;
}
