/* run.c — one run: initial model, output folder, force libraries, start-up
 * polynomials, then block steps up to each check time (DTADJ for the energy
 * check, DELTAT for output, TCRIT for the end), measuring at each; HDF5
 * snapshots, checkpoints, restarts and clean stops (the part at the end). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <omp.h>
#include "io/setup.h"
#include "integ/block.h"
#include "integ/carriers.h"
#include "integ/checks.h"
#include "integ/escape.h"
#include "integ/stars.h"
#include "evol/evol.h"
#include "ic/ic.h"
#include "reg/ks.h"
#include "core/newpoly.h"
#include "core/nbradius.h"
#include "app/run.h"
#include "app/runlog.h"
#include "core/sim.h"
#include "integ/startup.h"
#include "app/team.h"
#include "io/checkpoint.h"
#include "app/runctl.h"
#include "io/binlist.h"
#include "io/snapshot.h"
#include "common/version.h"
#ifdef HAVE_CUDA
#include "gpunb/gpunb_cuda.h"
#endif

/* mkdir -p: --out a/b/c creates the missing parents too, as users expect
 * from a tool that writes into a folder.  Returns 0 or -1 (errno set). */
static int make_dirs(const char *dir)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *q = p + 1; *q; q++) {
        if (*q != '/') continue;
        *q = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) return -1;
        *q = '/';
    }
    return mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* An existing run (a log or summary in the folder) is kept unless --force. */
