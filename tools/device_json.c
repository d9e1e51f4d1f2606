/* device_json.c — one device's capability record, database match and fingerprint as JSON
 * (the schema of `clstencil devices --json`, documented in docs/devices-json.md). */
#include "commands.h"

static void add_string(json_object *object, const char *key, const char *value)
{
    json_object_object_add(object, key, json_object_new_string(value));
}

static void add_int(json_object *object, const char *key, int64_t value)
{
    json_object_object_add(object, key, json_object_new_int64(value));
}

static json_object *record_to_json(const cls_arch_record *r, cls_match_level level)
{
    json_object *o = json_object_new_object();
    add_string(o, "record", r->id);
    add_string(o, "level", cls_match_level_name(level));
    add_string(o, "origin", r->origin);
    add_string(o, "source", r->source);
    add_string(o, "arch", r->arch);
    add_int(o, "simd_width", r->simd_width);
    add_int(o, "max_threads_per_cu", r->max_threads_per_cu);
    add_int(o, "max_groups_per_cu", r->max_groups_per_cu);
    add_int(o, "max_warps_per_cu", r->max_warps_per_cu);
    add_int(o, "registers_per_cu", r->registers_per_cu);
    add_int(o, "register_alloc_unit", r->register_alloc_unit);
    add_string(o, "register_alloc", r->register_alloc_per_warp ? "warp" : "group");
    add_int(o, "max_registers_per_thread", r->max_registers_per_thread);
    add_int(o, "local_mem_per_cu", r->local_mem_per_cu);
    add_int(o, "local_mem_alloc_unit", r->local_mem_alloc_unit);
    json_object *wg = json_object_new_array();
    json_object_array_add(wg, json_object_new_int64(r->default_wg_x));
    json_object_array_add(wg, json_object_new_int64(r->default_wg_y));
    json_object_object_add(o, "default_wg", wg);
    add_int(o, "default_rows", r->default_rows ? r->default_rows : 1);
    json_object_object_add(o, "use_models", json_object_new_boolean(r->use_models));
    return o;
}

json_object *device_to_json(const cls_device_caps *c, const cls_device_db *db, int is_default)
{
    json_object *o = json_object_new_object();
    add_int(o, "platform_index", c->platform_index);
    add_int(o, "device_index", c->device_index);
    json_object_object_add(o, "default", json_object_new_boolean(is_default));
    add_string(o, "platform_name", c->platform_name);
    add_string(o, "platform_version", c->platform_version);
    add_string(o, "name", c->name);
    add_string(o, "vendor", cls_vendor_name(c->vendor));
    add_string(o, "vendor_name", c->vendor_name);
    add_int(o, "vendor_id", c->vendor_id);
    add_string(o, "type", cls_device_type_name(c->type));
    add_string(o, "driver_version", c->driver_version);
    add_string(o, "device_version", c->device_version);
    add_string(o, "opencl_c_version", c->opencl_c_version);
    add_int(o, "address_bits", c->address_bits);
    add_int(o, "compute_units", c->compute_units);
    add_int(o, "max_clock_mhz", c->max_clock_mhz);
    add_int(o, "global_mem_size", (int64_t)c->global_mem_size);
    add_int(o, "local_mem_size", (int64_t)c->local_mem_size);
    add_int(o, "max_constant_buffer_size", (int64_t)c->max_constant_buffer_size);
    add_int(o, "max_parameter_size", (int64_t)c->max_parameter_size);
    add_int(o, "max_work_group_size", (int64_t)c->max_work_group_size);
    json_object *sizes = json_object_new_array();
    for (int i = 0; i < 3; ++i) json_object_array_add(sizes, json_object_new_int64((int64_t)c->max_work_item_sizes[i]));
    json_object_object_add(o, "max_work_item_sizes", sizes);
    add_int(o, "preferred_work_group_multiple", (int64_t)c->preferred_work_group_multiple);
    add_int(o, "simd_width", c->simd_width);
    json_object_object_add(o, "image_support", json_object_new_boolean(c->image_support));
    add_int(o, "image2d_max_width", (int64_t)c->image2d_max_width);
    add_int(o, "image2d_max_height", (int64_t)c->image2d_max_height);
    if (c->has_nv_attributes) {
        json_object *nv = json_object_new_object();
        add_int(nv, "compute_capability_major", c->nv_compute_capability_major);
        add_int(nv, "compute_capability_minor", c->nv_compute_capability_minor);
        add_int(nv, "registers_per_block", c->nv_registers_per_block);
        add_int(nv, "warp_size", c->nv_warp_size);
        json_object_object_add(o, "nvidia", nv);
    }
    if (c->has_amd_attributes) {
        json_object *amd = json_object_new_object();
        add_int(amd, "wavefront_width", c->amd_wavefront_width);
        add_int(amd, "simds_per_cu", c->amd_simds_per_cu);
        add_string(amd, "board_name", c->amd_board_name);
        add_string(amd, "gfx_target", c->amd_gfx_target);
        json_object_object_add(o, "amd", amd);
    }
    if (c->has_intel_ip_version) {
        json_object *intel = json_object_new_object();
        add_int(intel, "ip_version", c->intel_ip_version);
        json_object_object_add(o, "intel", intel);
    }
    add_string(o, "arch", c->arch);
    char fingerprint[17];
    cls_device_fingerprint(c, fingerprint);
    add_string(o, "fingerprint", fingerprint);
    cls_match_level level;
    const cls_arch_record *record = cls_device_db_match(db, c, &level);
    json_object_object_add(o, "database", record ? record_to_json(record, level) : NULL);
    return o;
}
