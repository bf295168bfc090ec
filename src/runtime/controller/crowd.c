/* Many characters: a batch of controllers updated by range on the caller's threads
 * (mb_controller_update_range) or on a pool of threads (mb_controller_pool_update).
 *
 * Each character's update is mb_controller_update on its own controller, which touches
 * nothing shared but the read-only state set, so splitting a batch changes no bit of any
 * character's result. The pool hands out chunks of MB_CONTROLLER_POOL_CHUNK characters
 * through one atomic word that holds the frame's generation and the next chunk: a thread
 * that wakes late (a loaded machine) takes only what is left, and a late wake-up from an
 * earlier frame sees a different generation and takes nothing. The caller works too and
 * waits only for chunks that were taken, never for threads that have not started.
 *
 * Synchronisation: one mutex and two condition variables. The caller publishes the batch
 * and the floating-point environment under the mutex, then bumps the generation; a worker
 * copies both under the mutex, so what it reads belongs to the generation it claims chunks
 * of. Finished chunks are counted under the mutex in an atomic that the caller, done with
 * its own chunks, spins on for a moment before it sleeps on the condition variable; the
 * release/acquire pair (or the mutex) makes the workers' writes visible to the caller. */
#include <fenv.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "mblend/runtime/controller.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MB_POOL_PAUSE_() _mm_pause()
#else
#define MB_POOL_PAUSE_() ((void)0)
#endif
/* Spins of the caller's wait before it sleeps: about 100 us at 40 ns a pause. */
#define MB_POOL_SPIN_ 2500

static int batch_valid(const mb_controller_batch *b)
{
    return b && b->controllers && b->poses && b->count >= 0 &&
           b->dt >= 0.0f && b->dt <= (float)MB_CONTROLLER_MAX_DT;
}

/* Updates [first, first + count) of a valid batch; returns the first failure's status and
 * sets *bad to its index (-1 and MB_OK when all succeed). */
static mb_status update_span(const mb_controller_batch *b, int first, int count, int *bad)
{
    mb_status ret = MB_OK;
    *bad = -1;
    for (int i = first; i < first + count; ++i) {
        mb_root_motion *rm = b->deltas ? &b->deltas[i] : NULL;
        mb_status st = mb_controller_update(b->controllers[i], b->dt, b->poses[i], rm);
        if (b->statuses)
            b->statuses[i] = st;
        if (st != MB_OK && *bad < 0) {
            *bad = i;
            ret = st;
        }
    }
    return ret;
}

mb_status mb_controller_update_range(const mb_controller_batch *b, int first, int count)
{
    if (!batch_valid(b) || first < 0 || count < 0 || first > b->count || count > b->count - first)
        return MB_INVALID_ARG;
    int bad;
    return update_span(b, first, count, &bad);
}

/* ======================================================================= the pool */

struct mb_controller_pool {
    mb_allocator alloc;
    int threads;              /* the caller's included */
    int started;              /* threads started (threads - 1 once created) */
    pthread_t *tids;
    pthread_mutex_t mu;
    pthread_cond_t wake;      /* a new generation, or quit */
    pthread_cond_t done;      /* the last chunk of a generation finished */
    /* under mu */
    uint32_t gen;
    int quit;
    mb_controller_batch batch;
    fenv_t env;
    int nchunks;
    atomic_int finished;      /* chunks done; written under mu, read by the caller's spin */
    int bad;                  /* lowest failing character, INT_MAX: none */
    mb_status bad_status;
    /* gen << 32 | next chunk: claimed by compare-and-swap while gen matches */
    _Atomic uint64_t work;
    atomic_flag busy;
};

