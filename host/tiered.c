/* tiered.c — the background half of CLS_BUILD_TIERED: a thread builds the specialized kernel of a
 * spec (its own deep copy) while the quick kernel serves the filter's launches; once built, it
 * serves every later launch. A deferred build (CPU devices, whose cores the quick kernel runs on)
 * waits for the quick kernel's first launch to complete, or for a wait, and is dropped by a
 * release that comes first. */
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
    pthread_mutex_t gate_lock; /* a deferred build's gate: */
    pthread_cond_t gate;
    enum { GATE_CLOSED, GATE_OPEN, GATE_DROPPED } gate_state; /* closed until a launch or a wait */
    cl_event after;                                          /* the launch to complete first */
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

/* Waits at a deferred build's gate; whether to build. */
static int pass_gate(cls_tier *tier)
{
    pthread_mutex_lock(&tier->gate_lock);
    while (tier->gate_state == GATE_CLOSED) pthread_cond_wait(&tier->gate, &tier->gate_lock);
    const int build = tier->gate_state == GATE_OPEN;
    cl_event after = tier->after;
    tier->after = NULL;
    pthread_mutex_unlock(&tier->gate_lock);
    if (after) {
        clWaitForEvents(1, &after); /* its failure is the launch's to report */
        clReleaseEvent(after);
    }
    return build;
}

/* Opens (or drops) a closed gate, the build to follow LAUNCH (may be NULL). */
static void set_gate(cls_tier *tier, int state, cl_event launch)
{
    pthread_mutex_lock(&tier->gate_lock);
    if (tier->gate_state == GATE_CLOSED) {
        if (launch && clRetainEvent(launch) == CL_SUCCESS) tier->after = launch;
        tier->gate_state = state;
        pthread_cond_signal(&tier->gate);
    }
    pthread_mutex_unlock(&tier->gate_lock);
}

static void *build(void *argument)
{
    cls_tier *tier = argument;
    if (!pass_gate(tier)) return NULL;
    tier->status = tier->calls->create_fastest(tier->context, &tier->spec, &tier->specialized);
    if (tier->status == CLS_OK) atomic_store_explicit(&tier->ready, 1, memory_order_release);
    else strncpy(tier->message, cls_last_error(), sizeof tier->message - 1);
    return NULL;
}

static void free_tier(cls_tier *tier)
{
    pthread_mutex_destroy(&tier->join_lock);
    pthread_mutex_destroy(&tier->gate_lock);
    pthread_cond_destroy(&tier->gate);
    free(tier->coefficients);
    free(tier->row);
    free(tier->column);
    free(tier->epilogue);
    free(tier->body);
    free(tier);
}

cls_status cls_tier_start(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec, int deferred,
                          cls_tier **out)
{
    if (!spec) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "spec is NULL");
    cls_tier *tier = calloc(1, sizeof *tier);
    if (!tier) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    pthread_mutex_init(&tier->join_lock, NULL);
    pthread_mutex_init(&tier->gate_lock, NULL);
    pthread_cond_init(&tier->gate, NULL);
    tier->gate_state = deferred ? GATE_CLOSED : GATE_OPEN;
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

int cls_tier_awaits_launch(cls_tier *tier)
{
    if (!tier) return 0;
    pthread_mutex_lock(&tier->gate_lock);
    const int closed = tier->gate_state == GATE_CLOSED;
    pthread_mutex_unlock(&tier->gate_lock);
    return closed;
}

void cls_tier_follow(cls_tier *tier, cl_event launch)
{
    if (tier) set_gate(tier, GATE_OPEN, launch);
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
    set_gate(tier, GATE_OPEN, NULL);
    join(tier);
    if (tier->status != CLS_OK) return cls_fail(tier->status, "building the specialized kernel failed: %s", tier->message);
    return CLS_OK;
}

void cls_tier_release(cls_tier *tier)
{
    if (!tier) return;
    set_gate(tier, GATE_DROPPED, NULL);
    join(tier);
    tier->calls->release(tier->specialized);
    free_tier(tier);
}
