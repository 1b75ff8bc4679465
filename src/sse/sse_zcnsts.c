/* sse_zcnsts.c — the metallicity-dependent constants of SSE: the mass
 * boundaries ZPARS (HPT00 eqs 1-3 and section 2) and the coefficients of
 * every fitting formula, each a polynomial in zeta = log10(Z/0.02) (HPT00
 * Appendix), computed once from Z.  Owns the coefficient tables and the
 * clamping of Z to NBODY6's range. */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

/* The published coefficients (HPT00 Appendix; the same numbers SSE and
 * NBODY6 ship): for each fit parameter the coefficients of the powers of
 * zeta, in order. */
/* L_ZAMS and R_ZAMS (Tout et al. 1996): the 5 zeta-polynomial coefficients of each */
static const double xz[77] = {
    0.0, /* 1-based */
    3.970417e-01, -3.2913574e-01, 3.4776688e-01, 3.7470851e-01,
    9.011915e-02, 8.527626e+00, -2.441225973e+01, 5.643597107e+01,
    3.706152575e+01, 5.4562406e+00, 2.5546e-04, -1.23461e-03,
    -2.3246e-04, 4.5519e-04, 1.6176e-04, 5.432889e+00,
    -8.62157806e+00, 1.344202049e+01, 1.451584135e+01, 3.39793084e+00,
    5.563579e+00, -1.032345224e+01, 1.944322980e+01, 1.897361347e+01,
    4.16903097e+00, 7.8866060e-01, -2.90870942e+00, 6.54713531e+00,
    4.05606657e+00, 5.3287322e-01, 5.86685e-03, -1.704237e-02,
    3.872348e-02, 2.570041e-02, 3.83376e-03, 1.715359e+00,
    6.2246212e-01, -9.2557761e-01, -1.16996966e+00, -3.0631491e-01,
    6.597788e+00, -4.2450044e-01, -1.213339427e+01, -1.073509484e+01,
    -2.51487077e+00, 1.008855000e+01, -7.11727086e+00, -3.167119479e+01,
    -2.424848322e+01, -5.33608972e+00, 1.012495e+00, 3.2699690e-01,
    -9.23418e-03, -3.876858e-02, -4.12750e-03, 7.490166e-02,
    2.410413e-02, 7.233664e-02, 3.040467e-02, 1.97741e-03,
    1.077422e-02, 3.082234e+00, 9.447205e-01, -2.15200882e+00,
    -2.49219496e+00, -6.3848738e-01, 1.784778e+01, -7.4534569e+00,
    -4.896066856e+01, -4.005386135e+01, -9.09331816e+00, 2.2582e-04,
    -1.86899e-03, 3.88783e-03, 1.42402e-03, -7.671e-05,
};

/* t_BGB and t_hook (HPT00 a1-a10 of eqs 4-7) */
static const double xt[32] = {
    0.0, /* 1-based */
    1.593890e+03, 2.053038e+03, 1.231226e+03, 2.327785e+02,
    2.706708e+03, 1.483131e+03, 5.772723e+02, 7.411230e+01,
    1.466143e+02, -1.048442e+02, -6.795374e+01, -1.391127e+01,
    4.141960e-02, 4.564888e-02, 2.958542e-02, 5.571483e-03,
    3.426349e-01, 1.949814e+01, 1.758178e+00, -6.008212e+00,
    -4.470533e+00, 4.903830e+00, 5.212154e-02, 3.166411e-02,
    -2.750074e-03, -2.271549e-03, 1.312179e+00, -3.294936e-01,
    9.231860e-02, 2.610989e-02, 8.073972e-01,
};

