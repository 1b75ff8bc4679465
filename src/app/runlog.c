/* runlog.c — the run's log, progress line and summary.json.  Files are
 * written to a temporary name and renamed, so a summary is whole or absent. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>
#include "reg/ks.h"
#include "evol/evol.h"
#include "app/runlog.h"
#include "common/tuning.h"
#include "common/version.h"

/* Each column's width: its declared width, widened to hold its name and
 * its unit in brackets. */
static int column_width(int width, const char *name, const char *unit)
{
    int w = width, ln = (int)strlen(name), lu = (int)strlen(unit) + 2;
    if (ln > w) w = ln;
    if (lu > w) w = lu;
    return w;
}

/* The names line (a '#' in the first column's first place) and the units
 * line under it: readers take the names from the last line whose first
 * word after the '#' is "t" and the second not "=" (notes begin "# t = "):
 * scripts/nbody6c_io.py, scripts/log-columns. */
void runlog_column_header(FILE *f)
{
    int first = 1;
    fputc('#', f);
#define HEAD_NAME(id, name, unit, width, fmt, what)                                              \
    fprintf(f, first ? "%*s" : " %*s", column_width(width, name, unit) - first, name);            \
    first = 0;
    RUNLOG_COLUMNS(HEAD_NAME)
#undef HEAD_NAME
    fputs("\n#", f);
    first = 1;
    char u[64];
#define HEAD_UNIT(id, name, unit, width, fmt, what)                                              \
    snprintf(u, sizeof u, "[%s]", unit);                                                         \
    fprintf(f, first ? "%*s" : " %*s", column_width(width, name, unit) - first, u);               \
    first = 0;
    RUNLOG_COLUMNS(HEAD_UNIT)
#undef HEAD_UNIT
    fputc('\n', f);
}

static void print_row(FILE *f, const runlog_row *row)
{
    int first = 1;
#define ROW_VALUE(id, name, unit, width, fmt, what)                                              \
    if (!first) fputc(' ', f);                                                                   \
    fprintf(f, fmt, column_width(width, name, unit), row->id);                                   \
    first = 0;
    RUNLOG_COLUMNS(ROW_VALUE)
#undef ROW_VALUE
    fputc('\n', f);
}

int runlog_open(runlog *r, const char *dir, const sim *s, const char *source,
                const char *notes, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/log.txt", dir);
    r->log = fopen(path, "w");
    if (!r->log) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    FILE *f = r->log;
    fprintf(f, "# nbody6c %s\n# %s\n", NBODY6C_VERSION, source);
    fprintf(f, "# N %d  NNBMAX %d  NBMAX %d  ETAI %g  ETAR %g  RS0 %g  DTADJ %g  DELTAT %g  TCRIT %g  QE %g  SMAX %g  KZ(40) %d\n",
            s->n, s->p.nnbmax0, s->nbmax, s->p.etai, s->p.etar, s->p.rs0, s->p.dtadj,
            s->p.deltat, s->p.tcrit, s->p.qe, s->p.smax, s->p.kz40);
    fprintf(f, "# backends: gpunb %s, gpuirr %s, %d threads\n", gpunb_backend(s->nb),
            gpuirr_backend(s->irr), omp_get_max_threads());
    char tn[1024];
    tuning_describe(tn, sizeof tn);
    fprintf(f, "# environment switches (README): %s\n", tn);
    if (notes && notes[0]) {
        const char *p = notes;
        while (*p) {
            const char *e = strchr(p, '\n');
            int len = e ? (int)(e - p) : (int)strlen(p);
            fprintf(f, "# %.*s\n", len, p);
            p += len + (e ? 1 : 0);
        }
    }
    runlog_column_header(f);
    fflush(f);
    return 0;
}

double runlog_energy_scale(const diag *d)
{
    double n = fmax(d->kin, fabs(d->etot));
    return n > 0.0 ? n : 1.0;
}

