/* stack_axes.c — a TIFF stack's volumes from its first page's description (stack_axes.h). */
#include "stack_axes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of "KEY=N" on a line of an ImageJ description; 0 when absent. */
static size_t imagej_count(const char *description, const char *key)
{
    char line_key[32];
    snprintf(line_key, sizeof line_key, "\n%s=", key);
    const char *at = strstr(description, line_key);
    return at ? strtoul(at + strlen(line_key), NULL, 10) : 0;
}

/* ImageJ's hyperstack order: channel, slice, frame. */
static int imagej_axes(const char *description, size_t pages, stack_axes *axes, char *error, size_t error_size)
{
    const size_t c = imagej_count(description, "channels"), z = imagej_count(description, "slices"),
                 t = imagej_count(description, "frames");
    if (!c && !z && !t) return 0; /* a plain stack */
    axes->channels = c ? c : 1;
    axes->slices = z ? z : 1;
    axes->frames = t ? t : 1;
    axes->channel_step = 1;
    axes->slice_step = axes->channels;
    axes->frame_step = axes->channels * axes->slices;
    axes->kind = "ImageJ hyperstack";
    if (axes->channels * axes->slices * axes->frames == pages) return 0;
    snprintf(error, error_size,
             "its ImageJ description gives %zu channel%s x %zu slice%s x %zu frame%s, but the file has %zu page%s",
             axes->channels, axes->channels == 1 ? "" : "s", axes->slices, axes->slices == 1 ? "" : "s",
             axes->frames, axes->frames == 1 ? "" : "s", pages, pages == 1 ? "" : "s");
    return -1;
}

/* The element of the OME-XML named NAME (with or without a namespace prefix), or NULL. */
static const char *ome_element(const char *xml, const char *name)
{
    char plain[32], prefixed[32];
    snprintf(plain, sizeof plain, "<%s ", name);
    snprintf(prefixed, sizeof prefixed, ":%s ", name);
    const char *at = strstr(xml, plain);
    if (at) return at;
    at = strstr(xml, prefixed);
    return at && at > xml && strchr(at, '>') ? at : NULL;
}

/* ATTRIBUTE="..." of the element at ELEMENT into VALUE; 0 when absent. */
static int ome_attribute(const char *element, const char *attribute, char *value, size_t size)
{
    const char *end = strchr(element, '>');
    char pattern[40];
    snprintf(pattern, sizeof pattern, " %s=\"", attribute);
    const char *at = strstr(element, pattern);
    if (!at || (end && at > end)) return 0;
    at += strlen(pattern);
    const size_t length = strcspn(at, "\"");
    if (length >= size) return 0;
    memcpy(value, at, length);
    value[length] = '\0';
    return 1;
}

static size_t ome_size(const char *pixels, const char *attribute)
{
    char value[32];
    return ome_attribute(pixels, attribute, value, sizeof value) ? strtoul(value, NULL, 10) : 0;
}

/* The OME-XML's one image: its sizes, and the page steps from DimensionOrder (XY then the three
 * others fastest first). Samples of a page are channels of the OME model (an RGB page is 3). */
static int ome_axes(const char *xml, size_t pages, size_t samples, stack_axes *axes, char *error, size_t error_size)
{
    const char *image = ome_element(xml, "Image");
    const char *pixels = image ? ome_element(image, "Pixels") : NULL;
    char order[16];
    if (!pixels || !ome_attribute(pixels, "DimensionOrder", order, sizeof order) || strlen(order) != 5 ||
        strncmp(order, "XY", 2) != 0) {
        snprintf(error, error_size, "its OME-XML has no Pixels element with a DimensionOrder of XY and Z, C, T");
        return -1;
    }
    if (ome_element(image + 1, "Image")) {
        snprintf(error, error_size, "its OME-XML holds several images (series): give one image a file");
        return -1;
    }
    const size_t z = ome_size(pixels, "SizeZ"), c = ome_size(pixels, "SizeC"), t = ome_size(pixels, "SizeT");
    axes->slices = z;
    axes->frames = t;
    axes->channels = c && samples > 1 && c % samples == 0 ? c / samples : c;
    axes->kind = "OME-TIFF";
    size_t step = 1;
    for (int k = 2; k < 5; ++k) {
        size_t *axis_step = order[k] == 'Z' ? &axes->slice_step : order[k] == 'C' ? &axes->channel_step
                            : order[k] == 'T' ? &axes->frame_step : NULL;
        const size_t size = order[k] == 'Z' ? axes->slices : order[k] == 'C' ? axes->channels : axes->frames;
        if (!axis_step) break;
        *axis_step = step;
        step *= size;
    }
    if (z && c && t && axes->slice_step && axes->channel_step && axes->frame_step && step == pages) return 0;
    snprintf(error, error_size,
             "its OME-XML gives SizeZ %zu, SizeC %zu, SizeT %zu in order %s, which the file's %zu page%s do not "
             "hold (planes in other files?): give the planes of one image in one file",
             z, c, t, order, pages, pages == 1 ? "" : "s");
    return -1;
}

int stack_axes_read(const char *description, size_t pages, size_t samples, stack_axes *axes, char *error,
                    size_t error_size)
{
    *axes = (stack_axes){.slices = pages, .channels = 1, .frames = 1, .slice_step = 1, .channel_step = pages,
                         .frame_step = pages, .kind = "stack"};
    if (!description) return 0;
    if (strncmp(description, "ImageJ=", 7) == 0) return imagej_axes(description, pages, axes, error, error_size);
    if (strstr(description, "<OME") || strstr(description, ":OME ")) {
        *axes = (stack_axes){0};
        return ome_axes(description, pages, samples, axes, error, error_size);
    }
    return 0;
}
