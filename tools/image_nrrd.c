/* image_nrrd.c — NRRD (Teem, 3D Slicer): "NRRD000N", then "field: value" lines (and "key:=value"
 * pairs, "#" comments) up to an empty line, the voxels after it (.nrrd) or in the file its "data
 * file" names (.nhdr). Read: raw encoding, 2 or 3 spatial axes, a first axis of 1 to 4 channels
 * where its kind is not a domain one, uchar, ushort, short, float or double (as f32), either
 * endianness. Written: .nrrd, little-endian, with an NRRD input's other lines (space, directions,
 * origin, spacings, key/value pairs) carried. */
#include "image_raw.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct { const char *name; cls_pixel_type type; size_t bytes; } sample_types[] = {
    {"uchar", CLS_PIXEL_U8, 1},     {"unsigned char", CLS_PIXEL_U8, 1}, {"uint8", CLS_PIXEL_U8, 1},
    {"uint8_t", CLS_PIXEL_U8, 1},   {"ushort", CLS_PIXEL_U16, 2},       {"unsigned short", CLS_PIXEL_U16, 2},
    {"unsigned short int", CLS_PIXEL_U16, 2}, {"uint16", CLS_PIXEL_U16, 2}, {"uint16_t", CLS_PIXEL_U16, 2},
    {"short", CLS_PIXEL_I16, 2},    {"short int", CLS_PIXEL_I16, 2},    {"signed short", CLS_PIXEL_I16, 2},
    {"signed short int", CLS_PIXEL_I16, 2}, {"int16", CLS_PIXEL_I16, 2}, {"int16_t", CLS_PIXEL_I16, 2},
    {"float", CLS_PIXEL_F32, 4},    {"double", CLS_PIXEL_F32, 8},
};

/* The fields this reader interprets and the writer writes anew; other lines are carried. */
static int structural(const char *field)
{
    static const char *fields[] = {"type", "dimension", "sizes", "endian", "encoding", "data file", "datafile",
                                   "byte skip", "byteskip", "line skip", "lineskip", "kinds"};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k)
        if (strcasecmp(field, fields[k]) == 0) return 1;
    return 0;
}

typedef struct header {
    size_t dimension, sizes[4];
    const char *type, *encoding, *endian, *data_file, *kinds;
    long byte_skip, line_skip;
    size_t data_offset; /* after the empty line */
} header;

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') ++s;
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) *--end = '\0';
    return s;
}

/* Interprets one header line, "field: value", or carries it (a key:=value pair, a field it does
 * not interpret) into CARRIED; comments are dropped. */
static void read_line(char *content, header *h, char *carried)
{
    char *colon = strstr(content, ":=") ? NULL : strstr(content, ": ");
    if (content[0] == '#') return;
    if (!colon) { /* a key:=value pair */
        strcat(strcat(carried, content), "\n");
        return;
    }
    *colon = '\0';
    char *field = trim(content), *value = trim(colon + 2);
    if (strcasecmp(field, "dimension") == 0) h->dimension = strtoul(value, NULL, 10);
    else if (strcasecmp(field, "sizes") == 0)
        for (size_t k = 0; k < 4 && *value; ++k) h->sizes[k] = strtoul(value, &value, 10);
    else if (strcasecmp(field, "type") == 0) h->type = value;
    else if (strcasecmp(field, "encoding") == 0) h->encoding = value;
    else if (strcasecmp(field, "endian") == 0) h->endian = value;
    else if (strcasecmp(field, "data file") == 0 || strcasecmp(field, "datafile") == 0) h->data_file = value;
    else if (strcasecmp(field, "byte skip") == 0 || strcasecmp(field, "byteskip") == 0) h->byte_skip = strtol(value, NULL, 10);
    else if (strcasecmp(field, "line skip") == 0 || strcasecmp(field, "lineskip") == 0) h->line_skip = strtol(value, NULL, 10);
    else if (strcasecmp(field, "kinds") == 0) h->kinds = value;
    else if (!structural(field)) strcat(strcat(strcat(strcat(carried, field), ": "), value), "\n");
}

/* Parses TEXT's header (LENGTH bytes read) into *h, up to the empty line that ends it. */
static int parse(char *text, size_t length, header *h, char *carried, const char *path, char *error, size_t error_size)
{
    *h = (header){0};
    char *line = strncmp(text, "NRRD000", 7) == 0 ? memchr(text, '\n', length) : NULL;
    if (!line) return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "no NRRD magic line");
    for (++line; (size_t)(line - text) < length;) {
        char *next = memchr(line, '\n', length - (size_t)(line - text));
        if (next) *next = '\0';
        char *content = trim(line);
        if (!*content) { /* the empty line: the header ends, the voxels follow */
            h->data_offset = next ? (size_t)(next - text) + 1 : length;
            return IMAGE_OK;
        }
        read_line(content, h, carried);
        if (!next) break;
        line = next + 1;
    }
    if (h->data_file) return IMAGE_OK; /* a detached header may end without the empty line */
    return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "the header does not end (no empty line)");
}