/* L_TMS, L_alpha, L_beta, L_hook (HPT00 a11-a40 of eqs 8-16) */
static const double xl[73] = {
    0.0, /* 1-based */
    1.031538e+00, -2.434480e-01, 7.732821e+00, 6.460705e+00,
    1.374484e+00, 1.043715e+00, -1.577474e+00, -5.168234e+00,
    -5.596506e+00, -1.299394e+00, 7.859573e+02, -8.542048e+00,
    -2.642511e+01, -9.585707e+00, 3.858911e+03, 2.459681e+03,
    -7.630093e+01, -3.486057e+02, -4.861703e+01, 2.888720e+02,
    2.952979e+02, 1.850341e+02, 3.797254e+01, 7.196580e+00,
    5.613746e-01, 3.805871e-01, 8.398728e-02, 2.321400e-01,
    1.828075e-03, -2.232007e-02, -3.378734e-03, 1.163659e-02,
    3.427682e-03, 1.421393e-03, -3.710666e-03, 1.048020e-02,
    -1.231921e-02, -1.686860e-02, -4.234354e-03, 1.555590e+00,
    -3.223927e-01, -5.197429e-01, -1.066441e-01, 3.855707e-01,
    -6.104166e-01, 5.676742e+00, 1.060894e+01, 5.284014e+00,
    3.579064e-01, -6.442936e-01, 5.494644e+00, 1.054952e+01,
    5.280991e+00, 9.587587e-01, 8.777464e-01, 2.017321e-01,
    1.910302e-01, 1.158624e-01, 3.348990e-02, 2.599706e-03,
    3.931056e-01, 7.277637e-02, -1.366593e-01, -4.508946e-02,
    3.267776e-01, 1.204424e-01, 9.988332e-02, 2.455361e-02,
    5.990212e-01, 5.570264e-02, 6.207626e-02, 1.777283e-02,
};

/* R_TMS, R_alpha, R_beta, R_gamma, R_hook (HPT00 a17-a81 of eqs 9, 17-24) */
static const double xr[120] = {
    0.0, /* 1-based */
    2.187715e-01, -2.154437e+00, -3.768678e+00, -1.975518e+00,
    -3.021475e-01, 1.466440e+00, 1.839725e+00, 6.442199e+00,
    4.023635e+00, 6.957529e-01, 2.652091e+01, 8.178458e+01,
    1.156058e+02, 7.633811e+01, 1.950698e+01, 1.472103e+00,
    -2.947609e+00, -3.312828e+00, -9.945065e-01, 3.071048e+00,
    -5.679941e+00, -9.745523e+00, -3.594543e+00, -8.672073e-02,
    2.617890e+00, 1.019135e+00, -3.292551e-02, -7.445123e-02,
    1.075567e-02, 1.773287e-02, 9.610479e-03, 1.732469e-03,
    1.476246e+00, 1.899331e+00, 1.195010e+00, 3.035051e-01,
    5.502535e+00, -6.601663e-02, 9.968707e-02, 3.599801e-02,
    4.907546e-01, -1.683928e-01, -3.108742e-01, -7.202918e-02,
    4.537070e+00, -4.465455e+00, -1.612690e+00, -1.623246e+00,
    1.796220e+00, 2.814020e-01, 1.423325e+00, 3.421036e-01,
    2.256216e+00, 3.773400e-01, 1.537867e+00, 4.396373e-01,
    1.564231e-03, 1.653042e-03, -4.439786e-03, -4.951011e-03,
    -1.216530e-03, 5.210157e+00, -4.143695e+00, -2.120870e+00,
    1.071489e+00, -1.164852e-01, -8.623831e-02, -1.582349e-02,
    7.108492e-01, 7.935927e-01, 3.926983e-01, 3.622146e-02,
    3.478514e+00, -2.585474e-02, -1.512955e-02, -2.833691e-03,
    3.969331e-03, 4.539076e-03, 1.720906e-03, 1.897857e-04,
    9.132108e-01, -1.653695e-01, 3.636784e-02, 1.192334e-02,
    1.083057e-02, 1.230969e+00, 1.551656e+00, -1.668868e-01,
    5.818123e-01, -1.105027e+01, -1.668070e+01, 7.615495e-01,
    1.068243e-01, -2.011333e-01, -9.371415e-02, -1.015564e-01,
    -2.161264e-01, -5.182516e-02, -3.868776e-01, -5.457078e-01,
    -1.463472e-01, 9.409838e+00, 1.522928e+00, 7.330122e-01,
    5.192827e-01, 2.316416e-01, 8.346941e-03, 1.172768e+00,
    -1.209262e-01, -1.193023e-01, -2.859837e-02, 3.982622e-01,
    -2.296279e-01, -2.262539e-01, -5.219837e-02, 3.571038e+00,
    -2.223625e-02, -2.611794e-02, -6.359648e-03,
};

