/* bench_memo.c — measurements memoized by configuration (see bench.h): each configuration of a
 * run is built and timed once. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

typedef struct bench_memo_entry {
    const char *key;
    bench_result *result;
    int owner; /* frees the result; aliases do not */
} memo_entry;

static bench_result *memo_find(const bench_memo *m, const char *key)
{
    for (size_t i = 0; i < m->count; ++i)
        if (strcmp(m->entries[i].key, key) == 0) return m->entries[i].result;
    return NULL;
}

static int memo_add(bench_memo *m, const char *key, bench_result *result, int owner)
{
    if (!key) return 0;
    if (m->count == m->capacity) {
        const size_t capacity = m->capacity ? 2 * m->capacity : 64;
        memo_entry *entries = realloc(m->entries, capacity * sizeof *entries);
        if (!entries) return 0;
        m->entries = entries;
        m->capacity = capacity;
    }
    m->entries[m->count++] = (memo_entry){key, result, owner};
    return 1;
}

const bench_result *bench_memo_measure(bench_env *env, bench_plan *plan, bench_memo *m, const bench_case *c)
{
    const char *key = bench_case_key(plan, c);
    bench_result *result = key ? memo_find(m, key) : NULL;
    if (result || !key) return result;
    if (!(result = calloc(1, sizeof *result))) return NULL;
    bench_measure(env, c, result);
    if (!memo_add(m, key, result, 1)) {
        bench_result_free(result);
        free(result);
        return NULL;
    }
    bench_case resolved = *c;
    bench_case_pin_groups(&resolved, result);
    const char *resolved_key = bench_case_key(plan, &resolved);
    if (resolved_key && !memo_find(m, resolved_key)) memo_add(m, resolved_key, result, 0);
    return result;
}

void bench_memo_free(bench_memo *m)
{
    for (size_t i = 0; i < m->count; ++i)
        if (m->entries[i].owner) {
            bench_result_free(m->entries[i].result);
            free(m->entries[i].result);
        }
    free(m->entries);
}