static int prepare_out_dir(const char *dir, int force)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "nbody6c: --out %s: exists and is not a directory\n", dir);
            return EXIT_BAD_INPUT;
        }
        char p[4096];
        snprintf(p, sizeof p, "%s/log.txt", dir);
        int has_run = stat(p, &st) == 0;
        snprintf(p, sizeof p, "%s/summary.json", dir);
        has_run |= stat(p, &st) == 0;
        if (has_run && !force) {
            fprintf(stderr, "nbody6c: %s holds an earlier run; choose another --out or add --force\n", dir);
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    }
    if (make_dirs(dir) != 0) {
        /* the folder named on the command line cannot exist: a usage error */
        fprintf(stderr, "nbody6c: --out %s: cannot create: %s\n", dir, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static double next_multiple(double t, double dt)
{
    /* the first k*dt strictly after t, computed from k to avoid drift */
    double k = floor(t / dt + 0.5);
    while (k * dt <= t) k += 1.0;
    return k * dt;
}

static int user_chose_team(const run_options *o)
{
    return o->threads > 0 || getenv("OMP_NUM_THREADS") != NULL;
}

/* tell: say on stderr when the GPU is not used (not again at a KZ(2) = 2
 * repeat, which opens the libraries anew) */
static int open_libraries(sim *s, const run_options *o, int tell, char *err, size_t errlen)
{
    char notice[512];
    s->nb = gpunb_open(s->cap, s->nbmax, &o->gpu, notice, sizeof notice, err, errlen);
    if (!s->nb) return -1;
    if (tell && notice[0] && o->gpu.mode == GPUNB_AUTO && !o->quiet) fprintf(stderr, "nbody6c: %s\n", notice);
    if (!user_chose_team(o))
        omp_set_num_threads(team_default_size(omp_get_num_procs(), gpunb_host_threads(s->nb)));
    s->irr = gpuirr_open(s->cap, s->nbmax, o->simd, err, errlen);
    if (!s->irr) return -1;
    return 0;
}

sim *run_start(const deck *dk, int n, const double *m, const double (*x)[3],
               const double (*v)[3], const run_options *o, diag *d0, char *err, size_t errlen)
{
    double w0 = omp_get_wtime();
    sim *s = setup_sim(dk, n, m, x, v, o->nbmax, err, errlen);
    if (!s) return NULL;
    s->p.ks_off = o->ks_off; /* KS: before the start-up */
    s->led.exact = o->energy_audit;
    const ks_options ko = setup_ks(dk);
    if (ks_open(s, &ko, err, errlen)) goto fail; /* KS */
    s->ptm.state = omp_get_wtime() - w0;
    w0 = omp_get_wtime();
    if (open_libraries(s, o, 1, err, errlen)) goto fail;
    s->bs = block_create(s);
    if (!s->bs) {
        snprintf(err, errlen, "out of memory for the block step");
        goto fail;
    }
    s->ptm.libraries = omp_get_wtime() - w0;
    w0 = omp_get_wtime();
    s->time = 0.0;
    if (startup_polynomials(s, err, errlen)) goto fail;
    s->tm.startup = omp_get_wtime() - w0;
    /* RSCALE and the crossing time first, then the core from the lists */
    diag dd;
    s->rscale = 1.0;
    s->xd[0] = s->xd[1] = s->xd[2] = 0.0;
    w0 = omp_get_wtime();
    checks_measure(s, &dd, 1);
    s->ptm.first_check = omp_get_wtime() - w0;
    s->alpha = nbradius_alpha0(s);
    s->rsmin = s->p.rs0;
    /* NBODY6 calls ADJUST once at t = 0 as well: KZ(16)'s RMIN and DTMIN
     * start from the core density, not from the deck's values */
    ks_auto_params(s);
    /* KZ(19) = 3: every star on the ZAMS (the primordial pairs are formed:
     * their components are stars at their slots) */
    evol_options eo;
    int ev = setup_evol(dk, s->nzero, o->kicks, &eo, err, errlen);
    if (ev < 0 || (ev > 0 && evol_open(s, &eo, err, errlen))) goto fail;
    if (d0) *d0 = dd;
    return s;
fail:
    run_end(s);
    return NULL;
}

int run_advance(sim *s, double t, char *err, size_t errlen)
{
    double w0 = omp_get_wtime();
    block_profile_idle(s->bs); /* the check or output before this is not the loop's */
    while (block_next_time(s, s->bs) <= t) {
        if (block_step(s, s->bs, err, errlen) || stars_between_blocks(s, err, errlen)) return -1;
    }
    s->time = t;
    s->tm.total += omp_get_wtime() - w0;
    return 0;
}

void run_end(sim *s)
{
    if (!s) return;
    block_free(s->bs);
    gpunb_close(s->nb);
    gpuirr_close(s->irr);
    ks_close(s); /* KS */
    evol_close(s);
    sim_free(s);
}

/* ==== production runs: snapshots, checkpoints, restarts, clean stops ====
 * (snapshot.h, checkpoint.h, runctl.h).  Everything below up to the end of
 * the file belongs to this part; the integration itself is run_advance's
 * block loop with a look at the controls between blocks. */

typedef struct run_ctx {
    sim *s;
    deck dk;                /* the deck in force (a restart deck may change it) */
    run_state rs;           /* schedule and log state saved in checkpoints */
    runlog lg;
    diag d;                 /* the last measurement */
    const run_options *o;
    const char *dir;
    char ckpt_path[4096];
    double wall_start;      /* this process: TCOMP counts from here */
    double wall_ckpt;       /* the last checkpoint: --checkpoint-every counts from here */
    double next_stop_poll;  /* the STOP file is looked for every 0.1 s of wall time */
    double next_progress;   /* the progress line between checks: every 5 s of wall time */
    stop_reason stop;
    team team;              /* the default OpenMP team follows the free cores (team.h) */
    /* --energy-probe: probe.txt (opened at the first probe) */
    FILE *probe;
    double next_probe, probe_eprev;
    FILE *events;           /* events.txt (KZ(19) = 3), handed to s->evol */
    /* the KS and chain step counters at the last check (report_carriers) */
    long long ks_steps0, chain_steps0;
} run_ctx;

static int write_checkpoint(run_ctx *c, const char *why, char *err, size_t errlen)
{
    c->rs.last = c->d;
    c->rs.e0 = c->lg.e0;
    c->rs.eprev = c->lg.eprev;
    c->rs.de_sum_abs = c->lg.de_sum_abs;
    c->rs.de_last = c->lg.de_last;
    c->rs.nckpt++;
    runlog_note(&c->lg, "checkpoint %lld at t = %.17g (%s): %s", (long long)c->rs.nckpt,
                c->s->time, why, c->ckpt_path);
    c->rs.log_bytes = runlog_bytes(&c->lg);
    c->wall_ckpt = omp_get_wtime();
    const int bad = checkpoint_write(c->ckpt_path, c->s, &c->dk, &c->rs, c->rs.nckpt, err, errlen);
    c->lg.walls.checkpoints += omp_get_wtime() - c->wall_ckpt;
    if (bad) {
        runlog_note(&c->lg, "checkpoint failed: %s", err);
        return -1;
    }
    return 0;
}

static int write_snapshot(run_ctx *c, int64_t index, char *err, size_t errlen)
{
    if (c->o->no_snapshots) return 0;
    char path[4096];
    const int layout = c->o->snapshot_layout;
    const double w0 = omp_get_wtime();
    int bad = 0;
    if (layout != SNAP_LAYOUT_NBODY6PP) {
        snapshot_path(path, sizeof path, c->dir, index);
        bad = snapshot_write(path, c->s, &c->dk, &c->d, index, err, errlen);
    }
    if (!bad && layout != SNAP_LAYOUT_NBODY6C) {
        snapshot_nb6pp_path(path, sizeof path, c->dir, c->s->time, c->s->p.deltat);
        bad = snapshot_nb6pp_write(path, c->s, &c->dk, &c->d, index, err, errlen);
    }
    c->lg.walls.snapshots += omp_get_wtime() - w0;
    if (bad) {
        runlog_note(&c->lg, "snapshot failed: %s", err);
        return -1;
    }
    c->rs.nsnap = index;
    return 0;
}

/* Events of the run (sim_event: mergers, splits) as "# " lines of
 * log.txt, and on stderr when echoed. */
static void log_event(void *ctx, const char *line, int echo)
{
    run_ctx *c = ctx;
    runlog_note(&c->lg, "%s", line);
    if (echo) {
        runlog_progress_break();
        fprintf(stderr, "nbody6c: %s\n", line);
    }
}

static void listen_to(run_ctx *c)
{
    c->s->event_sink = log_event;
    c->s->event_ctx = c;
}

/* binaries.txt at every output (io/binlist.h). */
static int write_binaries(run_ctx *c, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/binaries.txt", c->dir);
    const binlist_units u = {c->lg.tstar, c->lg.munit, c->dk.rbar};
    if (binlist_append(path, c->s, &u, c->d.xd, err, errlen)) {
        runlog_note(&c->lg, "binary list failed: %s", err);
        return -1;
    }
    return 0;
}

static double checkpoint_interval_s(const run_options *o)
{
    double min = o->checkpoint_every == 0.0 ? 60.0 : o->checkpoint_every;
    return min < 0.0 ? INFINITY : 60.0 * min;
}

/* Between blocks: signals, TCOMP, the STOP file, the periodic checkpoint.
 * Returns -1 on a failed write, else 0 (c->stop set for a stop). */
static int poll_controls(run_ctx *c, char *err, size_t errlen)
{
    stop_reason r = runctl_signal_stop();
    double now = omp_get_wtime();
    if (r == STOP_NONE && c->dk.tcomp > 0.0 && now - c->wall_start >= 60.0 * c->dk.tcomp) r = STOP_TCOMP;
    if (r == STOP_NONE && now >= c->next_stop_poll) {
        char p[4200];
        c->next_stop_poll = now + 0.1;
        if (runctl_stop_file(c->dir, p, sizeof p)) {
            r = STOP_FILE;
            remove(p); /* so that the continued run does not stop at once */
        }
    }
    c->stop = r;
    if (team_adjust(&c->team)) {
        runlog_note(&c->lg, "t = %.10g: %s", c->s->time, c->team.why);
        c->lg.team_changes++;
        if (c->team.now < c->lg.team_min) c->lg.team_min = c->team.now;
    }
    if (r == STOP_NONE && now - c->wall_ckpt >= checkpoint_interval_s(c->o))
        return write_checkpoint(c, "periodic", err, errlen);
    return 0;
}

/* run_advance with the controls: returns 1 when a stop came (the state is
 * then at a block boundary before t), 0 at t, -1 on error. */
/* --energy-probe: E measured on a copy of the whole state (a checkpoint
 * image decoded in memory), so that the KS pairs and the chain the check
 * brings to the probe's time are the copy's and the run goes on exactly as
 * without the probe.  One line per probe: t, E, the change since the last
 * probe relative to |E|, the pairs, the chain's members, the ledger's
 * events so far in this check interval. */
static void energy_probe(run_ctx *c)
{
    sim *s = c->s;
    size_t len = 0;
    unsigned char *img = checkpoint_encode(s, &c->dk, &c->rs, &len);
    char err[512];
    deck dk;
    run_state rs;
    sim *cp = img ? checkpoint_decode(img, len, "probe", &dk, &rs, err, sizeof err) : NULL;
    free(img);
    if (!cp) return;
    diag d;
    cp->led.exact = 0;
    cp->nb = s->nb; /* the potential sum: a check between blocks uses it too */
    checks_measure(cp, &d, 0);
    cp->nb = NULL;
    if (!c->probe) {
        char path[4200];
        snprintf(path, sizeof path, "%s/probe.txt", c->dir);
        c->probe = fopen(path, "a");
        if (c->probe)
            fprintf(c->probe, "#   t                 E                dE/|E|      pairs chain "
                    "ks_form ks_term chain_beg chain_end  ev_dE\n");
        c->probe_eprev = d.etot;
    }
    if (c->probe) {
        const ledger *l = &s->led;
        ks_summary ks;
        ks_summarise(s, &ks);
        double ev = 0.0;
        for (int k = 0; k < LED_NKIND; k++) ev += ledger_kind_booked(k) ? 0.0 : l->sum[k];
        fprintf(c->probe, "%.12f %.15e %+.3e %4d %3d %7lld %7lld %6lld %6lld %+.3e\n", s->time,
                d.etot, (d.etot - c->probe_eprev) / fabs(d.etot), s->npairs,
                ks.chain_members, (long long)l->count[LED_KS_FORM],
                (long long)l->count[LED_KS_TERM], (long long)l->count[LED_CHAIN_START],
                (long long)l->count[LED_CHAIN_END], ev / fabs(d.etot));
        fflush(c->probe);
        c->probe_eprev = d.etot;
    }
    ks_close(cp);
    sim_free(cp);
}

static int advance_checked(run_ctx *c, double t, char *err, size_t errlen)
{
    sim *s = c->s;
    double w0 = omp_get_wtime();
    int rc = 0;
    block_profile_idle(s->bs); /* the check or output before this is not the loop's */
    while (block_next_time(s, s->bs) <= t) {
        if (block_step(s, s->bs, err, errlen) || stars_between_blocks(s, err, errlen)) {
            rc = -1;
            break;
        }
        double w1 = omp_get_wtime();
        s->tm.total += w1 - w0; /* up to date in a checkpoint */
        w0 = w1;
        if (poll_controls(c, err, errlen)) {
            rc = -1;
            break;
        }
        if (c->stop != STOP_NONE) {
            rc = 1;
            break;
        }
        if (c->o->energy_probe > 0.0 && s->time >= c->next_probe) {
            energy_probe(c);
            c->next_probe = (floor(s->time / c->o->energy_probe) + 1.0) * c->o->energy_probe;
        }
        if (w1 >= c->next_progress) {
            /* long check intervals: the model time advances on screen too,
             * with the energy error of the last check */
            diag now = c->d;
            now.t = s->time;
            runlog_progress(&c->lg, s, &now);
            c->next_progress = w1 + 5.0;
        }
    }
    if (rc == 0) s->time = t;
    s->tm.total += omp_get_wtime() - w0;
    return rc;
}

static int open_events(run_ctx *c, const char *from_dir, char *err, size_t errlen);
static int copy_file_prefix(const char *from_dir, const char *to_dir, const char *file, long long bytes);
static int same_dir(const char *a, const char *b);
static int rebuild_libraries(sim *s, const run_options *o, int tell, char *err, size_t errlen);

/* ---- NBODY6's energy-error control (check.f; docs/ALGORITHMS.md, chain §5) ----
 * Every energy check compares E with the last check that passed, relative to
 * max(T, |E|) as NBODY6's DE.  Above QE: a line on stderr.  At 5 QE or more:
 * the run halts (exit 1, the last good checkpoint kept), or with KZ(2) = 2
 * the interval is repeated from the checkpoint of the last good check with
 * ETAI, ETAR halved (ETAU too with KZ(17) > 1) and DTMIN × √½, at most
 * twice in a row.  KZ(17) >= 1 steers ETAI and ETAR from QE at every check
 * that passes. */

static double qe_error(const run_ctx *c)
{
    double e = c->d.etot;
    return (e - c->rs.echeck) / fmax(c->d.kin, fabs(e));
}

/* KZ(17): the ETAs follow the error (check.f), never above their start. */
static void tune_etas(run_ctx *c, double de)
{
    sim *s = c->s;
    double qe = s->p.qe, ade = fabs(de), fi = 1.0, fr = 1.0, fd = 1.0;
    if (ade > qe) {
        fi = fr = sqrt(qe / ade);
        fd = sqrt(fi);
    } else if (ade < 0.2 * qe) {
        fi = fmin(1.2, c->rs.etai0 / s->p.etai);
        fr = fmin(1.2, c->rs.etar0 / s->p.etar);
    }
    if (fi == 1.0 && fr == 1.0) return;
    s->p.etai = c->dk.etai = s->p.etai * fi;
    s->p.etar = c->dk.etar = s->p.etar * fr;
    s->p.dtmin = c->dk.dtmin = s->p.dtmin * fd;
    s->smin *= fd;
    runlog_note(&c->lg, "KZ(17): |dE| %.3e against QE %g: ETAI %.5g  ETAR %.5g  DTMIN %.4g", ade, qe,
                s->p.etai, s->p.etar, s->p.dtmin);
}

/* KZ(2) = 2: back to the last good check with smaller steps. */
static int carry_history(const char *from, const char *to, double t, char *err, size_t errlen);

static int repeat_interval(run_ctx *c, double de, char *err, size_t errlen)
{
    deck saved;
    run_state rs;
    double tfail = c->s->time;
    int64_t reps = c->rs.qe_repeats + 1;
    sim *s = checkpoint_read(c->ckpt_path, &saved, &rs, err, errlen);
    if (!s) return -1;
    run_end(c->s);
    c->s = s;
    listen_to(c);
    c->dk = saved;
    c->rs = rs;
    c->d = rs.last;
    s->led.exact = c->o->energy_audit;
    if (rebuild_libraries(s, c->o, 0, err, errlen) || open_events(c, c->dir, err, errlen)) return -1;
    if (c->team.adapt) omp_set_num_threads(c->team.now); /* open_libraries reset it */
    /* the log keeps the failed interval's lines; its sums go back */
    c->lg.e0 = rs.e0;
    c->lg.eprev = rs.eprev;
    c->lg.de_sum_abs = rs.de_sum_abs;
    c->lg.de_last = rs.de_last;
    /* binaries.txt, escapers.txt: the repeated interval writes its rows again */
    if (carry_history(c->dir, c->dir, s->time, err, errlen)) return -1;
    s->p.etai = c->dk.etai = 0.5 * s->p.etai;
    s->p.etar = c->dk.etar = 0.5 * s->p.etar;
    if (c->dk.kz[17] > 1) s->p.etau = c->dk.etau = 0.5 * s->p.etau;
    s->p.dtmin = c->dk.dtmin = s->p.dtmin * sqrt(0.5);
    s->smin *= sqrt(0.5);
    c->rs.qe_repeats = reps;
    runlog_progress_break();
    fprintf(stderr, "nbody6c: t = %g: |dE| = %.3e is above 5 QE = %.3g; KZ(2) = 2: repeating "
            "from t = %g with ETAI %.5g, ETAR %.5g, ETAU %.5g (repeat %lld of 2)\n", tfail, fabs(de),
            5.0 * s->p.qe, s->time, s->p.etai, s->p.etar, s->p.etau, (long long)reps);
    runlog_note(&c->lg, "energy check at t = %.10g failed: |dE| = %.3e >= 5 QE = %.3g; KZ(2) = 2: "
                "the interval is repeated from t = %.10g with ETAI %.5g  ETAR %.5g  ETAU %.5g  "
                "DTMIN %.4g (repeat %lld of 2)", tfail, fabs(de), 5.0 * s->p.qe, s->time,
                s->p.etai, s->p.etar, s->p.etau, s->p.dtmin, (long long)reps);
    return write_checkpoint(c, "repeat, KZ(2) = 2", err, errlen);
}

/* 1 when this check fails by 5 QE and KZ(2) = 2 repeats its interval. */
static int check_will_repeat(const run_ctx *c)
{
    double qe = c->s->p.qe;
    return qe > 0.0 && fabs(qe_error(c)) >= 5.0 * qe && c->dk.kz[2] >= 2 && c->rs.qe_repeats < 2;
}

/* At an energy check: 0 go on, 1 halt (c->stop set), 2 the state was
 * reloaded (repeat), -1 error. */
static int energy_control(run_ctx *c, int *ckpt_due, char *err, size_t errlen)
{
    sim *s = c->s;
    double de = qe_error(c), qe = s->p.qe;
    if (!(qe > 0.0)) {
        c->rs.echeck = c->d.etot;
        return 0;
    }
    if (fabs(de) > qe && fabs(de) < 5.0 * qe) {
        runlog_progress_break();
        fprintf(stderr, "nbody6c: t = %g: energy check |dE| = %.3e is above QE = %g\n", s->time,
                fabs(de), qe);
    }
    if (fabs(de) < 5.0 * qe) {
        c->rs.echeck = c->d.etot;
        c->rs.qe_repeats = 0;
        if (c->dk.kz[17] >= 1) tune_etas(c, de);
        if (c->dk.kz[2] >= 2) *ckpt_due = 1; /* the state a repeat goes back to */
        return 0;
    }
    if (c->dk.kz[2] >= 2 && c->rs.qe_repeats < 2) return repeat_interval(c, de, err, errlen) ? -1 : 2;
    struct stat st;
    char last[4400] = "no checkpoint was written before it";
    if (stat(c->ckpt_path, &st) == 0)
        snprintf(last, sizeof last, "the last good state is kept in %s", c->ckpt_path);
    runlog_progress_break();
    fprintf(stderr, "nbody6c: t = %g: energy check |dE| = %.3e is above 5 QE = %.3g: calculations "
            "halted%s; %s\n", s->time, fabs(de), 5.0 * qe,
            c->dk.kz[2] >= 2 ? " after two repeats" : " (KZ(2) = 2 would repeat the interval)", last);
    runlog_note(&c->lg, "energy check at t = %.10g: |dE| = %.3e >= 5 QE = %.3g: calculations halted",
                s->time, fabs(de), 5.0 * qe);
    c->stop = STOP_ENERGY;
    return 1;
}

/* KZ(23) at an energy check: the escapers leave (escape.c), their energy
 * booked; the log names each, KZ(23) >= 2 also writes escapers.txt (time in
 * N-body units and Myr, name, members, mass in Msun, energy, distance, and
 * the velocity at infinity in km/s); the libraries and the schedule start
 * again from the compacted slots. */
static int remove_escapers(run_ctx *c, char *err, size_t errlen)
{
    sim *s = c->s;
    /* a record for every star that can leave: escapers.txt lists each (a
     * fixed 64 left the rest of a big check's escapers out of the file) */
    int maxrec = s->n + 1;
    escape_record *rec = malloc(sizeof *rec * (size_t)maxrec);
    if (!rec) {
        snprintf(err, errlen, "out of memory for the escapers' records");
        return -1;
    }
    double rtide = 0.5 * escape_radius(s);
    int ne = escape_remove(s, rec, maxrec, err, errlen);
    if (ne <= 0) {
        free(rec);
        return ne < 0 ? -1 : 0;
    }
    newpoly_send(s, 0, NULL);
    block_reschedule(s->bs);
    double tstar = snapshot_tstar_myr(c->dk.rbar, c->dk.zmbar, s->nzero);
    double vstar = snapshot_vstar_kms(c->dk.rbar, c->dk.zmbar, s->nzero);
    double munit = c->dk.zmbar * s->nzero;
    FILE *f = NULL;
    if (c->dk.kz[23] >= 2) {
        char p[4200];
        snprintf(p, sizeof p, "%s/escapers.txt", c->dir);
        int fresh = access(p, F_OK) != 0;
        f = fopen(p, "a");
        if (!f) {
            snprintf(err, errlen, "%.900s: cannot write the escapers: %s", p, strerror(errno));
            free(rec);
            return -1;
        }
        if (fresh)
            fprintf(f, "#        t        t_Myr   name  members     m_Msun            E          r  vinf_kms%s\n",
                    s->evol ? "  kw" : "");
    }
    for (int q = 0; q < ne && q < maxrec; q++) {
        const escape_record *e = &rec[q];
        evol_star_gone(s, e->name);
        double vinf = e->e > 0.0 ? sqrt(2.0 * e->e / e->m) * vstar : 0.0;
        if (q < 64) /* the log names the first 64 of a check */
            runlog_note(&c->lg, "escaper at t = %.6g: %s %d, m = %.4g Msun, E = %.4e, r = %.3f (RTIDE "
                        "%.3f), v_inf = %.3g km/s", e->t, e->members == 2 ? "KS pair" : "single", e->name,
                        e->m * munit, e->e, e->r, rtide, vinf);
        if (f) {
            fprintf(f, "%10.4f %12.4f %6d %8d %10.5g %12.5e %10.4f %9.4g", e->t, e->t * tstar, e->name,
                    e->members, e->m * munit, e->e, e->r, vinf);
            const sse_star *st = evol_star(s, e->name); /* KZ(19) = 3: its type */
            if (st) fprintf(f, " %3d", st->kw);
            fputc('\n', f);
        }
    }
    free(rec);
    if (f && fclose(f) != 0) {
        snprintf(err, errlen, "%.900s/escapers.txt: write failed: %s", c->dir, strerror(errno));
        return -1;
    }
    if (ne > 64)
        runlog_note(&c->lg, "(%d more escapers at t = %.6g%s)", ne - 64, s->time,
                    c->dk.kz[23] >= 2 ? ": escapers.txt lists them" : "");
    checks_measure(s, &c->d, 0); /* N, mass, radii of what stays; etot with e_escaped */
    return 0;
}

/* A check whose error is large (above QE/10 of max(T, |E|)) and mostly
 * not explained by the ledger's events came from the Hermite steps: the
 * log names the bodies that took the most of them since the last check,
 * with their steps and nearest neighbour (a hard pair left unregularised
 * shows as two heavy bodies near each other with the smallest steps). */
static void report_carriers(run_ctx *c, const ledger_interval *li)
{
    const sim *s = c->s;
    ks_summary ks;
    ks_summarise(s, &ks);
    long long dks = ks.steps - c->ks_steps0, dch = ks.chain_steps - c->chain_steps0;
    c->ks_steps0 = ks.steps;
    c->chain_steps0 = ks.chain_steps;
    const double norm = runlog_energy_scale(&c->d), thr = s->p.qe > 0.0 ? 0.1 * s->p.qe : 1e-5;
    if (!(fabs(li->de) > thr * norm && fabs(li->rest) >= 0.5 * fabs(li->de)) || !c->lg.log) return;
    enum { TOP = 6 };
    step_carrier top[TOP];
    int64_t nirr, nreg;
    double wreg;
    int k = carriers_top(s, s->bs, top, TOP, &nirr, &nreg, &wreg);
    const double mu = c->lg.munit;
    runlog_note(&c->lg, "t = %.10g: dE/|E| %.3e, %.0f %% of it not from the ledger's events (the Hermite "
                "steps); the bodies whose regular corrections did the most work, sum m |dx.a|, then those "
                "with the most steps since the last check (%lld irregular, %lld regular and work %.3g/|E| in "
                "all; DTMIN %.3g, RMIN %.3g):", s->time, li->de / norm, 100.0 * fabs(li->rest / li->de),
                (long long)nirr, (long long)nreg, wreg / norm, s->p.dtmin, s->p.rmin);
    for (int q = 0; q < k; q++) {
        const step_carrier *b = &top[q];
        char where[320];
        if (b->slot < 0)
            snprintf(where, sizeof where, "gone since");
        else if (b->ks)
            snprintf(where, sizeof where, "a KS component now");
        else if (!b->nb_name)
            snprintf(where, sizeof where, "dt %.3g (%.3g DTMIN), dtr %.3g; no neighbours", b->dt,
                     b->dt / s->p.dtmin, b->dtr);
        else
            snprintf(where, sizeof where, "dt %.3g (%.3g DTMIN), dtr %.3g, rs %.3g; nearest %d "
                     "(%.4g Msun) at %.3g (%.3g RMIN), %s a %.3g, e %.3f", b->dt, b->dt / s->p.dtmin,
                     b->dtr, b->rs, b->nb_name, b->nb_m * mu, b->nb_r, b->nb_r / s->p.rmin,
                     b->nb_a > 0.0 ? "bound," : "unbound,", b->nb_a, b->nb_e);
        const double share = 100.0 * b->nirr / (double)(nirr > 0 ? nirr : 1);
        runlog_note(&c->lg, "  name %d (%.4g Msun): work %.3g/|E|, %d irregular steps (%.1f %%), %d "
                    "regular; %s", b->name, b->m * mu, b->wreg / norm, b->nirr, share, b->nreg, where);
    }
    /* the KS pairs' and the chain's own steps carry their share of "rest" too */
    if (dks > 0 || dch > 0 || ks.chain_members > 0)
        runlog_note(&c->lg, "  and %lld KS steps (%d pairs now), %lld chain steps (a chain of %d members "
                    "now)", dks, ks.pairs, dch, ks.chain_members);
}

/* TCRIT between checks and outputs: the last row of log.txt, from a
 * measurement on a copy of the state (as --energy-probe's), and without
 * closing the check interval.  A check moves the KS pairs and the chain to
 * its time and sets the density centre, core radius and crossing time the
 * steps use, and it starts a new interval of the log's dE and the ledger;
 * a run that passes TCRIT on its way to a later one does none of that
 * there.  So the state, the ledger and the log's energy reference stay as
 * the last check left them, the checkpoint at the end holds them so, and a
 * restart that only extends TCRIT (KSTART = 3) goes on exactly as the run
 * made in one go. */
static int tcrit_row(run_ctx *c, char *err, size_t errlen)
{
    sim *s = c->s;
    size_t len = 0;
    unsigned char *img = checkpoint_encode(s, &c->dk, &c->rs, &len);
    deck dk;
    run_state rs;
    sim *cp = img ? checkpoint_decode(img, len, "TCRIT", &dk, &rs, err, errlen) : NULL;
    free(img);
    if (!cp) {
        if (!err[0]) snprintf(err, errlen, "out of memory at TCRIT");
        return -1;
    }
    cp->nb = s->nb; /* the potential sum */
    checks_measure(cp, &c->d, 0);
    cp->nb = NULL;
    int rc = 0;
    if (!isfinite(c->d.etot)) {
        snprintf(err, errlen, "non-finite energy at t = %g", s->time);
        rc = -1;
    } else {
        ledger l = s->led; /* the interval so far, left open */
        ledger_interval li;
        ledger_close(&l, c->d.etot - c->lg.eprev, ks_pending_inconsistency(cp, cp->time), &li);
        const double eprev = c->lg.eprev, sum = c->lg.de_sum_abs, last = c->lg.de_last;
        runlog_check(&c->lg, cp, &c->d, &li, 0);
        c->lg.eprev = eprev;
        c->lg.de_sum_abs = sum;
        c->lg.de_last = last;
        runlog_progress(&c->lg, cp, &c->d);
    }
    ks_close(cp);
    sim_free(cp);
    return rc;
}

/* Checks at DTADJ, outputs at DELTAT (a snapshot every NFIX-th), NCRIT,
 * checkpoints at outputs (KZ(2) >= 1) or checks (--checkpoint-at-dtadj). */
static int integrate(run_ctx *c, char *err, size_t errlen)
{
    sim *s = c->s;
    run_state *rs = &c->rs;
    int nfix = c->dk.nfix > 0 ? c->dk.nfix : 1;
    ks_summary ks0;
    ks_summarise(s, &ks0);
    c->ks_steps0 = ks0.steps;
    c->chain_steps0 = ks0.chain_steps;
    while (s->time < s->p.tcrit) {
        double tstop = fmin(fmin(rs->tcheck, rs->tout), s->p.tcrit);
        int rc = advance_checked(c, tstop, err, errlen);
        if (rc) return rc < 0 ? -1 : 0;
        if (tstop == s->p.tcrit && tstop != rs->tcheck && tstop != rs->tout) {
            if (tcrit_row(c, err, errlen)) return -1;
            break;
        }
        checks_measure(s, &c->d, 0);
        if (!isfinite(c->d.etot)) {
            snprintf(err, errlen, "non-finite energy at t = %g", s->time);
            return -1;
        }
        const char *ckpt = NULL;
        int is_check = tstop == rs->tcheck;
        if (is_check) {
            nbradius_control(s, c->d.nbmean);
            ks_auto_params(s); /* KS: KZ(16) RMIN, DTMIN */
            rs->tcheck = next_multiple(tstop, s->p.dtadj);
            if (c->o->checkpoint_at_dtadj) ckpt = "energy check";
        }
        int snap = 0, output = tstop == rs->tout;
        if (output) {
            s->rsmin = INFINITY;
            for (int i = s->ifirst; i < s->ntot; i++) s->rsmin = fmin(s->rsmin, s->rs[i]);
            rs->tout = next_multiple(tstop, s->p.deltat);
            rs->nout++;
            snap = rs->nout % nfix == 0;
            if (c->dk.kz[2] >= 1) ckpt = "output, KZ(2)";
        }
        ledger_interval li;
        ledger_close(&s->led, c->d.etot - c->lg.eprev, ks_pending_inconsistency(s, s->time), &li);
        /* a check that KZ(2) = 2 will repeat stays in the log as a comment,
         * so that the data rows keep one row per time */
        c->lg.row_as_comment = is_check && check_will_repeat(c);
        runlog_check(&c->lg, s, &c->d, &li, 0);
        c->lg.row_as_comment = 0;
        report_carriers(c, &li);
        block_tally_clear(s->bs);
        s->led.nitop = 0;
        if (is_check) {
            int due = 0, q = energy_control(c, &due, err, errlen);
            if (q < 0) return -1;
            if (q == 1) return 0;
            if (q == 2) {
                s = c->s; /* reloaded */
                ks_summarise(s, &ks0);
                c->ks_steps0 = ks0.steps;
                c->chain_steps0 = ks0.chain_steps;
                continue;
            }
            if (due) ckpt = "energy check, KZ(2) = 2";
        }
        if (is_check && c->dk.kz[23] >= 1 && remove_escapers(c, err, errlen)) return -1;
        runlog_progress(&c->lg, s, &c->d);
        if (output && write_binaries(c, err, errlen)) return -1;
        if (snap && write_snapshot(c, rs->nsnap + 1, err, errlen)) return -1;
        if (c->dk.ncrit > 0 && s->n < c->dk.ncrit) {
            c->stop = STOP_NCRIT;
            return 0;
        }
        if (ckpt && s->time < s->p.tcrit && write_checkpoint(c, ckpt, err, errlen)) return -1;
    }
    c->stop = STOP_TCRIT;
    return 0;
}

/* The CUDA backend's own timers (host side of its calls; the GPU phases
 * only with NBODY6C_GPUNB_TRACE=1): what a block's regf and irrf phases
 * are made of. */
static void write_gpunb_profile(const gpunb *g, FILE *f)
{
#ifdef HAVE_CUDA
    gpunb_cuda_stats st;
    if (!gpunb_cuda_get_stats(g, &st)) return;
    fprintf(f, "# GPUNB cuda (%d GPU%s): wall time (s) on the host\n", st.ngpu, st.ngpu > 1 ? "s" : "");
    fprintf(f, "regf calls %ld: pack %.4f, GPU wait %.4f, combine %.4f; set_jp flushed outside regf %.4f; "
            "slice lists redone %ld\n", st.regf_calls, st.t_pack, st.t_dev, st.t_combine, st.t_flush,
            st.slice_retries);
    fprintf(f, "irrf calls %ld: %.4f (bodies summed again in double: %ld; i-bodies predicted on the GPU: %ld)\n",
            st.irrf_calls, st.t_irrf, st.irrf_double, st.irrf_members);
    if (st.k_force > 0.0)
        fprintf(f, "GPU 0 regf phases (NBODY6C_GPUNB_TRACE): predict %.4f, i upload %.4f, force %.4f, "
                "lists %.4f, copy back %.4f\n", st.k_predict, st.k_upload, st.k_force, st.k_lists, st.k_down);
    for (int q = 0; q < 2; q++)
        if (st.rf_waits[q] > 0)
            fprintf(f, "regf begun early, %s 4096 bodies (NBODY6C_GPUNB_TRACE) %ld: host time in flight %.4f, "
                    "wait %.4f; at the end, GPU 0 not started %ld, force kernel done %ld; force kernel %.4f\n",
                    q ? "over" : "up to", st.rf_waits[q], st.t_inflight[q], st.t_rfwait[q], st.rf_unstarted[q],
                    st.rf_forced[q], st.rf_kforce[q]);
    if (st.irr_small > 0)
        fprintf(f, "irrf calls of <= 4096 bodies (NBODY6C_GPUNB_TRACE) %ld: host queue %.4f, wait %.4f, "
                "hand-out %.4f; GPU 0 set_jp %.4f, predict %.4f, upload %.4f, kernel %.4f, copy back %.4f\n",
                st.irr_small, st.irr_host[0], st.irr_host[1], st.irr_host[2], st.irr_gpu[0], st.irr_gpu[1],
                st.irr_gpu[2], st.irr_gpu[3], st.irr_gpu[4]);
#else
    (void)g;
    (void)f;
#endif
}

/* profile.txt: where this process's block steps spent their time, by
 * block size (for tuning; not carried across a restart).  A failure to
 * write it costs nothing else. */
static void write_block_profile(const run_ctx *c)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/profile.txt", c->dir);
    FILE *f = fopen(path, "w");
    if (!f) return;
    block_profile_print(block_get_profile(c->s->bs), f);
    ks_profile_print(c->s, f);
    write_gpunb_profile(c->s->nb, f);
    fclose(f);
}

/* The end of a run, finished or stopped: the checkpoint (always: a finished
 * run can be continued with a later TCRIT, KSTART = 3), log, summary. */
static int finish(run_ctx *c, char *err, size_t errlen)
{
    const char *why = runctl_reason_name(c->stop);
    if (c->stop != STOP_TCRIT) {
        runlog_progress_break();
        runlog_note(&c->lg, "stopped at t = %.17g: %s", c->s->time, why);
        c->lg.stop_reason = why;
    }
    if (c->s->led.ntop > 0 && c->lg.log) {
        runlog_note(&c->lg, "largest energy events of the run (ledger; dE relative to max(T, |E|)):");
        ledger_print_events(c->lg.log, "#   ", c->s->led.top, c->s->led.ntop, runlog_energy_scale(&c->d));
    }
    if (c->stop != STOP_ENERGY &&
        write_checkpoint(c, c->stop == STOP_TCRIT ? "end" : why, err, errlen)) return -1;
    runlog_walls(&c->lg, c->s);
    if (team_run_load(&c->team, &c->lg.load_others, &c->lg.load_steal) == 0)
        runlog_note(&c->lg, "this process's CPUs over the run: other processes used %.2f cores, the "
                    "virtual machine's host stole %.2f", c->lg.load_others, c->lg.load_steal);
    else
        c->lg.load_others = c->lg.load_steal = -1.0;
    /* summary.json's "threads" is the team chosen at the start, whatever the
     * neighbours made of it ("team_smallest", "team_changes"; log.txt
     * says why each change happened), so that runs compare */
    if (c->team.adapt) omp_set_num_threads(c->team.max);
    if (runlog_summary(&c->lg, c->dir, c->s, &c->d, err, errlen)) return -1;
    write_block_profile(c);
    if (c->stop == STOP_ENERGY) {
        snprintf(err, errlen, "stopped at t = %.6g: energy error above 5 QE (log.txt has the "
                 "interval's largest events)", c->s->time);
        return -1;
    }
    if (c->stop == STOP_NCRIT && c->s->n < 2)
        fprintf(stderr, "nbody6c: stopped at t = %.6g: N = %d of %d: the cluster has dissolved (the "
                "rest escaped); nothing is left to integrate\n", c->s->time, c->s->n, c->s->nzero);
    else if (c->stop == STOP_NCRIT && c->s->n < c->s->nzero)
        /* a restart as saved would stop again at once: a lower NCRIT from
         * a restart deck is what goes on */
        fprintf(stderr, "nbody6c: stopped at t = %.6g: N = %d (of %d; the rest escaped) is below "
                "NCRIT = %d (deck line 2); to go on: nbody6c --restart %s with a KSTART = 4 "
                "restart deck giving a lower NCRIT\n", c->s->time, c->s->n, c->s->nzero,
                c->dk.ncrit, c->ckpt_path);
    else if (c->stop == STOP_NCRIT)
        /* no body left: NCRIT was above N from the start */
        fprintf(stderr, "nbody6c: stopped at t = %.6g: N = %d is below NCRIT = %d (deck line 2) "
                "from the start, so it stops every run at its first output: set NCRIT <= N "
                "(0: no limit)\n", c->s->time, c->s->n, c->dk.ncrit);
    else if (c->stop != STOP_TCRIT)
        fprintf(stderr, "nbody6c: stopped at t = %.6g (%s); continue with: nbody6c --restart %s\n",
                c->s->time, why, c->ckpt_path);
    return 0;
}

static void ctx_init(run_ctx *c, const deck *dk, const run_options *o, const char *dir)
{
    memset(c, 0, sizeof *c);
    c->dk = *dk;
    c->o = o;
    c->dir = dir;
    checkpoint_path(c->ckpt_path, sizeof c->ckpt_path, dir);
    c->wall_start = c->wall_ckpt = omp_get_wtime();
    c->next_stop_poll = c->wall_start;
    c->next_progress = c->wall_start + 5.0;
    c->lg.quiet = o->quiet;
}

/* KZ(19) = 3: events.txt, a line for every supernova, white dwarf, type
 * change and removal (evol.c writes them).  A fresh run starts it; a
 * restart continues it from what belonged to the checkpoint (from_dir: the
 * checkpoint's folder, NULL for a fresh run): the lines written after the
 * checkpoint are dropped, so a repeated interval does not repeat them. */
static int open_events(run_ctx *c, const char *from_dir, char *err, size_t errlen)
{
    evol_state *e = c->s->evol;
    if (!e) return 0;
    char p[4200];
    snprintf(p, sizeof p, "%s/events.txt", c->dir);
    if (c->events) fclose(c->events);
    c->events = NULL;
    const long long bytes = e->events_bytes;
    if (from_dir && !same_dir(from_dir, c->dir)) copy_file_prefix(from_dir, c->dir, "events.txt", bytes);
    else if (from_dir && truncate(p, bytes) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "%.900s: cannot cut the stellar events back to the checkpoint: %s", p,
                 strerror(errno));
        return -1;
    }
    int fresh = !from_dir || access(p, F_OK) != 0;
    c->events = fopen(p, fresh ? "w" : "a");
    if (!c->events) {
        snprintf(err, errlen, "%.900s: cannot write the stellar events: %s", p, strerror(errno));
        return -1;
    }
    if (fresh)
        fprintf(c->events, "#      t_nb        t_Myr event       name kw_old kw_new      m_old      m_new  "
                "vkick_kms  [merge: other kw_oth    m_other]\n");
    e->events = c->events;
    return 0;
}