/* L_BGB, L_BAGB, R_GB, R_AGB, Mc(HeI), Mc(BAGB) (HPT00 b1-b35 of eqs 10, 45-47, 66-67) */
static const double xg[113] = {
    0.0, /* 1-based */
    9.511033e+01, 6.819618e+01, -1.045625e+01, -1.474939e+01,
    3.113458e+01, 1.012033e+01, -4.650511e+00, -2.463185e+00,
    1.413057e+00, 4.578814e-01, -6.850581e-02, -5.588658e-02,
    3.910862e+01, 5.196646e+01, 2.264970e+01, 2.873680e+00,
    4.597479e+00, -2.855179e-01, 2.709724e-01, 6.682518e+00,
    2.827718e-01, -7.294429e-02, 4.637345e+00, 9.301992e+00,
    1.626062e+02, -1.168838e+01, -5.498343e+00, 3.336833e-01,
    -1.458043e-01, -2.011751e-02, 7.425137e+01, 1.790236e+01,
    3.033910e+01, 1.018259e+01, 9.268325e+02, -9.739859e+01,
    -7.702152e+01, -3.158268e+01, 1.127018e+01, 1.622158e+00,
    -1.443664e+00, -9.474699e-01, 2.474401e+00, 3.892972e-01,
    9.960283e-01, 8.164393e-01, 2.383830e+00, 2.223436e+00,
    8.638115e-01, 1.231572e-01, 2.561062e-01, 7.072646e-02,
    -5.444596e-02, -5.798167e-02, -1.349129e-02, 1.157338e+00,
    1.467883e+00, 4.299661e+00, 3.130500e+00, 6.992080e-01,
    1.640687e-02, 4.022765e-01, 3.050010e-01, 9.962137e-01,
    7.914079e-01, 1.728098e-01, 1.125124e+00, 1.306486e+00,
    3.622359e+00, 2.601976e+00, 3.031270e-01, -1.343798e-01,
    3.349489e-01, 4.531269e-03, 1.131793e-01, 2.300156e-01,
    7.632745e-02, 1.467794e+00, 2.798142e+00, 9.455580e+00,
    8.963904e+00, 3.339719e+00, 4.426929e-01, 4.658512e-01,
    2.597451e-01, 9.048179e-01, 7.394505e-01, 1.607092e-01,
    1.110866e+00, 9.623856e-01, 2.735487e+00, 2.445602e+00,
    8.826352e-01, 1.140142e-01, -1.584333e-01, -1.728865e-01,
    -4.461431e-01, -3.925259e-01, -1.276203e-01, -1.308728e-02,
    9.796164e-02, 1.350554e+00, 1.445216e-01, -6.180219e-02,
    3.093878e-02, 1.567090e-02, 1.304129e+00, 1.395919e-01,
    4.142455e-03, -9.732503e-03, 5.114149e-01, -1.160850e-02,
};

/* L_HeI, L_He, R_min, t_He, t_bl, L_ZAHB, R_ZAHB (HPT00 b36-b57 of eqs 49-58) */
static const double xh[100] = {
    0.0, /* 1-based */
    2.751631e+03, 3.557098e+02, -3.820831e-02, 5.872664e-02,
    1.5e+01, 1.071738e+02, -8.970339e+01, -3.949739e+01,
    7.348793e+02, -1.531020e+02, -3.793700e+01, 9.219293e+00,
    -2.005865e+00, -5.561309e-01, 2.917412e+00, 1.575290e+00,
    5.751814e-01, 6.371760e-01, 3.880523e-01, 4.916389e+00,
    2.862149e+00, 7.844850e-01, 3.629118e+00, -9.112722e-01,
    1.042291e+00, 1.609901e+01, 7.391573e+00, 2.277010e+01,
    8.334227e+00, 1.747500e-01, 6.271202e-02, -2.324229e-02,
    -1.844559e-02, 2.752869e+00, 2.729201e-02, 4.996927e-01,
    2.496551e-01, -9.138012e-02, -3.671407e-01, 3.518506e+00,
    1.112440e+00, -4.556216e-01, -2.179426e-01, 1.314955e+02,
    2.009258e+01, -5.143082e-01, -1.379140e+00, 1.823973e+01,
    -3.074559e+00, -4.307878e+00, 1.5e1, 2.327037e+00,
    2.403445e+00, 1.208407e+00, 2.087263e-01, 1.079113e-01,
    1.762409e-02, 1.096601e-02, 3.058818e-03, 2.327409e+00,
    6.901582e-01, -2.158431e-01, -1.084117e-01, 1.997378e+00,
    -8.126205e-01, 2.214315e+00, -1.975747e+00, 4.805428e-01,
    2.471620e+00, -5.401682e+00, 3.247361e+00, 5.072525e+00,
    1.146189e+01, 6.961724e+00, 1.316965e+00, 5.139740e+00,
    1.127733e+00, 2.344416e-01, -3.793726e-01, 5.496045e+01,
    -1.289968e+01, 6.385758e+00, 1.832694e+00, -5.766608e-02,
    5.696128e-02, 1.211104e+02, 1.647903e+00, 2.063983e+00,
    7.363827e-01, 2.654323e-01, -6.140719e-02, 2.214088e+02,
    2.187113e+02, 1.170177e+01, -2.635340e+01, 2.003160e+00,
    9.388871e-01, 9.656450e-01, 2.362266e-01,
};

