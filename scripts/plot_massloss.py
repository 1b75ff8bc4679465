#!/usr/bin/env python3
"""plot_massloss.py RUN [-o massloss.png] [--tdiss-myr T] - the bound mass of
a cluster against time: in a tidal field from the HDF5 snapshots of an
nbody6c run, beside Baumgardt & Makino's (2003) dissolution time.

Bound mass: the mass within the Jacobi radius r_J = (M_b / TIDAL(1))^(1/3)
of the density centre (NBODY6's RTIDE for KZ(14) = 1, with M_b the bound mass
itself: iterated to a fixed point), in units of the initial total mass.
TIDAL(1), the Oort constants and T* come from the run's log.txt header and
snapshots.  Baumgardt & Makino (2003, MNRAS 340, 227), their eq. (7) with
x = 0.75, beta = 1.91 Myr and gamma = 0.02 for King W0 = 5 clusters on
circular orbits, R_G / V_G = 1 / (A - B) from the run's Oort constants:
    t_diss = beta (N / ln(gamma N))^x (R_G / kpc) (V_G / 220 km/s)^-1
with N the initial number of stars; the picture draws the straight line
from 1 at t = 0 to 0 at t_diss beside the run (their bound masses fall about
linearly in time).  --tdiss-myr gives t_diss instead (e.g. for KZ(14) = 2).
Prints one line per snapshot: t, t in Myr, stars, bound stars, M_b / M0.

An isolated run (no TIDAL(1) in the log) has no Jacobi radius: its bound
mass is log.txt's M_b column (the bodies bound in the cluster's potential,
README), drawn without a dissolution line; one line per check: t, t in Myr,
stars, M_b / M0."""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbody6c_io as nio  # noqa: E402

nio.require('plot_massloss.py')
import numpy as np  # noqa: E402


def bound_mass(x, m, centre, tidal1):
    """Mass and count within r_J = (M_b / tidal1)^(1/3) of centre, iterated
    from the total mass down to its fixed point."""
    r = np.sqrt(((x - centre) ** 2).sum(axis=1))
    order = np.argsort(r)
    r, ms = r[order], m[order]
    cum = np.cumsum(ms)
    mb = cum[-1]
    for _ in range(200):
        rj = (mb / tidal1) ** (1.0 / 3.0)
        k = np.searchsorted(r, rj, side='right')
        new = cum[k - 1] if k > 0 else 0.0
        if new == mb:
            break
        mb = new
    return mb, int(np.searchsorted(r, (mb / tidal1) ** (1.0 / 3.0), side='right'))


def bm03_tdiss_myr(nstars, oort_a, oort_b):
    """Baumgardt & Makino (2003) eq. (7), x = 0.75, beta = 1.91 Myr."""
    return 1.91 * (nstars / math.log(0.02 * nstars)) ** 0.75 * 220.0 / (oort_a - oort_b)


def isolated(a, log_path):
    """The bound mass of an isolated run, from log.txt's M_b column."""
    log = nio.read_log(log_path)
    if 'M_b' not in log:
        sys.exit('plot_massloss.py: %s has no TIDAL(1) (not a KZ(14) run) and no M_b column '
                 '(a log of an older version): nothing to draw' % log_path)
    t = log['t_myr'] if 't_myr' in log else log['t']
    frac = log['M_b'] / log['M'][0]
    for k in range(len(t)):
        print('%10.3f %10.2f %6d %8.5f' % (log['t'][k], t[k], log['N'][k], frac[k]))
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(t, frac, 'b-', label='nbody6c: bound mass (isolated cluster)')
    ax.plot(t, log['M'] / log['M'][0], 'k:', label='total mass')
    ax.set_ylim(0, 1.05)
    ax.set_xlabel('time (Myr)' if 't_myr' in log else 'time (N-body units)')
    ax.set_ylabel('bound mass / initial mass')
    ax.legend(fontsize=8, loc='lower left')
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(a.out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(' - ', 1)[1].split('\n\n')[0])
    ap.add_argument('run', help='run folder (holds log.txt and snap.*.h5)')
    ap.add_argument('-o', '--out', default='massloss.png', help='output picture (png, pdf, svg)')
    ap.add_argument('--tdiss-myr', type=float, default=None,
                    help='dissolution time to draw (default: Baumgardt & Makino 2003 from the run)')
    a = ap.parse_args()
    log_path = os.path.join(a.run, 'log.txt')
    if not os.path.exists(log_path):
        sys.exit('plot_massloss.py: no %s' % log_path)
    tidal1 = nio.header_value(log_path, r'TIDAL\(1\) ([-0-9.eE+]+)')
    if tidal1 is None or tidal1 <= 0:
        return isolated(a, log_path)
    files = nio.snapshot_files(a.run)
    if not files:
        sys.exit('plot_massloss.py: no snapshots (snap.*.h5) in %s' % a.run)
    rows = []
    nstars0 = None
    for p in files:
        s = nio.read_snapshot(p)
        if nstars0 is None:
            nstars0 = len(s['m'])
        mb, nb = bound_mass(s['x'], s['m'], np.asarray(s['RDENS'], dtype=float), tidal1)
        rows.append((s['time'], s['time_myr'], len(s['m']), nb, mb))
        print('%10.3f %10.2f %6d %6d %8.5f' % rows[-1])
    rows = np.array(rows)
    tdiss = a.tdiss_myr
    label = 'linear decline to t_diss = %.0f Myr (given)' % (tdiss or 0)
    if tdiss is None:
        oa = nio.header_value(log_path, r'Oort A = ([-0-9.eE+]+)')
        ob = nio.header_value(log_path, r'B = ([-0-9.eE+]+) km/s/kpc')
        if oa is None or ob is None:
            sys.exit('plot_massloss.py: no Oort constants in %s: give --tdiss-myr' % log_path)
        tdiss = bm03_tdiss_myr(nstars0, oa, ob)
        label = 'Baumgardt & Makino (2003): t_diss = %.0f Myr for N = %d' % (tdiss, nstars0)
    print('# t_diss %.1f Myr' % tdiss)
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(rows[:, 1], rows[:, 4], 'b-', label='nbody6c: mass within r_J')
    tl = np.array([0.0, tdiss])
    ax.plot(tl, 1.0 - tl / tdiss, 'k--', label=label)
    ax.set_xlim(0, max(tdiss, rows[-1, 1]) * 1.05)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel('time (Myr)')
    ax.set_ylabel('bound mass / initial mass')
    ax.legend(fontsize=8, loc='upper right')
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(a.out)


if __name__ == '__main__':
    main()
