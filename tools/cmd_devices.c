/* cmd_devices.c — `clstencil devices`: the default device (or --all) with its capability
 * record, matched database record and level, and fingerprint; a table or --json. */
#include "cli.h"
#include "commands.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void print_size(const char *label, unsigned long long bytes)
{
    if (bytes >= (1ull << 30)) printf("  %-28s %.1f GiB\n", label, (double)bytes / (1ull << 30));
    else if (bytes >= (1ull << 20)) printf("  %-28s %.1f MiB\n", label, (double)bytes / (1ull << 20));
    else printf("  %-28s %llu KiB\n", label, bytes >> 10);
}

static void print_device(const cls_device_caps *c, const cls_device_db *db, int is_default)
{
    printf("device %u:%u%s  %s\n", c->platform_index, c->device_index, is_default ? " (default)" : "", c->name);
    printf("  %-28s %s (%s)\n", "platform", c->platform_name, c->platform_version);
    printf("  %-28s %s, %s (vendor id 0x%x, reported as '%s')\n", "vendor, type", cls_vendor_name(c->vendor),
           cls_device_type_name(c->type), (unsigned)c->vendor_id, c->vendor_name);
    printf("  %-28s %s / %s / driver %s\n", "OpenCL", c->device_version, c->opencl_c_version, c->driver_version);
    printf("  %-28s %u at %u MHz, %u-bit addresses\n", "compute units", c->compute_units, c->max_clock_mhz,
           c->address_bits);
    print_size("global memory", c->global_mem_size);
    print_size("local memory", c->local_mem_size);
    print_size("constant buffer", c->max_constant_buffer_size);
    print_size("kernel arguments", c->max_parameter_size);
    printf("  %-28s %zu (items %zu x %zu x %zu)\n", "max work-group size", c->max_work_group_size,
           c->max_work_item_sizes[0], c->max_work_item_sizes[1], c->max_work_item_sizes[2]);
    printf("  %-28s %zu\n", "preferred group multiple", c->preferred_work_group_multiple);
    printf("  %-28s %u\n", "SIMD width", c->simd_width);
    if (c->image_support) printf("  %-28s yes, 2-D up to %zux%zu\n", "images", c->image2d_max_width, c->image2d_max_height);
    else printf("  %-28s no\n", "images");
    if (c->has_nv_attributes)
        printf("  %-28s compute capability %u.%u, %u registers per block, warp size %u\n",
               "cl_nv_device_attribute_query", c->nv_compute_capability_major, c->nv_compute_capability_minor,
               c->nv_registers_per_block, c->nv_warp_size);
    if (c->has_amd_attributes)
        printf("  %-28s wavefront %u, %u SIMDs per CU, board '%s', target '%s'\n", "cl_amd_device_attribute_query",
               c->amd_wavefront_width, c->amd_simds_per_cu, c->amd_board_name, c->amd_gfx_target);
    if (c->has_intel_ip_version) printf("  %-28s 0x%x\n", "Intel IP version", c->intel_ip_version);
    cls_match_level level;
    const cls_arch_record *r = cls_device_db_match(db, c, &level);
    if (r) {
        printf("  %-28s [%s] at %s level (%s; arch key '%s')\n", "database record", r->id,
               cls_match_level_name(level), r->origin, c->arch);
        printf("  %-28s SIMD %u, %u threads, %u groups, %u warps, %u registers (unit %u per %s), "
               "%u B local (unit %u), default group %ux%u, models %s\n",
               "  per compute unit", r->simd_width, r->max_threads_per_cu, r->max_groups_per_cu,
               r->max_warps_per_cu, r->registers_per_cu, r->register_alloc_unit,
               r->register_alloc_per_warp ? "warp" : "group", r->local_mem_per_cu, r->local_mem_alloc_unit,
               r->default_wg_x, r->default_wg_y, r->use_models ? "on" : "off");
        printf("  %-28s %s\n", "  source", r->source);
    }
    char fingerprint[17];
    cls_device_fingerprint(c, fingerprint);
    printf("  %-28s %s\n", "fingerprint", fingerprint);
}

int cmd_devices(int argc, char **argv)
{
    static const cli_option options[] = {{"--all", 'a', NULL}, {"--json", 0, NULL}};
    int all = 0, json = 0, found;
    const char *value;
    cli_parser parser;
    cli_init(&parser, "clstencil devices", options, sizeof options / sizeof options[0], argc, argv);
    while ((found = cli_next(&parser, &value)) != CLI_END) {
        if (found == 0) all = 1;
        else if (found == 1) json = 1;
        else if (found == CLI_HELP) {
            printf("usage: clstencil devices [-a | --all] [--json]\n"
                   "  -a, --all   every device of every platform instead of the default one\n"
                   "  --json      machine-readable output\n"
                   "  -h, --help  this text\n"
                   "The default device: CLSTENCIL_DEVICE, else a GPU, else an accelerator, else a CPU.\n");
            return EXIT_OK_;
        } else {
            if (found == CLI_POSITIONAL) fprintf(stderr, "clstencil devices: unexpected argument '%s'\n", value);
            return EXIT_USAGE;
        }
    }
    cls_device_list *list = NULL;
    cls_status status = cls_devices_query(&list);
    if (status != CLS_OK) return report_failure("devices", status);
    size_t chosen = 0;
    status = cls_device_select(list, NULL, &chosen);
    cls_device_db *db = NULL;
    if (status == CLS_OK) status = cls_device_db_load(NULL, &db);
    if (status != CLS_OK) {
        cls_device_list_release(list);
        return report_failure("devices", status);
    }
    json_object *root = json ? json_object_new_object() : NULL, *array = json ? json_object_new_array() : NULL;
    for (size_t i = 0; i < cls_device_list_count(list); ++i) {
        if (!all && i != chosen) continue;
        const cls_device_caps *caps = cls_device_list_get(list, i);
        if (json) json_object_array_add(array, device_to_json(caps, db, i == chosen));
        else print_device(caps, db, i == chosen);
    }
    if (json) {
        json_object_object_add(root, "library_version", json_object_new_string(cls_version()));
        json_object_object_add(root, "devices", array);
        puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(root);
    }
    cls_device_db_release(db);
    cls_device_list_release(list);
    return EXIT_OK_;
}
