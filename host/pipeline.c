/* pipeline.c — a pipeline's graph (pipeline_graph.h): its inputs, stencil and element-wise stages
 * by name, the checks that keep it runnable (types that match, no stage reading an undefined
 * border's unwritten pixels), and what it reaches. pipeline_run.c enqueues it. */
#include "pipeline_graph.h"

#include "error.h"
#include "generator.h"
#include "build.h"
#include "elementwise_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cls_status cls_pipeline_create(cls_context *context, cls_pipeline **out)
{
    if (!context || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "context or output pointer is NULL");
    *out = calloc(1, sizeof **out);
    if (!*out) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    (*out)->context = context;
    return CLS_OK;
}

static void release_node(pipeline_node *node)
{
    if (node->filter) cls_filter_release(node->filter);
    if (node->kernel) clReleaseKernel(node->kernel);
    if (node->program) clReleaseProgram(node->program);
    free(node->expression);
}

void cls_pipeline_release(cls_pipeline *pipeline)
{
    if (!pipeline) return;
    for (size_t i = 0; i < pipeline->count; ++i) release_node(&pipeline->nodes[i]);
    for (size_t k = 0; k < pipeline->temporary_count; ++k) clReleaseMemObject(pipeline->temporaries[k]);
    free(pipeline->temporaries);
    free(pipeline->nodes);
    free(pipeline);
}

/* The node named NAME, or SIZE_MAX. */
static size_t find(const cls_pipeline *pipeline, const char *name)
{
    for (size_t i = 0; i < pipeline->count; ++i)
        if (strcmp(pipeline->nodes[i].name, name) == 0) return i;
    return SIZE_MAX;
}

/* A new node at the end (zeroed), named NAME, or the status of why not. */
static cls_status append(cls_pipeline *pipeline, const char *name, pipeline_node **out)
{
    cls_status status = cls_image_name_check(name);
    if (status != CLS_OK) return status;
    if (find(pipeline, name) != SIZE_MAX)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the pipeline already has an image named '%s'", name);
    if (pipeline->count == pipeline->capacity) {
        const size_t capacity = pipeline->capacity ? 2 * pipeline->capacity : 8;
        pipeline_node *nodes = realloc(pipeline->nodes, capacity * sizeof *nodes);
        if (!nodes) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
        pipeline->nodes = nodes;
        pipeline->capacity = capacity;
    }
    *out = &pipeline->nodes[pipeline->count];
    memset(*out, 0, sizeof **out);
    snprintf((*out)->name, sizeof (*out)->name, "%s", name);
    return CLS_OK;
}

cls_status cls_pipeline_add_input(cls_pipeline *pipeline, const char *name, cls_pixel_type type)
{
    if (!pipeline || !name) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline or name is NULL");
    if (pipeline->count > pipeline->inputs)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "input '%s' comes after a stage: declare the inputs first", name);
    if (type == CLS_PIXEL_F64)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "input '%s' is f64: a pipeline reads u8, u16, i16, f16 or f32 inputs (its last"
                        " stage may write f64)", name);
    if ((unsigned)type > CLS_PIXEL_F64) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "input '%s' has no pixel type", name);
    pipeline_node *node;
    const cls_status status = append(pipeline, name, &node);
    if (status != CLS_OK) return status;
    node->kind = NODE_INPUT;
    node->type = type;
    ++pipeline->count, ++pipeline->inputs;
    return CLS_OK;
}

/* The image a stage reads when it names none: the last stage, else the first input. */
static const char *default_source(const cls_pipeline *pipeline)
{
    return pipeline->count ? pipeline->nodes[pipeline->count - 1].name : "input";
}

/* The node FROM names, which a new stage may read (it exists and has no unwritten pixels). */
static cls_status source_node(const cls_pipeline *pipeline, const char *from, const char *stage, size_t *index)
{
    *index = find(pipeline, from);
    if (*index == SIZE_MAX)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "stage '%s' reads '%s', which is no image of the pipeline before it",
                        stage, from);
    if (pipeline->nodes[*index].undefined_border)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "stage '%s' has the undefined border, which leaves its border pixels unwritten, and stage "
                        "'%s' would read them: only the last stage may use the undefined border", from, stage);
    return CLS_OK;
}

/* "stageN" for the stage about to be added, N counted from 1. */
static void default_name(const cls_pipeline *pipeline, char *name, size_t size)
{
    snprintf(name, size, "stage%zu", pipeline->count - pipeline->inputs + 1);
}

