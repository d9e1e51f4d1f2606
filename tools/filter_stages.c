/* filter_stages.c — a `clstencil filter` plan's steps as the stages of one pipeline: each --op as
 * a stage retyped for the image (f32 between stages, integer images tone-mapped through the
 * Night filter and `tonemap`), named steps reading earlier ones, element-wise combinations, and
 * a label and the kernel it was created with for each stage, which -v prints. */
#include "filter_stages.h"

#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void filter_plan_set_borders(const filter_plan *plan, cls_spec *spec)
{
    spec->border = plan->border;
    spec->border_y = plan->border_y;
    spec->border_z = plan->border_z;
    spec->border_value = plan->border_value;
}

cls_border filter_plan_rows_border(const filter_plan *plan)
{
    return plan->border_y == CLS_BORDER_SAME ? plan->border : plan->border_y;
}

void filter_stage_variant(const cls_filter *stage, char *text, size_t size)
{
    if (cls_filter_method(stage) == CLS_METHOD_FFT) {
        snprintf(text, size, "fft");
        return;
    }
    unsigned rows = 0, cols = 0;
    cls_filter_outputs_per_item(stage, &rows, &cols);
    snprintf(text, size, "%s, %ux%u per work-item", cls_partition_name(cls_filter_partition(stage)), cols, rows);
}

/* Labels the stages the pipeline gained since the last call: the k-th new one LABELS[k], or the
 * last label when there are more stages than labels. */
static int label_new_stages(filter_stages *s, const char *const *labels, size_t label_count)
{
    const size_t now = cls_pipeline_stage_count(s->pipeline);
    if (now > s->capacity) {
        const char **grown = realloc(s->labels, now * 2 * sizeof *grown);
        if (grown) s->labels = grown;
        char(*created)[64] = grown ? realloc(s->created, now * 2 * sizeof *created) : NULL;
        if (!created) {
            fprintf(stderr, "clstencil filter: out of memory\n");
            return EXIT_FAILURE_;
        }
        s->created = created;
        s->capacity = now * 2;
    }
    for (size_t k = 0; s->count < now; ++k) {
        const cls_filter *stage = cls_pipeline_stage(s->pipeline, s->count);
        s->created[s->count][0] = '\0';
        if (stage) filter_stage_variant(stage, s->created[s->count], sizeof s->created[s->count]);
        s->labels[s->count++] = labels[k < label_count ? k : label_count - 1];
    }
    return EXIT_OK_;
}

/* Appends one stage of SPEC, retyped from IN to OUT, with the plan's border, `auto` choosing
 * for the image's size; named and reading what STEP says (NULL: the next stage of the chain). */
static int add_stage(filter_stages *s, const filter_plan *plan, cls_spec spec, const cls_host_image *image,
                     cls_pixel_type in, cls_pixel_type out, const char *label, const filter_op *step)
{
    spec.expected_width = (unsigned)image->width;
    spec.expected_height = (unsigned)image->height;
    filter_plan_set_borders(plan, &spec);
    spec.input_type = in;
    spec.output_type = out;
    spec.build_goal = plan->build_goal;
    if (plan->method != CLS_METHOD_AUTO) {
        const int weighted_sum = !spec.body && spec.mask_count <= 1 && !spec.epilogue;
        if (plan->method == CLS_METHOD_FFT && !weighted_sum) {
            fprintf(stderr, "clstencil filter: --method fft: %s is not a weighted sum of one mask\n", label);
            return EXIT_USAGE;
        }
        spec.method = plan->method;
    }
    cls_status status = cls_pipeline_add_stage(s->pipeline, step && step->name[0] ? step->name : NULL, &spec,
                                               step && step->from[0] ? step->from : NULL);
    if (status != CLS_OK) return report_failure("filter", status);
    return label_new_stages(s, &label, 1);
}

/* The tone mapping for an image of TYPE: values keep an integer image's stored scale through
 * the f32 stages, so on u8, u16 and i16 images it maps 0..255 (0..65535, 0..32767) to 0..1 and
 * back (an i16 image's negative values saturate at -32768 there). */
static const char *tonemap_for(cls_pixel_type type)
{
    return type == CLS_PIXEL_U8    ? "tonemap:255"
           : type == CLS_PIXEL_U16 ? "tonemap:65535"
           : type == CLS_PIXEL_I16 ? "tonemap:32767"
                                   : "tonemap";
}

/* Appends the operator of TEXT (a literal: it is the stage's label too), named as STEP says. */
static int add_parsed_stage(filter_stages *s, const filter_plan *plan, const char *text, const cls_host_image *image,
                            cls_pixel_type in, cls_pixel_type out, const filter_op *step)
{
    cls_operator *op = NULL;
    cls_status status = cls_operator_parse(text, &op);
    if (status != CLS_OK) return report_failure("filter", status);
    const int code = add_stage(s, plan, *cls_operator_spec(op), image, in, out, text, step);
    cls_operator_release(op);
    return code;
}

