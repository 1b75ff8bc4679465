/* deck.h — the NBODY6 input deck: its values as read, and the reader.
 *
 * deck.c owns the list-directed parsing (Fortran rules: blanks/commas/line ends
 * separate values, every read starts on a new line, r*c repeats, empty values
 * and r* keep the old value, '/' ends a read, D exponents, trailing text after
 * the values a read needs is ignored).  kz_policy.c owns which KZ options the
 * program accepts.  Nothing here depends on the integrator. */
#ifndef NBODY6C_DECK_H
#define NBODY6C_DECK_H

#include <stddef.h>
#include <stdio.h>

#define DECK_NKZ 50
#define DECK_QE_MAX 0.1 /* the largest energy tolerance accepted (QE, line 3) */

typedef struct deck {
    /* line 1 */
    int kstart;
    double tcomp;
    /* line 2 */
    int n, nfix, ncrit, nrand, nnbmax, nrun;
    /* line 3 */
    double etai, etar, rs0, dtadj, deltat, tcrit, qe, rbar, zmbar;
    /* line 4: kz[1..50]; kz[0] unused */
    int kz[DECK_NKZ + 1];
    /* physical line (1-based) each KZ value was read from; 0 = unknown, and
     * kz_check() then names the `line` it was given */
    int kz_line[DECK_NKZ + 1];
    /* line 5 */
    double dtmin, rmin, etau, eclose, gmin, gmax;
    /* line 6 */
    double alphas, body1, bodyn;
    int nbin0, nhi0;
    double zmet, epoch0, dtplot;
    /* line 8 */
    double q, vxrot, vzrot, rtide, smax;
    /* option line of KZ(14) = 2: point-mass galaxy (Msun), its distance (kpc) */
    double gmg, rg0;
    /* option line of KZ(8) = 1 or >= 3 (NBODY6's binpop.f): the primordial
     * binaries' largest semi-major axis, eccentricity (< 0 thermal), mass
     * fraction of component 1, semi-major axis range (> 0: flat in log a),
     * mass-spectrum skip, dormant flag, eigen-evolution switch */
    int has_binpop;
    double semi0, ecc0, ratio, range;
    int nskip, idorm, icirc;

    /* restart decks (KSTART = 3 or 5): DTADJ DELTAT TADJ TNEXT TCRIT QE J KZ(J) */
    int has_restart_times;
    double r_dtadj, r_deltat, r_tadj, r_tnext, r_tcrit, r_qe;
    int r_j, r_kzj;
    /* restart decks (KSTART = 4 or 5): ETAI ETAR ETAU DTMIN RMIN NCRIT */
    int has_restart_accuracy;
    double r_etai, r_etar, r_etau, r_dtmin, r_rmin;
    int r_ncrit;

    /* KZ options accepted but not active yet / diagnostics only: one line each,
     * for the run log.  Filled by kz_check(). */
    char notes[2048];

    /* Where the deck came from and the line each field was read from (the
     * latest read of a name wins), so that checks made after reading (the
     * initial conditions, the tidal field) can name the line too: deck_at. */
    char path[256];
    struct deck_where {
        char field[16];
        int line; /* 1-based */
    } where[128];
    int nwhere;
} deck;

/* Reads a deck from f.  `name` is used in messages ("-" for stdin).
 * Returns 0 on success.  On failure returns nonzero and writes into err a
 * message of the form "NAME:LINE: FIELD: reason". */
int deck_read(FILE *f, const char *name, deck *d, char *err, size_t errlen);

/* "PATH:LINE: " for the line `field` ("BODY1", "KZ(22)") was read from, or
 * "PATH: " when the deck did not give it; into buf, which it returns. */
const char *deck_at(const deck *d, const char *field, char *buf, size_t len);

/* Convenience: opens `path` ("-" = stdin) and calls deck_read. */
int deck_read_path(const char *path, deck *d, char *err, size_t errlen);

/* The KZ policy (kz_policy.c).  Called by the reader right after the KZ line
 * and before any line an option needs.  Returns 0 if every option is
 * acceptable (appending notes for the log to d->notes), else nonzero with a
 * message "NAME:LINE: KZ(k) = v: reason" in err. */
int kz_check(deck *d, const char *name, int line, char *err, size_t errlen);

/* Status of option k as documented in the README's table. */
typedef enum {
    KZ_IMPLEMENTED,
    KZ_NOT_ACTIVE_YET,
    KZ_DIAGNOSTICS_ONLY,
    KZ_REFUSED
} kz_status;
kz_status kz_status_of(int k, int value);

#endif