/* The physical units of the log's t_myr and M_msun columns (as the
 * snapshots': the mass unit NZERO ZMBAR Msun stays when escapers leave). */
static void log_units(run_ctx *c)
{
    c->lg.tstar = snapshot_tstar_myr(c->dk.rbar, c->dk.zmbar, c->s->nzero);
    c->lg.munit = c->dk.zmbar * c->s->nzero;
}

/* Integrates, then finishes; the exit code. */
static int run_ctx_go(run_ctx *c)
{
    char err[1024] = "";
    runctl_install_signals();
    team_start(&c->team);
    c->lg.team_min = c->team.now;
    char line[400];
    team_describe(&c->team, user_chose_team(c->o), gpunb_host_threads(c->s->nb), line, sizeof line);
    runlog_note(&c->lg, "%s", line);
    int rc = EXIT_RUN_FAILURE;
    if (integrate(c, err, sizeof err) == 0 && finish(c, err, sizeof err) == 0) rc = EXIT_OK;
    if (rc != EXIT_OK) {
        runlog_progress_break();
        fprintf(stderr, "nbody6c: %s\n", err);
    }
    runlog_close(&c->lg);
    if (c->probe) fclose(c->probe);
    if (c->events) fclose(c->events);
    run_end(c->s);
    return rc;
}

