/* Runs the built tools from a test (the tests under tests/cli): the one process runner
 * (mb_test_exec), the mblend binary with captured output (mb_test_run_cli, RUN_TO), and
 * scratch folders. Files are read with mb_test_slurp (test_util.h). */
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

#include "test_util.h"

#define CLI MB_BINARY_DIR "/tools/mblend/mblend"

/* The tools are optional (MB_BUILD_TOOLS): without the binary the CLI tests are skipped,
 * visibly, not passed. */
static inline void need_cli(void)
{
    if (access(CLI, X_OK) != 0)
        cr_skip_test("%s not built (MB_BUILD_TOOLS=OFF?)", CLI);
}

/* Runs program with args (NULL-terminated, without the program name), its stdout written
 * to the file out_path and its stderr to err_path (NULL: /dev/null). Returns the exit
 * status, -1 when the process did not exit; the test fails when the program cannot be
 * run. */
static inline int mb_test_exec(const char *program, const char *const *args,
                               const char *out_path, const char *err_path)
{
    int argc = 0;
    while (args[argc])
        ++argc;
    char **argv = calloc((size_t)argc + 2, sizeof *argv);
    cr_assert_not_null(argv);
    argv[0] = (char *)program;
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
        execv(program, argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    free(argv);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    cr_assert_neq(code, 127, "cannot run %s (built?)", program);
    return code;
}

/* mb_test_exec of the mblend binary. */
static inline int mb_test_exec_cli(const char *const *args, const char *out_path,
                                   const char *err_path)
{
    return mb_test_exec(CLI, args, out_path, err_path);
}

/* stdout to out_path, stderr discarded; the process must exit. */
static inline int run_cli(const char *const *args, const char *out_path)
{
    int code = mb_test_exec_cli(args, out_path, NULL);
    cr_assert_geq(code, 0, "%s did not exit", CLI);
    return code;
}
#define RUN_TO(out, ...) run_cli((const char *const[]){__VA_ARGS__, NULL}, out)

/* A run of mblend with what it printed: code is the exit status (-1: killed by a signal);
 * out and err are NUL-terminated, freed by mb_test_run_free. */
typedef struct mb_test_run {
    int code;
    char *out;
    char *err;
} mb_test_run;

/* Runs mblend with args (NULL-terminated, without the program name), capturing stdout and
 * stderr through files in a private temporary folder (removed again). */
static inline mb_test_run mb_test_run_cli(const char *const *args)
{
    char dir[] = "/tmp/mb_test_run_XXXXXX";
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    char out_path[64], err_path[64];
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    snprintf(err_path, sizeof err_path, "%s/err", dir);
    mb_test_run r;
    r.code = mb_test_exec_cli(args, out_path, err_path);
    r.out = mb_test_slurp(out_path, NULL);
    r.err = mb_test_slurp(err_path, NULL);
    remove(out_path);
    remove(err_path);
    rmdir(dir);
    return r;
}

static inline void mb_test_run_free(mb_test_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* A fresh empty folder /tmp/mb_test_<tag>_XXXXXX for one test's files; the name lives in a
 * static buffer until the next call (each Criterion test runs in its own process). */
static inline const char *mb_test_scratch(const char *tag)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/mb_test_%s_XXXXXX", tag);
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    return dir;
}

/* Removes folder d and everything in it. */
static inline void mb_test_remove_dir(const char *d)
{
    char cmd[512];
    cr_assert_lt((size_t)snprintf(cmd, sizeof cmd, "rm -rf '%s'", d), sizeof cmd);
    cr_assert_eq(system(cmd), 0);
}

#endif
