/* std_streams.h — standard input and output as `filter`'s IN and OUT ("-"): the stream spooled
 * through a temporary file, so the image readers and the atomic writer work as they do on files. */
#ifndef CLS_TOOLS_STD_STREAMS_H
#define CLS_TOOLS_STD_STREAMS_H

/* The file extension ("pgm", "ppm", "pfm", "tif") of an image that starts with these bytes, or
 * NULL when they start no format the command reads. */
const char *image_extension_of(const unsigned char *head, unsigned long size);
/* Copies standard input into a new temporary file named after its format; the path (malloc'd),
 * or NULL after a message with *code the exit code (input missing, unsupported, or a failure to
 * write the copy). */
char *stdin_spool(int *code);
/* A new temporary file's path with extension EXT for an output bound for standard output
 * (malloc'd; the file exists, empty), or NULL after a message. */
char *stdout_spool(const char *ext);
/* Copies the file PATH to standard output; 0, or -1 after a message. */
int stdout_copy(const char *path);

#endif
