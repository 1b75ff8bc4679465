/* bench_ks.c — KS regularisation on and off: the 1k equal-mass model with a
 * planted hard binary (a = 1e-3, e = 0.7) and the equal-mass 4k deck, from
 * t = 0 to TEND (default 10), CPU backends.  Prints wall time, the sum of the
 * per-unit-time |dE/E|, step counts and KS events for each.  A run that
 * passes WALLCAP seconds (default 300) stops there and says so.
 *   build/bench/bench_ks [TEND] [WALLCAP]     (run from the repository root) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "../tests/simutil.h"
#include "reg/ks.h"
#include "reg/ks_state.h"

static void one_run(const char *what, const char *deckpath, int planted, int ks_off, double tend,
                    double wallcap)
{
    char err[1024];
    run_options o;
    memset(&o, 0, sizeof o);
    o.quiet = 1;
    o.gpu.mode = GPUNB_CPU;
    o.simd = GPUIRR_AUTO;
    o.ks_off = ks_off;
    diag d0, d1;
    sim *s = start_deck_run(deckpath, &o, planted, NULL, &d0, err, sizeof err);
    if (!s) {
        printf("%s: %s\n", what, err);
        return;
    }
    double w0 = omp_get_wtime(), eprev = d0.etot, sum = 0.0, t = 0.0;
    int capped = 0;
    for (int k = 1; k <= (int)(tend + 0.5); k++) {
        if (run_advance(s, (double)k, err, sizeof err)) {
            printf("%s: %s\n", what, err);
            break;
        }
        checks_measure(s, &d1, 0);
        ks_auto_params(s);
        sum += fabs((d1.etot - eprev) / d1.etot);
        eprev = d1.etot;
        t = k;
        if (omp_get_wtime() - w0 > wallcap) {
            capped = 1;
            break;
        }
    }
    printf("| %s | KS %s | %.1f%s | %.1f | %.2e | %.2e | %lld / %lld | %lld / %lld |\n", what, ks_off ? "off" : "on", t,
           capped ? " (wall cap)" : "", omp_get_wtime() - w0, sum, (d1.etot - d0.etot) / fabs(d0.etot),
           (long long)s->cnt.steps_irr, (long long)s->cnt.steps_reg,
           (long long)(s->ks ? s->ks->formed : 0), (long long)(s->ks ? s->ks->steps : 0));
    fflush(stdout);
    run_end(s);
}

int main(int argc, char **argv)
{
    double tend = argc > 1 ? atof(argv[1]) : 10.0, cap = argc > 2 ? atof(argv[2]) : 300.0;
    printf("| model | KS | t reached | wall (s) | sum of per-unit-time abs(dE/E) | (E - E0)/abs(E0) | irregular / regular steps | KS pairs formed / KS steps |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int off = 0; off <= 1; off++)
        one_run("1k + planted binary (a = 1e-3, e = 0.7)", "input/plummer-eq-1024-t2.deck", 1, off, tend, cap);
    for (int off = 0; off <= 1; off++)
        one_run("4k equal masses", "input/plummer-eq-4096-t2.deck", 0, off, tend, cap);
    return 0;
}
