/* run.c — one run: initial model, output folder, force libraries, start-up
 * polynomials, then block steps up to each check time (DTADJ for the energy
 * check, DELTAT for output, TCRIT for the end), measuring at each. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <omp.h>
#include "block.h"
#include "checks.h"
#include "ic.h"
#include "nbradius.h"
#include "run.h"
#include "runlog.h"
#include "sim.h"
#include "startup.h"

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
    if (mkdir(dir, 0777) != 0) {
        fprintf(stderr, "nbody6c: --out %s: cannot create: %s\n", dir, strerror(errno));
        return EXIT_RUN_FAILURE;
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

static int open_libraries(sim *s, const run_options *o, char *err, size_t errlen)
{
    char notice[512];
    s->nb = gpunb_open(s->cap, s->nbmax, &o->gpu, notice, sizeof notice, err, errlen);
    if (!s->nb) return -1;
    if (notice[0] && o->gpu.mode == GPUNB_AUTO && !o->quiet) fprintf(stderr, "nbody6c: %s\n", notice);
    s->irr = gpuirr_open(s->cap, s->nbmax, o->simd, err, errlen);
    if (!s->irr) return -1;
    return 0;
}

sim *run_start(const deck *dk, int n, const double *m, const double (*x)[3],
               const double (*v)[3], const run_options *o, diag *d0, char *err, size_t errlen)
{
    sim *s = sim_create(dk, n, m, x, v, o->nbmax, err, errlen);
    if (!s) return NULL;
    if (open_libraries(s, o, err, errlen)) goto fail;
    s->bs = block_create(s);
    if (!s->bs) {
        snprintf(err, errlen, "out of memory for the block step");
        goto fail;
    }
    double w0 = omp_get_wtime();
    s->time = 0.0;
    if (startup_polynomials(s, err, errlen)) goto fail;
    s->tm.startup = omp_get_wtime() - w0;
    /* RSCALE and the crossing time first, then the core from the lists */
    diag dd;
    s->rscale = 1.0;
    s->xd[0] = s->xd[1] = s->xd[2] = 0.0;
    checks_measure(s, &dd, 1);
    s->alpha = nbradius_alpha0(s);
    s->rsmin = s->p.rs0;
    if (d0) *d0 = dd;
    return s;
fail:
    run_end(s);
    return NULL;
}

int run_advance(sim *s, double t, char *err, size_t errlen)
{
    double w0 = omp_get_wtime();
    while (block_next_time(s, s->bs) <= t) {
        if (block_step(s, s->bs, err, errlen)) return -1;
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
    sim_free(s);
}

static int integrate(sim *s, runlog *lg, diag *d, char *err, size_t errlen)
{
    double tcheck = next_multiple(0.0, s->p.dtadj);
    double tout = next_multiple(0.0, s->p.deltat);
    while (s->time < s->p.tcrit) {
        double tstop = fmin(fmin(tcheck, tout), s->p.tcrit);
        if (run_advance(s, tstop, err, errlen)) return -1;
        checks_measure(s, d, 0);
        if (!isfinite(d->etot)) {
            snprintf(err, errlen, "non-finite energy at t = %g", s->time);
            return -1;
        }
        if (tstop == tcheck) {
            nbradius_control(s, d->nbmean);
            tcheck = next_multiple(tstop, s->p.dtadj);
        }
        if (tstop == tout) {
            s->rsmin = INFINITY;
            for (int i = s->ifirst; i < s->ntot; i++) s->rsmin = fmin(s->rsmin, s->rs[i]);
            tout = next_multiple(tstop, s->p.deltat);
        }
        runlog_check(lg, s, d, 0);
        runlog_progress(lg, s, d);
    }
    return 0;
}

int run_deck(const deck *dk, const run_options *o)
{
    char err[1024] = "";
    int n = dk->n;
    if (o->threads > 0) omp_set_num_threads(o->threads);

    double *m = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    if (!m || !x || !v) {
        fprintf(stderr, "nbody6c: out of memory for %d bodies\n", n);
        return EXIT_RUN_FAILURE;
    }
    int rc = EXIT_BAD_INPUT;
    if (ic_make(dk, o->ic_file, m, x, v, err, sizeof err)) {
        fprintf(stderr, "nbody6c: %s\n", err);
        goto early;
    }
    rc = prepare_out_dir(o->out_dir, o->force);
    if (rc != EXIT_OK) goto early;
    if (dk->kz[22] == 1) {
        char p[4096];
        snprintf(p, sizeof p, "%s/dat.10", o->out_dir);
        if (bodyfile_write(p, n, m, (const double(*)[3])x, (const double(*)[3])v)) {
            fprintf(stderr, "nbody6c: %s: cannot write the initial conditions: %s\n", p, strerror(errno));
            rc = EXIT_RUN_FAILURE;
            goto early;
        }
    }
    diag d;
    sim *s = run_start(dk, n, m, (const double(*)[3])x, (const double(*)[3])v, o, &d, err, sizeof err);
    free(m); free(x); free(v);
    if (!s) {
        fprintf(stderr, "nbody6c: %s\n", err);
        return o->gpu.mode == GPUNB_REQUIRED ? EXIT_BAD_INPUT : EXIT_RUN_FAILURE;
    }
    runlog lg = {0};
    lg.quiet = o->quiet;
    rc = EXIT_RUN_FAILURE;
    if (runlog_open(&lg, o->out_dir, s, o->deck_path, dk->notes, err, sizeof err)) goto fail;
    runlog_check(&lg, s, &d, 1);
    if (integrate(s, &lg, &d, err, sizeof err)) goto fail;
    if (runlog_summary(&lg, o->out_dir, s, &d, err, sizeof err)) goto fail;
    rc = EXIT_OK;
fail:
    if (rc != EXIT_OK) fprintf(stderr, "\nnbody6c: %s\n", err);
    runlog_close(&lg);
    run_end(s);
    return rc;
early:
    free(m); free(x); free(v);
    return rc;
}