/* Whether KINDS's first names a non-spatial axis (channels): vector, RGB-color, 3-color, ... */
static int channel_axis(const char *kinds)
{
    if (!kinds) return 0;
    const size_t n = strcspn(kinds, " \t");
    return !(n == 6 && strncasecmp(kinds, "domain", 6) == 0) && !(n == 5 && strncasecmp(kinds, "space", 5) == 0) &&
           !(n == 4 && strncasecmp(kinds, "time", 4) == 0) && !(n == 3 && strncmp(kinds, "???", 3) == 0);
}

static int layout_of(const header *h, raw_layout *l, const char *path, char *error, size_t error_size)
{
    if (!h->encoding || strcasecmp(h->encoding, "raw") != 0)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "encoding %s: only raw voxels are read (write it with `unu save -e raw`)",
                          h->encoding ? h->encoding : "(none)");
    if (h->line_skip)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "a line skip of %ld is not read", h->line_skip);
    const size_t channels = channel_axis(h->kinds) ? h->sizes[0] : 1, first = channels > 1 || channel_axis(h->kinds);
    const size_t spatial = h->dimension - first;
    if (h->dimension > 4 || spatial < 2 || spatial > 3)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "dimension %zu%s: 2 or 3 spatial axes are read, with a first axis of channels", h->dimension,
                          first ? " (a channel axis)" : "");
    if (channels < 1 || channels > IMAGE_MAX_CHANNELS)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "%zu channels: 1 to %d are read", channels,
                          IMAGE_MAX_CHANNELS);
    *l = (raw_layout){.width = h->sizes[first], .height = h->sizes[first + 1],
                      .depth = spatial == 3 ? h->sizes[first + 2] : 1, .channels = channels};
    if (!l->width || !l->height || !l->depth)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "sizes of 0 voxels");
    for (size_t k = 0; h->type && k < sizeof sample_types / sizeof sample_types[0]; ++k)
        if (strcasecmp(h->type, sample_types[k].name) == 0) {
            l->type = sample_types[k].type;
            l->file_bytes = sample_types[k].bytes;
        }
    if (!l->file_bytes)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "type %s: uchar, ushort, short, float and double are read", h->type ? h->type : "(none)");
    if (l->file_bytes > 1 && !h->endian)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "no endian field for samples of %zu bytes",
                          l->file_bytes);
    l->big_endian = h->endian && strcasecmp(h->endian, "big") == 0;
    return IMAGE_OK;
}

/* NRRD's raw_header_reader. */
static int read_header(char *text, size_t length, char *carried, raw_source *source, const char *path, char *error,
                       size_t error_size)
{
    header h = {0};
    int status = parse(text, length, &h, carried, path, error, error_size);
    if (status == IMAGE_OK) status = layout_of(&h, &source->layout, path, error, error_size);
    if (status == IMAGE_OK && h.data_file && strchr(h.data_file, '%'))
        status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                            "data file %s (a file a slice) is not read: one data file", h.data_file);
    source->data_file = h.data_file;
    source->offset = (h.data_file ? 0 : h.data_offset) + (h.byte_skip > 0 ? (uint64_t)h.byte_skip : 0);
    source->at_end = h.byte_skip == -1;
    return status;
}

int image_nrrd_read(int fd, const char *path, uint64_t file_size, cls_host_image *out, char *error, size_t error_size)
{
    return raw_read_headed(fd, file_size, IMAGE_FORMAT_NRRD, read_header, 1, path, out, error, error_size);
}

static void write_header(FILE *file, const cls_host_image *image)
{
    const char *type = image->type == CLS_PIXEL_U8    ? "uint8"
                       : image->type == CLS_PIXEL_U16 ? "uint16"
                       : image->type == CLS_PIXEL_I16 ? "int16"
                       : image->type == CLS_PIXEL_F64 ? "double"
                                                      : "float";
    const size_t depth = image->pages ? image->pages : 1, channels = image->channels ? image->channels : 1;
    const int spatial = depth > 1 ? 3 : 2, vector = channels > 1;
    fprintf(file, "NRRD0004\n# written by clstencil\ntype: %s\ndimension: %d\nsizes:", type, spatial + vector);
    if (vector) fprintf(file, " %zu", channels);
    fprintf(file, " %zu %zu", image->width, image->height);
    if (depth > 1) fprintf(file, " %zu", depth);
    fprintf(file, "\nkinds:%s domain domain%s\nendian: little\nencoding: raw\n", vector ? " vector" : "",
            depth > 1 ? " domain" : "");
    const char *carried = raw_carried(image, IMAGE_FORMAT_NRRD);
    fprintf(file, "%s\n", carried ? carried : "");
}

int image_nrrd_write(int fd, const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    return raw_write(fd, path, image, write_header, error, error_size);
}