/* The units line of the log header: NBODY6's units.f from RBAR and the mean
 * mass the run uses (ic_mean_mass_msun), with a word when the deck's ZMBAR
 * was replaced, as NBODY6's imf.f replaces it. */
static void units_text(const deck *dk, double deck_zmbar, int n, char *buf, size_t len)
{
    char why[160] = "";
    if (dk->zmbar != deck_zmbar)
        snprintf(why, sizeof why, "; the deck's ZMBAR %g %s", deck_zmbar,
                 ic_masses_from_imf(dk) ? "replaced by the masses' mean, as NBODY6's imf.f does"
                 : deck_zmbar > 0.0     ? "over the N after binpop.f (the mass unit kept)"
                                        : "means <m> = 1 Msun (units.f)");
    snprintf(buf, len, "units: RBAR %g pc, ZMBAR %.6g Msun (mean mass%s), total %.6g Msun, "
             "TSTAR %.6g Myr, VSTAR %.6g km/s", dk->rbar, dk->zmbar, why, dk->zmbar * n,
             snapshot_tstar_myr(dk->rbar, dk->zmbar, n), snapshot_vstar_kms(dk->rbar, dk->zmbar, n));
}

/* Header lines for log.txt: initial conditions, units, then the KZ notes. */
static void header_notes(const deck *dk, double deck_zmbar, const run_options *o, char *buf,
                         size_t len)
{
    char ic[512], units[512], field[512] = "";
    ic_describe(dk, o->ic_file, ic, sizeof ic);
    units_text(dk, deck_zmbar, dk->n, units, sizeof units);
    tide td;
    char terr[256];
    const tide_spec ts = setup_tide(dk);
    if (dk->kz[14] > 0 && tide_init(&td, &ts, dk->n, terr, sizeof terr) == 0) {
        char t[400];
        tide_describe(&td, &ts, 1.0, t, sizeof t);
        snprintf(field, sizeof field, "tidal field: %s\n", t);
    }
    snprintf(buf, len, "initial conditions: %s\n%s\n%s%s", ic, units, field, dk->notes);
}