/* a[0] + x (a[1] + x (a[2] + ...)): Horner, n coefficients. */
static double zpoly(const double *a, int n, double x)
{
    double r = a[n - 1];
    for (int i = n - 2; i >= 0; i--)
        r = a[i] + x * r;
    return r;
}

double sse_clamp_z(double z, int *clamped)
{
    double zc = z;
    /* data.f: ZMET <= 0 -> 1e-4, ZMET > 0.03 -> 0.03.  A Z in (0, 1e-4) is
     * left alone there; the fits are only calibrated from 1e-4, so it is
     * raised to 1e-4 here too (stated in docs/SSE.md). */
    if (!(zc > SSE_ZMIN))
        zc = SSE_ZMIN;
    if (zc > SSE_ZMAX)
        zc = SSE_ZMAX;
    if (clamped)
        *clamped = zc != z;
    return zc;
}

/* Mass boundaries and the MS-radius/luminosity helpers (HPT00 section 2). */
static void set_zpars(sse_consts *c, double z, double lzs)
{
    double *zp = c->zpars;
    static const double cx[5] = {3.040581e-01, 8.049509e-02, 8.967485e-02, 8.780198e-02,
                                 2.219170e-02};
    zp[1] = 1.0185 + lzs * (0.16015 + lzs * 0.0892);                /* Mhook, eq 1 */
    zp[2] = 1.995 + lzs * (0.25 + lzs * 0.087);                     /* MHeF, eq 2 */
    zp[3] = 16.5 * pow(z, 0.06) / (1.0 + pow(1.0e-4 / z, 1.27));    /* MFGB, eq 3 */
    zp[4] = fmax(6.11044 + 1.02167 * lzs, 5.0);                     /* Mup */
    zp[5] = zp[4] + 1.8;                                            /* Mec */
    zp[6] = 5.37 + lzs * 0.135;                                     /* log D (GB) */
    zp[7] = zpoly(cx, 5, lzs);
    zp[8] = fmax(0.95, fmax(0.95 - (10.0 / 3.0) * (z - 0.01),
                            fmin(0.99, 0.98 - (100.0 / 7.0) * (z - 0.001))));
}

