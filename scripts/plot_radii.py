#!/usr/bin/env python3
"""plot_radii.py RUN [-o radii.png] [--myr] - Lagrangian radii (1, 10, 50,
90 % of the mass, about the density centre) and the core radius against
time, from RUN/log.txt of an nbody6c run."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbody6c_io as nio  # noqa: E402

nio.require('plot_radii.py')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(' - ', 1)[1])
    ap.add_argument('run', help='run folder (holds log.txt) or a log.txt')
    ap.add_argument('-o', '--out', default='radii.png', help='output picture (png, pdf, svg)')
    ap.add_argument('--myr', action='store_true', help='time in Myr (T* from the run\'s snapshots)')
    a = ap.parse_args()
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    folder = a.run if os.path.isdir(a.run) else os.path.dirname(a.run) or '.'
    log = nio.read_log(os.path.join(a.run, 'log.txt') if os.path.isdir(a.run) else a.run)
    t, unit = log['t'], 'N-body units'
    if a.myr:
        tstar = nio.time_unit_myr(folder)
        if tstar is None:
            sys.exit('plot_radii.py: --myr needs a snapshot in %s for T*' % folder)
        t, unit = t * tstar, 'Myr'
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(t, log['r90%'], label='90 %')
    ax.plot(t, log['rh'], label='50 % (half-mass)')
    for col, lab in (('r10%', '10 %'), ('r1%', '1 %')):
        ax.plot(t, log[col], label=lab)
    ax.plot(t, log['rc'], 'k--', label='core radius')
    ax.set_yscale('log')
    ax.set_xlabel('time (%s)' % unit)
    ax.set_ylabel('radius (N-body length)')
    ax.set_title('Lagrangian radii and core radius')
    ax.legend(fontsize=8, loc='best')
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(a.out)


if __name__ == '__main__':
    main()
