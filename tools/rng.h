/*
 * The runner's random numbers: splitmix64, so that a seed gives the same
 * access sequence on every machine and with every policy.
 */
#ifndef UVAS_EXP_RNG_H
#define UVAS_EXP_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (the modulo bias is below 2^-40 for our n). */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
    return rng_next(s) % n;
}

/* A seed per workload: the run seed mixed with the workload's name. */
static inline uint64_t rng_seed_for(uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
    uint64_t s = seed ^ h;
    return rng_next(&s);
}

#endif
