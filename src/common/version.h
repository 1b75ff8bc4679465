/* version.h — the program's version string. */
#ifndef NBODY6C_VERSION_H
#define NBODY6C_VERSION_H
#define NBODY6C_VERSION "0.1.0"
#endif
