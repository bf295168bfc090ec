/* bench_bvh_read: throughput, accuracy and peak memory of the BVH reader on a large
 * generated text (about 150 MB, 60 joints, ~90,000 frames by default).
 *
 * Measures, in one process and on the same bytes:
 *   - a plain strtod loop over the motion section (the baseline the reader must beat 3x),
 *   - an mb_parse_float_ loop over the motion section (number parsing alone),
 *   - mb_bvh_read_mem on the whole text (best and median of --runs runs),
 *   - the reader's peak heap (a counting mb_allocator) against text + 1.5 x tracks,
 *   - mb_parse_float_ against strtof: every motion value, random decimal strings, edge cases.
 * Speed is reported, never asserted: the exit status is non-zero only when a value is not
 * the float strtof gives (0 ulp; or an edge case is classified wrongly) or the reader fails. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "bvh_gen.h"
#include "offline/io/bvh_read_internal.h"
#include "offline/io/number_internal.h"
#include "mblend/offline/bvh.h"

/* ---------- small helpers ---------- */

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* ---------- counting allocator ---------- */

typedef struct counting {
    size_t cur, peak;
    long calls;
} counting;

#define HDR 16u /* keeps malloc's 16-byte alignment */

static void *count_alloc(size_t n, void *user)
{
    counting *c = user;
    unsigned char *p = malloc(n + HDR);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    c->cur += n;
    if (c->cur > c->peak)
        c->peak = c->cur;
    ++c->calls;
    return p + HDR;
}

static void count_free(void *ptr, void *user)
{
    counting *c = user;
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HDR;
    size_t n;
    memcpy(&n, p, sizeof n);
    c->cur -= n;
    free(p);
}

/* ---------- pooling allocator ---------- */

/* A bump allocator over one block kept across reads (what a caller loading many files can
 * pass): from the second read on, the tracks land in pages already mapped, so the read
 * runs without the first-touch page faults the counting allocator's fresh malloc pays. */
typedef struct pool {
    unsigned char *base;
    size_t cap, used;
} pool;

static void *pool_alloc(size_t n, void *user)
{
    pool *pl = user;
    size_t at = (pl->used + 63u) & ~(size_t)63u;
    if (at + n > pl->cap)
        return NULL;
    pl->used = at + n;
    return pl->base + at;
}

static void pool_free(void *ptr, void *user)
{
    (void)ptr;
    (void)user; /* the pool is reset between reads */
}

/* ---------- ulp comparison ---------- */

/* An out-of-range or nan/inf result. Spelled this way so the check holds whether the
 * parser reports overflow as MB_NUM_NONFINITE or through a separate range code. */
static int nonfinite_result(mb_num_result r)
{
    return r != MB_NUM_OK && r != MB_NUM_SYNTAX && r != MB_NUM_TOO_LONG;
}