/* Claims the next chunk of generation gen; -1 when none is left (or gen has passed). */
static int claim(mb_controller_pool *p, uint32_t gen, int nchunks)
{
    uint64_t v = atomic_load_explicit(&p->work, memory_order_relaxed);
    for (;;) {
        if ((uint32_t)(v >> 32) != gen || (int)(uint32_t)v >= nchunks)
            return -1;
        if (atomic_compare_exchange_weak_explicit(&p->work, &v, v + 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            return (int)(uint32_t)v;
    }
}

/* Runs chunks of generation gen until none is left; returns how many it ran and the lowest
 * failure among them in *bad / *bad_status. */
static int run_chunks(mb_controller_pool *p, const mb_controller_batch *b, uint32_t gen, int nchunks,
                      int *bad, mb_status *bad_status)
{
    int ran = 0, k;
    *bad = INT_MAX;
    while ((k = claim(p, gen, nchunks)) >= 0) {
        int first = k * MB_CONTROLLER_POOL_CHUNK;
        int n = b->count - first < MB_CONTROLLER_POOL_CHUNK ? b->count - first : MB_CONTROLLER_POOL_CHUNK;
        int i;
        mb_status st = update_span(b, first, n, &i);
        if (i >= 0 && i < *bad) {
            *bad = i;
            *bad_status = st;
        }
        ++ran;
    }
    return ran;
}

/* Adds a failure and finished chunks to the frame's totals (p->mu held; the count last, so
 * a caller that sees it complete also sees the failure). */
static void report_locked(mb_controller_pool *p, int ran, int bad, mb_status bad_status)
{
    if (bad < p->bad) {
        p->bad = bad;
        p->bad_status = bad_status;
    }
    atomic_store_explicit(&p->finished, atomic_load_explicit(&p->finished, memory_order_relaxed) + ran,
                          memory_order_release);
}

static void *worker(void *arg)
{
    mb_controller_pool *p = arg;
    uint32_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == seen && !p->quit)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit)
            break;
        seen = p->gen;
        mb_controller_batch b = p->batch;
        int nchunks = p->nchunks;
        fesetenv(&p->env);
        pthread_mutex_unlock(&p->mu);
        int bad;
        mb_status bad_status = MB_OK;
        int ran = run_chunks(p, &b, seen, nchunks, &bad, &bad_status);
        pthread_mutex_lock(&p->mu);
        if (ran > 0) {
            report_locked(p, ran, bad, bad_status);
            if (atomic_load_explicit(&p->finished, memory_order_relaxed) == p->nchunks)
                pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Stops and joins the started threads, frees everything. */
static void pool_free(mb_controller_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->started; ++i)
        pthread_join(p->tids[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    mb_allocator a = p->alloc;
    mb_free_(&a, p->tids);
    mb_free_(&a, p);
}

/* Initialises the synchronisation objects of a zeroed pool; 0 on failure (nothing to undo). */
static int pool_sync_init(mb_controller_pool *p)
{
    if (pthread_mutex_init(&p->mu, NULL) != 0)
        return 0;
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        return 0;
    }
    if (pthread_cond_init(&p->done, NULL) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->mu);
        return 0;
    }
    atomic_init(&p->work, 0);
    atomic_init(&p->finished, 0);
    atomic_flag_clear(&p->busy);
    return 1;
}

mb_status mb_controller_pool_create(const mb_controller_pool_desc *d, mb_controller_pool **out, mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    if (!d || !out)
        return mb_error_set_(err, MB_INVALID_ARG, "controller pool", "no %s given", !d ? "desc" : "output");
    if (d->threads < 1 || d->threads > MB_CONTROLLER_POOL_MAX_THREADS)
        return mb_error_set_(err, MB_INVALID_ARG, "controller pool", "threads %d outside 1..%d", d->threads,
                             MB_CONTROLLER_POOL_MAX_THREADS);
    mb_controller_pool *p = mb_alloc_(&d->allocator, sizeof *p);
    pthread_t *tids = d->threads > 1 ? mb_alloc_(&d->allocator, sizeof *tids * (size_t)(d->threads - 1)) : NULL;
    if (!p || (d->threads > 1 && !tids)) {
        mb_free_(&d->allocator, p);
        mb_free_(&d->allocator, tids);
        return mb_error_set_(err, MB_NOMEM, "controller pool", "out of memory for a pool of %d threads",
                             d->threads);
    }
    memset(p, 0, sizeof *p);
    p->alloc = d->allocator;
    p->threads = d->threads;
    p->tids = tids;
    p->bad = INT_MAX;
    if (!pool_sync_init(p)) {
        mb_free_(&d->allocator, tids);
        mb_free_(&d->allocator, p);
        return mb_error_set_(err, MB_IO, "controller pool", "cannot create a mutex or condition variable");
    }
    for (; p->started < d->threads - 1; ++p->started)
        if (pthread_create(&p->tids[p->started], NULL, worker, p) != 0) {
            int started = p->started;
            pool_free(p);
            return mb_error_set_(err, MB_IO, "controller pool", "cannot start thread %d of %d", started + 2,
                                 d->threads);
        }
    *out = p;
    return MB_OK;
}

void mb_controller_pool_destroy(mb_controller_pool *p)
{
    if (p)
        pool_free(p);
}

int mb_controller_pool_threads(const mb_controller_pool *p) { return p ? p->threads : 0; }

/* Waits until all nchunks chunks are done. What is left is at most one chunk per other
 * thread, being worked on: spin for a while (a sleep costs a wake-up, which on a loaded
 * machine means waiting for a core), then sleep on the condition variable. */
static void wait_finished(mb_controller_pool *p, int nchunks)
{
    for (int i = 0; i < MB_POOL_SPIN_; ++i) {
        if (atomic_load_explicit(&p->finished, memory_order_acquire) >= nchunks)
            return;
        MB_POOL_PAUSE_();
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load_explicit(&p->finished, memory_order_relaxed) < nchunks)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

mb_status mb_controller_pool_update(mb_controller_pool *p, const mb_controller_batch *b)
{
    if (!p || !batch_valid(b))
        return MB_INVALID_ARG;
    if (p->threads == 1 || b->count <= MB_CONTROLLER_POOL_CHUNK)
        return mb_controller_update_range(b, 0, b->count); /* nothing to share */
    if (atomic_flag_test_and_set(&p->busy))
        return MB_INVALID_ARG;
    int nchunks = b->count / MB_CONTROLLER_POOL_CHUNK + (b->count % MB_CONTROLLER_POOL_CHUNK != 0);
    pthread_mutex_lock(&p->mu);
    uint32_t gen = ++p->gen;
    if (gen == 0) /* 0 is the workers' "nothing seen yet" */
        gen = ++p->gen;
    p->batch = *b;
    p->nchunks = nchunks;
    atomic_store_explicit(&p->finished, 0, memory_order_relaxed);
    p->bad = INT_MAX;
    p->bad_status = MB_OK;
    fegetenv(&p->env);
    atomic_store_explicit(&p->work, (uint64_t)gen << 32, memory_order_relaxed);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);

    int bad;
    mb_status bad_status = MB_OK;
    int ran = run_chunks(p, b, gen, nchunks, &bad, &bad_status);
    pthread_mutex_lock(&p->mu);
    report_locked(p, ran, bad, bad_status);
    int left = atomic_load_explicit(&p->finished, memory_order_relaxed) < nchunks;
    pthread_mutex_unlock(&p->mu);
    if (left)
        wait_finished(p, nchunks);
    pthread_mutex_lock(&p->mu);
    mb_status ret = p->bad == INT_MAX ? MB_OK : p->bad_status;
    pthread_mutex_unlock(&p->mu);
    atomic_flag_clear(&p->busy);
    return ret;
}
