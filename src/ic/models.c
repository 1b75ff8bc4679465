/* models.c — the KZ(5) initial models in their own units: the Plummer sphere
 * (KZ(5) = 1) and the uniform sphere (KZ(5) = 0), drawn as NBODY6 draws them.
 * The masses are given (assigned before, heaviest first); positions are drawn
 * in body order, so mass and position are uncorrelated.  The standard scaling
 * (scale.c) follows in ic.c and fixes the final units exactly.
 *
 * Order of the random numbers, per body, body 1 first (this order is part of
 * the reproducibility contract: the same seed gives the same bodies):
 *   Plummer: X (redrawn until it gives an accepted radius); then two numbers
 *   for the position's direction (cos theta, phi); then pairs (q, Y) until
 *   accepted; then two numbers for the velocity's direction.
 *   Uniform: triples for the position until inside the unit sphere, then
 *   triples for the velocity until inside the unit sphere. */
#include <math.h>
#include "ic/ic.h"

#define PLUMMER_RMAX 10.0   /* bodies beyond 10 scale lengths are redrawn */
#define PLUMMER_XMIN 1e-10  /* X below this is redrawn (X = 0 has no radius) */

/* A vector of length len in a direction uniform on the sphere: z = len*(1-2u)
 * makes cos(theta) uniform in [-1, 1], the azimuth is 2 pi w. */
static void isotropic(rng *r, double len, double out[3])
{
    const double u = rng_uniform(r);
    const double w = rng_uniform(r);
    const double z = (1.0 - 2.0 * u) * len;
    const double rho = sqrt(fmax(len * len - z * z, 0.0));
    const double phi = 2.0 * M_PI * w;
    out[0] = rho * cos(phi);
    out[1] = rho * sin(phi);
    out[2] = z;
}

/* Radius (scale length 1) whose enclosed mass fraction is X: the Plummer
 * cumulative mass M(r) = r^3 / (1 + r^2)^(3/2) inverted. */
static double plummer_radius(rng *r)
{
    for (;;) {
        const double x = rng_uniform(r);
        if (x < PLUMMER_XMIN)
            continue;
        const double radius = 1.0 / sqrt(pow(x, -2.0 / 3.0) - 1.0);
        if (radius <= PLUMMER_RMAX) /* also rejects inf/NaN as x -> 1 */
            return radius;
    }
}

/* Speed at radius rad: the fraction q of the local escape speed
 * sqrt(2) (1 + r^2)^(-1/4) has density proportional to g(q) = q^2 (1-q^2)^3.5;
 * von Neumann rejection under the constant 0.1 (max g = 0.0921 at q^2 = 2/9). */
static double plummer_speed(rng *r, double rad)
{
    double q;
    for (;;) {
        q = rng_uniform(r);
        const double y = rng_uniform(r);
        const double g = q * q * pow(1.0 - q * q, 3.5);
        if (0.1 * y < g)
            break;
    }
    return q * sqrt(2.0) / pow(1.0 + rad * rad, 0.25);
}

static void remove_centre_of_mass(int n, const double *m, double (*x)[3], double (*v)[3])
{
    double mt = 0.0, xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        mt += m[i];
        for (int k = 0; k < 3; k++) {
            xc[k] += m[i] * x[i][k];
            vc[k] += m[i] * v[i][k];
        }
    }
    if (!(mt > 0.0))
        return;
    for (int k = 0; k < 3; k++) {
        xc[k] /= mt;
        vc[k] /= mt;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            x[i][k] -= xc[k];
            v[i][k] -= vc[k];
        }
}

void model_plummer(int n, const double *m, rng *r, double (*x)[3], double (*v)[3])
{
    for (int i = 0; i < n; i++) {
        const double rad = plummer_radius(r);
        isotropic(r, rad, x[i]);
        isotropic(r, plummer_speed(r, rad), v[i]);
    }
    remove_centre_of_mass(n, m, x, v);
    /* With G = M = 1 a Plummer sphere of scale length a has E = -3 pi/(64 a),
     * so a = 3 pi/16 gives E = -1/4: lengths times a, speeds over sqrt(a). */
    const double a = 3.0 * M_PI / 16.0;
    const double vs = 1.0 / sqrt(a);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            x[i][k] *= a;
            v[i][k] *= vs;
        }
}

/* A point uniform inside the unit sphere, by rejection from the cube. */
static void in_unit_sphere(rng *r, double out[3])
{
    for (;;) {
        for (int k = 0; k < 3; k++)
            out[k] = 2.0 * rng_uniform(r) - 1.0;
        if (out[0] * out[0] + out[1] * out[1] + out[2] * out[2] <= 1.0)
            return;
    }
}

void model_uniform(int n, const double *m, rng *r, double (*x)[3], double (*v)[3])
{
    for (int i = 0; i < n; i++) {
        in_unit_sphere(r, x[i]);
        in_unit_sphere(r, v[i]);
    }
    remove_centre_of_mass(n, m, x, v);
}
