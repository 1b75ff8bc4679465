/* predict.h — the Taylor predictors of the block step.
 *
 * predict3 is THE third-order predictor of the integration (docs/ALGORITHMS.md §1),
 * written with the same operation order as the force libraries' own
 * predictors (gpunb.h, gpuirr.h), so the host and the libraries see
 * bit-identical predicted states with the double-precision backends.
 * predict5 is the high-order predictor for the energy check (adds the 2nd and
 * 3rd derivatives). */
#ifndef NBODY6C_PREDICT_H
#define NBODY6C_PREDICT_H

static inline void predict3(double s, const double x0[3], const double v0[3],
                            const double a[3], const double j[3], double x[3], double v[3])
{
    for (int k = 0; k < 3; k++) {
        x[k] = x0[k] + s * (v0[k] + s * (a[k] / 2 + s * j[k] / 6));
        v[k] = v0[k] + s * (a[k] + s * j[k] / 2);
    }
}

static inline void predict5(double s, const double x0[3], const double v0[3], const double a[3],
                            const double j[3], const double a2[3], const double a3[3],
                            double x[3], double v[3])
{
    for (int k = 0; k < 3; k++) {
        x[k] = x0[k] + s * (v0[k] + s * (a[k] * 0.5 + s * (j[k] * (1.0 / 6.0)
                 + s * (a2[k] * (1.0 / 24.0) + s * a3[k] * (1.0 / 120.0)))));
        v[k] = v0[k] + s * (a[k] + s * (j[k] * 0.5 + s * (a2[k] * (1.0 / 6.0)
                 + s * a3[k] * (1.0 / 24.0))));
    }
}

#endif
