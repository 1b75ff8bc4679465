/* ledger.c — the energy ledger (ledger.h): per-interval and run sums by
 * cause, and the largest events. */
#include <math.h>
#include <string.h>
#include "core/ledger.h"

static const char *const kind_names[LED_NKIND] = {"ks_form", "ks_term", "tide_booked",
                                                          "chain_start", "chain_end", "merge",
                                                          "split", "star_booked"};

int ledger_kind_booked(int kind) { return kind == LED_TIDE || kind == LED_STAR; }

const char *ledger_kind_name(int kind)
{
    return kind >= 0 && kind < LED_NKIND ? kind_names[kind] : "?";
}

/* Keeps the n largest |de| of a list of capacity cap, largest first. */
static void keep_largest(ledger_event *list, int *n, int cap, const ledger_event *e)
{
    int pos = *n;
    while (pos > 0 && fabs(list[pos - 1].de) < fabs(e->de)) pos--;
    if (pos >= cap) return;
    int last = *n < cap ? *n : cap - 1;
    memmove(list + pos + 1, list + pos, sizeof *list * (size_t)(last - pos));
    list[pos] = *e;
    if (*n < cap) (*n)++;
}

void ledger_record(ledger *l, int kind, double t, int name1, int name2, double de, double a,
                   double ecc, double gamma)
{
    if (kind < 0 || kind >= LED_NKIND) return;
    l->sum[kind] += de;
    l->count[kind]++;
    l->total[kind] += de;
    l->total_count[kind]++;
    /* bookings keep E continuous: they are not losses, so not in the lists */
    if (ledger_kind_booked(kind)) return;
    ledger_event e = {t, de, kind, name1, name2, a, ecc, gamma};
    keep_largest(l->top, &l->ntop, LEDGER_TOP, &e);
    keep_largest(l->itop, &l->nitop, LEDGER_TOP_INTERVAL, &e);
}

void ledger_start(ledger *l, double pending)
{
    l->pending = pending;
    memset(l->sum, 0, sizeof l->sum);
    memset(l->count, 0, sizeof l->count);
    l->nitop = 0;
}

void ledger_close(ledger *l, double de, double pending, ledger_interval *out)
{
    out->de = de;
    memcpy(out->ev, l->sum, sizeof out->ev);
    out->rest = de;
    for (int k = 0; k < LED_NKIND; k++)
        if (!ledger_kind_booked(k)) out->rest -= l->sum[k];
    out->pending_change = pending - l->pending;
    l->rest_total += out->rest;
    l->pending_change_total += out->pending_change;
    l->pending = pending;
    memset(l->sum, 0, sizeof l->sum);
    memset(l->count, 0, sizeof l->count);
}

void ledger_print_events(FILE *f, const char *prefix, const ledger_event *ev, int n, double escale)
{
    for (int k = 0; k < n; k++) {
        const ledger_event *e = &ev[k];
        fprintf(f, "%st = %.6f  %-8s  names %d %d  dE/|E| %+.3e  a %.3e  e %.4f  gamma %.3e\n", prefix,
                e->t, ledger_kind_name(e->kind), e->name1, e->name2, e->de / escale, e->a, e->ecc,
                e->gamma);
    }
}

void ledger_save(wbuf *w, const ledger *l)
{
    wb_u32(w, (uint32_t)sizeof(ledger));
    wb_put(w, l, sizeof(ledger));
}

void ledger_load(rbuf *r, ledger *l)
{
    ledger in;
    if (rb_u32(r) != sizeof(ledger)) return;
    rb_get(r, &in, sizeof in);
    if (rb_done(r)) return;
    in.exact = 0; /* an option of the process, not of the run */
    *l = in;
}
