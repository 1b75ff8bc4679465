/* ks_send.c — after a KS, chain or merger event: the bodies it changed
 * (marked dirty) go to both force libraries, with the new j-range. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/newpoly.h"
#include "reg/ks.h"
#include "reg/ks_state.h"

/* Both libraries get the new j-range and every body whose slot, polynomial
 * or list changed at this event (an event touches a few bodies and the lists
 * that named them; resending all N would cost O(N) per event). */
void ks_send_dirty(sim *s)
{
    double w0 = omp_get_wtime();
    unsigned char *dirty = s->ks->dirty;
    int nd = 0;
    for (int i = s->ifirst; i < s->ntot; i++) nd += dirty[i];
    int *idx = malloc(sizeof(int) * (nd + 1));
    if (!idx) {
        fprintf(stderr, "nbody6c: out of memory at a KS event\n");
        exit(1);
    }
    for (int i = s->ifirst, k = 0; i < s->ntot; i++)
        if (dirty[i]) idx[k++] = i;
    newpoly_send(s, nd, idx); /* the j-range, polynomials and lists to both libraries */
    free(idx);
    memset(dirty, 0, (size_t)s->cap);
    s->ks->evt[KS_EVT_SEND] += omp_get_wtime() - w0;
}