/* Every column's value at this check (norm: the check's max(T, |E|)). */
static void fill_row(const runlog *r, const sim *s, const diag *d, const ledger_interval *li,
                     double norm, runlog_row *row)
{
    ks_summary ks;
    ks_summarise(s, &ks);
    const double wall = s->tm.total;
    row->t = d->t;
    row->t_myr = d->t * r->tstar;
    row->n = s->n;
    row->mass = s->mtot;
    row->mass_msun = s->mtot * r->munit;
    row->mbound = d->mbound;
    row->r_dc = sqrt(d->xd[0] * d->xd[0] + d->xd[1] * d->xd[1] + d->xd[2] * d->xd[2]);
    row->rc = d->rc;
    row->nc = d->nc;
    row->rh = d->rlagr[LAGR_HALF];
    row->r1 = d->rlagr[0];
    row->r2 = d->rlagr[1];
    row->r5 = d->rlagr[2];
    row->r10 = d->rlagr[3];
    row->r20 = d->rlagr[4];
    row->r30 = d->rlagr[5];
    row->r40 = d->rlagr[6];
    row->r62 = d->rlagr[8];
    row->r75 = d->rlagr[9];
    row->r90 = d->rlagr[10];
    row->sigma = d->sigma;
    row->qvir = d->qvir;
    row->n_bin = d->nbin;
    row->n_bin_hard = d->nbin_hard;
    row->e = d->etot;
    row->kin = d->kin;
    row->pot = d->pot;
    row->de = r->de_last;
    row->de_cum = (d->etot - r->e0) / norm;
    row->nnb = d->nbmean;
    row->steps_irr = (double)s->cnt.steps_irr;
    row->steps_reg = (double)s->cnt.steps_reg;
    row->wall = wall;
    row->wall_reg = s->tm.regular;
    row->wall_irr = s->tm.irregular;
    row->wall_rest = wall - s->tm.regular - s->tm.irregular;
    row->ks_form = (double)ks.formed;
    row->ks_term = (double)ks.terminated;
    row->ks_steps = (double)ks.steps;
    row->n_hard = ks.hard;
    row->ebin = ks.ebin_hard;
    row->e_tide = ks_energy_booked(s);
    row->de_rest = li->rest / norm;
    row->de_ksform = li->ev[LED_KS_FORM] / norm;
    row->de_ksterm = li->ev[LED_KS_TERM] / norm;
    row->de_kspend = li->pending_change / norm;
    row->de_tide = li->ev[LED_TIDE] / norm;
    row->ch_beg = (double)ks.chains_started;
    row->ch_end = (double)ks.chains_ended;
    row->de_chain = (li->ev[LED_CHAIN_START] + li->ev[LED_CHAIN_END]) / norm;
    row->e_chain = ks.chain_energy;
    row->n_merge = ks.mergers;
    row->e_merge = ks.emerge;
    row->de_merge = (li->ev[LED_MERGE] + li->ev[LED_SPLIT]) / norm;
    /* stellar evolution (evol.h): the stars' mass and remnants now */
    int64_t k[16];
    double mstar;
    evol_census(s, k, &mstar);
    row->m_star = s->evol ? mstar : NAN;
    row->m_lost = s->evol ? s->evol->cnt.dm : NAN;
    row->n_wd = s->evol ? (double)(k[SSE_HEWD] + k[SSE_COWD] + k[SSE_ONEWD]) : NAN;
    row->n_ns = s->evol ? (double)k[SSE_NS] : NAN;
    row->n_bh = s->evol ? (double)k[SSE_BH] : NAN;
    row->de_star = li->ev[LED_STAR] / norm;
    row->n_coll = s->evol ? (double)s->evol->coll.n : NAN;
}

