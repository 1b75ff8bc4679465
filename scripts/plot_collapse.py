#!/usr/bin/env python3
"""plot_collapse.py RUN [RUN ...] [-o collapse.png] - a run through core
collapse from RUN/log.txt: the core radius and the 1, 10, 50 and 90 % Lagrangian
radii, the hard binaries and their binding energy EBIN (with the chain's
internal energy when a chain is active), and each check's energy error |dE|
against time.  Several runs are drawn in one picture, one colour each."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbody6c_io as nio  # noqa: E402

nio.require('plot_collapse.py')
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(' - ', 1)[1])
    ap.add_argument('runs', nargs='+', help='run folders (each holds log.txt) or log.txt files')
    ap.add_argument('-o', '--out', default='collapse.png', help='output picture (png, pdf, svg)')
    ap.add_argument('--labels', default=None, help='comma-separated names of the runs')
    a = ap.parse_args()
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    labels = a.labels.split(',') if a.labels else [os.path.basename(os.path.normpath(r)) for r in a.runs]
    fig, ax = plt.subplots(4, 1, figsize=(7.5, 10), sharex=True)
    tiny = 1e-17  # a zero error would vanish from a log axis
    for k, run in enumerate(a.runs):
        log = nio.read_log(os.path.join(run, 'log.txt') if os.path.isdir(run) else run)
        c = 'C%d' % k
        lab = labels[k] if k < len(labels) else run
        t = log['t']
        ax[0].semilogy(t, log['rc'], '-', color=c, lw=1.5, label=lab + ' r_c')
        for col, ls in (('r1%', ':'), ('r10%', '--'), ('rh', '-.'), ('r90%', '-')):
            ax[0].semilogy(t, log[col], ls, color=c, lw=0.8)
        ax[1].plot(t, log['n_hard'], '-', color=c, label=lab)
        eb = log['ebin']
        if 'e_chain' in log:
            eb = eb + np.nan_to_num(log['e_chain'])
        ax[2].plot(t, eb, '-', color=c, label=lab)
        ax[3].semilogy(t[1:], np.abs(log['dE'][1:]) + tiny, '.-', color=c, ms=3, lw=0.5, label=lab)
    ax[0].set_ylabel('radius (N-body)')
    ax[0].set_title('r_c (thick), Lagrangian radii 1 % (dotted), 10, 50, 90 %')
    ax[0].legend(fontsize=7)
    ax[1].set_ylabel('hard binaries')
    ax[2].set_ylabel('EBIN (+ chain)')
    ax[3].set_ylabel('|dE| per check')
    ax[3].axhline(1e-4, color='grey', lw=0.5)
    ax[3].set_xlabel('time (N-body units)')
    ax[3].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(a.out)


if __name__ == '__main__':
    main()
