/* filter_inputs.c — reads the images of `clstencil filter --input NAME=FILE` (filter_inputs.h). */
#include "filter_inputs.h"

#include "commands.h"
#include "filter_steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void filter_inputs_free(filter_input *inputs, size_t count)
{
    for (size_t k = 0; inputs && k < count; ++k) {
        image_free(&inputs[k].image);
        free((char *)inputs[k].name);
    }
    free(inputs);
}

/* One --input TEXT (NAME=FILE) into *input, checked against IN; an exit code. */
static int read_one(const char *text, const cls_host_image *in, filter_input *input)
{
    filter_step_text step;
    char error[1024];
    filter_step_split_combine(text, &step, error, sizeof error); /* checked when parsed */
    const char *path = step.body;
    if (!(input->name = strdup(step.name))) {
        fprintf(stderr, "clstencil filter: out of memory\n");
        return EXIT_FAILURE_;
    }
    const int status = image_read(path, &input->image, error, sizeof error);
    if (status != IMAGE_OK) {
        fprintf(stderr, "clstencil filter: --input %s: %s (%s)\n", input->name, error, image_error_class_name(status));
        return filter_input_exit_code(status);
    }
    const cls_host_image *im = &input->image;
    if (im->width != in->width || im->height != in->height || im->channels != in->channels ||
        im->pages != in->pages || im->type != in->type) {
        fprintf(stderr, "clstencil filter: --input %s: %s is %zux%zu, %zu channel(s), %zu page(s), %s; the inputs "
                        "of one run share IN's %zux%zu, %zu channel(s), %zu page(s), %s\n",
                input->name, path, im->width, im->height, im->channels, im->pages, image_type_name(im->type),
                in->width, in->height, in->channels, in->pages, image_type_name(in->type));
        return EXIT_INPUT_UNSUPPORTED;
    }
    return EXIT_OK_;
}

int filter_inputs_read(const filter_args *args, const cls_host_image *in, filter_input **inputs, size_t *count)
{
    *inputs = NULL;
    *count = 0;
    if (!args->input_text_count) return EXIT_OK_;
    if (!(*inputs = calloc(args->input_text_count, sizeof **inputs))) {
        fprintf(stderr, "clstencil filter: out of memory\n");
        return EXIT_FAILURE_;
    }
    for (size_t k = 0; k < args->input_text_count; ++k) {
        ++*count;
        const int code = read_one(args->input_texts[k], in, &(*inputs)[k]);
        if (code != EXIT_OK_) {
            filter_inputs_free(*inputs, *count);
            *inputs = NULL;
            *count = 0;
            return code;
        }
    }
    return EXIT_OK_;
}

int filter_input_exit_code(int image_status)
{
    switch (image_status) {
    case IMAGE_ERR_MISSING:
    case IMAGE_ERR_UNREADABLE: return EXIT_INPUT_MISSING;
    case IMAGE_ERR_CORRUPT: return EXIT_INPUT_CORRUPT;
    case IMAGE_ERR_RESOURCE: return EXIT_OUTPUT;
    default: return EXIT_INPUT_UNSUPPORTED;
    }
}
