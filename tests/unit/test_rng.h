/* SPDX-License-Identifier: Apache-2.0 */
/* The unit tests' pseudo-random numbers: xorshift64* from a seed each test file fixes,
 * so a failure reproduces. */
#ifndef VIGIL_TESTS_UNIT_TEST_RNG_H
#define VIGIL_TESTS_UNIT_TEST_RNG_H

#include <stdint.h>

/* The next number of the stream whose state is *state (never 0). */
static inline uint64_t test_rng_next(uint64_t *state)
{
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        return *state * 0x2545f4914f6cdd1dULL;
}

#endif
