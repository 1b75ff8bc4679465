/* gpunb.h — GPUNB: the regular force, its derivative and the neighbour lists
 * (Nitadori & Aarseth 2012, §3.4), behind one API with several backends:
 *   "cpu-ref"  plain C + OpenMP, double precision: the reference and oracle;
 *   "cpu-simd" AVX-512 / AVX2 kernels, two-float coordinates (the CPU default);
 *   "cuda"     the GPU backend (gpunb_cuda.cu), when built with CUDA.
 *
 * Units are physical (G = 1): accelerations and jerks as they are, not
 * NBODY6's scaled F = a/2, FDOT = jerk/6.
 *
 * The library keeps its own copy of the j-bodies (slots [jbeg, jend) of the
 * caller's body arrays): mass, time t0 and the Taylor polynomial at t0 (x, v,
 * a, jerk).  gpunb_set_jp sends bodies corrected since the last call;
 * gpunb_predict brings every j-body to time t with the third-order predictor
 *     x(t) = x0 + v0 s + a s^2/2 + j s^3/6,  v(t) = v0 + a s + j s^2/2,  s = t - t0,
 * the same formula (and, for the CPU backend, the same operation order) as
 * the integrator's own predictor, so the regular and irregular forces of a
 * block see one predicted state.
 *
 * The neighbour contract (one definition for every backend): j != i is a
 * neighbour of i when
 *     min(|r_ij|^2, |r_ij + dtr_i v_ij|^2) < m_j * h2_i,
 * with r_ij = x_j - x_i, v_ij = v_j - v_i, and h2_i = RS_i^2 / <m> passed by
 * the caller (so heavy stars are neighbours further out; identical to the
 * paper's eq. 3 for equal masses).  Strict <, self excluded by index, lists
 * ascending.  A neighbour is not summed into the regular force.
 */
#ifndef NBODY6C_GPUNB_H
#define NBODY6C_GPUNB_H

#include <stddef.h>

typedef struct gpunb gpunb;

typedef enum {
    GPUNB_AUTO = 0,   /* the GPU when one is present, else the CPU backend */
    GPUNB_CPU = 1,    /* --gpu=off */
    GPUNB_REQUIRED = 2, /* --gpu=required: fail if no GPU */
    GPUNB_CPU_REF = 3   /* --gpu=ref: the double-precision CPU reference ("cpu-ref") */
} gpunb_mode;

typedef struct gpunb_config {
    gpunb_mode mode;
    int ngpu;        /* GPUs to use, 0 = all visible */
} gpunb_config;

/* Opens a library for up to nmax body slots and lists of up to nbmax
 * entries.  Returns NULL with a message in err on failure.  `notice`, if
 * non-NULL, receives a one-line notice (e.g. "no GPU found, CPU backend"). */
gpunb *gpunb_open(int nmax, int nbmax, const gpunb_config *cfg,
                  char *notice, size_t noticelen, char *err, size_t errlen);
void gpunb_close(gpunb *g);
const char *gpunb_backend(const gpunb *g);

/* Host threads the backend runs beside the caller's (the CUDA backend: one
 * per GPU past the first).  A program that sizes its OpenMP team to the
 * cores should leave these free: busy threads beyond the cores stall
 * OpenMP's barriers (measured: two GPUs ran slower than one until then). */
int gpunb_host_threads(const gpunb *g);

/* The j-bodies are the slots [jbeg, jend). */
void gpunb_set_range(gpunb *g, int jbeg, int jend);

/* Stores the polynomials of n bodies idx[k] (x, v, a, jerk at time t0[k]);
 * the idx[k] of one call are distinct. */
void gpunb_set_jp(gpunb *g, int n, const int *idx, const double *t0,
                  const double (*x)[3], const double (*v)[3],
                  const double (*a)[3], const double (*jerk)[3], const double *m);