/* The Night filter on an integer image: a-trous 1, 2, 4, 8, then the tone mapping on its scale. */
static int add_integer_night(filter_stages *s, const filter_plan *plan, const cls_host_image *image, cls_pixel_type in,
                             cls_pixel_type out)
{
    static const char *const smoothing[] = {"atrous:1", "atrous:2", "atrous:4", "atrous:8"};
    int code = EXIT_OK_;
    for (size_t k = 0; code == EXIT_OK_ && k < 4; ++k)
        code = add_parsed_stage(s, plan, smoothing[k], image, k == 0 ? in : CLS_PIXEL_F32, CLS_PIXEL_F32, NULL);
    return code == EXIT_OK_ ? add_parsed_stage(s, plan, tonemap_for(image->type), image, CLS_PIXEL_F32, out, NULL)
                            : code;
}

/* An element-wise step: its expression of the named images, stored as OUT. */
static int add_combination(filter_stages *s, const filter_op *step, cls_pixel_type out)
{
    cls_status status = cls_pipeline_add_elementwise(s->pipeline, step->name, step->expression, out);
    if (status != CLS_OK) {
        fprintf(stderr, "clstencil filter: --combine %s: %s\n", step->text, cls_last_error());
        return status == CLS_ERR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_;
    }
    return label_new_stages(s, &step->text, 1);
}

/* Every step in order, reading the input (named "input", of the image's type) or f32 images: the
 * last step writes the plan's output type, every other one f32. */
int filter_stages_build(filter_stages *s, const filter_plan *plan, const cls_host_image *image)
{
    cls_status status = cls_pipeline_add_input(s->pipeline, "input", image->type);
    for (size_t k = 0; status == CLS_OK && k < plan->input_count; ++k) /* --input: IN's type */
        status = cls_pipeline_add_input(s->pipeline, plan->inputs[k].name, image->type);
    if (status != CLS_OK) {
        fprintf(stderr, "clstencil filter: --input: %s\n", cls_last_error());
        return status == CLS_ERR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_;
    }
    /* u8, u16 or i16 in and out: the tone mapping maps the stored scale to 0..1 and back (with an f32
     * output, the values are taken as they come: scaled by an earlier --op, as the usage says) */
    const int integer_image = image_type_is_integer(image->type) && image_type_is_integer(plan->output_type);
    for (size_t i = 0; i < plan->op_count; ++i) {
        const int last = i + 1 == plan->op_count;
        const filter_op *op = &plan->ops[i];
        const cls_pixel_type out = last ? plan->output_type : CLS_PIXEL_F32;
        int reads_input = op->from[0] ? strcmp(op->from, "input") == 0 : i == 0;
        for (size_t k = 0; op->from[0] && k < plan->input_count; ++k) reads_input |= !strcmp(op->from, plan->inputs[k].name);
        const cls_pixel_type in = reads_input ? image->type : CLS_PIXEL_F32;
        int code;
        if (op->expression) code = add_combination(s, op, out);
        else if (op->op && integer_image && strcmp(cls_operator_name(op->op), "tonemap") == 0)
            code = add_parsed_stage(s, plan, tonemap_for(image->type), image, in, out, op);
        else if (op->op)
            code = add_stage(s, plan, *cls_operator_spec(op->op), image, in, out,
                             op->name[0] || op->from[0] ? op->text : cls_operator_name(op->op), op);
        else if (integer_image) code = add_integer_night(s, plan, image, in, out);
        else { /* The Night filter: its stages, typed the same way. */
            status = cls_pipeline_add_night(s->pipeline, plan->border, in, out);
            if (status != CLS_OK) return report_failure("filter", status);
            static const char *const night[] = {"night 1/5 (atrous:1)", "night 2/5 (atrous:2)", "night 3/5 (atrous:4)",
                                                "night 4/5 (atrous:8)", "night 5/5 (tonemap)"};
            code = label_new_stages(s, night, sizeof night / sizeof night[0]);
        }
        if (code != EXIT_OK_) return code;
    }
    if ((status = cls_pipeline_check(s->pipeline)) != CLS_OK) { /* an image nobody reads */
        fprintf(stderr, "clstencil filter: %s\n", cls_last_error());
        return EXIT_USAGE;
    }
    return EXIT_OK_;
}

void filter_stages_free(filter_stages *s)
{
    if (s->pipeline) cls_pipeline_release(s->pipeline); /* waits for tiered builds */
    free(s->labels);
    free(s->created);
    memset(s, 0, sizeof *s);
}

