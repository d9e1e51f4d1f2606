/* test_devices_json.c — `clstencil devices --all --json` parsed back with json-c: every device
 * has the documented fields with the right types, exactly one is the default, and each names
 * its database record and match level. Usage: test_devices_json PATH-TO-CLSTENCIL */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <clstencil.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *command_path;

static json_object *run_json(const char *arguments)
{
    char command[1024];
    snprintf(command, sizeof command, "'%s' %s", command_path, arguments);
    FILE *pipe = popen(command, "r");
    assert_non_null(pipe);
    size_t size = 0, capacity = 1 << 16;
    char *text = malloc(capacity);
    size_t got;
    while ((got = fread(text + size, 1, capacity - size - 1, pipe)) > 0) {
        size += got;
        if (capacity - size < 2) text = realloc(text, capacity *= 2);
    }
    text[size] = '\0';
    assert_int_equal(pclose(pipe), 0);
    json_object *root = json_tokener_parse(text);
    if (!root) fail_msg("not JSON:\n%s", text);
    free(text);
    return root;
}

static json_object *member(json_object *object, const char *key, json_type type)
{
    json_object *value = NULL;
    if (!json_object_object_get_ex(object, key, &value)) fail_msg("member '%s' is missing", key);
    if (!json_object_is_type(value, type))
        fail_msg("member '%s' has type %s, expected %s", key, json_type_to_name(json_object_get_type(value)),
                 json_type_to_name(type));
    return value;
}

static void every_device_has_the_documented_fields(void **state)
{
    (void)state;
    json_object *root = run_json("devices --all --json");
    assert_string_equal(json_object_get_string(member(root, "library_version", json_type_string)), CLS_VERSION_STRING);
    json_object *devices = member(root, "devices", json_type_array);
    const size_t count = json_object_array_length(devices);
    assert_true(count >= 1);
    int defaults = 0;
    static const char *strings[] = {"platform_name", "platform_version", "name", "vendor", "vendor_name", "type",
                                    "driver_version", "device_version", "opencl_c_version", "arch", "fingerprint"};
    static const char *integers[] = {"platform_index", "device_index", "vendor_id", "address_bits", "compute_units",
                                     "max_clock_mhz", "global_mem_size", "local_mem_size", "max_constant_buffer_size", "max_parameter_size",
                                     "max_work_group_size", "preferred_work_group_multiple", "simd_width"};
    for (size_t i = 0; i < count; ++i) {
        json_object *device = json_object_array_get_idx(devices, i);
        for (size_t k = 0; k < sizeof strings / sizeof strings[0]; ++k) member(device, strings[k], json_type_string);
        for (size_t k = 0; k < sizeof integers / sizeof integers[0]; ++k) member(device, integers[k], json_type_int);
        assert_int_equal(json_object_array_length(member(device, "max_work_item_sizes", json_type_array)), 3);
        member(device, "image_support", json_type_boolean);
        defaults += json_object_get_boolean(member(device, "default", json_type_boolean));
        const char *fingerprint = json_object_get_string(member(device, "fingerprint", json_type_string));
        assert_int_equal(strlen(fingerprint), 16);
        assert_int_equal(strspn(fingerprint, "0123456789abcdef"), 16);
        json_object *database = member(device, "database", json_type_object);
        member(database, "record", json_type_string);
        const char *level = json_object_get_string(member(database, "level", json_type_string));
        assert_true(strcmp(level, "device") == 0 || strcmp(level, "architecture") == 0 ||
                    strcmp(level, "vendor+type") == 0 || strcmp(level, "generic") == 0);
        assert_true(json_object_get_int(member(database, "simd_width", json_type_int)) > 0);
        const char *type = json_object_get_string(member(device, "type", json_type_string));
        if (strcmp(level, "generic") != 0) /* by default the models choose on GPUs only */
            assert_int_equal(json_object_get_boolean(member(database, "use_models", json_type_boolean)),
                             strcmp(type, "gpu") == 0);
        json_object *nvidia = NULL;
        if (json_object_object_get_ex(device, "nvidia", &nvidia)) {
            assert_int_equal(json_object_get_int(member(nvidia, "warp_size", json_type_int)), 32);
            assert_true(json_object_get_int(member(nvidia, "registers_per_block", json_type_int)) > 0);
        }
    }
    assert_int_equal(defaults, 1);
    json_object_put(root);
}

static void default_only_lists_one_device(void **state)
{
    (void)state;
    json_object *root = run_json("devices --json");
    json_object *devices = member(root, "devices", json_type_array);
    assert_int_equal(json_object_array_length(devices), 1);
    assert_true(json_object_get_boolean(member(json_object_array_get_idx(devices, 0), "default", json_type_boolean)));
    json_object_put(root);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH-TO-CLSTENCIL\n", argv[0]);
        return 2;
    }
    command_path = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_device_has_the_documented_fields),
        cmocka_unit_test(default_only_lists_one_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