static int64_t ordered(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

typedef struct hist {
    long long n, ulp0, ulp1, big, both_nonfinite, status_bad;
    int64_t max_ulp;
    char first_bad[160]; /* a 40-byte token excerpt and a why[96] message */
} hist;

static void note_bad(hist *h, const char *tok, size_t n, const char *why)
{
    if (h->first_bad[0])
        return;
    if (n > 40)
        n = 40;
    snprintf(h->first_bad, sizeof h->first_bad, "'%.*s': %s", (int)n, tok, why);
}

/* Parses [p, p+n) with mb_parse_float_ and with strtof, and files the distance. */
/* The parser under test: the library's mb_parse_float_, or its inline fast path when the
 * header offers one (MB_HAVE_PARSE_FLOAT_FAST_), which reads ahead and so gets a longer
 * end (the text itself, or space padding). */
typedef mb_num_result (*parse_fn)(const char *, const char *, float *, const char **);

static mb_num_result parse_lib(const char *p, const char *end, float *out, const char **next)
{
    return mb_parse_float_(p, end, out, next);
}

#ifdef MB_HAVE_PARSE_FLOAT_FAST_
static mb_num_result parse_fast(const char *p, const char *end, float *out, const char **next)
{
    return mb_parse_float_fast_(p, end, out, next);
}
#endif

/* Parses the token [p, p+n) (readable up to pend) with fn and with strtof, and files the
 * distance. */
static void compare_token(hist *h, parse_fn fn, const char *p, size_t n, const char *pend)
{
    char buf[MB_NUM_MAX_TOKEN + 8];
    ++h->n;
    if (n > MB_NUM_MAX_TOKEN) {
        ++h->status_bad;
        note_bad(h, p, n, "token too long for the test");
        return;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    char *send;
    errno = 0;
    float ref = strtof(buf, &send);
    float got = 0.0f;
    const char *next = NULL;
    mb_num_result r = fn(p, pend, &got, &next);
    if (send != buf + n) {
        ++h->status_bad;
        note_bad(h, p, n, "strtof does not consume the token");
        return;
    }
    if (nonfinite_result(r)) {
        if (isinf(ref)) {
            ++h->both_nonfinite;
            return;
        }
        got = ref < 0 ? -INFINITY : INFINITY; /* measure how far from FLT_MAX it was */
    } else if (r != MB_NUM_OK || next != p + n) {
        ++h->status_bad;
        note_bad(h, p, n, r == MB_NUM_OK ? "mb_parse_float_ stops early" : "rejected");
        return;
    }
    int64_t d = ordered(ref) - ordered(got);
    if (d < 0)
        d = -d;
    if (d > h->max_ulp)
        h->max_ulp = d;
    if (d == 0)
        ++h->ulp0;
    else if (d == 1)
        ++h->ulp1;
    else {
        ++h->big;
        char why[96]; /* room for the longest %lld and %.9g forms */
        snprintf(why, sizeof why, "%lld ulp (strtof %.9g, got %.9g)", (long long)d, ref, got);
        note_bad(h, p, n, why);
    }
}

/* The contract is 0 ulp (correctly rounded, as strtof): one ulp off already fails. */
static int hist_failed(const hist *h) { return h->ulp1 > 0 || h->big > 0 || h->status_bad > 0; }

static void print_hist(const char *what, const hist *h)
{
    printf("  %-26s %12lld %12lld %10lld %8lld %8lld %8lld %6lld  %s\n", what, h->n, h->ulp0,
           h->ulp1, h->big, h->both_nonfinite, h->status_bad, (long long)h->max_ulp,
           hist_failed(h) ? "FAIL" : "ok");
    if (h->first_bad[0])
        printf("    first problem: %s\n", h->first_bad);
}

/* ---------- edge cases ---------- */

enum { E_VALUE, E_NONFINITE, E_SYNTAX, E_TOO_LONG };

typedef struct edge {
    const char *s;
    int expect;
    int extra;     /* 1: must be -0.0; 2: must be subnormal; 3: must equal FLT_MAX */
    int consumed;  /* bytes the number must span (0: the whole token) */
} edge;

static const edge edges[] = {
    {".5", E_VALUE, 0, 0},
    {"5.", E_VALUE, 0, 0},
    {"-0", E_VALUE, 1, 0},
    {"-0.0000", E_VALUE, 1, 0},
    {"-.5", E_VALUE, 0, 0},
    {"+.5", E_VALUE, 0, 0},
    {"0.", E_VALUE, 0, 0},
    {"0e0", E_VALUE, 0, 0},
    {"1e-40", E_VALUE, 2, 0},
    {"1e-45", E_VALUE, 2, 0},
    {"1e-50", E_VALUE, 0, 0},
    {"1.17549435e-38", E_VALUE, 0, 0},
    {"3.4028235e38", E_VALUE, 3, 0},
    {"340282346638528859811704183484516925440", E_VALUE, 3, 0},
    {"1e39", E_NONFINITE, 0, 0},
    {"-1e39", E_NONFINITE, 0, 0},
    {"3.4028236e38", E_NONFINITE, 0, 0},
    {"nan", E_NONFINITE, 0, 0},
    {"-INF", E_NONFINITE, 0, 0},
    {"Infinity", E_NONFINITE, 0, 0},
    {"1.5E+3", E_VALUE, 0, 0},
    {"16777217", E_VALUE, 0, 0},
    {"9007199254740993", E_VALUE, 0, 0},
    {"0.1000000000000000000000000001", E_VALUE, 0, 0},
    {"123456789012345678901234567890e-10", E_VALUE, 0, 0},
    {"0.000000000000000000000000000000000000000000001", E_VALUE, 2, 0},
    {"1e", E_VALUE, 0, 1},
    {"2.5e+", E_VALUE, 0, 3},
    /* long mantissas, many digits */
    {"0.1000000000000000055511151231257827", E_VALUE, 0, 0},
    {"3.14159265358979323846264338327950288", E_VALUE, 0, 0},
    {"18446744073709551616", E_VALUE, 0, 0},
    {"1234567.891", E_VALUE, 0, 0},
    /* exponents near the float limits, subnormals */
    {"3.40282346e38", E_VALUE, 3, 0},
    {"1.1754942e-38", E_VALUE, 2, 0},
    {"1.4e-45", E_VALUE, 2, 0},
    {"7.1e-46", E_VALUE, 2, 0},
    {"1e-22", E_VALUE, 0, 0},
    {"1e23", E_VALUE, 0, 0},
    /* signs and short spellings */
    {"+0", E_VALUE, 0, 0},
    {"+3", E_VALUE, 0, 0},
    {"1.", E_VALUE, 0, 0},
    {"1e5", E_VALUE, 0, 0},
    {"-0.000001", E_VALUE, 0, 0},
    {"+2.500000e+00", E_VALUE, 0, 0},
    {"-9.876543e-05", E_VALUE, 0, 0},
    /* float midpoints (ties to even) and a hair off one */
    {"16777219", E_VALUE, 0, 0},
    {"16777217.000001", E_VALUE, 0, 0},
    /* a float midpoint (or 15 digits of one) where the one double product rounds off it:
     * only the window (mb_num_exact_float_) sends these to strtof */
    {"60092.564453125", E_VALUE, 0, 0},
    {"774381.90625", E_VALUE, 0, 0},
    {"0.428719624876976", E_VALUE, 0, 0},
    {"6.70913290977478", E_VALUE, 0, 0},
    {"1.000000059604644775390625", E_VALUE, 0, 0},
    {"", E_SYNTAX, 0, 0},
    {"-", E_SYNTAX, 0, 0},
    {".", E_SYNTAX, 0, 0},
    {"e5", E_SYNTAX, 0, 0},
    {"abc", E_SYNTAX, 0, 0},
};

static int run_edges(parse_fn fn, int fast, int verbose)
{
    int fails = 0;
    int n = (int)(sizeof edges / sizeof edges[0]);
    for (int i = 0; i < n + 1; ++i) {
        char longtok[MB_NUM_MAX_TOKEN + 16];
        edge e;
        if (i < n) {
            e = edges[i];
        } else { /* a token longer than MB_NUM_MAX_TOKEN must not go to strtof */
            memset(longtok, '1', sizeof longtok - 1);
            longtok[sizeof longtok - 1] = '\0';
            longtok[1] = '.';
            e.s = longtok;
            e.expect = E_TOO_LONG;
            e.extra = 0;
            e.consumed = 0;
        }
        size_t len = strlen(e.s);
        float got = 0.0f;
        const char *next = NULL;
        char padded[MB_NUM_MAX_TOKEN + 64];
        memcpy(padded, e.s, len);
        memset(padded + len, ' ', 48); /* for the fast path, which reads ahead */
        const char *base = fast ? padded : e.s;
        mb_num_result r = fast ? fn(padded, padded + len + 48, &got, &next)
                               : fn(e.s, e.s + len, &got, &next);
        next = next ? e.s + (next - base) : NULL;
        const char *why = NULL;
        char whybuf[96];
        if (e.expect == E_VALUE) {
            size_t want = e.consumed ? (size_t)e.consumed : len;
            char tmp[64];
            snprintf(tmp, sizeof tmp, "%.*s", (int)want, e.s);
            float ref = strtof(tmp, NULL);
            int64_t d = ordered(ref) - ordered(got);
            if (d < 0)
                d = -d;
            if (r != MB_NUM_OK)
                why = "rejected";
            else if (next != e.s + want)
                why = "wrong end of number";
            else if (d > 0) {
                snprintf(whybuf, sizeof whybuf, "%lld ulp from strtof", (long long)d);
                why = whybuf;
            } else if (e.extra == 1 && !(got == 0.0f && signbit(got)))
                why = "not -0.0";
            else if (e.extra == 2 && fpclassify(got) != FP_SUBNORMAL)
                why = "not subnormal";
            else if (e.extra == 3 && got != FLT_MAX)
                why = "not FLT_MAX";
        } else {
            int ok = e.expect == E_NONFINITE ? nonfinite_result(r)
                     : e.expect == E_SYNTAX  ? r == MB_NUM_SYNTAX
                                             : r == MB_NUM_TOO_LONG;
            if (!ok) {
                snprintf(whybuf, sizeof whybuf, "result %d, expected %s", (int)r,
                         e.expect == E_NONFINITE ? "a non-finite/range error"
                         : e.expect == E_SYNTAX  ? "MB_NUM_SYNTAX"
                                                 : "MB_NUM_TOO_LONG");
                why = whybuf;
            }
        }
        if (why)
            ++fails;
        if (why || verbose)
            printf("    edge%s %-44.44s %s%s\n", fast ? " (fast path)" : "", i < n ? e.s : "<401-byte token>", why ? "FAIL: " : "ok",
                   why ? why : "");
    }
    printf("  edge cases%s %*s%d/%d pass\n", fast ? ", fast path" : "", fast ? 5 : 16, "",
           n + 1 - fails, n + 1);
    return fails;
}

/* ---------- timed loops ---------- */

/* The baseline: strtod over the motion section, whitespace skipped by strtod itself. */
static double strtod_loop(const char *p, long long *count, double *sum)
{
    double s = 0.0;
    long long n = 0;
    char *e;
    for (;;) {
        double v = strtod(p, &e);
        if (e == p)
            break;
        s += v;
        ++n;
        p = e;
    }
    *count = n;
    *sum = s;
    return s;
}

/* Number parsing alone: mb_parse_float_ with a trivial whitespace skip. */
static void parse_loop(const char *p, const char *end, long long *count, double *sum)
{
    double s = 0.0;
    long long n = 0;
    for (;;) {
        while (p < end && (unsigned char)*p <= ' ')
            ++p;
        if (p == end)
            break;
        float f;
        const char *q;
        if (mb_parse_float_(p, end, &f, &q) != MB_NUM_OK)
            break;
        s += f;
        ++n;
        p = q;
    }
    *count = n;
    *sum = s;
}

/* ---------- timing table ---------- */

typedef struct timing {
    double wall[64], cpu[64];
} timing;

static void timing_start(timing *t, int r)
{
    t->wall[r] = -bench_now();
    t->cpu[r] = -bench_cpu_now();
}

static void timing_stop(timing *t, int r)
{
    t->cpu[r] += bench_cpu_now();
    t->wall[r] += bench_now();
}

/* Prints one row; returns the best CPU time. */
static double print_timing(const char *what, const timing *t, int runs, double mb)
{
    double best = bench_min(t->cpu, runs), med = bench_median(t->cpu, runs);
    double wbest = bench_min(t->wall, runs);
    printf("  %-32s %8.3f %8.3f %9.1f %9.1f %9.1f\n", what, best, med, mb / best, mb / med,
           mb / wbest);
    return best;
}

/* ---------- main ---------- */

static void usage(void)
{
    printf("usage: bench_bvh_read [--mb N] [--frames N] [--runs N] [--random N] [--seed N]\n"
           "                      [--only reader|strtod|parse|accuracy] [--verbose]\n"
           "  --mb N       text size in MB (1e6 bytes) when --frames is not given (default 150)\n"
           "  --frames N   exact frame count (overrides --mb)\n"
           "  --runs N     timed runs per loop; best and median are printed (default 5)\n"
           "  --random N   random decimal strings for the accuracy check (default 4000000)\n"
           "  --only X     run one part (for perf/callgrind); accuracy still sets the exit code\n");
}

int main(int argc, char **argv)
{
    double mb = 150.0;
    long frames_opt = 0, runs = 5, nrandom = 4000000;
    unsigned long long seed = 0x6d626c656e64ull; /* "mblend" */
    const char *only = NULL;
    int verbose = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--verbose")) {
            verbose = 1;
        } else if (v && !strcmp(a, "--mb")) {
            mb = atof(v), ++i;
        } else if (v && !strcmp(a, "--frames")) {
            frames_opt = atol(v), ++i;
        } else if (v && !strcmp(a, "--runs")) {
            runs = atol(v), ++i;
        } else if (v && !strcmp(a, "--random")) {
            nrandom = atol(v), ++i;
        } else if (v && !strcmp(a, "--seed")) {
            seed = strtoull(v, NULL, 0), ++i;
        } else if (v && !strcmp(a, "--only")) {
            only = v, ++i;
        } else {
            usage();
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    if (runs > 64)
        runs = 64;
    if (!(mb > 0.0) || mb > 4000.0 || frames_opt < 0 || frames_opt > 10000000 || nrandom < 0) {
        usage();
        return 2;
    }
    int do_strtod = !only || !strcmp(only, "strtod");
    int do_parse = !only || !strcmp(only, "parse");
    int do_reader = !only || !strcmp(only, "reader");
    int do_acc = !only || !strcmp(only, "accuracy");

    char load0[128], load1[128];
    bench_loadavg(load0, sizeof load0);
    double t0 = bench_now();
    bench_text bt;
    if (bench_gen(seed, (size_t)(mb * 1e6), (int)frames_opt, &bt) != 0) {
        fprintf(stderr, "bench_bvh_read: out of memory generating the text\n");
        return 3;
    }
    double tgen = bench_now() - t0;
    const char *motion = bt.text + bt.motion_off, *end = bt.text + bt.len;
    double motion_mb = (double)(bt.len - bt.motion_off) / 1e6, text_mb = (double)bt.len / 1e6;

    printf("bench_bvh_read: %.1f MB BVH text (motion %.1f MB), %d joints + %d End Sites = %d nodes,\n"
           "  %d channels/frame, %d frames, %lld values (%.2f bytes/value); generated in %.2f s, "
           "seed 0x%llx\n",
           text_mb, motion_mb, bt.joints, bt.nodes - bt.joints, bt.nodes, bt.channels, bt.frames,
           bt.values, (double)(bt.len - bt.motion_off) / (double)(bt.values ? bt.values : 1), tgen,
           seed);
    printf("  load average before: %s\n\n", load0);

    int failed = 0;
    timing ts, tp, tr;
    double strtod_best = 0, parse_best = 0, reader_best = 0;

    if (do_strtod || do_parse || do_reader) {
        printf("speed (MB = 1e6 bytes; %ld runs each; CPU time of the thread, and wall time)\n",
               runs);
        printf("  %-32s %8s %8s %9s %9s %9s\n", "loop", "best cpu", "med cpu", "MB/s best",
               "MB/s med", "wall best");
    }
    if (do_strtod) {
        long long n = 0;
        double sum = 0;
        for (int r = 0; r < runs; ++r) {
            timing_start(&ts, r);
            strtod_loop(motion, &n, &sum);
            timing_stop(&ts, r);
        }
        strtod_best = print_timing("strtod loop (motion section)", &ts, (int)runs, motion_mb);
        if (n != bt.values) {
            printf("    strtod loop read %lld values, expected %lld\n", n, bt.values);
            failed = 1;
        }
    }
    if (do_parse) {
        long long n = 0;
        double sum = 0;
        for (int r = 0; r < runs; ++r) {
            timing_start(&tp, r);
            parse_loop(motion, end, &n, &sum);
            timing_stop(&tp, r);
        }
        parse_best = print_timing("mb_parse_float_ loop (motion)", &tp, (int)runs, motion_mb);
        if (n != bt.values) {
            printf("    mb_parse_float_ loop read %lld values, expected %lld\n", n, bt.values);
            failed = 1;
        }
    }
    counting cnt = {0, 0, 0};
    size_t track_bytes = 0, retained = 0;
    int clip_joints = 0, clip_frames = 0, clip_tracked = 0;
    long faults = 0;
    if (do_reader) {
        mb_bvh_read_desc d;
        memset(&d, 0, sizeof d);
        d.allocator.alloc = count_alloc;
        d.allocator.free = count_free;
        d.allocator.user = &cnt;
        size_t peak = 0;
        for (int r = 0; r < runs; ++r) {
            mb_skeleton *skel = NULL;
            mb_clip *clip = NULL;
            mb_error err;
            cnt.peak = cnt.cur;
            struct rusage ru0, ru1;
            getrusage(RUSAGE_SELF, &ru0);
            timing_start(&tr, r);
            mb_status st = mb_bvh_read_mem(bt.text, bt.len, "bench.bvh", &d, &skel, &clip, &err);
            timing_stop(&tr, r);
            getrusage(RUSAGE_SELF, &ru1);
            faults = ru1.ru_minflt - ru0.ru_minflt;
            if (st != MB_OK) {
                char msg[600];
                printf("  mb_bvh_read_mem failed: %s\n", mb_error_format(&err, msg, sizeof msg));
                failed = 1;
                tr.cpu[r] = tr.wall[r] = 1e9;
                runs = r + 1;
                break;
            }
            if (cnt.peak > peak)
                peak = cnt.peak;
            retained = cnt.cur;
            clip_joints = mb_clip_joint_count(clip);
            clip_frames = mb_clip_frame_count(clip);
            clip_tracked = mb_clip_translation_count(clip);
            mb_clip_destroy(clip);
            mb_skeleton_destroy(skel);
        }
        cnt.peak = peak;
        reader_best = print_timing("mb_bvh_read_mem (whole text)", &tr, (int)runs, text_mb);
        if (!failed && (clip_frames != bt.frames || clip_joints != bt.nodes)) {
            printf("    clip has %d frames x %d joints, expected %d x %d\n", clip_frames,
                   clip_joints, bt.frames, bt.nodes);
            failed = 1;
        }
    }
    double pooled_best = 0;
    if (do_reader && !failed && cnt.peak > 0) {
        timing tq;
        /* frees are no-ops: room for the temporaries too */
        pool pl = {malloc(cnt.peak + (16u << 20)), cnt.peak + (16u << 20), 0};
        mb_bvh_read_desc d;
        memset(&d, 0, sizeof d);
        d.allocator.alloc = pool_alloc;
        d.allocator.free = pool_free;
        d.allocator.user = &pl;
        int qruns = (int)runs + 1; /* the first read maps the pool's pages; not timed */
        for (int r = 0; r < qruns && pl.base; ++r) {
            mb_skeleton *skel = NULL;
            mb_clip *clip = NULL;
            pl.used = 0;
            if (r > 0)
                timing_start(&tq, r - 1);
            mb_status st = mb_bvh_read_mem(bt.text, bt.len, "bench.bvh", &d, &skel, &clip, NULL);
            if (r > 0)
                timing_stop(&tq, r - 1);
            if (st != MB_OK) {
                printf("  pooled read failed: %s\n", mb_status_str(st));
                failed = 1;
                break;
            }
            mb_clip_destroy(clip);
            mb_skeleton_destroy(skel);
        }
        if (pl.base && !failed)
            pooled_best = print_timing("  same, tracks in a reused pool", &tq, (int)runs, text_mb);
        free(pl.base);
    }
    if (do_strtod && do_reader && reader_best > 0) {
        double ratio = (text_mb / reader_best) / (motion_mb / strtod_best);
        printf("  reader / strtod loop (MB/s, best CPU time): %.2fx  (target >= 10x and >= 1000 "
               "MB/s)\n",
               ratio);
        if (pooled_best > 0)
            printf("  reader in a reused pool / strtod loop: %.2fx\n",
                   (text_mb / pooled_best) / (motion_mb / strtod_best));
    }
    if (do_parse && do_reader && reader_best > 0)
        printf("  mb_parse_float_ loop time / reader time (best CPU): %.0f%%\n",
               100.0 * parse_best * (text_mb / motion_mb) / reader_best);

    if (do_reader && clip_joints > 0) {
        track_bytes = ((size_t)clip_joints * 16u + (size_t)clip_tracked * 12u) * (size_t)clip_frames;
        double target = (double)bt.len + 1.5 * (double)track_bytes;
        double used = (double)bt.len + (double)cnt.peak;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("\nmemory (MB = 1e6 bytes)\n");
        printf("  tracks: %d frames x (%d joints x 16 B + %d tracked x 12 B) %5.1f MB\n",
               clip_frames, clip_joints, clip_tracked, (double)track_bytes / 1e6);
        printf("  reader peak heap (counting allocator)     %10.1f MB  (%.3f x tracks, %ld "
               "allocations/run, %.1f MB kept by skeleton+clip)\n",
               (double)cnt.peak / 1e6, (double)cnt.peak / (double)track_bytes,
               cnt.calls / runs, (double)retained / 1e6);
        printf("  text + reader peak                        %10.1f MB  vs target text + 1.5 x "
               "tracks = %.1f MB: %s\n",
               used / 1e6, target / 1e6, used <= target ? "within" : "OVER");
        printf("  minor page faults in one reader run       %10ld     (first touch of the "
               "tracks: %.0f B/fault)\n",
               faults, faults ? (double)track_bytes / (double)faults : 0.0);
        printf("  getrusage maxrss (whole process)          %10.1f MB  (context: includes the "
               "text and the generator)\n",
               (double)ru.ru_maxrss * 1024.0 / 1e6);
    }

    if (do_acc) {
        printf("\naccuracy of mb_parse_float_ against strtof on the same token\n");
        printf("  %-26s %12s %12s %10s %8s %8s %8s %6s\n", "set", "values", "0 ulp", "1 ulp",
               ">1 ulp", "both inf", "status", "max");
        hist hm, hf, hrf;
        memset(&hm, 0, sizeof hm);
        memset(&hf, 0, sizeof hf);
        memset(&hrf, 0, sizeof hrf);
        double a = bench_now();
        for (const char *p = motion;;) {
            while (p < end && is_ws(*p))
                ++p;
            if (p == end)
                break;
            const char *q = p;
            while (q < end && !is_ws(*q))
                ++q;
            compare_token(&hm, parse_lib, p, (size_t)(q - p), q);
#ifdef MB_HAVE_PARSE_FLOAT_FAST_
            compare_token(&hf, parse_fast, p, (size_t)(q - p), end);
#endif
            p = q;
        }
        /* the reader's path: the values kernel (MB_ISA_AUTO_) with the scalar loop's
         * fallback where it stops, against strtof on each token */
        hist hk;
        memset(&hk, 0, sizeof hk);
        {
            static uint32_t idx[2 * MB_BVH_TOK_CAP_];
            mb_bvh_tokens_ tk = {NULL, idx, idx + MB_BVH_TOK_CAP_, 0, 0};
            mb_bvh_values_fn_ kern = mb_bvh_values_kernel_(MB_ISA_AUTO_);
            const char *p = motion;
            float vals[256];
            for (;;) {
                const char *from = p;
                int c = kern(&tk, bt.text, &p, end, vals, 256);
                if (c < 256) { /* one value by the scalar parser, then the kernel again */
                    tk.count = tk.next = 0;
                    while (p < end && is_ws(*p))
                        ++p;
                    const char *q;
                    if (p == end || mb_parse_float_(p, end, &vals[c], &q) != MB_NUM_OK)
                        p = end;
                    else
                        p = q, ++c;
                }
                for (int i = 0; i < c; ++i) { /* the c tokens from `from`, in order */
                    while (is_ws(*from))
                        ++from;
                    const char *q = from;
                    while (q < end && !is_ws(*q))
                        ++q;
                    char tb[MB_NUM_MAX_TOKEN + 8];
                    size_t tn = (size_t)(q - from) < MB_NUM_MAX_TOKEN ? (size_t)(q - from) : MB_NUM_MAX_TOKEN;
                    memcpy(tb, from, tn);
                    tb[tn] = '\0';
                    float ref = strtof(tb, NULL);
                    ++hk.n;
                    int64_t dd = ordered(ref) - ordered(vals[i]);
                    dd = dd < 0 ? -dd : dd;
                    if (dd > hk.max_ulp)
                        hk.max_ulp = dd;
                    if (dd == 0)
                        ++hk.ulp0;
                    else if (dd == 1)
                        ++hk.ulp1;
                    else
                        ++hk.big;
                    if (dd)
                        note_bad(&hk, tb, tn, "values kernel differs from strtof");
                    from = q;
                }
                if (p >= end || c == 0)
                    break;
            }
        }
        double tm = bench_now() - a;
        print_hist("motion section", &hm);
#ifdef MB_HAVE_PARSE_FLOAT_FAST_
        print_hist("motion, fast path", &hf);
#endif
        print_hist("motion, values kernel", &hk);
        if (hm.n != bt.values || hk.n != bt.values) {
            printf("    compared %lld and %lld values, expected %lld\n", hm.n, hk.n, bt.values);
            failed = 1;
        }
        hist hr;
        memset(&hr, 0, sizeof hr);
        uint64_t st = seed ^ 0x9e3779b97f4a7c15ull;
        a = bench_now();
        for (long i = 0; i < nrandom; ++i) {
            char s[160];
            size_t n = bench_random_decimal(&st, s);
            compare_token(&hr, parse_lib, s, n, s + n);
#ifdef MB_HAVE_PARSE_FLOAT_FAST_
            memset(s + n, ' ', 40); /* the fast path reads ahead */
            compare_token(&hrf, parse_fast, s, n, s + n + 40);
#endif
        }
        double trd = bench_now() - a;
        print_hist("random decimal strings", &hr);
#ifdef MB_HAVE_PARSE_FLOAT_FAST_
        print_hist("random, fast path", &hrf);
#endif
        printf("    (1-20 significant digits, value exponents -45..+38; %.1f s motion, %.1f s "
               "random)\n",
               tm, trd);
        int ef = run_edges(parse_lib, 0, verbose);
#ifdef MB_HAVE_PARSE_FLOAT_FAST_
        ef += run_edges(parse_fast, 1, verbose);
#endif
        if (hist_failed(&hm) || hist_failed(&hr) || hist_failed(&hf) || hist_failed(&hrf) ||
            hist_failed(&hk) || ef)
            failed = 1;
    }
    bench_loadavg(load1, sizeof load1);
    printf("\n  load average after: %s\n", load1);
    printf("result: %s\n", failed ? "FAIL (accuracy or reader error; see above)" : "PASS (accuracy)");
    bench_text_free(&bt);
    return failed ? 1 : 0;
}