/* A model that runs but cannot be what the user meant: a tidal radius inside
 * the half-mass radius (nearly every body escapes within a few crossing
 * times) or binaries wider than the half-mass radius.  Each goes to stderr
 * and, as a header note, to log.txt. */
static void start_warnings(const deck *dk, const diag *d0, char *header, size_t len)
{
    char w[3][512];
    int nw = 0;
    const double rh = d0->rlagr[LAGR_HALF];
    if (dk->kz[14] > 0 && d0->rtide > 0.0 && d0->rtide < rh)
        snprintf(w[nw++], sizeof w[0], "warning: the tidal radius %.3g is inside the half-mass "
                 "radius %.3g (N-body units): most bodies start beyond it and escape within a few "
                 "crossing times%s", d0->rtide, rh,
                 dk->kz[14] == 2 ? "; a weaker field (smaller GMG, larger RG0) or a smaller RBAR "
                                   "puts it outside" : "");
    if (dk->has_binpop && dk->nbin0 > 0 && dk->kz[8] != 4 && dk->semi0 > rh)
        snprintf(w[nw++], sizeof w[0], "warning: SEMI0 = %g (N-body units, the widest "
                 "binaries) is larger than the half-mass radius %.3g: such pairs are not binaries "
                 "of this cluster and come apart at once", dk->semi0, rh);
    for (int k = 0; k < nw; k++) {
        fprintf(stderr, "nbody6c: %s\n", w[k]);
        size_t used = strlen(header);
        snprintf(header + used, len - used, "%s%s", used && header[used - 1] != '\n' ? "\n" : "", w[k]);
    }
}