cls_status cls_pipeline_add_stage(cls_pipeline *pipeline, const char *name, const cls_spec *caller_spec,
                                  const char *from)
{
    if (!pipeline || !caller_spec) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline or spec is NULL");
    cls_spec copy;
    cls_status status = cls_spec_read(caller_spec, &copy);
    if (status != CLS_OK) return status;
    if (pipeline->count == 0 && (status = cls_pipeline_add_input(pipeline, "input", copy.input_type)) != CLS_OK)
        return status;
    char automatic[CLS_IMAGE_NAME_MAX];
    if (!name) default_name(pipeline, automatic, sizeof automatic), name = automatic;
    const int volume = cls_spec_is_volume(&copy);
    for (size_t k = pipeline->inputs; k < pipeline->count; ++k)
        if (pipeline->nodes[k].kind == NODE_STENCIL && pipeline->nodes[k].volume != volume)
            return cls_fail(CLS_ERR_UNSUPPORTED, "stage '%s' is a %s operator and stage '%s' a %s one: a pipeline's "
                            "stencil stages are all 2-D operators (images) or all volumes' (volumes)",
                            name, volume ? "volume's" : "2-D", pipeline->nodes[k].name,
                            volume ? "2-D" : "volume's");
    size_t source;
    if ((status = source_node(pipeline, from ? from : default_source(pipeline), name, &source)) != CLS_OK)
        return status;
    const pipeline_node *read = &pipeline->nodes[source];
    if (read->type != copy.input_type)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "stage '%s' reads %s but '%s' holds %s", name,
                        cls_pixel_type_name(copy.input_type), read->name, cls_pixel_type_name(read->type));
    pipeline_node *node;
    if ((status = append(pipeline, name, &node)) != CLS_OK) return status;
    status = cls_filter_create(pipeline->context, &copy, &node->filter);
    if (status != CLS_OK) return status;
    /* A stage hands one image on: several outputs have nowhere to go. */
    if (cls_filter_output_count(node->filter) > 1) {
        status = cls_fail(CLS_ERR_INVALID_ARGUMENT,
                          "stage '%s' writes %u outputs (one per mask, no epilogue); a pipeline stage writes one: "
                          "add an epilogue that combines them, or run the filter alone",
                          name, cls_filter_output_count(node->filter));
        cls_filter_release(node->filter);
        return status;
    }
    node->kind = NODE_STENCIL;
    node->volume = volume;
    node->type = copy.output_type;
    node->operands[0] = source;
    node->operand_count = 1;
    node->reach_x = pipeline->nodes[source].reach_x + copy.mask_width / 2;
    node->reach_y = pipeline->nodes[source].reach_y + copy.mask_height / 2;
    node->undefined_border = copy.border == CLS_BORDER_UNDEFINED;
    ++pipeline->count;
    return CLS_OK;
}

cls_status cls_pipeline_add(cls_pipeline *pipeline, const cls_spec *spec)
{
    return cls_pipeline_add_stage(pipeline, NULL, spec, NULL);
}

/* Builds the element-wise kernel of NODE. */
static cls_status build_elementwise(cls_pipeline *pipeline, pipeline_node *node, const char *expression)
{
    const char *names[CLS_ELEMENTWISE_OPERANDS_MAX];
    cls_pixel_type types[CLS_ELEMENTWISE_OPERANDS_MAX];
    for (size_t k = 0; k < node->operand_count; ++k) {
        names[k] = pipeline->nodes[node->operands[k]].name;
        types[k] = pipeline->nodes[node->operands[k]].type;
    }
    const cls_status status = cls_elementwise_build(pipeline->context, expression, names, types, node->operand_count,
                                                    node->type, &node->program, &node->kernel, NULL, NULL);
    return status == CLS_OK ? CLS_OK : cls_fail(status, "element-wise stage '%s': %s", node->name, cls_last_error());
}

