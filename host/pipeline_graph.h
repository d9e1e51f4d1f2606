/* pipeline_graph.h — a pipeline's images and stages (internal, host/pipeline*.c). A pipeline is
 * a graph: named inputs, then stages in the order they were added, each reading earlier images
 * by name (a stencil stage one, an element-wise stage up to four); the last stage is the output.
 * Its stencil stages are all 2-D operators, run on images, or all volumes' operators, run on
 * volumes (element-wise stages then voxel by voxel).
 * pipeline.c builds it, pipeline_run.c runs it. */
#ifndef CLS_PIPELINE_GRAPH_H
#define CLS_PIPELINE_GRAPH_H

#include "host.h"

#include "elementwise.h"

typedef enum node_kind { NODE_INPUT, NODE_STENCIL, NODE_ELEMENTWISE } node_kind;

typedef struct pipeline_node {
    node_kind kind;
    char name[CLS_IMAGE_NAME_MAX];
    cls_pixel_type type;                            /* of the image it holds */
    size_t operands[CLS_ELEMENTWISE_OPERANDS_MAX]; /* the nodes it reads */
    size_t operand_count;
    cls_filter *filter;        /* NODE_STENCIL */
    cl_program program;        /* NODE_ELEMENTWISE */
    cl_kernel kernel;
    char *expression;          /* NODE_ELEMENTWISE, owned */
    unsigned reach_x, reach_y; /* how far its pixels reach into the inputs */
    int undefined_border;      /* leaves border pixels unwritten: no stage may read it */
    int volume;                /* NODE_STENCIL: a volume's operator (mask_depth) */
} pipeline_node;

struct cls_pipeline {
    cls_context *context;
    pipeline_node *nodes; /* the inputs first, then the stages: stage k is node inputs + k */
    size_t count, capacity, inputs;
    cl_mem *temporaries;  /* the intermediate images, each a whole image of 4-byte pixels */
    size_t temporary_count, temporary_bytes;
};

#endif