/* The deck's "accepted, not active" and "diagnostics only" notes go to the
 * log, and once to stderr, where a user reads them before the run goes on. */
static void print_notes(const char *notes)
{
    const char *p = notes;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        int len = e ? (int)(e - p) : (int)strlen(p);
        fprintf(stderr, "nbody6c: note: %.*s\n", len, p);
        p += len + (e ? 1 : 0);
    }
}

/* The library that sums the initial model's potential (the scaling's
 * N^2/2 pairs): the run's backend, opened for this alone (no lists). */
static gpunb *model_library(const run_options *o, int n, char *err, size_t errlen)
{
    return gpunb_open(n > 0 ? n : 1, 1, &o->gpu, NULL, 0, err, errlen);
}

int run_deck(const deck *deck_in, const run_options *o)
{
    const double wall0 = omp_get_wtime();
    char err[1024] = "";
    int n = ic_body_count(deck_in); /* N after binpop.f (primordial binaries) */
    const char *dir = o->out_dir ? o->out_dir : "nbody6c-run";
    if (o->threads > 0) omp_set_num_threads(o->threads);
    /* the deck in force: ZMBAR becomes the mean mass the units use (NBODY6's
     * set-up does the same), so snapshots, checkpoints and restarts agree */
    deck du = *deck_in;
    du.zmbar = ic_mean_mass_msun(deck_in);
    const deck *dk = &du;

    double *m = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    if (!m || !x || !v) {
        fprintf(stderr, "nbody6c: out of memory for %d bodies\n", n);
        return EXIT_RUN_FAILURE;
    }
    int rc = EXIT_BAD_INPUT;
    double wall_model = 0.0;
    gpunb *pnb = model_library(o, n, err, sizeof err);
    if (!pnb || ic_make_nb(dk, o->ic_file, pnb, m, x, v, err, sizeof err)) {
        gpunb_close(pnb);
        fprintf(stderr, "nbody6c: %s\n", err);
        goto early;
    }
    gpunb_close(pnb);
    wall_model = omp_get_wtime() - wall0;
    du.n = n; /* the deck in force has NBODY6's N after binpop.f, as its checkpoints */
    rc = prepare_out_dir(dir, o->force);
    if (rc != EXIT_OK) goto early;
    print_notes(dk->notes);
    if (dk->kz[22] == 1) {
        char p[4096];
        snprintf(p, sizeof p, "%s/dat.10", dir);
        if (bodyfile_write(p, n, m, (const double(*)[3])x, (const double(*)[3])v)) {
            fprintf(stderr, "nbody6c: %s: cannot write the initial conditions: %s\n", p, strerror(errno));
            rc = EXIT_RUN_FAILURE;
            goto early;
        }
    }
    run_ctx c;
    ctx_init(&c, dk, o, dir);
    c.lg.walls.process0 = wall0;
    c.lg.walls.model = wall_model;
    c.s = run_start(dk, n, m, (const double(*)[3])x, (const double(*)[3])v, o, &c.d, err, sizeof err);
    free(m); free(x); free(v);
    if (!c.s) {
        fprintf(stderr, "nbody6c: %s\n", err);
        return o->gpu.mode == GPUNB_REQUIRED ? EXIT_BAD_INPUT : EXIT_RUN_FAILURE;
    }
    log_units(&c);
    listen_to(&c);
    char source[4200], header[4096];
    snprintf(source, sizeof source, "deck %s", strcmp(o->deck_path, "-") ? o->deck_path : "(standard input)");
    header_notes(dk, deck_in->zmbar, o, header, sizeof header);
    start_warnings(dk, &c.d, header, sizeof header);
    if (runlog_open(&c.lg, dir, c.s, source, header, err, sizeof err) == 0 &&
        open_events(&c, NULL, err, sizeof err) == 0) {
        runlog_setup_walls(&c.lg, c.s);
        ledger_start(&c.s->led, ks_pending_inconsistency(c.s, c.s->time));
        runlog_check(&c.lg, c.s, &c.d, NULL, 1);
        c.rs.echeck = c.d.etot;
        c.rs.etai0 = c.s->p.etai;
        c.rs.etar0 = c.s->p.etar;
        c.rs.tcheck = next_multiple(0.0, c.s->p.dtadj);
        c.rs.tout = next_multiple(0.0, c.s->p.deltat);
        /* KZ(2) = 2 repeats a failed interval from the last good check: t = 0 is one */
        if (write_binaries(&c, err, sizeof err) == 0 && write_snapshot(&c, 0, err, sizeof err) == 0 &&
            (dk->kz[2] < 2 || write_checkpoint(&c, "start, KZ(2) = 2", err, sizeof err) == 0))
            return run_ctx_go(&c);
    }
    runlog_progress_break();
    fprintf(stderr, "nbody6c: %s\n", err);
    runlog_close(&c.lg);
    run_end(c.s);
    return EXIT_RUN_FAILURE;
early:
    free(m); free(x); free(v);
    return rc;
}

