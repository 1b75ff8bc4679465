/* runctl.c — signals and the STOP file for clean stops.
 *
 * The one piece of global mutable state in the program lives here: the flag
 * a signal handler sets.  A handler cannot reach the run's structs, and
 * sig_atomic_t is all it may safely write. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "app/runctl.h"

static volatile sig_atomic_t caught_signal;

const char *runctl_reason_name(stop_reason r)
{
    switch (r) {
    case STOP_TCRIT: return "tcrit";
    case STOP_SIGTERM: return "sigterm";
    case STOP_SIGINT: return "sigint";
    case STOP_TCOMP: return "tcomp";
    case STOP_FILE: return "stop-file";
    case STOP_NCRIT: return "ncrit";
    case STOP_ENERGY: return "energy-error";
    default: return "";
    }
}

static void on_signal(int sig) { caught_signal = sig; }

void runctl_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

stop_reason runctl_signal_stop(void)
{
    int s = caught_signal;
    return s == SIGTERM ? STOP_SIGTERM : s == SIGINT ? STOP_SIGINT : STOP_NONE;
}

int runctl_stop_file(const char *dir, char *path, int pathlen)
{
    struct stat st;
    snprintf(path, (size_t)pathlen, "%s/STOP", dir);
    return stat(path, &st) == 0;
}
