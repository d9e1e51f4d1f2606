/* cli.h — the one command-line parser of every clstencil subcommand, on glibc's getopt_long:
 * -h/--help everywhere, --name=value and --name value, short letters for the common options,
 * unique abbreviations of long names, `--` ends the options. Errors name the option and what it
 * accepts, and the command exits with EXIT_USAGE. */
#ifndef CLS_TOOLS_CLI_H
#define CLS_TOOLS_CLI_H

#include <getopt.h>
#include <stddef.h>

/* One option of a command. */
typedef struct cli_option {
    const char *name;  /* the long name with its dashes: "--border" */
    char letter;       /* the short option ('b' for -b), or 0 */
    const char *value; /* what the value is, for messages ("WxH", "clamp, mirror, ..."); NULL: a flag */
} cli_option;

enum { CLI_MAX_OPTIONS = 64 };

/* What cli_next found. */
enum {
    CLI_END = -1,        /* no arguments left */
    CLI_POSITIONAL = -2, /* an argument that is not an option (in *value) */
    CLI_HELP = -3,       /* -h or --help */
    CLI_ERROR = -4,      /* a bad command line; the message is printed */
};

typedef struct cli_parser {
    const char *command; /* for messages: "clstencil gen" */
    const cli_option *options;
    size_t count;
    int argc;
    char **argv;
    int after_options; /* `--` was seen: the rest is positional */
    int next_positional;
    int last_positional; /* argv's index of the last CLI_POSITIONAL */
    char short_options[3 * CLI_MAX_OPTIONS + 8];   /* getopt_long's tables, built from OPTIONS */
    struct option long_options[CLI_MAX_OPTIONS + 2]; /* the options, --help and the end */
} cli_parser;

/* Prepares to parse argv[1..argc-1] (argv[0] is the command's name) against OPTIONS. */
void cli_init(cli_parser *p, const char *command, const cli_option *options, size_t count, int argc, char **argv);
/* The next option: its index in the table (its value in *value, NULL for a flag), or one of
 * CLI_END, CLI_POSITIONAL, CLI_HELP and CLI_ERROR. Positional arguments come in order. */
int cli_next(cli_parser *p, const char **value);
/* argv's index of the argument the last CLI_POSITIONAL returned. */
int cli_position(const cli_parser *p);
/* Prints "COMMAND: bad value 'VALUE' for OPTION (OPTION wants ...)" using the table's value text;
 * returns 0 so that a parser can `return cli_bad_value(...)`. */
int cli_bad_value(const cli_parser *p, const char *option, const char *value);
/* The table entry of a long name ("--border"), or NULL. */
const cli_option *cli_find(const cli_parser *p, const char *name);

#endif