/* Held updates: between gpunb_hold_jp and gpunb_release_jp, gpunb_set_jp
 * only records.  Every force call in between (regular, irregular, start-up
 * derivatives) still sees the j-bodies as they were at the hold; the
 * release makes the recorded updates take effect, in the order they came.
 * gpunb_set_jp and both calls may come while a regular force is in flight
 * (between gpunb_regf_begin and gpunb_regf_end), so that a block's members,
 * corrected while the GPU computes with their predicted state, can be
 * handed over before the new-list irregular force that still needs that
 * state.  Holds do not nest.  The CUDA backend keeps the updates where
 * set_jp stages them anyway; the others have the front end copy them. */
void gpunb_hold_jp(gpunb *g);
void gpunb_release_jp(gpunb *g);

/* Predicts every j-body to time t (no-op for bodies already there). */
void gpunb_predict(gpunb *g, double t);

/* Regular force on ni i-bodies at the given (predicted) x, v:
 *   a[k], jerk[k]: sum over j-bodies not in i's neighbour set, j != idx[k];
 *   nnb[k], list + k*nbmax: the neighbour set, ascending body indices;
 *   nnb[k] = -n when the set has n > nbmax members (the force is then
 *   undefined: the caller shrinks h2 and asks again; n tells it by how much).
 * Returns the number of overflowed bodies. */
int gpunb_regf(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
               const double (*x)[3], const double (*v)[3],
               double (*a)[3], double (*jerk)[3], int *nnb, int *list);

/* The same regular force in two halves, so that the caller's own work runs
 * while the GPU computes: gpunb_regf_begin takes the inputs and starts
 * (the CUDA backend: the first chunk's launches and copies are queued on
 * every GPU and it returns at once, by default with one GPU only; the
 * other backends do nothing yet);
 * gpunb_regf_end waits and returns what gpunb_regf would have (bit for bit,
 * and the resident lists kept the same way).  The inputs must stay valid
 * and unchanged until the end call, and no other gpunb call may come in
 * between (one that does is a caller's bug: the library says so and exits),
 * except the held updates' calls below. */
void gpunb_regf_begin(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                      const double (*x)[3], const double (*v)[3]);
int gpunb_regf_end(gpunb *g, double (*a)[3], double (*jerk)[3], int *nnb, int *list);

/* Start-up second and third derivatives (docs/ALGORITHMS.md §7) for ni i-bodies
 * from the stored j-state (x, v, a, jerk at the current time, after
 * gpunb_set_jp and gpunb_predict at that time).  i's own x, v, a, jerk are
 * given; a and jerk are the total (irregular + regular) values of every
 * body.  Each j term goes to the irregular (neighbour, by the contract with
 * h2 and dtr) or the regular sums.  Every j-body contributes (no
 * truncation). */
void gpunb_fpoly(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                 const double (*x)[3], const double (*v)[3],
                 const double (*a)[3], const double (*jerk)[3],
                 double (*d2irr)[3], double (*d3irr)[3],
                 double (*d2reg)[3], double (*d3reg)[3]);

/* Irregular force and jerk of ni i-bodies from their neighbour lists, at
 * the stored j-state predicted to the time of the last gpunb_predict (the
 * same polynomials and formula as GPUIRR's, so both give one predicted
 * state):
 *     a[k]    = sum_{j in lists[k]} m_j r/|r|^3,
 *     jerk[k] = sum m_j [v - 3 (r.v/|r|^2) r]/|r|^3     (r = x_j - x[k], v = v_j - v[k])
 * lists[k] points to nnb[k] j-body slots (in [jbeg, jend); any order, each
 * summed in the order given); i's own x[k], v[k] are given (it need not be
 * a j-body).  An empty list gives zero.  Accuracy: GPUIRR's contract
 * (gpuirr.h, docs/ALGORITHMS.md's normalised metric); the CUDA backend's bound is in
 * gpunb_cuda.cu.  Each body's sum runs in a fixed order, so results do not
 * depend on thread or GPU counts.  Returns 0; or k + 1 for the first body k
 * (in the order given) whose list names a slot outside the j-range or a
 * body at its own position (r = 0): that body's a, jerk are zero and the
 * others are computed. */
int gpunb_irrf(gpunb *g, int ni, const double (*x)[3], const double (*v)[3],
               const int *nnb, const int *const *lists, double (*a)[3], double (*jerk)[3]);