void runlog_check(runlog *r, const sim *s, const diag *d, const ledger_interval *li, int first)
{
    double e = d->etot, norm = runlog_energy_scale(d);
    ledger_interval none = {0};
    if (!li) li = &none;
    if (first) {
        r->e0 = r->eprev = e;
        r->de_sum_abs = 0.0;
        r->de_last = 0.0;
    } else {
        double de = e - r->eprev;
        /* NBODY6's printed DE: the change over the interval relative to
         * max(T, |E|) */
        r->de_last = de / norm;
        r->de_sum_abs += fabs(de / norm);
        r->eprev = e;
    }
    runlog_row row;
    fill_row(r, s, d, li, norm, &row);
    if (r->row_as_comment) fputs("# repeated (KZ(2) = 2), this check failed: ", r->log);
    print_row(r->log, &row);
    /* a check above QE names the interval's largest events */
    if (!first && fabs(r->de_last) > s->p.qe && s->led.nitop > 0) {
        fprintf(r->log, "# |dE| %.3e > QE at t = %g; largest events of the interval:\n",
                fabs(r->de_last), d->t);
        ledger_print_events(r->log, "#   ", s->led.itop, s->led.nitop, norm);
    }
    fflush(r->log);
}

/* The progress line redraws itself with '\r' on a terminal only; stderr
 * redirected to a file gets a plain line at most once a minute (and the last
 * one), so that a batch job's file shows progress without control codes. */
#define PROGRESS_FILE_INTERVAL_S 60.0
static int progress_on_screen;       /* a '\r' line is showing: end it before a message */
static double progress_next_file_line;

void runlog_progress_break(void)
{
    if (progress_on_screen) fputc('\n', stderr);
    progress_on_screen = 0;
}

