/* cross_plan.c — `auto`'s analytic models for a device record without the device: the planner's
 * build-facts callback compiles each spec it asks about with clang for the record's AMD target
 * (LLVM's AMDGPU backend, as AMD's runtime does) and reads the kernel's VGPRs and LDS from the
 * backend's resource-usage remarks, where the library would build on the device and ask OpenCL.
 * The compiler is $CLS_CLANG (default clang-19), libclc's amdgcn--amdhsa.bc its builtins. */
#include "cross_check.h"

#include "error.h"
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The VGPRs and LDS bytes the backend reports for clstencil_filter in SOURCE; 0 on failure. */
static int compile_facts(const char *arch, const char *source, unsigned *vgprs, unsigned *lds)
{
    char path[] = "/tmp/cls_cross_plan.XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return 0;
    FILE *file = fdopen(fd, "w");
    const int written = file && fputs(source, file) != EOF;
    if (file) fclose(file);
    const char *clang = getenv("CLS_CLANG") ? getenv("CLS_CLANG") : "clang-19";
    char command[1024];
    snprintf(command, sizeof command,
             "'%s' -x cl -cl-std=CL1.2 -target amdgcn--amdhsa -mcpu=%s -nogpulib -Xclang -finclude-default-header "
             "-Xclang -mlink-bitcode-file -Xclang /usr/lib/clc/amdgcn--amdhsa.bc -O2 -S -o /dev/null "
             "-Rpass-analysis=kernel-resource-usage '%s' 2>&1",
             clang, arch, path);
    FILE *remarks = written ? popen(command, "r") : NULL;
    char line[512];
    int in_kernel = 0, found = 0;
    while (remarks && fgets(line, sizeof line, remarks)) {
        const char *remark = strstr(line, "remark: ");
        if (!remark) continue;
        remark += strlen("remark: ");
        if (strncmp(remark, "Function Name: ", 15) == 0) in_kernel = strncmp(remark + 15, "clstencil_filter ", 17) == 0;
        else if (in_kernel && sscanf(remark, " VGPRs: %u", vgprs) == 1) found |= 1;
        else if (in_kernel && sscanf(remark, " LDS Size [bytes/block]: %u", lds) == 1) found |= 2;
    }
    const int status = remarks ? pclose(remarks) : -1;
    unlink(path);
    return status == 0 && found == 3;
}

/* The planner's callback: the spec's kernel under the record's policy, compiled offline. */
static cls_status offline_facts(void *runtime, const cls_spec *spec, cls_build_facts *facts)
{
    const cls_planner *planner = runtime;
    cls_kernel_config config;
    cls_status status = cls_plan_policy(planner, spec, &config);
    if (status != CLS_OK) return status;
    char *source = cls_emit_source(&config);
    unsigned vgprs = 0, lds = 0;
    const int compiled = source && compile_facts(planner->record->arch, source, &vgprs, &lds);
    free(source);
    *facts = (cls_build_facts){.registers = vgprs, .local_bytes = lds, .rows = config.rows, .cols = config.cols,
                               .group_width = config.group_width, .group_height = config.group_height,
                               .input_path = config.input_path};
    if (compiled)
        fprintf(stderr, "  built offline: %s, %ux%u, %u x %u outputs: %u VGPRs, %u B LDS\n",
                cls_partition_name(config.partition), config.group_width, config.group_height, config.rows, config.cols,
                vgprs, lds);
    cls_kernel_config_free(&config);
    return compiled ? CLS_OK : cls_fail(CLS_ERR_BUILD, "clang could not compile the kernel for %s", planner->record->arch);
}

int cls_cross_plan(const cls_arch_record *record, const char *operator_text, unsigned width, unsigned height)
{
    if (record->vendor != CLS_VENDOR_AMD || !record->arch[0]) {
        fprintf(stderr, "cls_cross_sources: plan takes an AMD record with a gfx target, not '%s'\n", record->id);
        return 0;
    }
    cls_operator *op = NULL;
    if (cls_operator_parse(operator_text, &op) != CLS_OK) {
        fprintf(stderr, "cls_cross_sources: %s\n", cls_last_error());
        return 0;
    }
    cls_device_caps caps;
    cls_cross_device_caps(record, &caps);
    static const cls_tuning_table no_results; /* a record without tuning results or calibrations */
    cls_planner planner = {.caps = &caps, .record = record, .tuning = &no_results, .build_facts = offline_facts};
    planner.runtime = &planner;
    cls_tuning choice = {CLS_TUNING_INIT};
    const cls_status status = cls_plan_models(&planner, cls_operator_spec(op), width, height, &choice);
    if (status == CLS_OK)
        printf("%s on %s at %ux%u: %s, input %s, group %ux%u, %u x %u outputs a work-item\n", operator_text,
               record->arch, width, height, cls_partition_name(choice.partition), cls_input_path_name(choice.input_path),
               choice.group_width, choice.group_height, choice.rows_per_item, choice.cols_per_item);
    else
        fprintf(stderr, "cls_cross_sources: the models could not plan %s: %s\n", operator_text, cls_last_error());
    cls_operator_release(op);
    return status == CLS_OK;
}