/* L_ZAMS, R_ZAMS, t_BGB, t_hook, L_TMS, L_alpha, L_beta, L_hook: msp[1..51]. */
static void set_ms_lum(sse_consts *c, double z, double lzs)
{
    double *a = c->msp;
    for (int i = 0; i < 7; i++)                 /* L_ZAMS */
        a[1 + i] = zpoly(&xz[1 + 5 * i], 5, lzs);
    for (int i = 0; i < 5; i++)                 /* R_ZAMS */
        a[8 + i] = zpoly(&xz[36 + 5 * i], 5, lzs);
    a[13] = xz[61];
    for (int i = 0; i < 3; i++)
        a[14 + i] = zpoly(&xz[62 + 5 * i], 5, lzs);
    for (int i = 0; i < 4; i++)                 /* t_BGB */
        a[17 + i] = zpoly(&xt[1 + 4 * i], 4, lzs);
    a[21] = xt[17];
    a[22] = zpoly(&xt[18], 4, lzs);             /* t_hook */
    a[23] = xt[22];
    a[24] = zpoly(&xt[23], 4, lzs);
    a[25] = zpoly(&xt[27], 4, lzs);
    a[26] = xt[31];
    a[27] = zpoly(&xl[1], 5, lzs);              /* L_TMS */
    a[28] = zpoly(&xl[6], 5, lzs);
    a[29] = zpoly(&xl[11], 4, lzs);
    a[30] = zpoly(&xl[15], 5, lzs);
    a[27] *= a[30];
    a[28] *= a[30];
    a[31] = zpoly(&xl[20], 4, lzs);
    a[32] = zpoly(&xl[24], 4, lzs);
    for (int i = 0; i < 4; i++)                 /* L_alpha */
        a[33 + i] = zpoly(&xl[28 + 4 * i], 4, lzs);
    a[37] = fmax(0.9, 1.1064 + lzs * (0.415 + 0.18 * lzs));
    a[38] = fmax(1.0, 1.19 + lzs * (0.377 + 0.176 * lzs));
    if (z > 0.01) {
        a[37] = fmin(a[37], 1.0);
        a[38] = fmin(a[38], 1.1);
    }
    a[39] = fmax(0.145, 0.0977 - lzs * (0.231 + 0.0753 * lzs));
    a[40] = fmin(0.24 + lzs * (0.18 + 0.595 * lzs), 0.306 + 0.053 * lzs);
    a[41] = fmin(0.33 + lzs * (0.132 + 0.218 * lzs), 0.3625 + 0.062 * lzs);
    const double m2 = 2.0;
    a[42] = (a[33] + a[34] * pow(m2, a[36])) / (pow(m2, 0.4) + a[35] * pow(m2, 1.9));
    a[43] = zpoly(&xl[44], 5, lzs);             /* L_beta */
    a[44] = zpoly(&xl[49], 5, lzs);
    a[45] = zpoly(&xl[54], 3, lzs);
    a[46] = fmin(1.4, 1.5135 + 0.3769 * lzs);
    a[46] = fmax(0.6355 - 0.4192 * lzs, fmax(1.25, a[46]));
    for (int i = 0; i < 4; i++)                 /* L_hook */
        a[47 + i] = zpoly(&xl[57 + 4 * i], 4, lzs);
    a[51] = fmin(1.4, 1.5135 + 0.3769 * lzs);
    a[51] = fmax(0.6355 - 0.4192 * lzs, fmax(1.25, a[51]));
}