/* Resident neighbour lists: the library can keep one list per body slot
 * (up to nbmax ascending slots), so that the irregular force of a big block
 * needs no list from the caller (gpunb_irrf_resident: on the GPU, uploading
 * every member's list each block cost about half of the GPU's time).
 * They exist from the first gpunb_set_list on (a caller that never sets one
 * pays nothing: no memory, no copies); every slot's list is empty until set.
 * Two calls set them, nothing else changes them:
 *   - gpunb_set_list: the caller's lists for the given slots (start-up,
 *     restart, and every list a KS event renames or edits);
 *   - gpunb_regf: each list it returns whole (nnb[k] >= 0) becomes the
 *     resident list of idx[k] (the regular step's new lists, kept where
 *     they were built); an overflowed body's list stays as it was.
 * They hold slot numbers, not positions in the j-range: gpunb_set_range
 * leaves them as they are, and a slot outside the j-range is reported at
 * gpunb_irrf_resident.  The caller who edits a list on its side must send it
 * again (as for GPUIRR's gpuirr_set_list). */
void gpunb_set_list(gpunb *g, int n, const int *idx, const int *nnb, const int *const *lists);

/* gpunb_irrf over the resident lists of the slots idx[k] (the idx[k] of a
 * call need not be distinct), at the given x[k], v[k]: the same sums in the
 * same order as gpunb_irrf with those lists given (bit-identical), and the
 * same return value. */
int gpunb_irrf_resident(gpunb *g, int ni, const int *idx, const double (*x)[3], const double (*v)[3],
                        double (*a)[3], double (*jerk)[3]);

/* gpunb_irrf_resident for bodies at their own slots' predicted state: the
 * caller promises that x[k], v[k] are predict3 (common/predict.h) of the
 * polynomial it last gave slot idx[k] (gpunb_set_jp, held updates not
 * counted), to the time of the last gpunb_predict.  The same results, bit
 * for bit; the CUDA backend then predicts the i-bodies on the GPU from
 * its own copy of those polynomials (the same bits) instead of uploading
 * them, when every slot is a j-body. */
int gpunb_irrf_members(gpunb *g, int ni, const int *idx, const double (*x)[3], const double (*v)[3],
                       double (*a)[3], double (*jerk)[3]);

/* Which resident lists name given slots: for every slot b in [lo, hi),
 * mark[b - lo] gets bit q set when b's resident list holds labs[q] (q <
 * nlab <= 4; a negative label matches nothing).  The lists are the ones
 * the caller keeps too (the contract above), so this is the caller's own
 * whole-list scan, done where the lists are: the CUDA backend reads them
 * on the GPU (a KS formation's scan of every list took ~2.4 ms at N = 128k
 * on the host).  Resident lists must exist (gpunb_set_list). */
void gpunb_lists_naming(gpunb *g, int lo, int hi, int nlab, const int *labs, unsigned char *mark);

/* Potential of n given bodies on each other: pot[i] = sum_{j != i} m_j/|x_i - x_j|
 * (positive), good to 1e-10 relative. Independent of the stored j-state. */
void gpunb_pot(gpunb *g, int n, const double *m, const double (*x)[3], double *pot);

/* The rows of the potential's upper triangle, for a total that every
 * backend gives to the bit: row[i] = sum_{j > i} m_j/|x_j - x_i| (positive;
 * row[n-1] = 0), each row summed from 0 in ascending j with the plain C
 * loop's operations, each rounded once (IEEE double, no contraction):
 *     dx = x[j][0] - x[i][0] (likewise dy, dz),
 *     s = s + m[j] / sqrt((dx * dx + dy * dy) + dz * dz).
 * So W = -sum_i m_i row[i], summed in i order by the caller, does not depend
 * on the backend, the GPU or thread count (the scaling of the initial model
 * uses it: a deck gives the same bodies everywhere).  Half the pairs of
 * gpunb_pot; the error of a row is that of a plain sum of positive terms,
 * at most (n - i + 3) 2^-53 relative (tests/test_gpunb_*.c).  Independent of
 * the stored j-state. */
void gpunb_pot_rows(gpunb *g, int n, const double *m, const double (*x)[3], double *row);

#endif
