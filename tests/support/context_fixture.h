/* context_fixture.h — the cmocka group fixture that device tests share: one context on the
 * default device, `context`, created before the group (setup) and released after it (teardown).
 * A test program includes it once and passes setup and teardown to cmocka_run_group_tests. */
#ifndef CLS_TEST_CONTEXT_FIXTURE_H
#define CLS_TEST_CONTEXT_FIXTURE_H

#include <clstencil.h>

static cls_context *context;

static int setup(void **state)
{
    (void)state;
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

#endif
