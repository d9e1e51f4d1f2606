/* bench_prebuild.c — builds a list of configurations' programs on several threads before they
 * are timed one after another: a context is shared between threads and keeps every program it
 * built, so the timed runs find them ready. Tune and --model-check build hundreds of kernels;
 * on a GPU host with many cores this divides their compile time. */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct prebuild_work {
    bench_env *env;
    const bench_case *cases;
    size_t count;
    atomic_size_t next;
} prebuild_work;

static void *build_some(void *argument)
{
    prebuild_work *work = argument;
    for (size_t i; (i = atomic_fetch_add(&work->next, 1)) < work->count;) (void)bench_build(work->env, &work->cases[i]);
    return NULL;
}

void bench_prebuild(bench_env *env, const bench_case *cases, size_t count)
{
    long processors = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = processors > 1 ? (size_t)processors : 1;
    if (threads > BENCH_BUILD_THREADS) threads = BENCH_BUILD_THREADS;
    if (threads > count) threads = count;
    prebuild_work work = {.env = env, .cases = cases, .count = count};
    atomic_init(&work.next, 0);
    pthread_t ids[BENCH_BUILD_THREADS];
    size_t started = 0;
    while (started + 1 < threads && pthread_create(&ids[started], NULL, build_some, &work) == 0) ++started;
    build_some(&work); /* this thread too; it also does all the work when no thread started */
    for (size_t t = 0; t < started; ++t) pthread_join(ids[t], NULL);
}
