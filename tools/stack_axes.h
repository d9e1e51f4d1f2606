/* stack_axes.h — how a TIFF stack's pages make volumes. A plain stack is one volume of its pages.
 * An ImageJ hyperstack (channels=, slices=, frames= in its description; channel fastest, then
 * slice, then frame) and an OME-TIFF (SizeZ, SizeC, SizeT and DimensionOrder of its OME-XML
 * Pixels) are a volume per channel and time point, whose slices lie slice_step pages apart. */
#ifndef STACK_AXES_H
#define STACK_AXES_H

#include <stddef.h>

typedef struct stack_axes {
    size_t slices, channels, frames;             /* Z, C (pages, not samples of a page), T */
    size_t slice_step, channel_step, frame_step; /* pages between neighbours along each axis */
    const char *kind;                            /* "stack", "ImageJ hyperstack", "OME-TIFF" */
} stack_axes;

/* *axes for a file of PAGES pages of SAMPLES samples each whose first page's ImageDescription is
 * DESCRIPTION (NULL: none). 0, or -1 after writing why into ERROR when the description's axes do
 * not account for the pages (a different count, planes in other files, several images). */
int stack_axes_read(const char *description, size_t pages, size_t samples, stack_axes *axes, char *error,
                    size_t error_size);

#endif
