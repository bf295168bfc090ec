/* mblend: command-line front end. Dispatches to the subcommands listed in commands.def. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef CLI_VERSION
#define CLI_VERSION "unknown"
#endif

typedef struct command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out);
} command;

static const command commands[] = {
#define CLI_COMMAND(name, summary) {#name, summary, cmd_##name, cmd_##name##_usage},
#include "commands.def"
#undef CLI_COMMAND
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mblend <command> [options] [arguments]\n"
            "       mblend <command> --help\n"
            "       mblend --version\n"
            "\n"
            "Skeletal motion blending tools. Commands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; ++i)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "Exit status: 0 success, 1 usage error (unknown option, missing or malformed\n"
            "argument), 2 bad input (unreadable or malformed file, out-of-range request,\n"
            "output I/O error). Errors are printed on stderr as 'file:line:col: message'.\n");
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; ++i)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *first = argv[1];
    if (strcmp(first, "-h") == 0 || strcmp(first, "--help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0) {
        printf("mblend %s\n", CLI_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "help") == 0) { /* "mblend help [command]" */
        if (argc < 3) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        const command *c = find(argv[2]);
        if (!c) {
            fprintf(stderr, "mblend: unknown command '%s'\nTry 'mblend --help'.\n", argv[2]);
            return CLI_EXIT_USAGE;
        }
        c->usage(stdout);
        return CLI_EXIT_OK;
    }
    if (first[0] == '-') {
        fprintf(stderr, "mblend: unknown option '%s'\nTry 'mblend --help'.\n", first);
        return CLI_EXIT_USAGE;
    }
    const command *c = find(first);
    if (!c) {
        fprintf(stderr, "mblend: unknown command '%s'\nTry 'mblend --help'.\n", first);
        return CLI_EXIT_USAGE;
    }
    int rc = c->run(argc - 1, argv + 1);
    /* A full disk or closed pipe on stdout is an output I/O error. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mblend %s: error writing to standard output\n", c->name);
        if (rc == CLI_EXIT_OK)
            rc = CLI_EXIT_INPUT;
    }
    return rc;
}
