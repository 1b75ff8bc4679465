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

static void first_measure(sim *s, diag *d)
{
    /* RSCALE and the crossing time first, then the core from the lists */
    s->rscale = 1.0;
    s->xd[0] = s->xd[1] = s->xd[2] = 0.0;
    checks_measure(s, d, 1);
    s->alpha = nbradius_alpha0(s);
    s->rsmin = s->p.rs0;
}

static int integrate(sim *s, block_scratch *b, runlog *lg, diag *d, char *err, size_t errlen)
{
    double tcheck = next_multiple(0.0, s->p.dtadj);
    double tout = next_multiple(0.0, s->p.deltat);
    double wall0 = omp_get_wtime() - s->tm.total;
    while (s->time < s->p.tcrit) {
        double tstop = fmin(fmin(tcheck, tout), s->p.tcrit);
        while (block_next_time(s, b) <= tstop) {
            if (block_step(s, b, err, errlen)) return -1;
        }
        s->time = tstop;
        s->tm.total = omp_get_wtime() - wall0;
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
    if (ic_make(dk, o->ic_file, m, x, v, err, sizeof err)) {
        fprintf(stderr, "nbody6c: %s\n", err);
        free(m); free(x); free(v);
        return EXIT_BAD_INPUT;
    }
    int rc = prepare_out_dir(o->out_dir, o->force);
    if (rc != EXIT_OK) {
        free(m); free(x); free(v);
        return rc;
    }
    if (dk->kz[22] == 1) {
        char p[4096];
        snprintf(p, sizeof p, "%s/dat.10", o->out_dir);
        if (bodyfile_write(p, n, m, (const double(*)[3])x, (const double(*)[3])v)) {
            fprintf(stderr, "nbody6c: %s: cannot write the initial conditions: %s\n", p, strerror(errno));
            free(m); free(x); free(v);
            return EXIT_RUN_FAILURE;
        }
    }
    sim *s = sim_create(dk, n, m, (const double(*)[3])x, (const double(*)[3])v, o->nbmax, err, sizeof err);
    free(m); free(x); free(v);
    if (!s) {
        fprintf(stderr, "nbody6c: %s\n", err);
        return EXIT_RUN_FAILURE;
    }
    block_scratch *b = NULL;
    runlog lg = {0};
    lg.quiet = o->quiet;
    diag d;
    rc = EXIT_RUN_FAILURE;
    if (open_libraries(s, o, err, sizeof err)) {
        rc = o->gpu.mode == GPUNB_REQUIRED ? EXIT_BAD_INPUT : EXIT_RUN_FAILURE;
        goto fail;
    }
    b = block_create(s);
    if (!b) {
        snprintf(err, sizeof err, "out of memory for the block step");
        goto fail;
    }
    if (runlog_open(&lg, o->out_dir, s, o->deck_path, dk->notes, err, sizeof err)) goto fail;

    double w0 = omp_get_wtime();
    s->time = 0.0;
    if (startup_polynomials(s, err, sizeof err)) goto fail;
    s->tm.startup = omp_get_wtime() - w0;
    first_measure(s, &d);
    runlog_check(&lg, s, &d, 1);
    if (integrate(s, b, &lg, &d, err, sizeof err)) goto fail;
    if (runlog_summary(&lg, o->out_dir, s, &d, err, sizeof err)) goto fail;
    rc = EXIT_OK;
fail:
    if (rc != EXIT_OK) fprintf(stderr, "\nnbody6c: %s\n", err);
    runlog_close(&lg);
    block_free(b);
    if (s) {
        gpunb_close(s->nb);
        gpuirr_close(s->irr);
    }
    sim_free(s);
    return rc;
}
