/* models_fixture.c — the shared parts of the model tests (see models_fixture.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models_fixture.h"

static cls_device_db *db;

int models_setup(void **state)
{
    (void)state;
    unsetenv("CLSTENCIL_DEVICE_DB"); /* the built-in records only */
    setenv("XDG_CONFIG_HOME", "/nonexistent-clstencil-test", 1);
    return cls_device_db_load(NULL, &db) == CLS_OK ? 0 : -1;
}

int models_teardown(void **state)
{
    (void)state;
    cls_device_db_release(db);
    return 0;
}

const cls_arch_record *model_record(const char *id)
{
    for (size_t k = 0; k < cls_device_db_count(db); ++k)
        if (strcmp(cls_device_db_get(db, k)->id, id) == 0) return cls_device_db_get(db, k);
    fail_msg("no built-in record %s", id);
    return NULL;
}

void assert_close(double actual, double expected, const char *what)
{
    if (fabs(actual - expected) > 1e-9 * fmax(1.0, fabs(expected)))
        fail_msg("%s = %.12g, expected %.12g", what, actual, expected);
}

cls_occupancy occupancy_of(const cls_arch_record *r, unsigned registers, unsigned local_bytes, unsigned group_items)
{
    const cls_kernel_usage usage = {registers, local_bytes};
    cls_occupancy o;
    assert_int_equal(cls_occupancy_compute(r, NULL, &usage, group_items, &o), CLS_OK);
    return o;
}
