/* ks_send.c — after a KS, chain or merger event: the bodies it changed
 * (marked dirty) go to both force libraries, with the new j-range. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/forces.h"
#include "reg/ks.h"
#include "reg/ks_state.h"

/* Both libraries get the new j-range and every body whose slot, polynomial
 * or list changed at this event (an event touches a few bodies and the lists
 * that named them; resending all N would cost O(N) per event). */
void ks_send_dirty(sim *s)
{
    double w0 = omp_get_wtime();
    unsigned char *dirty = s->ks->dirty;
    gpunb_set_range(s->nb, s->ifirst, s->ntot);
    int nd = 0;
    for (int i = s->ifirst; i < s->ntot; i++) nd += dirty[i];
    int *idx = malloc(sizeof(int) * (nd + 1));
    double *t0 = malloc(sizeof(double) * (nd + 1)), *m = malloc(sizeof(double) * (nd + 1));
    vec3 *x = malloc(sizeof(vec3) * (nd + 1)), *v = malloc(sizeof(vec3) * (nd + 1));
    vec3 *a = malloc(sizeof(vec3) * (nd + 1)), *j = malloc(sizeof(vec3) * (nd + 1));
    if (!idx || !t0 || !m || !x || !v || !a || !j) {
        fprintf(stderr, "nbody6c: out of memory at a KS event\n");
        exit(1);
    }
    int k = 0;
    for (int i = s->ifirst; i < s->ntot; i++) {
        if (!dirty[i]) continue;
        gpuirr_set_jp(s->irr, i, s->t0[i], s->x0[i], s->v0[i], s->a[i], s->j[i], s->m[i]);
        gpuirr_set_list(s->irr, i, s->nnb[i], sim_list(s, i));
        idx[k] = i;
        t0[k] = s->t0[i];
        m[k] = s->m[i];
        memcpy(x[k], s->x0[i], sizeof(vec3));
        memcpy(v[k], s->v0[i], sizeof(vec3));
        memcpy(a[k], s->a[i], sizeof(vec3));
        memcpy(j[k], s->j[i], sizeof(vec3));
        k++;
    }
    if (nd > 0)
        gpunb_set_jp(s->nb, nd, idx, t0, (const double(*)[3])x, (const double(*)[3])v,
                     (const double(*)[3])a, (const double(*)[3])j, m);
    gpunb_lists_send(s, nd, idx); /* GPUNB's resident lists, as GPUIRR's set_list above */
    free(idx); free(t0); free(m); free(x); free(v); free(a); free(j);
    memset(dirty, 0, (size_t)s->cap);
    s->ks->evt[KS_EVT_SEND] += omp_get_wtime() - w0;
}
