/* filter_volume.h — a volume's operator over a TIFF stack's pages: the filter and the volumes the
 * pages make (filter_volume.c), run on the stack in memory (filter_volume_run, filter_run.h) or in
 * slabs of slices read from and written to the files (filter_volume_stream.c). */
#ifndef CLS_TOOLS_FILTER_VOLUME_H
#define CLS_TOOLS_FILTER_VOLUME_H

#include "filter_image.h"
#include "stack_axes.h"

/* One run's device side and the volumes of the stack. */
typedef struct volume_run {
    cls_context *context;
    cls_pipeline *pipeline; /* the plan's volume operators in order, f32 between them */
    stack_axes axes;
    size_t samples;         /* a page's channels: a volume each */
    unsigned reach;         /* the slices the stages reach on each side, together */
    int wraps;              /* the border along z is repeat: a slab reads around the ends */
    double context_ms, builds_ms, run_ms; /* host clock, for -v */
} volume_run;

/* The pipeline of the plan's volume operators for SHAPE's pixels (its first page's description
 * gives the volumes: exit 6 where it does not account for the pages). Prints what went wrong and
 * returns the exit code; volume_run_close frees what it made either way. */
int volume_run_open(const filter_plan *plan, const cls_host_image *shape, volume_run *run);
void volume_run_close(volume_run *run);
/* Output slices a slab may take on the device: each slice of its sub-volume holds an input and
 * an output slice (of IN_PITCH and OUT_PITCH bytes: in a hyperstack they span the other volumes'
 * pages), and the pipeline its own buffers for a sub-volume of WIDTH x HEIGHT and that many slices
 * (cls_pipeline_device_bytes: intermediate volumes, passes' temporaries, the FFT's tiles), within
 * the device memory the run may use (HOST_HELD: bytes of images a device sharing the host's memory
 * cannot have) and its largest buffer; DEPTH when the whole volume fits, 0 when not even one slice
 * with the reach on each side does. */
size_t volume_slab_slices(const volume_run *run, const filter_plan *plan, size_t in_pitch, size_t out_pitch,
                          size_t width, size_t height, size_t depth, uint64_t host_held);
/* Prints why not even one slice of WIDTH x HEIGHT fits; returns EXIT_OUTPUT. */
int volume_slab_refused(const volume_run *run, size_t width, size_t height);
/* Output slices [z0, z1) of one volume of DEPTH slices whose slices [lo, hi) lie in IN from
 * IN_FIRST, IN_PITCH bytes apart, into OUT's at OUT_FIRST, OUT_PITCH apart (the images hold those
 * slices alone: lo and hi are the sub-volume's first and end). */
cls_status volume_run_slab(const volume_run *run, const cls_host_image *shape, const void *in, size_t in_first,
                           size_t in_pitch, void *out, size_t out_first, size_t out_pitch, size_t slices, size_t z0,
                           size_t z1);
/* The volumes' line of -v. */
void volume_run_report(const volume_run *run, const filter_plan *plan, const cls_host_image *shape, size_t slab);

/* The stack of INPUT through the plan's volume operator into OUTPUT (written atomically) a slab of
 * slices at a time within HOST_BUDGET bytes, each read from and written to the files with the
 * slices its mask reaches; the same bytes as a run in memory. Prints what went wrong and returns
 * the exit code. */
int filter_volume_stream(const filter_args *args, const char *input, const char *output, uint64_t host_budget);

#endif
