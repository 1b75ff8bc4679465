/* stars.c — stellar evolution between block steps (stars.h): the
 * collisions found in the block, then the stars' updates due. */
#include <omp.h>
#include "integ/stars.h"
#include "evol/evol.h"
#include "integ/block.h"
#include "core/newpoly.h"
#include "reg/ks.h"

static int stars_now(sim *s, int ncoll, char *err, size_t errlen)
{
    int resend_all = 0, changes = 0;
    if (ncoll) {
        changes = evol_collisions(s, &resend_all, err, errlen);
        if (changes < 0) return -1;
    }
    if (evol_due(s)) {
        int resend2;
        int rc = evol_step(s, &resend2, err, errlen);
        if (rc < 0) return -1;
        changes += rc;
        resend_all |= resend2;
    }
    if (resend_all) { /* a removal compacted the slots, as escapers do */
        newpoly_send(s, 0, NULL);
    }
    if (changes > 0) block_reschedule(s->bs);
    return 0;
}

int stars_between_blocks(sim *s, char *err, size_t errlen)
{
    if (!s->evol) return 0;
    const ks_coll *pend;
    const int ncoll = ks_collisions_pending(s, &pend);
    if (!ncoll && !evol_due(s)) return 0;
    const double w0 = omp_get_wtime();
    const int rc = stars_now(s, ncoll, err, errlen);
    s->ptm.stars += omp_get_wtime() - w0;
    return rc;
}
