/* stars.c — stellar evolution between block steps (stars.h). */
#include "integ/stars.h"
#include "evol/evol.h"
#include "integ/block.h"
#include "core/newpoly.h"

int stars_between_blocks(sim *s, char *err, size_t errlen)
{
    if (!evol_due(s)) return 0;
    int resend_all;
    int changes = evol_step(s, &resend_all, err, errlen);
    if (changes < 0) return -1;
    if (resend_all) { /* a removal compacted the slots, as escapers do */
        newpoly_send(s, 0, NULL);
    }
    if (changes > 0) block_reschedule(s->bs);
    return 0;
}