/* ---- restarts ---------------------------------------------------------- */

/* NBODY6's restart lines (KSTART 3-5): values <= 0 keep the saved ones.
 * Notes what changed in the log. */
static void apply_restart_deck(run_ctx *c, const deck *rd)
{
    sim *s = c->s;
    deck *dk = &c->dk;
    int kz_j = 0, kz_old = 0; /* the KZ(J) a KSTART = 3, 5 deck sets, and its old value */
    if (rd->tcomp > 0.0) dk->tcomp = rd->tcomp;
    if (rd->has_restart_times) {
        if (rd->r_dtadj > 0.0) s->p.dtadj = dk->dtadj = rd->r_dtadj;
        if (rd->r_deltat > 0.0) s->p.deltat = dk->deltat = rd->r_deltat;
        if (rd->r_tadj > 0.0) c->rs.tcheck = rd->r_tadj;
        if (rd->r_tnext > 0.0) c->rs.tout = rd->r_tnext;
        if (rd->r_tcrit > 0.0) s->p.tcrit = dk->tcrit = rd->r_tcrit;
        if (rd->r_qe > 0.0) s->p.qe = dk->qe = rd->r_qe;
        if (rd->r_j >= 1 && rd->r_j <= DECK_NKZ) {
            kz_j = rd->r_j;
            kz_old = dk->kz[kz_j];
            dk->kz[rd->r_j] = rd->r_kzj;
            if (rd->r_j == 40) s->p.kz40 = rd->r_kzj;
        }
    }
    if (rd->has_restart_accuracy) {
        if (rd->r_etai > 0.0) s->p.etai = dk->etai = rd->r_etai;
        if (rd->r_etar > 0.0) s->p.etar = dk->etar = rd->r_etar;
        if (rd->r_etau > 0.0) s->p.etau = dk->etau = rd->r_etau;
        if (rd->r_dtmin > 0.0) {
            s->p.dtmin = dk->dtmin = rd->r_dtmin;
            s->smin = 2.0 * s->p.dtmin;
        }
        if (rd->r_rmin > 0.0) s->p.rmin = dk->rmin = rd->r_rmin;
        if (rd->r_ncrit > 0) dk->ncrit = rd->r_ncrit;
    }
    /* a check or output time already passed would never be met */
    if (c->rs.tcheck < s->time) c->rs.tcheck = next_multiple(s->time, s->p.dtadj);
    if (c->rs.tout < s->time) c->rs.tout = next_multiple(s->time, s->p.deltat);
    char kzs[160] = "";
    if (kz_j)
        snprintf(kzs, sizeof kzs, "  KZ(%d) %d -> %d%s", kz_j, kz_old, rd->r_kzj,
                 kz_old == rd->r_kzj ? " (unchanged)" : "");
    runlog_note(&c->lg, "restart deck KSTART = %d: TCOMP %g  DTADJ %g  DELTAT %g  next check %g  "
                "next output %g  TCRIT %g  QE %g  ETAI %g  ETAR %g  ETAU %g  DTMIN %g  RMIN %g  "
                "NCRIT %d%s", rd->kstart, dk->tcomp, s->p.dtadj, s->p.deltat, c->rs.tcheck,
                c->rs.tout, s->p.tcrit, s->p.qe, s->p.etai, s->p.etar, s->p.etau, s->p.dtmin,
                s->p.rmin, dk->ncrit, kzs);
}

/* The force libraries and the block schedule from the host state: every
 * body's polynomial, every list, the j-range. */
static int rebuild_libraries(sim *s, const run_options *o, int tell, char *err, size_t errlen)
{
    if (open_libraries(s, o, tell, err, errlen)) return -1;
    s->bs = block_create(s);
    if (!s->bs) {
        snprintf(err, errlen, "out of memory for the block step");
        return -1;
    }
    newpoly_send(s, 0, NULL); /* every body and list, the j-range */
    block_reschedule(s->bs);
    return 0;
}

