/* cli.c — the command-line parser of every subcommand (see cli.h): a table of options turned
 * into getopt_long's tables, and getopt's silent failures turned into messages that name the
 * option and what it accepts. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

enum { LONG_BASE = 256 }; /* getopt_long returns LONG_BASE + index for a long option */

void cli_init(cli_parser *p, const char *command, const cli_option *options, size_t count, int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->command = command;
    p->options = options;
    p->count = count < CLI_MAX_OPTIONS ? count : CLI_MAX_OPTIONS;
    p->argc = argc;
    p->argv = argv;
    /* '-': non-options come back in order (code 1), nothing is permuted; ':': a missing value
     * is ':', not '?'. */
    size_t n = 0;
    p->short_options[n++] = '-';
    p->short_options[n++] = ':';
    p->short_options[n++] = 'h';
    for (size_t i = 0; i < p->count; ++i) {
        const cli_option *o = &options[i];
        p->long_options[i] = (struct option){o->name + 2, o->value ? required_argument : no_argument, NULL,
                                             LONG_BASE + (int)i};
        if (o->letter) {
            p->short_options[n++] = o->letter;
            if (o->value) p->short_options[n++] = ':';
        }
    }
    p->short_options[n] = '\0';
    p->long_options[p->count] = (struct option){"help", no_argument, NULL, 'h'};
    p->long_options[p->count + 1] = (struct option){NULL, 0, NULL, 0};
    optind = 0; /* glibc: start afresh (another command line may have been parsed before) */
    opterr = 0; /* the messages are ours */
}

const cli_option *cli_find(const cli_parser *p, const char *name)
{
    for (size_t i = 0; i < p->count; ++i)
        if (strcmp(p->options[i].name, name) == 0) return &p->options[i];
    return NULL;
}

static int index_of_letter(const cli_parser *p, int letter)
{
    for (size_t i = 0; i < p->count; ++i)
        if (p->options[i].letter == letter) return (int)i;
    return -1;
}

/* The option a value belongs to, as the user wrote it ("--mask" or "-o"). */
static void option_text(const cli_parser *p, int letter, char *out, size_t size)
{
    const char *text = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
    if (letter && letter < LONG_BASE && strncmp(text, "--", 2) != 0) snprintf(out, size, "-%c", letter);
    else snprintf(out, size, "%.*s", (int)strcspn(text, "="), text);
}

/* A long option getopt refused: unknown, ambiguous, or a flag given a value. */
static int long_refused(const cli_parser *p, const char *text)
{
    const size_t length = strcspn(text + 2, "=");
    char matches[512] = "";
    size_t found = 0, used = 0;
    for (size_t i = 0; i <= p->count; ++i) {
        const char *name = p->long_options[i].name;
        if (strncmp(name, text + 2, length) != 0) continue;
        if (strlen(name) == length) { /* exact: a flag given a value */
            fprintf(stderr, "%s: --%s takes no value (not '%s')\n", p->command, name, text + 2 + length + 1);
            return CLI_ERROR;
        }
        used += (size_t)snprintf(matches + used, used < sizeof matches ? sizeof matches - used : 0, "%s--%s",
                                 found ? ", " : "", name);
        ++found;
    }
    if (found > 1)
        fprintf(stderr, "%s: ambiguous option '%.*s' (it could be %s)\n", p->command, (int)length + 2, text, matches);
    else if (found == 1 && text[2 + length] == '=')
        fprintf(stderr, "%s: option '%.*s' takes no value\n", p->command, (int)length + 2, text);
    else
        fprintf(stderr, "%s: unknown option '%.*s' (%s --help lists the options)\n", p->command, (int)length + 2, text,
                p->command);
    return CLI_ERROR;
}

static int refused(const cli_parser *p)
{
    const char *text = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
    if (strncmp(text, "--", 2) == 0) return long_refused(p, text);
    fprintf(stderr, "%s: unknown option '-%c' (%s --help lists the options)\n", p->command, optopt, p->command);
    return CLI_ERROR;
}

int cli_next(cli_parser *p, const char **value)
{
    *value = NULL;
    if (p->after_options) {
        if (p->next_positional >= p->argc) return CLI_END;
        p->last_positional = p->next_positional;
        *value = p->argv[p->next_positional++];
        return CLI_POSITIONAL;
    }
    const int c = getopt_long(p->argc, p->argv, p->short_options, p->long_options, NULL);
    if (c == -1) { /* the end, or `--` (the rest is positional) */
        p->after_options = 1;
        p->next_positional = optind;
        return cli_next(p, value);
    }
    if (c == 1) {
        p->last_positional = optind - 1;
        *value = optarg;
        return CLI_POSITIONAL;
    }
    if (c == 'h') return CLI_HELP;
    const int index = c >= LONG_BASE ? c - LONG_BASE : c == ':' || c == '?' ? -1 : index_of_letter(p, c);
    if (index >= 0) {
        *value = optarg;
        return index;
    }
    if (c == ':') {
        char name[128];
        const int letter_index = index_of_letter(p, optopt);
        option_text(p, optopt, name, sizeof name);
        const int known = optopt >= LONG_BASE ? optopt - LONG_BASE : letter_index;
        const char *wants = known >= 0 ? p->options[known].value : NULL;
        fprintf(stderr, "%s: %s needs a value%s%s%s\n", p->command, name, wants ? " (" : "", wants ? wants : "",
                wants ? ")" : "");
        return CLI_ERROR;
    }
    return refused(p);
}

int cli_position(const cli_parser *p) { return p->last_positional; }

int cli_bad_value(const cli_parser *p, const char *option, const char *value)
{
    const cli_option *o = cli_find(p, option);
    fprintf(stderr, "%s: bad value '%s' for %s", p->command, value, option);
    if (o && o->value) fprintf(stderr, " (%s wants %s)", option, o->value);
    fprintf(stderr, "\n");
    return 0;
}