void runlog_progress(const runlog *r, const sim *s, const diag *d)
{
    if (r->quiet) return;
    double wall = s->tm.total;
    double frac = s->p.tcrit > 0 ? d->t / s->p.tcrit : 1.0;
    double eta = frac > 0 ? wall * (1.0 - frac) / frac : 0.0;
    char line[256];
    snprintf(line, sizeof line, "t = %.4g of %.4g   wall %.1f s   ETA %.1f s   dE/E %.2e", d->t,
             s->p.tcrit, wall, eta, (d->etot - r->e0) / runlog_energy_scale(d));
    if (isatty(fileno(stderr))) {
        fprintf(stderr, "\r%s   ", line);
        progress_on_screen = frac < 1.0;
        if (!progress_on_screen) fputc('\n', stderr);
    } else {
        double now = omp_get_wtime();
        if (frac < 1.0 && now < progress_next_file_line) return;
        progress_next_file_line = now + PROGRESS_FILE_INTERVAL_S;
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
}

/* ---- where the process's wall time went ---------------------------------- */

static double setup_wall(const runlog *r, const sim *s)
{
    return r->walls.model + s->ptm.state + s->ptm.libraries + s->tm.startup + s->ptm.first_check;
}

void runlog_setup_walls(runlog *r, const sim *s)
{
    const timers *t = &s->tm;
    const process_timers *p = &s->ptm;
    runlog_note(r, "set-up wall time %.3f s: initial model %.3f s, state %.3f s, libraries %.3f s, "
                "start-up %.3f s (lists with the regular force %.3f s and %lld overflow retries taking "
                "%.3f s, irregular force %.3f s, derivatives %.3f s of which the sums %.3f s, the rest "
                "%.3f s; sends to the libraries %.3f s in all), first check %.3f s (potential %.3f s)",
                setup_wall(r, s), r->walls.model, p->state, p->libraries, t->startup, p->lists,
                (long long)s->cnt.nb_overflow_retries, p->retries, p->irregular, p->derivatives, p->sums,
                t->startup - p->lists - p->irregular - p->derivatives, p->sends, p->first_check,
                p->checks_pot);
}

/* The parts: set-up (this process's, zero after a restart), block steps,
 * the checks after the first, snapshots, checkpoints, and what is left
 * (the log, the summary, a restart's reading). */
typedef struct wall_split {
    double process, setup, steps, checks, rest;
} wall_split;

static wall_split split_walls(const runlog *r, const sim *s)
{
    wall_split w;
    w.process = omp_get_wtime() - r->walls.process0;
    w.setup = setup_wall(r, s);
    w.steps = s->tm.total - r->walls.steps0;
    w.checks = s->ptm.checks - s->ptm.first_check;
    w.rest = w.process - w.setup - w.steps - w.checks - r->walls.snapshots - r->walls.checkpoints;
    return w;
}

void runlog_walls(runlog *r, const sim *s)
{
    const wall_split w = split_walls(r, s);
    char stars[64] = "";
    if (s->evol) snprintf(stars, sizeof stars, " (stellar evolution %.3f s)", s->ptm.stars);
    runlog_note(r, "process wall time %.3f s: set-up %.3f s, block steps %.3f s%s, checks after the first "
                "%.3f s (%lld checks in all, their potential sums %.3f s), snapshots %.3f s, checkpoints "
                "%.3f s, the rest %.3f s", w.process, w.setup, w.steps, stars, w.checks, s->ptm.nchecks,
                s->ptm.checks_pot, r->walls.snapshots, r->walls.checkpoints, w.rest);
}

/* KZ(19) = 3: the stars now and what stellar evolution did (evol.h). */
static void summary_evolution(FILE *f, const sim *s)
{
    const evol_state *e = s->evol;
    if (!e) return;
    int64_t k[16];
    double mass;
    evol_census(s, k, &mass);
    fprintf(f, "  \"stellar_evolution\": {\"zmet\": %.6g, \"stellar_mass_msun\": %.17g, "
               "\"dynamical_mass_msun\": %.17g, "
               "\"mass_lost_msun\": %.17g, \"energy_booked\": %.17g, \"updates\": %lld, "
               "\"applied\": %lld, \"ns_formed\": %lld, \"bh_formed\": %lld, \"wd_formed\": %lld, "
               "\"kicks\": %lld, \"massless_removed\": %lld, \"pairs_reformed\": %lld, "
               "\"n_collisions\": %lld, \"collisions_ks\": %lld, \"collisions_chain\": %lld, "
               "\"collisions_merged\": %lld, \"collision_mass_lost_msun\": %.17g, "
               "\"common_envelopes\": %lld, \"ce_binaries\": %lld, \"ce_coalesced\": %lld, "
               "\"ce_touched\": %lld, \"ce_mass_lost_msun\": %.17g, "
               "\"n_wd\": %lld, \"n_ns\": %lld, \"n_bh\": %lld, \"audit_max\": %.3e},\n",
            e->o.z, mass, s->mtot * e->o.munit, e->cnt.dm, e->booked, (long long)e->cnt.updates, (long long)e->cnt.applied,
            (long long)e->cnt.sn_ns, (long long)e->cnt.sn_bh, (long long)e->cnt.wd,
            (long long)e->cnt.kicks, (long long)e->cnt.removed, (long long)e->cnt.pairs_reformed,
            (long long)e->coll.n, (long long)e->coll.where[0], (long long)e->coll.where[1],
            (long long)e->coll.where[2], e->coll.dm, (long long)e->ce.n, (long long)e->ce.binaries,
            (long long)e->ce.coalesced, (long long)e->ce.touched, e->ce.dm,
            (long long)(k[SSE_HEWD] + k[SSE_COWD] + k[SSE_ONEWD]), (long long)k[SSE_NS],
            (long long)k[SSE_BH], e->audit_max);
}

int runlog_summary(const runlog *r, const char *dir, const sim *s, const diag *d,
                   char *err, size_t errlen)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        return -1;
    }
    long nnbsum = 0;
    for (int i = s->ifirst; i < s->ntot; i++) nnbsum += s->nnb[i];
    fprintf(f, "{\n");
    fprintf(f, "  \"version\": \"%s\",\n", NBODY6C_VERSION);
    fprintf(f, "  \"n\": %d,\n", s->n);
    fprintf(f, "  \"n_zero\": %d,\n", s->nzero);
    fprintf(f, "  \"mass\": %.17g,\n", s->mtot);
    fprintf(f, "  \"n_escaped\": %d,\n", s->n_escaped);
    fprintf(f, "  \"m_escaped\": %.17g,\n", s->m_escaped);
    fprintf(f, "  \"e_escaped\": %.17g,\n", s->e_escaped);
    summary_evolution(f, s);
    fprintf(f, "  \"tidal_field\": %d,\n", s->tide.kind);
    fprintf(f, "  \"rtide\": %.17g,\n", d->rtide);
    fprintf(f, "  \"etide\": %.17g,\n", d->etide);
    /* t_end: where the run ended (TCRIT, or the block time of an early stop);
     * the energies and radii are those of the last check, at t_measured */
    fprintf(f, "  \"t_end\": %.17g,\n", s->time);
    fprintf(f, "  \"t_measured\": %.17g,\n", d->t);
    fprintf(f, "  \"e0\": %.17g,\n", r->e0);
    fprintf(f, "  \"e_end\": %.17g,\n", d->etot);
    fprintf(f, "  \"de_rel\": %.17g,\n", (d->etot - r->e0) / runlog_energy_scale(d));
    fprintf(f, "  \"de_sum_abs\": %.17g,\n", r->de_sum_abs);
    fprintf(f, "  \"virial_ratio\": %.17g,\n", d->qvir);
    fprintf(f, "  \"rc\": %.17g,\n", d->rc);
    fprintf(f, "  \"rh\": %.17g,\n", d->rlagr[LAGR_HALF]);
    fprintf(f, "  \"lagrangian_radii\": {");
    for (int k = 0; k < NLAGR; k++)
        fprintf(f, "%s\"%g\": %.10g", k ? ", " : "", lagr_fractions[k], d->rlagr[k]);
    fprintf(f, "},\n");
    fprintf(f, "  \"bound_mass\": %.17g,\n", d->mbound);
    fprintf(f, "  \"sigma\": %.17g,\n", d->sigma);
    fprintf(f, "  \"binaries\": %d,\n  \"binaries_hard\": %d,\n", d->nbin, d->nbin_hard);
    fprintf(f, "  \"steps_irregular\": %lld,\n", (long long)s->cnt.steps_irr);
    fprintf(f, "  \"steps_regular\": %lld,\n", (long long)s->cnt.steps_reg);
    fprintf(f, "  \"blocks\": %lld,\n", (long long)s->cnt.blocks);
    fprintf(f, "  \"list_overflow_retries\": %lld,\n", (long long)s->cnt.nb_overflow_retries);
    fprintf(f, "  \"mean_neighbours\": %.10g,\n", (double)nnbsum / (s->ntot - s->ifirst));
    fprintf(f, "  \"wall_s\": %.6g,\n", s->tm.total);
    fprintf(f, "  \"wall_startup_s\": %.6g,\n", s->tm.startup);
    /* this process: its set-up by part (zero after a restart), the checks
     * (the first included) and their potential sums, the writes */
    const wall_split w = split_walls(r, s);
    fprintf(f, "  \"wall_process_s\": %.6g,\n", w.process);
    fprintf(f, "  \"wall_setup_s\": {\"total\": %.6g, \"initial_model\": %.6g, \"state\": %.6g, "
               "\"libraries\": %.6g, \"startup_lists\": %.6g, \"startup_irregular\": %.6g, "
               "\"startup_derivatives\": %.6g, \"startup_retries\": %.6g, \"startup_sums\": %.6g, "
               "\"startup_sends\": %.6g, \"first_check\": %.6g},\n",
            w.setup, r->walls.model, s->ptm.state, s->ptm.libraries, s->ptm.lists, s->ptm.irregular,
            s->ptm.derivatives, s->ptm.retries, s->ptm.sums, s->ptm.sends, s->ptm.first_check);
    fprintf(f, "  \"wall_checks_s\": {\"count\": %lld, \"total\": %.6g, \"potential\": %.6g},\n",
            s->ptm.nchecks, s->ptm.checks, s->ptm.checks_pot);
    fprintf(f, "  \"wall_snapshots_s\": %.6g,\n  \"wall_checkpoints_s\": %.6g,\n", r->walls.snapshots,
            r->walls.checkpoints);
    fprintf(f, "  \"wall_regular_s\": %.6g,\n", s->tm.regular);
    fprintf(f, "  \"wall_irregular_s\": %.6g,\n", s->tm.irregular);
    /* where the block steps' wall time went, and how often the schedule was
     * refilled (a restart rebuilds the schedule, so that count may differ) */
    fprintf(f, "  \"wall_profile_s\": {\"schedule\": %.4g, \"predict\": %.4g, \"irregular_force\": %.4g, "
               "\"irregular_corrector\": %.4g, \"regular_force\": %.4g, \"new_list_irregular\": %.4g, "
               "\"regular_corrector\": %.4g, \"send\": %.4g, \"ks\": %.4g, \"schedule_fills\": %lld},\n",
            s->tm.p_sched, s->tm.p_predict, s->tm.p_firr, s->tm.p_corr, s->tm.p_regf, s->tm.p_firr_new,
            s->tm.p_corr_reg, s->tm.p_send, s->tm.p_ks, (long long)s->cnt.schedule_fills);
    fprintf(f, "  \"blocks_regular\": %lld,\n", (long long)s->cnt.blocks_regular);
    fprintf(f, "  \"threads\": %d,\n", omp_get_max_threads());
    fprintf(f, "  \"team_smallest\": %d,\n", r->team_min > 0 ? r->team_min : omp_get_max_threads());
    fprintf(f, "  \"team_changes\": %d,\n", r->team_changes);
    fprintf(f, "  \"team_others_cores\": %.4g,\n  \"team_steal_cores\": %.4g,\n", r->load_others, r->load_steal);
    fprintf(f, "  \"gpunb_backend\": \"%s\",\n", gpunb_backend(s->nb));
    fprintf(f, "  \"gpuirr_backend\": \"%s\",\n", gpuirr_backend(s->irr));
    char tn[1024];
    tuning_describe(tn, sizeof tn);
    fprintf(f, "  \"environment_switches\": \"");
    for (const char *c = tn; *c; c++)
        if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
        else if ((unsigned char)*c >= 0x20) fputc(*c, f);
    fprintf(f, "\",\n");
    /* ---- KS regularisation (ks.h): ebin is the hard binaries' binding energy ---- */
    ks_summary ks;
    ks_summarise(s, &ks);
    fprintf(f, "  \"ks_formed\": %lld,\n  \"ks_terminated\": %lld,\n  \"ks_steps\": %lld,\n",
            ks.formed, ks.terminated, ks.steps);
    fprintf(f, "  \"ks_pairs\": %d,\n  \"hard_binaries\": %d,\n  \"ebin\": %.17g,\n", ks.pairs,
            ks.hard, ks.ebin_hard);
    fprintf(f, "  \"ks_etide\": %.17g,\n", ks_energy_booked(s));
    fprintf(f, "  \"chains_started\": %lld,\n  \"chains_ended\": %lld,\n  \"chain_steps\": %lld,\n"
               "  \"chain_members\": %d,\n", ks.chains_started, ks.chains_ended, ks.chain_steps,
            ks.chain_members);
    fprintf(f, "  \"mergers_formed\": %lld,\n  \"mergers_split\": %lld,\n  \"mergers\": %d,\n"
               "  \"emerge\": %.17g,\n", ks.merged, ks.splits, ks.mergers, ks.emerge);
    fprintf(f, "  \"ks_partial_made\": %lld,\n  \"ks_partial_flushed\": %lld,\n", ks.partial_made,
            ks.partial_flushed);
    /* ---- where the energy went (ledger.h), relative to max(T, |E|) at the end ---- */
    const ledger *L = &s->led;
    double e0 = runlog_energy_scale(d);
    fprintf(f, "  \"energy_ledger\": {\"exact_events\": %s, \"rest\": %.6e, \"ks_form\": %.6e, "
               "\"ks_form_count\": %lld, \"ks_term\": %.6e, \"ks_term_count\": %lld, "
               "\"ks_pending_change\": %.6e, \"tide_booked\": %.6e, \"tide_count\": %lld, "
               "\"chain_start\": %.6e, \"chain_end\": %.6e, \"merge\": %.6e, \"split\": %.6e,\n",
            L->exact ? "true" : "false", L->rest_total / e0, L->total[LED_KS_FORM] / e0,
            (long long)L->total_count[LED_KS_FORM], L->total[LED_KS_TERM] / e0,
            (long long)L->total_count[LED_KS_TERM], L->pending_change_total / e0,
            L->total[LED_TIDE] / e0, (long long)L->total_count[LED_TIDE],
            L->total[LED_CHAIN_START] / e0, L->total[LED_CHAIN_END] / e0,
            L->total[LED_MERGE] / e0, L->total[LED_SPLIT] / e0);
    fprintf(f, "    \"largest_events\": [");
    for (int k = 0; k < L->ntop; k++) {
        const ledger_event *ev = &L->top[k];
        fprintf(f, "%s\n      {\"t\": %.10g, \"kind\": \"%s\", \"names\": [%d, %d], \"de_rel\": %.4e, "
                   "\"a\": %.4e, \"e\": %.5f, \"gamma\": %.4e}",
                k ? "," : "", ev->t, ledger_kind_name(ev->kind), ev->name1, ev->name2, ev->de / e0,
                ev->a, ev->ecc, ev->gamma);
    }
    fprintf(f, "]},\n");
    /* ---- early stops (runctl.h) ---- */
    fprintf(f, "  \"finished\": %s,\n", r->stop_reason ? "false" : "true");
    fprintf(f, "  \"stop_reason\": \"%s\",\n", r->stop_reason ? r->stop_reason : "tcrit");
    fprintf(f, "  \"t_stop\": %.17g\n", s->time);
    fprintf(f, "}\n");
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

