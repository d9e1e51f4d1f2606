/* tiered.c — the background half of CLS_BUILD_TIERED: a thread builds the specialized kernels of
 * a spec (its own deep copy), first with the body region apart (seconds), then, where the spec
 * leaves the region code to AUTO and that gives separate regions, with those (a minute or more on
 * NVIDIA), while the quick kernel serves the filter's launches; each one built serves every later
 * launch. */
#include "host.h"

#include "generator.h"

#include "error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct cls_tier {
    cls_context *context;
    cls_spec spec;          /* the caller's spec, its arrays and strings owned below */
    float *coefficients, *row, *column;
    char *epilogue, *body;
    pthread_t thread;
    pthread_mutex_t join_lock; /* wait and release may come from several threads */
    int joined;
    int stage_count;         /* 1, or 2: separate regions after the quick ones */
    cls_filter *stages[2];   /* set by the thread before `ready` counts them */
    atomic_int ready;        /* stages built: the last of them serves the launches */
    cls_status status;       /* the builds', once the thread ended */
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
    const size_t taps = (size_t)spec->mask_width * spec->mask_height * (spec->mask_count ? spec->mask_count : 1);
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
    static const cls_region_code codes[2] = {CLS_QUICK_REGIONS, CLS_REGION_CODE_SEPARATE};
    for (int k = 0; k < tier->stage_count; ++k) {
        if (tier->stage_count > 1) tier->spec.region_code = codes[k];
        tier->status = cls_filter_create_fastest(tier->context, &tier->spec, &tier->stages[k]);
        if (tier->status != CLS_OK) {
            strncpy(tier->message, cls_last_error(), sizeof tier->message - 1);
            break;
        }
        atomic_store_explicit(&tier->ready, k + 1, memory_order_release);
    }
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

cls_status cls_tier_start(cls_context *context, const cls_spec *spec, cls_tier **out)
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
    tier->stage_count =
        spec->region_code == CLS_REGION_CODE_AUTO && cls_region_code_auto(spec) == CLS_REGION_CODE_SEPARATE ? 2 : 1;
    if (pthread_create(&tier->thread, NULL, build, tier) != 0) {
        free_tier(tier);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "cannot start the thread that builds the specialized kernel");
    }
    *out = tier;
    return CLS_OK;
}

cls_filter *cls_tier_ready(const cls_tier *tier)
{
    const int ready = tier ? atomic_load_explicit(&tier->ready, memory_order_acquire) : 0;
    return ready ? tier->stages[ready - 1] : NULL;
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
    for (int k = 0; k < 2; ++k) cls_filter_release(tier->stages[k]);
    free_tier(tier);
}
