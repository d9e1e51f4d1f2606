/* commands.h — the subcommands of the clstencil command and their shared exit codes. */
#ifndef CLS_TOOLS_COMMANDS_H
#define CLS_TOOLS_COMMANDS_H

#include <clstencil_tuning.h>
#include <json-c/json.h>

enum {
    EXIT_OK_ = 0,
    EXIT_USAGE = 1,     /* bad command line */
    EXIT_NO_DEVICE = 2, /* no OpenCL platform, or no device matches the selection */
    EXIT_FAILURE_ = 3,  /* OpenCL, build or database failure */
    /* clstencil filter's image files: */
    EXIT_INPUT_MISSING = 4,     /* the input does not exist or cannot be read (a folder, permissions) */
    EXIT_INPUT_CORRUPT = 5,     /* the input is corrupt or truncated */
    EXIT_INPUT_UNSUPPORTED = 6, /* a valid input in a layout or type that is not supported */
    EXIT_OUTPUT = 7, /* the output cannot be written, or a resource limit (memory, file size) stops the run */
};

int cmd_devices(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_filter(int argc, char **argv);

/* The capability record, database match and fingerprint of one device as a JSON object. */
json_object *device_to_json(const cls_device_caps *caps, const cls_device_db *db, int is_default);

/* Parses "WxH" (each side 1 to 2^20, digits only). */
int parse_size(const char *text, unsigned *width, unsigned *height);
/* Removes a folder and everything in it (temporary caches), not following links. */
void remove_folder(const char *path);
/* A monotonic clock in milliseconds, for the wall times that -v reports. */
double wall_ms(void);
/* Warns on stderr about an unknown CLSTENCIL_CACHE value or a cache folder the library does not
 * trust (and so bypasses); COMMAND names the subcommand. */
void cache_warning(const char *command);
/* TEXT cut to 60 characters, with bytes outside printable ASCII written as \xNN, into OUT. */
void printable_excerpt(const char *text, char *out, size_t size);
/* Records the selector of --device, so that a device that does not match is reported as the
 * option's (not CLSTENCIL_DEVICE's). */
void note_device_option(const char *selector);
/* Maps a library status to the command's exit code, after printing cls_last_error(). */
int report_failure(const char *command, cls_status status);
/* Prints the configuration files the context's creation skipped, one warning line each. */
void report_context_warnings(const char *command, const cls_context *context);

#endif
