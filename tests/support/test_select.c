/* test_select.c — linked into every cmocka test program, whose calls of cmocka_run_group_tests it
 * wraps (ld --wrap): CLS_TEST_ONLY=NAME,NAME... runs only the test cases of those names (shell
 * wildcards allowed), CLS_TEST_ONLY=!NAME,... all but those. CMake splits a long program into
 * several CTest entries this way (cls_test's PARTS), so that no entry is long and the parts run
 * in parallel. */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *tests, size_t count,
                                   CMFixtureFunction setup, CMFixtureFunction teardown);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *tests, size_t count,
                                   CMFixtureFunction setup, CMFixtureFunction teardown);

/* Whether NAME matches one of the comma-separated patterns of LIST. */
static int listed(const char *list, const char *name)
{
    char pattern[256];
    while (*list) {
        const size_t length = strcspn(list, ",");
        if (length < sizeof pattern) {
            memcpy(pattern, list, length);
            pattern[length] = '\0';
            if (fnmatch(pattern, name, 0) == 0) return 1;
        }
        list += length + (list[length] == ',');
    }
    return 0;
}

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *tests, size_t count,
                                   CMFixtureFunction setup, CMFixtureFunction teardown)
{
    const char *only = getenv("CLS_TEST_ONLY");
    if (!only || !*only) return __real__cmocka_run_group_tests(group_name, tests, count, setup, teardown);
    const int others = *only == '!';
    struct CMUnitTest *chosen = malloc((count ? count : 1) * sizeof *chosen);
    if (!chosen) return 1;
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i)
        if (listed(only + others, tests[i].name) != others) chosen[kept++] = tests[i];
    const int failed = kept ? __real__cmocka_run_group_tests(group_name, chosen, kept, setup, teardown) : 0;
    free(chosen);
    return failed;
}
