/* Runs the built mblend binary from a test (the tests under tests/cli). */
#ifndef MB_TEST_CLI_UTIL_H
#define MB_TEST_CLI_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Runs CLI with args (NULL-terminated, without the program name), its stdout written to
 * the file out_path and its stderr to err_path (NULL: /dev/null). Returns the exit status,
 * -1 when the process did not exit; the test fails when the binary cannot be run. */
static inline int mb_test_exec_cli(const char *const *args, const char *out_path,
                                   const char *err_path)
{
    int argc = 0;
    while (args[argc])
        ++argc;
    char **argv = calloc((size_t)argc + 2, sizeof *argv);
    cr_assert_not_null(argv);
    argv[0] = (char *)CLI;
    for (int i = 0; i < argc; ++i)
        argv[i + 1] = (char *)args[i];
    fflush(NULL); /* nothing buffered in the test is written twice */
    pid_t pid = fork();
    cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fo = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        execv(CLI, argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    free(argv);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    cr_assert_neq(code, 127, "cannot run %s (built?)", CLI);
    return code;
}

/* stdout to out_path, stderr discarded; the process must exit. */
static inline int run_cli(const char *const *args, const char *out_path)
{
    int code = mb_test_exec_cli(args, out_path, NULL);
    cr_assert_geq(code, 0, "%s did not exit", CLI);
    return code;
}
#define RUN_TO(out, ...) run_cli((const char *const[]){__VA_ARGS__, NULL}, out)

#endif