static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, len, ".");
    else if (slash == path) snprintf(dir, len, "/");
    else snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static int same_dir(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

/* A restart into a new --out carries the run's history: the first `bytes`
 * of the checkpoint folder's log.txt or events.txt (what belonged to the
 * checkpoint's state) become the new folder's file.  Returns 0, or -1 when that log is
 * missing or shorter (the caller then starts a log that says so). */
static int copy_file_prefix(const char *from_dir, const char *to_dir, const char *file, long long bytes)
{
    char src[4200], dst[4200], buf[65536];
    snprintf(src, sizeof src, "%s/%s", from_dir, file);
    snprintf(dst, sizeof dst, "%s/%s", to_dir, file);
    FILE *in = fopen(src, "rb");
    if (!in) return -1;
    FILE *out = fopen(dst, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    long long left = bytes;
    while (left > 0) {
        size_t want = left < (long long)sizeof buf ? (size_t)left : sizeof buf;
        size_t got = fread(buf, 1, want, in);
        if (got == 0 || fwrite(buf, 1, got, out) != got) break;
        left -= (long long)got;
    }
    int bad = fclose(out) != 0 || left > 0;
    fclose(in);
    if (bad) remove(dst);
    return bad ? -1 : 0;
}

/* The files a run appends to beside log.txt, one row per event or output,
 * each row's first number its time (N-body): its history, which a restart
 * carries into a new --out and cuts back to the checkpoint's time (a
 * restart in place, a KZ(2) = 2 repeat), so that no row is lost or written
 * twice. */
static const char *const cumulative_files[] = {"escapers.txt", "binaries.txt"};

/* from/name's comment lines and rows up to time t into to/name (written
 * under a temporary name and renamed; from and to may be one folder).
 * Rows print t to four decimals: a later row is a check or an output after
 * t, so half the last digit separates them.  0, or -1 (err). */
static int carry_rows(const char *from, const char *to, const char *name, double t, char *err,
                      size_t errlen)
{
    char src[4200], dst[4200], tmp[4300], line[4096];
    snprintf(src, sizeof src, "%s/%s", from, name);
    snprintf(dst, sizeof dst, "%s/%s", to, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", dst);
    FILE *in = fopen(src, "r");
    if (!in) return 0; /* the run had none */
    FILE *out = fopen(tmp, "w");
    if (!out) {
        fclose(in);
        snprintf(err, errlen, "%.1000s: cannot write: %s", tmp, strerror(errno));
        return -1;
    }
    const double cut = t + 5e-5 * fmax(1.0, fabs(t));
    while (fgets(line, sizeof line, in)) {
        char *end;
        const double tr = strtod(line, &end);
        if (line[0] == '#' || end == line || tr <= cut) fputs(line, out);
    }
    fclose(in);
    if (fclose(out) != 0 || rename(tmp, dst) != 0) {
        snprintf(err, errlen, "%.1000s: cannot write: %s", dst, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

static int carry_history(const char *from, const char *to, double t, char *err, size_t errlen)
{
    for (size_t k = 0; k < sizeof cumulative_files / sizeof cumulative_files[0]; k++)
        if (carry_rows(from, to, cumulative_files[k], t, err, errlen)) return -1;
    return 0;
}

/* The log of a restarted run: the same folder's log continued, or the
 * checkpoint folder's log copied into a new --out and continued, or (when
 * neither exists) a new log whose header says it is a restart. */
static int open_restart_log(run_ctx *c, const char *ckdir, int same, const run_options *o,
                            char *err, size_t errlen)
{
    long long bytes = (long long)c->rs.log_bytes;
    if (!same && copy_file_prefix(ckdir, c->dir, "log.txt", bytes) == 0 &&
        runlog_reopen(&c->lg, c->dir, bytes) == 0) {
        runlog_note(&c->lg, "the lines above are %s/log.txt up to the checkpoint; this run continues "
                    "in %s", ckdir, c->dir);
        return 0;
    }
    if (same && runlog_reopen(&c->lg, c->dir, bytes) == 0) return 0;
    char source[4400], header[4096], units[512];
    snprintf(source, sizeof source, "restart of %s at t = %.10g (the log before it, %s/log.txt, "
             "is missing or shorter than the checkpoint's)", o->restart_path, c->s->time, ckdir);
    units_text(&c->dk, c->dk.zmbar, c->s->nzero, units, sizeof units);
    snprintf(header, sizeof header, "%s\n%s", units, c->dk.notes);
    return runlog_open(&c->lg, c->dir, c->s, source, header, err, errlen);
}

/* The TCRIT the restart will run to (a restart deck's positive TCRIT
 * replaces the saved one); refuses one that is not after the checkpoint's
 * time, which would "finish" without a step. */
static int check_restart_tcrit(const deck *rd, const run_options *o, double t, double tcrit)
{
    int from_deck = rd && rd->has_restart_times && rd->r_tcrit > 0.0;
    if (from_deck) tcrit = rd->r_tcrit;
    if (t < tcrit) return 0;
    if (from_deck)
        fprintf(stderr, "nbody6c: %s: TCRIT = %g is not after the checkpoint's time t = %.10g: "
                "nothing to integrate; give a later TCRIT\n", o->deck_path, tcrit, t);
    else
        fprintf(stderr, "nbody6c: %s is at t = %.10g, at its TCRIT = %g already (a finished run): "
                "to go on, give a restart deck with KSTART = 3 and a later TCRIT\n",
                o->restart_path, t, tcrit);
    return -1;
}

int run_restart(const deck *rd, const run_options *o)
{
    const double wall0 = omp_get_wtime();
    char err[1024] = "", ckdir[4096];
    if (o->threads > 0) omp_set_num_threads(o->threads);
    deck saved;
    run_state rs;
    sim *s = checkpoint_read(o->restart_path, &saved, &rs, err, sizeof err);
    if (!s) {
        fprintf(stderr, "nbody6c: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (check_restart_tcrit(rd, o, s->time, s->p.tcrit)) {
        sim_free(s);
        return EXIT_BAD_INPUT;
    }
    dir_of(o->restart_path, ckdir, sizeof ckdir);
    const char *dir = o->out_dir ? o->out_dir : ckdir;
    int same = same_dir(dir, ckdir);
    if (!same) {
        int rc = prepare_out_dir(dir, o->force);
        if (rc != EXIT_OK) {
            sim_free(s);
            return rc;
        }
    }
    run_ctx c;
    ctx_init(&c, &saved, o, dir);
    c.s = s;
    c.rs = rs;
    c.d = rs.last;
    c.lg.walls.process0 = wall0;
    c.lg.walls.steps0 = s->tm.total;
    log_units(&c);
    listen_to(&c);
    if (!(c.rs.etai0 > 0.0)) c.rs.etai0 = s->p.etai; /* a checkpoint from before KZ(17) */
    if (!(c.rs.etar0 > 0.0)) c.rs.etar0 = s->p.etar;
    s->led.exact = o->energy_audit;
    if (rebuild_libraries(s, o, 1, err, sizeof err)) {
        fprintf(stderr, "nbody6c: %s\n", err);
        run_end(s);
        return o->gpu.mode == GPUNB_REQUIRED ? EXIT_BAD_INPUT : EXIT_RUN_FAILURE;
    }
    if (open_restart_log(&c, ckdir, same, o, err, sizeof err) || open_events(&c, ckdir, err, sizeof err) ||
        carry_history(ckdir, dir, s->time, err, sizeof err)) {
        fprintf(stderr, "nbody6c: %s\n", err);
        run_end(s);
        return EXIT_RUN_FAILURE;
    }
    c.lg.e0 = rs.e0;
    c.lg.eprev = rs.eprev;
    c.lg.de_sum_abs = rs.de_sum_abs;
    c.lg.de_last = rs.de_last;
    runlog_note(&c.lg, "restart from %s at t = %.17g (nbody6c %s; gpunb %s, gpuirr %s, %d threads)",
                o->restart_path, s->time, NBODY6C_VERSION, gpunb_backend(s->nb),
                gpuirr_backend(s->irr), omp_get_max_threads());
    if (rd) {
        apply_restart_deck(&c, rd);
        print_notes(rd->notes); /* a KZ(J) the restart deck sets */
    }
    /* KZ(2) = 2 repeats a failed interval from the last good check: the
     * restart state is one, and the run's own folder must hold it (a restart
     * into a new --out had none to go back to) */
    if (c.dk.kz[2] >= 2 && write_checkpoint(&c, "restart, KZ(2) = 2", err, sizeof err)) {
        fprintf(stderr, "nbody6c: %s\n", err);
        runlog_close(&c.lg);
        run_end(s);
        return EXIT_RUN_FAILURE;
    }
    return run_ctx_go(&c);
}
