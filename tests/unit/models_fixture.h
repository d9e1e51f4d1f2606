/* models_fixture.h — what the tests of the analytic models share: the built-in device records
 * (loaded without any overlay), exact comparisons and occupancy for a kernel's usage. */
#ifndef CLS_TEST_MODELS_FIXTURE_H
#define CLS_TEST_MODELS_FIXTURE_H

#include "clstencil_tuning.h"
#include "generator.h"
#include "models.h"

/* cmocka group setup and teardown: load and release the built-in records. */
int models_setup(void **state);
int models_teardown(void **state);
/* The built-in record `id` (fails the test when there is none). */
const cls_arch_record *model_record(const char *id);
/* Fails unless actual equals expected within 1e-9 relative. */
void assert_close(double actual, double expected, const char *what);
/* Resident groups and warps of groups of group_items work-items using registers and local_bytes. */
cls_occupancy occupancy_of(const cls_arch_record *r, unsigned registers, unsigned local_bytes, unsigned group_items);

#endif