/* R_TMS, R_alpha, R_beta, R_gamma, R_hook, L_eta: msp[52..97]. */
static void set_ms_rad(sse_consts *c, double z, double lzs, double lz)
{
    double *a = c->msp;
    a[52] = zpoly(&xr[1], 5, lzs);              /* R_TMS */
    a[53] = zpoly(&xr[6], 5, lzs);
    a[54] = zpoly(&xr[11], 5, lzs);
    a[55] = zpoly(&xr[16], 4, lzs);
    a[56] = zpoly(&xr[20], 4, lzs);
    a[52] *= a[54];
    a[53] *= a[54];
    a[57] = xr[24];
    for (int i = 0; i < 4; i++)
        a[58 + i] = zpoly(&xr[25 + 4 * i], 4, lzs);
    a[62] = fmax(0.097 - 0.1072 * (lz + 3.0),
                 fmax(0.097, fmin(0.1461, 0.1461 + 0.1237 * (lz + 2.0))));
    a[62] = pow(10.0, a[62]);
    double m2 = a[62] + 0.1;
    a[63] = (a[52] + a[53] * pow(a[62], a[55])) / (a[54] + pow(a[62], a[56]));
    a[64] = (a[57] * sse_ipow(m2, 3) + a[58] * pow(m2, a[61]) + a[59] * pow(m2, a[61] + 1.5)) /
            (a[60] + sse_ipow(m2, 5));
    for (int i = 0; i < 4; i++)                 /* R_alpha */
        a[65 + i] = zpoly(&xr[41 + 4 * i], 4, lzs);
    a[69] = zpoly(&xr[57], 5, lzs);
    a[70] = fmax(0.9, fmin(1.0, 1.116 + 0.166 * lzs));
    a[71] = fmax(1.477 + 0.296 * lzs, fmin(1.6, -0.308 - 1.046 * lzs));
    a[71] = fmax(0.8, fmin(0.8 - 2.0 * lzs, a[71]));
    a[72] = zpoly(&xr[62], 3, lzs);
    a[73] = fmax(0.065, 0.0843 - lzs * (0.0475 + 0.0352 * lzs));
    a[74] = 0.0736 + lzs * (0.0749 + 0.04426 * lzs);
    if (z < 0.004)
        a[74] = fmin(0.055, a[74]);
    a[75] = fmax(0.091, fmin(0.121, 0.136 + 0.0352 * lzs));
    a[76] = (a[65] * pow(a[71], a[67])) / (a[66] + pow(a[71], a[68]));
    if (a[70] > a[71]) {
        a[70] = a[71];
        a[75] = a[76];
    }
    for (int i = 0; i < 4; i++)                 /* R_beta */
        a[77 + i] = zpoly(&xr[65 + 4 * i], 4, lzs);
    a[81] = xr[81] + lzs * (xr[82] + lzs * lzs * xr[83]);
    if (z > 0.01)
        a[81] = fmax(a[81], 0.95);
    a[82] = fmax(1.4, fmin(1.6, 1.6 + lzs * (0.764 + 0.3322 * lzs)));
    /* R_gamma */
    a[83] = fmax(zpoly(&xr[84], 4, lzs), zpoly(&xr[96], 3, lzs));
    a[84] = fmin(0.0, zpoly(&xr[88], 4, lzs));
    a[84] = fmax(a[84], zpoly(&xr[99], 3, lzs));
    a[85] = zpoly(&xr[92], 4, lzs);
    a[85] = fmax(0.0, fmin(a[85], 7.454 + 9.046 * lzs));
    a[86] = fmin(xr[102] + lzs * xr[103], fmax(2.0, -13.3 - 18.6 * lzs));
    a[87] = fmin(1.5, fmax(0.4, 2.493 + 1.1475 * lzs));
    a[88] = fmax(1.0, fmin(1.27, 0.8109 - 0.6282 * lzs));
    a[88] = fmax(a[88], 0.6355 - 0.4192 * lzs);
    a[89] = fmax(5.855420e-02, -0.2711 - lzs * (0.5756 + 0.0838 * lzs));
    for (int i = 0; i < 4; i++)                 /* R_hook */
        a[90 + i] = zpoly(&xr[104 + 4 * i], 4, lzs);
    a[94] = fmin(1.25, fmax(1.1, 1.9848 + lzs * (1.1386 + 0.3564 * lzs)));
    a[95] = 0.063 + lzs * (0.0481 + 0.00984 * lzs);
    a[96] = fmin(1.3, fmax(0.45, 1.2 + 2.45 * lzs));
    a[97] = z > 0.0009 ? 10.0 : 20.0;           /* L_eta cap */
}

