/* planner_fixture.h — what the planner's tests share: an H100's capability record matched to the
 * sm_90 database record, the shipped tuning results, a runtime whose builds are made up (it
 * reports registers the test chooses and counts the builds asked for), and specs of operators as
 * the command parses them. */
#ifndef CLS_TEST_PLANNER_FIXTURE_H
#define CLS_TEST_PLANNER_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "embedded.h"
#include "planner.h"

/* The made-up runtime: registers by partition, and the builds asked for. */
typedef struct fake_runtime {
    const cls_planner *planner;
    unsigned naive_registers, isp_registers;
    cls_status fail_with;
    unsigned builds;
} fake_runtime;

/* The policy's resolution of the knobs (what a build under the policy gives) and the registers. */
static cls_status fake_build(void *runtime, const cls_spec *spec, cls_build_facts *facts)
{
    fake_runtime *r = runtime;
    ++r->builds;
    if (r->fail_with != CLS_OK) return r->fail_with;
    cls_kernel_config config;
    const cls_status status = cls_plan_policy(r->planner, spec, &config);
    if (status != CLS_OK) return status;
    *facts = (cls_build_facts){.registers = spec->partition == CLS_PARTITION_NAIVE ? r->naive_registers : r->isp_registers,
                               .rows = config.rows, .cols = config.cols, .group_width = config.group_width,
                               .group_height = config.group_height, .input_path = config.input_path};
    cls_kernel_config_free(&config);
    return CLS_OK;
}

/* An H100 as its OpenCL driver describes it. */
static cls_device_caps h100(void)
{
    cls_device_caps caps = {CLS_DEVICE_CAPS_INIT};
    caps.vendor = CLS_VENDOR_NVIDIA;
    caps.type = CLS_DEVICE_GPU;
    snprintf(caps.arch, sizeof caps.arch, "sm_90");
    snprintf(caps.name, sizeof caps.name, "NVIDIA H100 80GB HBM3");
    caps.compute_units = 132;
    caps.local_mem_size = 48 * 1024;
    caps.max_work_group_size = 1024;
    caps.max_work_item_sizes[0] = caps.max_work_item_sizes[1] = 1024;
    caps.max_parameter_size = 4352;
    caps.simd_width = 32;
    return caps;
}

typedef struct fixture {
    cls_device_caps caps;
    cls_device_db *db;
    cls_arch_record record;
    cls_tuning_table tuning;
    cls_planner planner;
    fake_runtime runtime;
} fixture;

static int set_up(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->caps = h100();
    assert_int_equal(cls_device_db_load("", &f->db), CLS_OK);
    cls_match_level level;
    const cls_arch_record *record = cls_device_db_match(f->db, &f->caps, &level);
    assert_non_null(record);
    assert_string_equal(record->id, "nvidia-sm90");
    f->record = *record;
    for (size_t i = 0; i < cls_embedded_tuning_count; ++i)
        assert_int_equal(cls_tuning_table_parse(&f->tuning, cls_embedded_tuning[i].text, cls_embedded_tuning[i].name),
                         CLS_OK);
    f->runtime = (fake_runtime){.planner = &f->planner, .naive_registers = 32, .isp_registers = 40};
    f->planner = (cls_planner){.caps = &f->caps, .record = &f->record, .tuning = &f->tuning,
                               .build_facts = fake_build, .runtime = &f->runtime};
    *state = f;
    return 0;
}

static int tear_down(void **state)
{
    fixture *f = *state;
    cls_tuning_table_free(&f->tuning);
    cls_device_db_release(f->db);
    free(f);
    return 0;
}

/* spec of an operator as cls_operator_parse gives it, in BORDER, for an image of SIZE x SIZE. */
static cls_spec operator_spec(const char *text, cls_border border, unsigned size, cls_operator **op)
{
    assert_int_equal(cls_operator_parse(text, op), CLS_OK);
    cls_spec spec = *cls_operator_spec(*op);
    spec.border = border;
    spec.expected_width = spec.expected_height = size;
    return spec;
}

/* cls_plan_choice for spec, read as the planner's entrance reads it. */
static int plan_choice(const cls_planner *planner, const cls_spec *spec, cls_tuning *choice)
{
    cls_request request;
    assert_int_equal(cls_request_init(&request, spec), CLS_OK);
    const int chosen = cls_plan_choice(planner, &request, choice);
    cls_request_free(&request);
    return chosen;
}

#endif
