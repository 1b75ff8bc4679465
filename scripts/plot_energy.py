#!/usr/bin/env python3
"""plot_energy.py RUN [-o energy.png] - the relative energy error (E - E0)/max(T, |E|)
and the error of each check interval against time, from RUN/log.txt."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbody6c_io as nio  # noqa: E402

nio.require('plot_energy.py')
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(' - ', 1)[1])
    ap.add_argument('run', help='run folder (holds log.txt) or a log.txt')
    ap.add_argument('-o', '--out', default='energy.png', help='output picture (png, pdf, svg)')
    a = ap.parse_args()
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    log = nio.read_log(os.path.join(a.run, 'log.txt') if os.path.isdir(a.run) else a.run)
    t = log['t'][1:]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    tiny = 1e-17  # a zero error would vanish from a log axis
    ax.semilogy(t, np.abs(log['dE_cum'][1:]) + tiny, 'o-', ms=3, label='|E - E0| / max(T, |E|)')
    ax.semilogy(t, np.abs(log['dE'][1:]) + tiny, '.', label='|dE| per check (NBODY6 DE)')
    qe = nio.header_value(os.path.join(a.run, 'log.txt') if os.path.isdir(a.run) else a.run,
                          r'\bQE ([-0-9.eE+]+)')
    if qe:  # the run's own tolerance (the log's header)
        ax.axhline(qe, color='orange', ls='--', lw=1, label='QE = %g' % qe)
    ax.set_xlabel('time (N-body units)')
    ax.set_ylabel('relative energy error')
    ax.set_title('Energy conservation')
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(a.out)


if __name__ == '__main__':
    main()