/* L_BGB, L_BAGB, R_GB, R_AGB, Mc fits: gbp[1..37]. */
static void set_giants(sse_consts *c, double z, double lzs, double lz)
{
    double *b = c->gbp;
    const double *zp = c->zpars;
    for (int i = 0; i < 4; i++)                 /* L_BGB */
        b[1 + i] = zpoly(&xg[1 + 4 * i], 4, lzs);
    b[5] = zpoly(&xg[17], 3, lzs);
    b[6] = zpoly(&xg[20], 3, lzs);
    b[3] = pow(b[3], b[6]);
    b[7] = xg[23];
    b[8] = xg[24];
    b[9] = zpoly(&xg[25], 3, lzs);              /* L_BAGB */
    b[10] = zpoly(&xg[28], 3, lzs);
    b[11] = 15.0;
    b[12] = zpoly(&xg[31], 4, lzs);
    b[13] = zpoly(&xg[35], 4, lzs);
    b[14] = zpoly(&xg[39], 4, lzs);
    b[15] = zpoly(&xg[43], 2, lzs);
    b[12] = pow(b[12], b[15]);
    b[14] = pow(b[14], b[15]);
    b[16] = 1.0;                                /* set below for continuity */
    b[17] = pow(10.0, -4.6739 - 0.9394 * lz);   /* R_GB */
    b[17] = fmax(b[17], -0.04167 + 55.67 * z);
    b[17] = fmin(b[17], 0.4771 - 9329.21 * pow(z, 2.94));
    b[18] = fmin(0.54, 0.397 + lzs * (0.28826 + 0.5293 * lzs));
    b[19] = pow(10.0, fmax(-0.1451, -2.2794 - lz * (1.5175 + 0.254 * lz)));
    if (z > 0.004)
        b[19] = fmax(b[19], 0.7307 + 14265.1 * pow(z, 3.395));
    b[20] = zpoly(&xg[45], 6, lzs);
    b[21] = zpoly(&xg[51], 5, lzs);
    b[22] = zpoly(&xg[56], 6, lzs);
    b[23] = zpoly(&xg[62], 5, lzs);
    b[24] = fmin(0.99164 - 743.123 * pow(z, 2.83), 1.0422 + lzs * (0.13156 + 0.045 * lzs));
    b[25] = zpoly(&xg[67], 6, lzs);             /* R_AGB */
    b[26] = zpoly(&xg[73], 5, lzs);
    b[27] = zpoly(&xg[78], 6, lzs);
    b[28] = zpoly(&xg[84], 5, lzs);
    b[29] = zpoly(&xg[89], 6, lzs);
    b[30] = zpoly(&xg[95], 6, lzs);
    b[31] = b[29] + b[30] * (zp[2] - 0.2);
    b[32] = fmin(b[25] / pow(zp[2], b[26]), b[27] / pow(zp[2], b[28]));
    b[33] = sse_ipow(xg[101], 4);                  /* Mc(HeI) */
    b[34] = xg[102] * 4.0;
    b[35] = sse_ipow(zpoly(&xg[103], 4, lzs), 4);  /* Mc(BAGB) */
    b[36] = zpoly(&xg[107], 4, lzs) * 4.0;
    b[37] = sse_ipow(zpoly(&xg[111], 2, lzs), 4);
}

/* L_HeI, L_He, R_min, t_He, t_bl, L_ZAHB, R_ZAHB: gbp[38..77]. */
static void set_heburn(sse_consts *c, double z, double lzs)
{
    double *b = c->gbp;
    const double *zp = c->zpars;
    const double lzd = lzs + 1.0;
    b[38] = zpoly(&xh[1], 2, lzs);              /* L_HeI */
    b[39] = zpoly(&xh[3], 2, lzs);
    b[40] = xh[5];
    b[41] = -1.0;                               /* set below for continuity */
    b[42] = sse_ipow(zpoly(&xh[6], 3, lzs), 2);
    b[43] = zpoly(&xh[9], 3, lzs);
    b[44] = sse_ipow(zpoly(&xh[12], 3, lzs), 2);
    b[45] = zpoly(&xh[15], 3, lzs);             /* L_He */
    b[46] = lzs > -1.0 ? 1.0 - xh[19] * pow(lzs + 1.0, xh[18]) : 1.0;
    b[47] = zpoly(&xh[20], 3, lzs);
    b[48] = zpoly(&xh[23], 3, lzs);
    b[45] = pow(b[45], b[48]);
    b[47] = pow(b[47], b[48]);
    b[46] = b[46] / pow(zp[3], 0.1) + (b[46] * b[47] - b[45]) / pow(zp[3], b[48] + 0.1);
    b[49] = zpoly(&xh[26], 4, lzs);             /* R_min */
    b[50] = zpoly(&xh[30], 4, lzs);
    b[51] = zpoly(&xh[34], 4, lzs);
    b[52] = 5.0 + xh[38] * pow(z, xh[39]);
    b[53] = zpoly(&xh[40], 4, lzs);
    b[49] = pow(b[49], b[53]);
    b[51] = pow(b[51], 2.0 * b[53]);
    b[54] = zpoly(&xh[44], 4, lzs);             /* t_He */
    b[55] = fmax(zpoly(&xh[48], 3, lzs), 1.0);
    b[56] = xh[51];
    b[57] = -1.0;                               /* set below for continuity */
    b[58] = zpoly(&xh[52], 4, lzs);
    b[59] = zpoly(&xh[56], 4, lzs);
    b[60] = zpoly(&xh[60], 4, lzs);
    b[61] = zpoly(&xh[64], 2, lzs);
    b[58] = pow(b[58], b[61]);
    b[60] = sse_ipow(b[60], 5);
    const double mr = zp[2] / zp[3];            /* t_bl */
    b[62] = -(xh[66] + lzs * xh[67]) * log10(mr);
    b[63] = xh[68];
    b[64] = lzd > 0.0 ? 1.0 - lzd * (xh[69] + lzd * (xh[70] + lzd * xh[71])) : 1.0;
    b[65] = 1.0 - b[64] * pow(mr, b[63]);
    b[66] = 1.0 - lzd * (xh[77] + lzd * (xh[78] + lzd * xh[79]));
    b[67] = zpoly(&xh[72], 4, lzs);
    b[68] = xh[76];
    b[69] = zpoly(&xh[80], 3, lzs);             /* L_ZAHB */
    b[70] = zpoly(&xh[83], 3, lzs);
    b[71] = 15.0;
    b[72] = xh[86];
    b[73] = xh[87];
    b[75] = zpoly(&xh[88], 4, lzs);             /* R_ZAHB */
    b[76] = zpoly(&xh[92], 4, lzs);
    b[77] = zpoly(&xh[96], 4, lzs);
}

