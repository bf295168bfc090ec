/* Small timing and random-number helpers shared by the benchmarks (header-only, static). */
#ifndef MB_BENCH_UTIL_H
#define MB_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Uniform in [0, 1): xorshift64 on a state each benchmark seeds itself. */
static inline double bench_urand(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (double)(*state >> 11) / 9007199254740992.0;
}

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the calling thread (user + system, so page faults count): with other
 * processes on the same cores it excludes the time the thread was descheduled, which
 * makes it far steadier than wall time on a shared machine. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n <= 64 values (the input is not changed). */
static inline double bench_median(const double *v, int n)
{
    double tmp[64];
    if (n > 64)
        n = 64;
    memcpy(tmp, v, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, bench_cmp_double_);
    return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

static inline double bench_min(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; ++i)
        if (v[i] < m)
            m = v[i];
    return m;
}

/* The first line of /proc/loadavg ("unknown" elsewhere). */
static inline void bench_loadavg(char *out, size_t n)
{
    FILE *f = fopen("/proc/loadavg", "r");
    out[0] = '\0';
    if (f) {
        if (fgets(out, (int)n, f)) {
            char *nl = strchr(out, '\n');
            if (nl)
                *nl = '\0';
        }
        fclose(f);
    }
    if (!out[0])
        snprintf(out, n, "unknown");
}

#endif
