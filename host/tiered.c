/* tiered.c — the background half of CLS_BUILD_TIERED: a thread builds the specialized kernel of a
 * spec (its own deep copy) while the quick kernel serves the filter's launches; once built, it
 * serves every later launch. */
#include "host.h"

#include "error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct cls_tier {
    cls_context *context;
    const cls_filter_calls *calls; /* builds and releases the specialized filter */
    cls_spec spec;          /* the caller's spec, its arrays and strings owned below */
    float *coefficients, *row, *column;
    char *epilogue, *body;
    pthread_t thread;
    pthread_mutex_t join_lock; /* wait and release may come from several threads */
    int joined;
    cls_filter *specialized; /* set by the thread before `ready` */
    atomic_int ready;        /* whether specialized serves the launches */
    cls_status status;       /* the build's, once the thread ended */
    char message[512];       /* its cls_last_error() when it failed */
};

static int copy_floats(float **to, const float *from, size_t count)
{
    if (!from) return 1;
    *to = malloc(count * sizeof **to);
    if (*to) memcpy(*to, from, count * sizeof **to);
    return *to != NULL;
}

static int copy_text(char **to, const char *from)
{
    if (!from) return 1;
    return (*to = strdup(from)) != NULL;
}

/* tier->spec with its own copies of everything spec points to. */
static int own_spec(cls_tier *tier, const cls_spec *spec)
{
    tier->spec = *spec;
    tier->spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
    const size_t taps =
        (size_t)spec->mask_width * spec->mask_height * cls_mask_depth(spec) * (spec->mask_count ? spec->mask_count : 1);
    if (!copy_floats(&tier->coefficients, spec->coefficients, taps) ||
        !copy_floats(&tier->row, spec->row_coefficients, spec->mask_width) ||
        !copy_floats(&tier->column, spec->column_coefficients, spec->mask_height) ||
        !copy_text(&tier->epilogue, spec->epilogue) || !copy_text(&tier->body, spec->body))
        return 0;
    tier->spec.coefficients = tier->coefficients;
    tier->spec.row_coefficients = tier->row;
    tier->spec.column_coefficients = tier->column;
    tier->spec.epilogue = tier->epilogue;
    tier->spec.body = tier->body;
    return 1;
}

static void *build(void *argument)
{
    cls_tier *tier = argument;
    tier->status = tier->calls->create_fastest(tier->context, &tier->spec, &tier->specialized);
    if (tier->status == CLS_OK) atomic_store_explicit(&tier->ready, 1, memory_order_release);
    else strncpy(tier->message, cls_last_error(), sizeof tier->message - 1);
    return NULL;
}

static void free_tier(cls_tier *tier)
{
    pthread_mutex_destroy(&tier->join_lock);
    free(tier->coefficients);
    free(tier->row);
    free(tier->column);
    free(tier->epilogue);
    free(tier->body);
    free(tier);
}

cls_status cls_tier_start(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec, cls_tier **out)
{
    if (!spec) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "spec is NULL");
    cls_tier *tier = calloc(1, sizeof *tier);
    if (!tier) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    pthread_mutex_init(&tier->join_lock, NULL);
    if (!own_spec(tier, spec)) {
        free_tier(tier);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    tier->context = context;
    tier->calls = calls;
    if (pthread_create(&tier->thread, NULL, build, tier) != 0) {
        free_tier(tier);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "cannot start the thread that builds the specialized kernel");
    }
    *out = tier;
    return CLS_OK;
}

cls_filter *cls_tier_ready(const cls_tier *tier)
{
    return tier && atomic_load_explicit(&tier->ready, memory_order_acquire) ? tier->specialized : NULL;
}

static void join(cls_tier *tier)
{
    pthread_mutex_lock(&tier->join_lock);
    if (!tier->joined) pthread_join(tier->thread, NULL);
    tier->joined = 1;
    pthread_mutex_unlock(&tier->join_lock);
}

cls_status cls_tier_wait(cls_tier *tier)
{
    if (!tier) return CLS_OK;
    join(tier);
    if (tier->status != CLS_OK) return cls_fail(tier->status, "building the specialized kernel failed: %s", tier->message);
    return CLS_OK;
}

void cls_tier_release(cls_tier *tier)
{
    if (!tier) return;
    join(tier);
    tier->calls->release(tier->specialized);
    free_tier(tier);
}