/* The constants that make the low- and intermediate-mass branches of
 * L_BAGB, L_HeI, t_He, t_bl and L_ZAHB continuous at MHeF and MFGB: each
 * is fixed by evaluating the fit itself at the boundary (HPT00 notes
 * under eqs 49, 57, 58). */
static void set_continuity(sse_consts *c)
{
    double *b = c->gbp;
    const double *zp = c->zpars;
    b[16] = sse_lbagb(c, zp[2], 0.0);
    const double lhefl = sse_lhei(c, zp[2], 0.0);
    b[41] = (b[38] * pow(zp[2], b[39]) - lhefl) / (exp(zp[2] * b[40]) * lhefl);
    const double thefl = sse_the(c, zp[2], 0.0, 0.0) * sse_tbgb(c, zp[2]);
    b[57] = (thefl - b[54]) / (b[54] * exp(b[56] * zp[2]));
    const double rb = sse_ragb(c, zp[3], sse_lhei(c, zp[3], zp[2]), 0.0);
    const double rr = fmax(1.0 - sse_rmin(c, zp[3]) / rb, 1.0e-12);
    b[66] = b[66] / (pow(zp[3], b[67]) * pow(rr, b[68]));
    b[74] = lhefl * sse_lhe(c, zp[2]);
}

void sse_zcnsts(sse_consts *c, double zin)
{
    const double z = sse_clamp_z(zin, 0);
    const double lzs = log10(z / 0.02);
    const double lz = log10(z);
    for (int i = 0; i < 201; i++)
        c->msp[i] = c->gbp[i] = 0.0;
    for (int i = 0; i < 21; i++)
        c->zpars[i] = 0.0;
    c->z = z;
    set_zpars(c, z, lzs);
    set_ms_lum(c, z, lzs);
    set_ms_rad(c, z, lzs, lz);
    set_giants(c, z, lzs, lz);
    set_heburn(c, z, lzs);
    set_continuity(c);
    /* The core masses at the BGB and at He ignition of a star of mass MHeF
     * anchor Mc(HeI) for heavier stars (eq 44). */
    sse_tscales ts;
    double *zp = c->zpars;
    sse_tscales_of(c, SSE_LMMS, zp[2], zp[2], &ts);
    zp[9] = sse_mc_of_l(ts.l[3], ts.gb, ts.l[6]);
    zp[10] = sse_mc_of_l(ts.l[4], ts.gb, ts.l[6]);
    zp[11] = 0.76 - 3.0 * z;                    /* X */
    zp[12] = 0.24 + 2.0 * z;                    /* Y */
    zp[13] = sse_rmin(c, zp[2]) / sse_rgb(c, zp[2], sse_lzahb(c, zp[2], zp[9], zp[2]));
    zp[14] = pow(z, 0.4);                       /* WD luminosity factor */
}