void runlog_close(runlog *r)
{
    if (r->log) fclose(r->log);
    r->log = NULL;
}

/* ---- restarts and early stops ---------------------------------------------- */

/* Whether the last column names line of the log's first `bytes` is this
 * version's (a log begun by another version may have other columns). */
static int same_columns(FILE *f, long long bytes)
{
    char want[4096] = "", line[4096], last[4096] = "";
    FILE *m = fmemopen(want, sizeof want, "w");
    if (m) {
        runlog_column_header(m);
        fclose(m);
    }
    char *nl = strchr(want, '\n');
    if (nl) nl[1] = '\0';
    rewind(f);
    long long at = 0;
    while (at < bytes && fgets(line, sizeof line, f)) {
        at += (long long)strlen(line);
        char first[16] = "", second[16] = "";
        if (line[0] == '#' && sscanf(line + 1, "%15s %15s", first, second) == 2 &&
            strcmp(first, "t") == 0 && strcmp(second, "=") != 0) /* not a note "# t = ..." */
            snprintf(last, sizeof last, "%s", line);
    }
    return strcmp(last, want) == 0;
}

int runlog_reopen(runlog *r, const char *dir, long long bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/log.txt", dir);
    FILE *f = fopen(path, "r+");
    if (!f) return -1;
    if (fseek(f, 0, SEEK_END) != 0 || ftell(f) < bytes || ftruncate(fileno(f), bytes) != 0) {
        fclose(f);
        return -1;
    }
    const int same = same_columns(f, bytes);
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return -1;
    }
    r->log = f;
    if (!same) {
        /* the rows below take their columns from the names line below */
        fputs("# the columns change here (this version's):\n", f);
        runlog_column_header(f);
    }
    return 0;
}

void runlog_note(runlog *r, const char *fmt, ...)
{
    if (!r->log) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("# ", r->log);
    vfprintf(r->log, fmt, ap);
    fputc('\n', r->log);
    va_end(ap);
    fflush(r->log);
}

long long runlog_bytes(runlog *r)
{
    if (!r->log) return 0;
    fflush(r->log);
    return (long long)ftell(r->log);
}
