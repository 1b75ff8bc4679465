#!/usr/bin/env python3
"""plot_summary.py RUN [-o summary.png] - one picture of a run from
RUN/log.txt: the core, half-mass and Lagrangian radii; the stars N, total
and bound mass over their starting values; the binaries; and the energy
error of every check against the run's QE (from the log's header) and the
5 QE at which NBODY6's check.f halts.  Time in N-body units below and in
Myr above."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbody6c_io as nio  # noqa: E402

nio.require('plot_summary.py', modules=('numpy', 'matplotlib'))
import numpy as np  # noqa: E402


def myr_per_unit(log):
    """T* from the t_myr column (None for a log without it)."""
    if 't_myr' not in log:
        return None
    t, tm = log['t'], log['t_myr']
    ok = (t > 0) & np.isfinite(tm)
    return float(tm[ok][0] / t[ok][0]) if ok.any() else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(' - ', 1)[1].split('\n\n')[0])
    ap.add_argument('run', help='run folder (holds log.txt) or a log.txt')
    ap.add_argument('-o', '--out', default='summary.png', help='output picture (png, pdf, svg)')
    a = ap.parse_args()
    path = os.path.join(a.run, 'log.txt') if os.path.isdir(a.run) else a.run
    if not os.path.exists(path):
        sys.exit('plot_summary.py: no %s' % path)
    log = nio.read_log(path)
    qe = nio.header_value(path, r'\bQE ([-0-9.eE+]+)')
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    t = log['t']
    fig, ax = plt.subplots(2, 2, figsize=(11, 7.5), sharex=True)
    r = ax[0, 0]
    r.semilogy(t, log['rc'], 'k-', lw=1.5, label='core radius')
    for col, ls in (('r1%', ':'), ('r10%', '--'), ('rh', '-'), ('r90%', '-.')):
        if col in log:
            r.semilogy(t, log[col], ls, label='half-mass radius' if col == 'rh' else col.replace('r', 'r ', 1))
    r.set_ylabel('radius (N-body)')
    r.set_title('Radii')
    r.legend(fontsize=7)

    m = ax[0, 1]
    if 'N' in log:
        m.plot(t, log['N'] / log['N'][0], 'k-', label='N / N(0) = %d' % log['N'][0])
    if 'M' in log:
        m.plot(t, log['M'] / log['M'][0], 'b-', label='total mass')
    if 'M_b' in log:
        m.plot(t, log['M_b'] / log['M'][0], 'r--', label='bound mass')
    m.set_ylim(0, 1.05)
    m.set_ylabel('fraction of the start')
    m.set_title('Stars and mass')
    m.legend(fontsize=7)

    b = ax[1, 0]
    for col, lab in (('n_bin', 'bound pairs'), ('n_bin_hard', 'hard pairs'), ('n_hard', 'hard KS pairs')):
        if col in log:
            b.plot(t, log[col], '-', label=lab)
    b.set_ylabel('binaries')
    b.set_title('Binaries')
    b.legend(fontsize=7)

    e = ax[1, 1]
    tiny = 1e-17  # a zero error would vanish from a log axis
    e.semilogy(t[1:], np.abs(log['dE'][1:]) + tiny, '.', ms=4, label='|dE| per check')
    e.semilogy(t[1:], np.abs(log['dE_cum'][1:]) + tiny, '-', lw=0.8, label='|E - E0| / max(T, |E|)')
    if qe:
        e.axhline(qe, color='orange', ls='--', lw=1, label='QE = %g' % qe)
        e.axhline(5 * qe, color='red', ls=':', lw=1, label='5 QE (halt)')
    e.set_ylabel('relative energy error')
    e.set_title('Energy')
    e.legend(fontsize=7)

    tstar = myr_per_unit(log)
    for k in (0, 1):
        ax[1, k].set_xlabel('time (N-body units)')
        if tstar:
            top = ax[0, k].secondary_xaxis('top', functions=(lambda x: x * tstar, lambda x: x / tstar))
            top.set_xlabel('time (Myr)')
    fig.suptitle(os.path.basename(os.path.normpath(os.path.dirname(os.path.abspath(path)))))
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(a.out)


if __name__ == '__main__':
    main()
