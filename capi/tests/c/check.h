/* CHECK(cond, fmt, ...): the C tests' assertion. On failure it prints the file, line, condition, the message
 * and the calling thread's lj_last_error(), and exits 1. */
#ifndef LANEJIT_TEST_CHECK_H
#define LANEJIT_TEST_CHECK_H
#include "lanejit.h"
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, " (last error: %s)\n", lj_last_error());       \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

#endif