cls_status cls_pipeline_add_elementwise(cls_pipeline *pipeline, const char *name, const char *expression,
                                        cls_pixel_type output_type)
{
    if (!pipeline || !expression) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline or expression is NULL");
    if ((unsigned)output_type > CLS_PIXEL_F16)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, output_type == CLS_PIXEL_F64
                                                      ? "an element-wise stage computes in float: it writes no f64"
                                                      : "the element-wise stage's output type is no pixel type");
    if (pipeline->count == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "an element-wise stage needs images to read: add the inputs first");
    char automatic[CLS_IMAGE_NAME_MAX];
    if (!name) default_name(pipeline, automatic, sizeof automatic), name = automatic;
    const char *known[pipeline->count];
    for (size_t i = 0; i < pipeline->count; ++i) known[i] = pipeline->nodes[i].name;
    size_t operands[CLS_ELEMENTWISE_OPERANDS_MAX], operand_count;
    cls_status status = cls_elementwise_check(expression, known, pipeline->count, operands, &operand_count);
    for (size_t k = 0; status == CLS_OK && k < operand_count; ++k) {
        size_t index;
        status = source_node(pipeline, known[operands[k]], name, &index);
    }
    pipeline_node *node;
    if (status == CLS_OK) status = append(pipeline, name, &node);
    if (status != CLS_OK) return status;
    node->kind = NODE_ELEMENTWISE;
    node->type = output_type;
    node->operand_count = operand_count;
    for (size_t k = 0; k < operand_count; ++k) {
        const pipeline_node *read = &pipeline->nodes[operands[k]];
        node->operands[k] = operands[k];
        if (read->reach_x > node->reach_x) node->reach_x = read->reach_x;
        if (read->reach_y > node->reach_y) node->reach_y = read->reach_y;
    }
    node->expression = strdup(expression);
    status = node->expression ? build_elementwise(pipeline, node, expression)
                              : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (status != CLS_OK) {
        release_node(node);
        return status;
    }
    ++pipeline->count;
    return CLS_OK;
}

cls_status cls_pipeline_add_night(cls_pipeline *pipeline, cls_border border, cls_pixel_type input_type,
                                  cls_pixel_type output_type)
{
    /* the tone mapping works on an integer type's scale where that type comes in and goes out */
    const cls_pixel_type scaled = input_type == output_type ? input_type : CLS_PIXEL_F32;
    const char *const stages[] = {"atrous:1", "atrous:2", "atrous:4", "atrous:8",
                                  scaled == CLS_PIXEL_U8    ? "tonemap:255"
                                  : scaled == CLS_PIXEL_U16 ? "tonemap:65535"
                                  : scaled == CLS_PIXEL_I16 ? "tonemap:32767"
                                                            : "tonemap"};
    const size_t count = sizeof stages / sizeof stages[0];
    cls_status status = CLS_OK;
    for (size_t i = 0; status == CLS_OK && i < count; ++i) {
        cls_operator *op = NULL;
        status = cls_operator_parse(stages[i], &op);
        if (status != CLS_OK) break;
        cls_spec spec = *cls_operator_spec(op);
        spec.border = border;
        spec.input_type = i == 0 ? input_type : CLS_PIXEL_F32;
        spec.output_type = i + 1 == count ? output_type : CLS_PIXEL_F32;
        status = cls_pipeline_add(pipeline, &spec);
        cls_operator_release(op);
    }
    return status;
}

size_t cls_pipeline_stage_count(const cls_pipeline *pipeline)
{
    return pipeline ? pipeline->count - pipeline->inputs : 0;
}

size_t cls_pipeline_input_count(const cls_pipeline *pipeline) { return pipeline ? pipeline->inputs : 0; }

cls_filter *cls_pipeline_stage(const cls_pipeline *pipeline, size_t index)
{
    return index < cls_pipeline_stage_count(pipeline) ? pipeline->nodes[pipeline->inputs + index].filter : NULL;
}

const char *cls_pipeline_stage_name(const cls_pipeline *pipeline, size_t index)
{
    return index < cls_pipeline_stage_count(pipeline) ? pipeline->nodes[pipeline->inputs + index].name : NULL;
}

const char *cls_pipeline_stage_expression(const cls_pipeline *pipeline, size_t index)
{
    return index < cls_pipeline_stage_count(pipeline) ? pipeline->nodes[pipeline->inputs + index].expression : NULL;
}

void cls_pipeline_reach(const cls_pipeline *pipeline, unsigned *x, unsigned *y)
{
    const pipeline_node *last = pipeline && pipeline->count ? &pipeline->nodes[pipeline->count - 1] : NULL;
    if (x) *x = last ? last->reach_x : 0;
    if (y) *y = last ? last->reach_y : 0;
}
