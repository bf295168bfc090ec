/* Runs the built mblend binary from a test (match, transition): stdout to a file, stderr
 * discarded; the exit status is returned. */
#ifndef MB_TEST_RUN_CLI_H
#define MB_TEST_RUN_CLI_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#define CLI MB_BINARY_DIR "/tools/mblend/mblend"

/* The tools are optional (MB_BUILD_TOOLS): without the binary the CLI tests are skipped,
 * visibly, not passed. */
static inline void need_cli(void)
{
    if (access(CLI, X_OK) != 0)
        cr_skip_test("%s not built (MB_BUILD_TOOLS=OFF?)", CLI);
}

static inline int run_cli(const char *const *args, const char *out_path)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        FILE *o = freopen(out_path, "w", stdout);
        FILE *q = freopen("/dev/null", "w", stderr);
        (void)o;
        (void)q;
        int argc = 0;
        while (args[argc])
            ++argc;
        char **argv = calloc((size_t)argc + 2, sizeof *argv);
        argv[0] = (char *)CLI;
        for (int i = 0; i < argc; ++i)
            argv[i + 1] = (char *)args[i];
        execv(CLI, argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    cr_assert(WIFEXITED(st));
    cr_assert_neq(WEXITSTATUS(st), 127, "cannot run %s (built?)", CLI);
    return WEXITSTATUS(st);
}
#define RUN(out, ...) run_cli((const char *const[]){__VA_ARGS__, NULL}, out)

#endif
