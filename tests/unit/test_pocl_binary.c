/* test_pocl_binary.c — a PoCL binary's directory renamed for the program loading it: the
 * "_UNCACHED_" name at either header offset gets six fresh characters and nothing else changes;
 * other binaries are left alone and refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "pocl_binary.h"

enum { SIZE = 256 };

/* A header as PoCL writes it: tag, device hash, version, counts and flags, then the name at `at`. */
static void header(unsigned char *binary, unsigned version, size_t at, const char *name)
{
    for (int k = 0; k < SIZE; ++k) binary[k] = (unsigned char)(k * 13 + 7);
    memcpy(binary, "poclbin", 8);
    binary[16] = (unsigned char)version, binary[17] = binary[18] = binary[19] = 0;
    memset(binary + at, 0, 41);
    memcpy(binary + at, name, strlen(name));
}

static void uncached_names_get_fresh_characters(void **state)
{
    (void)state;
    const size_t offsets[2] = {32, 36}; /* format versions 7 and 9 */
    for (int v = 0; v < 2; ++v) {
        unsigned char original[SIZE], first[SIZE], second[SIZE];
        header(original, v ? 9 : 7, offsets[v], "_UNCACHED_FXnEE5");
        memcpy(first, original, SIZE);
        memcpy(second, original, SIZE);
        assert_int_equal(cls_pocl_binary_make_private(first, SIZE), 1);
        assert_int_equal(cls_pocl_binary_make_private(second, SIZE), 1);
        const size_t random = offsets[v] + 10;
        assert_memory_equal(first, original, random);
        assert_memory_equal(first + random + 6, original + random + 6, SIZE - random - 6);
        assert_memory_not_equal(first + random, original + random, 6);
        assert_memory_not_equal(first + random, second + random, 6);
        for (int k = 0; k < 6; ++k)
            assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                                   first[random + k]));
    }
}

static void other_binaries_are_refused_unchanged(void **state)
{
    (void)state;
    unsigned char binary[SIZE], original[SIZE];
    header(original, 9, 36, "AB/CDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMN"); /* built with PoCL's cache */
    memcpy(binary, original, SIZE);
    assert_int_equal(cls_pocl_binary_make_private(binary, SIZE), 0);
    assert_memory_equal(binary, original, SIZE);
    header(original, 9, 36, "_UNCACHED_FXnEE5");
    memcpy(original, "ptxbin", 7); /* not PoCL's */
    memcpy(binary, original, SIZE);
    assert_int_equal(cls_pocl_binary_make_private(binary, SIZE), 0);
    assert_memory_equal(binary, original, SIZE);
    header(binary, 9, 36, "_UNCACHED_FXnEE5");
    assert_int_equal(cls_pocl_binary_make_private(binary, 60), 0); /* cut short */
    assert_int_equal(cls_pocl_binary_make_private(binary, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uncached_names_get_fresh_characters),
        cmocka_unit_test(other_binaries_are_refused_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
