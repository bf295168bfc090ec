/* mblend skin CLIP -o OUT.obj|OUT.glb: skinned frames as OBJ files, or skeleton + mesh +
 * animation as binary glTF. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_output.h"
#include "render.h"

void cmd_skin_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend skin CLIP [--mesh MESH | --auto-mesh] [--method lbs|dqs]\n"
            "                   [--frames A:B:STEP] [--scale S] -o OUT.obj|OUT.glb\n"
            "\n"
            "Skin a clip's frames onto a mesh and write them out.\n"
            "\n"
            "CLIP is a BVH file (for example a blend result), or a glTF/GLB, FBX, Collada or\n"
            "DirectX .x file read through assimp: file.glb#Walk picks the animation named Walk\n"
            "(default: the first).\n"
            "\n"
            "The mesh is, by default, the file's own skinned mesh; a BVH file has none, so a\n"
            "skin is generated from its skeleton (a capsule around every bone, weights\n"
            "blending smoothly across the joints).\n"
            "  --mesh MESH        skin onto MESH's mesh (glTF/FBX/...): the clip is mapped onto\n"
            "                     MESH's skeleton by joint name; unmatched joints keep their\n"
            "                     bind pose and are listed on stderr\n"
            "  --auto-mesh        use a generated capsule skin even when the file has a mesh\n"
            "  --method lbs|dqs   linear blend (default) or dual-quaternion skinning (keeps\n"
            "                     volume at twisted joints); for OBJ output\n"
            "  --frames A:B:STEP  frames A, A+STEP, ... below B (frames count from 0; each part\n"
            "                     optional: A = 0, B = the frame count, STEP = 1; 'N' alone is\n"
            "                     frame N). Default: every frame\n"
            "  --scale S          glTF only: scale the scene by S (e.g. 0.01 for a BVH in cm,\n"
            "                     as viewers expect metres); default 1\n"
            "  -o, --output OUT   OUT.obj: one OBJ file per frame, OUT_0010.obj for frame 10\n"
            "                     (OUT.obj itself when a single frame is asked for);\n"
            "                     OUT.glb: one binary glTF with the skeleton, the mesh, its\n"
            "                     skin and the frames as one animation (glTF viewers skin\n"
            "                     with LBS; --method does not apply)\n"
            "  --lenient          accept a BVH Frames line that disagrees with the data\n"
            "  -h, --help         show this help\n"
            "\n"
            "examples:\n"
            "  mblend skin out/jog.bvh --frames 0:10 -o jog.obj       # jog_0000.obj ... _0009\n"
            "  mblend skin Fox.glb#Run --method dqs --frames 5 -o fox.obj\n"
            "  mblend skin out/jog.bvh --scale 0.01 -o jog.glb\n");
}

enum { OPT_MESH = 1, OPT_AUTO };


/* The frames [first, end) every step of a clip as a new clip (frame time * step). */
static mb_status sub_clip(const mb_clip *c, long first, long end, long step, mb_clip **out)
{
    int nj = mb_clip_joint_count(c), nt = mb_clip_translation_count(c);
    long n = (end - first + step - 1) / step;
    const float *rot = mb_clip_rotations(c), *tr = mb_clip_translations(c);
    float *r = malloc((size_t)n * (size_t)nj * 4 * sizeof(float));
    float *t = nt > 0 ? malloc((size_t)n * (size_t)nt * 3 * sizeof(float)) : NULL;
    mb_status st = MB_NOMEM;
    if (r && (nt == 0 || t)) {
        for (long i = 0; i < n; ++i) {
            size_t f = (size_t)(first + i * step);
            memcpy(&r[(size_t)i * (size_t)nj * 4], &rot[f * (size_t)nj * 4], (size_t)nj * 4 * sizeof(float));
            if (nt > 0)
                memcpy(&t[(size_t)i * (size_t)nt * 3], &tr[f * (size_t)nt * 3], (size_t)nt * 3 * sizeof(float));
        }
        mb_clip_desc d;
        memset(&d, 0, sizeof d);
        d.joint_count = nj;
        d.frame_count = (int)n;
        d.frame_time = mb_clip_frame_time(c) * (double)step;
        d.rotations = r;
        d.translation_joints = mb_clip_translation_joints(c);
        d.translation_count = nt;
        d.translations = t;
        st = mb_clip_create(&d, out, NULL);
    }
    free(r);
    free(t);
    return st;
}

/* Frame f's output name as given in out (MB_FILE_PATH_MAX bytes): OUT.obj for f < 0 (one
 * frame), OUT_0010.obj otherwise. Returns 0, or -1 with errno set. */
static int frame_name(char *out, const char *outp, size_t base_len, int digits, long f)
{
    int m = f < 0 ? snprintf(out, MB_FILE_PATH_MAX, "%s", outp)
                  : snprintf(out, MB_FILE_PATH_MAX, "%.*s_%0*ld%s", (int)base_len, outp, digits, f,
                             outp + base_len);
    if (m < 0 || m >= MB_FILE_PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* One frame file of a sequence: where it lands (symbolic links followed), that entry's
 * identity (its folder's device and inode and its name there: two spellings of one path,
 * through "..", an absolute link or a folder alias, are one file), and its staging file. */
typedef struct frame_out {
    char *target;
    const char *base;  /* the name within its folder, in target */
    int have_id;       /* the folder exists: dev and ino identify it */
    dev_t dev;
    ino_t ino;
    char *staged;      /* reserved with O_EXCL once the frame is written; NULL before */
} frame_out;

static int cmp_frame_out(const void *a, const void *b)
{
    const frame_out *x = *(const frame_out *const *)a, *y = *(const frame_out *const *)b;
    if (x->have_id != y->have_id)
        return x->have_id - y->have_id;
    if (!x->have_id)
        return strcmp(x->target, y->target);
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return strcmp(x->base, y->base);
}

/* Fills fo's identity from fo->target. */
static void frame_identity(frame_out *fo)
{
    const char *slash = strrchr(fo->target, '/');
    char dir[MB_FILE_PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == fo->target)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - fo->target), fo->target);
    fo->base = slash ? slash + 1 : fo->target;
    struct stat st;
    fo->have_id = stat(dir, &st) == 0;
    fo->dev = fo->have_id ? st.st_dev : 0;
    fo->ino = fo->have_id ? st.st_ino : 0;
}

/* Reserves a staging file beside target: TARGET.partial.PID.N, created with O_EXCL so that
 * no existing file (a user's, or another frame's target) is ever taken. Returns the
 * malloc'd name, or NULL with errno set. */
static char *reserve_staging(const char *target)
{
    static unsigned long counter;
    char *out = malloc(MB_FILE_PATH_MAX + 48);
    if (!out)
        return NULL;
    for (int attempt = 0; attempt < 100; ++attempt) {
        snprintf(out, MB_FILE_PATH_MAX + 48, "%s.partial.%ld.%lu", target, (long)getpid(), counter++);
        int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            close(fd);
            return out;
        }
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    free(out);
    errno = saved;
    return NULL;
}

/* A signal (Ctrl-C, a kill) while `skin -o OUT.obj` writes its frames: the handler only
 * notes it; the frame loop stops after the frame in hand and removes the staged files, as
 * for a failure, then the signal is raised again with its default action. */
static volatile sig_atomic_t g_stop;

static void note_stop(int sig) { g_stop = sig; }

/* What the command line asks for. */
typedef struct skin_args {
    const char *clip, *outp, *frames_text;
    cli_src_opts so;
    mb_skin_method method;
    float scale;
    int glb;  /* OUT.glb (else OUT.obj frames) */
    int help; /* --help was given (and printed) */
} skin_args;

/* Parses and checks the command line; returns an CLI_EXIT_* code (CLI_EXIT_OK with help set
 * when --help was printed). */
static int parse_args(const char *cmd, int argc, char **argv, skin_args *o)
{
    static const cli_opt opts[] = {CLI_OPTION_OUTPUT,
                                      {"mesh", 0, 1, OPT_MESH},
                                      {"auto-mesh", 0, 0, OPT_AUTO},
                                      CLI_OPTION_METHOD,
                                      CLI_OPTION_FRAMES,
                                      CLI_OPTION_SCALE,
                                      CLI_OPTION_LENIENT,
                                      {NULL, 0, 0, 0}};
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    memset(o, 0, sizeof *o);
    o->method = MB_SKIN_LBS;
    int id, rc = CLI_EXIT_OK;
    while (rc == CLI_EXIT_OK && (id = cli_next(&a, opts)) != CLI_END) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: cmd_skin_usage(stdout); o->help = 1; return CLI_EXIT_OK;
        case CLI_OPT_OUTPUT: rc = cli_take_output(cmd, a.arg, &o->outp); break;
        case OPT_MESH: o->so.mesh_path = a.arg; break;
        case OPT_AUTO: o->so.auto_mesh = 1; break;
        case CLI_OPT_LENIENT: o->so.lenient = 1; break;
        case CLI_OPT_FRAMES: o->frames_text = a.arg; break;
        case CLI_OPT_METHOD: rc = cli_take_skin_method(cmd, a.arg, &o->method); break;
        case CLI_OPT_SCALE: rc = cli_take_scale(cmd, a.arg, &o->scale); break;
        case CLI_OPERAND:
            if (o->clip)
                return cli_usage_error(cmd, "unexpected argument '%s' (one CLIP only)", a.arg);
            o->clip = a.arg;
            break;
        default: break;
        }
    }
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!o->clip)
        return cli_usage_error(cmd, "missing CLIP");
    static const char *const exts[] = {".obj", ".glb", NULL}; /* glb = 1 */
    if ((rc = cli_take_output_kind(cmd, o->outp, exts, &o->glb)) != CLI_EXIT_OK)
        return rc;
    if (o->so.mesh_path && o->so.auto_mesh)
        return cli_usage_error(cmd, "give one of --mesh and --auto-mesh");
    if ((rc = cli_check_scale(cmd, o->scale, o->glb)) != CLI_EXIT_OK)
        return rc;
    /* the input's file part for the check; a malformed spec is reported when it is opened */
    char file[MB_SOURCE_FILE_MAX + 1], anim[MB_SOURCE_ANIM_MAX + 1];
    int split = mb_source_split(o->clip, file, sizeof file, anim, sizeof anim, NULL) == MB_OK;
    const char *files[2] = {split ? file : NULL, o->so.mesh_path};
    return cli_check_output(cmd, o->outp, files, 2);
}

/* The frames first, first + step, ... < end, one binary glTF: skeleton, mesh, skin and
 * the frames as one animation. */
static int write_glb(const char *cmd, const skin_args *o, const cli_src *s, long first, long end,
                     long step)
{
    long n = (end - first + step - 1) / step;
    mb_clip *sub = NULL;
    mb_status st = sub_clip(s->clip, first, end, step, &sub);
    if (st != MB_OK)
        return cli_input_error(cmd, "%s: %s", o->clip, mb_status_str(st));
    mb_gltf_write_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.skeleton = s->skel;
    gd.mesh = s->mesh;
    gd.clip = sub;
    gd.clip_name = s->clip_name;
    gd.scale = o->scale;
    gd.up_axis = s->up; /* a Z-up BVH is turned to glTF's +Y */
    /* the materials and UVs of the scene the mesh comes from (none for a generated skin) */
    gd.look = s->scene && s->mesh == mb_scene_mesh(s->scene) ? mb_scene_look(s->scene)
              : s->mesh_scene && s->mesh == mb_scene_mesh(s->mesh_scene) ? mb_scene_look(s->mesh_scene)
                                                                          : NULL;
    mb_error err; /* the frames asked for, as they are: no loop is closed */
    st = mb_gltf_write_file(o->outp, &gd, &err);
    mb_clip_destroy(sub);
    if (st != MB_OK) {
        cli_print_error(&err);
        return CLI_EXIT_INPUT;
    }
    fprintf(stderr, "%s: wrote %s: %d vertices, %d triangles, %d joints, %ld frames at %.4g fps\n",
            cmd, o->outp, mb_mesh_vertex_count(s->mesh), mb_mesh_triangle_count(s->mesh),
            mb_skeleton_joint_count(s->skel), n, 1.0 / (mb_clip_frame_time(s->clip) * (double)step));
    return CLI_EXIT_OK;
}

/* A sequence of OBJ frames being written: OUT_0010.obj per frame (OUT.obj for one). */
typedef struct frame_seq {
    const char *outp;
    size_t base_len;   /* outp without ".obj" */
    int digits;
    long first, step, n;
    frame_out *fo;     /* n entries */
    frame_out **sorted;
    char *path, *name; /* MB_FILE_PATH_MAX bytes each */
} frame_seq;

/* Frame i's name as given into seq->name (OUT.obj when the sequence has one frame). */
static void seq_name(frame_seq *q, long i)
{
    frame_name(q->name, q->outp, q->base_len, q->digits, q->n == 1 ? -1 : q->first + i * q->step);
}

/* Resolves every frame's target once, before anything is written, and refuses two
 * frames that would land in one file (links to one target, or to another frame's name,
 * however spelled): the second rename would fail after the first had replaced the file. */
static int resolve_targets(const char *cmd, frame_seq *q)
{
    int rc = CLI_EXIT_OK;
    for (long i = 0; i < q->n && rc == CLI_EXIT_OK; ++i) {
        long f = q->first + i * q->step;
        struct stat st;
        if (frame_name(q->name, q->outp, q->base_len, q->digits, q->n == 1 ? -1 : f) != 0 ||
            mb_file_resolve_links(q->name, q->path, MB_FILE_PATH_MAX, NULL) != MB_OK) {
            rc = cli_input_error(cmd, "cannot write frame %ld to '%s': %s", f, q->name, strerror(errno));
        } else if (!(q->fo[i].target = strdup(q->path))) {
            rc = cli_input_error(cmd, "out of memory");
        } else if (stat(q->path, &st) == 0 && !S_ISREG(st.st_mode)) {
            /* a name taken by a directory or device would fail the last step */
            int linked = strcmp(q->name, q->path) != 0;
            rc = cli_input_error(cmd, "'%s'%s%s%s exists and is not a regular file", q->name,
                                 linked ? " (a link to '" : "", linked ? q->path : "", linked ? "')" : "");
        } else {
            frame_identity(&q->fo[i]);
        }
        q->sorted[i] = &q->fo[i];
    }
    if (rc == CLI_EXIT_OK && q->n > 1) {
        qsort(q->sorted, (size_t)q->n, sizeof *q->sorted, cmp_frame_out);
        for (long i = 1; i < q->n && rc == CLI_EXIT_OK; ++i)
            if (cmp_frame_out(&q->sorted[i - 1], &q->sorted[i]) == 0) {
                long u = q->sorted[i - 1] - q->fo, v = q->sorted[i] - q->fo;
                rc = cli_input_error(cmd, "frames %ld and %ld would both be written to '%s' "
                                     "(symbolic links): nothing written",
                                     q->first + (u < v ? u : v) * q->step,
                                     q->first + (u < v ? v : u) * q->step, q->sorted[i]->target);
            }
    }
    return rc;
}

/* Skins and writes every frame to its own staging file (reserve_staging); stops at the
 * first failure or signal. *written counts the staging files made (to remove or rename). */
static int write_frames(const char *cmd, const skin_args *o, const cli_src *s, render_skinner *k,
                        frame_seq *q, long *written)
{
    int rc = CLI_EXIT_OK;
    for (long i = 0; i < q->n && rc == CLI_EXIT_OK; ++i) {
        long f = q->first + i * q->step;
        mb_status st = render_skinner_frame(k, s, (int)f, o->method);
        if (st != MB_OK) {
            rc = cli_input_error(cmd, "%s: frame %ld: %s", o->clip, f, mb_status_str(st));
            break;
        }
        mb_error err;
        seq_name(q, i);
        if (!(q->fo[i].staged = reserve_staging(q->fo[i].target))) {
            rc = cli_input_error(cmd, "frame %ld ('%s'): cannot create a staging file beside "
                                 "'%s': %s", f, q->name, q->fo[i].target, strerror(errno));
            break;
        }
        if (mb_obj_write_file(q->fo[i].staged, s->mesh, k->pos, k->nrm, &err) != MB_OK) {
            rc = cli_input_error(cmd, "frame %ld ('%s'): %s", f, q->name, err.text);
            *written = i + 1; /* its reserved staging file is removed below */
            break;
        }
        *written = i + 1;
        if (g_stop) {
            rc = CLI_EXIT_INPUT; /* the staged frames are removed below */
            break;
        }
    }
    return rc;
}

/* After write_frames: on success every staged frame is renamed into place, on failure
 * (rc) every one is removed. Returns the final code. */
static int commit_frames(const char *cmd, frame_seq *q, long written, int rc)
{
    for (long i = 0; i < written; ++i) {
        if (rc != CLI_EXIT_OK) {
            unlink(q->fo[i].staged);
            continue;
        }
        if (rename(q->fo[i].staged, q->fo[i].target) != 0) {
            seq_name(q, i);
            rc = cli_input_error(cmd, "cannot write '%s': %s", q->name, strerror(errno));
            unlink(q->fo[i].staged);
        }
    }
    return rc;
}

/* The frames as OBJ files. Every frame goes to its own staging file and the set is renamed
 * into place only once all are written: a failed run leaves files that existed before as
 * they were and no part of the new sequence. A frame's name that is a symbolic link keeps
 * the link: its target is written (as every mblend writer does). */
static int write_obj_sequence(const char *cmd, const skin_args *o, const cli_src *s, long first,
                              long end, long step)
{
    frame_seq q;
    memset(&q, 0, sizeof q);
    q.outp = o->outp;
    q.base_len = strlen(o->outp) - 4;
    q.digits = 4;
    for (long x = end - 1; x >= 10000; x /= 10)
        ++q.digits;
    q.first = first;
    q.step = step;
    q.n = (end - first + step - 1) / step;
    render_skinner k;
    int rc = CLI_EXIT_OK;
    if (render_skinner_init(&k, s) != 0) {
        render_skinner_free(&k);
        return cli_input_error(cmd, "out of memory");
    }
    q.path = malloc(MB_FILE_PATH_MAX);
    q.name = malloc(MB_FILE_PATH_MAX);
    q.fo = calloc((size_t)q.n, sizeof *q.fo);
    q.sorted = malloc((size_t)q.n * sizeof *q.sorted);
    if (!q.path || !q.name || !q.fo || !q.sorted)
        rc = cli_input_error(cmd, "out of memory");
    else
        rc = resolve_targets(cmd, &q);
    if (q.fo && q.sorted && q.path && q.name) {
        long written = 0;
        g_stop = 0;
        void (*old_int)(int) = signal(SIGINT, note_stop);
        void (*old_term)(int) = signal(SIGTERM, note_stop);
        void (*old_hup)(int) = signal(SIGHUP, note_stop);
        if (old_hup == SIG_IGN) /* under nohup a hangup stays ignored */
            signal(SIGHUP, SIG_IGN);
        if (old_int == SIG_IGN) /* a background job of a non-interactive shell */
            signal(SIGINT, SIG_IGN);
        if (rc == CLI_EXIT_OK)
            rc = write_frames(cmd, o, s, &k, &q, &written);
        rc = commit_frames(cmd, &q, written, rc);
        signal(SIGINT, old_int);
        signal(SIGTERM, old_term);
        signal(SIGHUP, old_hup);
        if (g_stop)
            raise(g_stop);
    }
    if (rc == CLI_EXIT_OK) {
        /* the summary names the files as given (a link, not its target) */
        seq_name(&q, 0);
        frame_name(q.path, q.outp, q.base_len, q.digits, first + (q.n - 1) * step);
        fprintf(stderr, "%s: wrote %ld OBJ file%s (%s%s%s), %d vertices each, %s\n", cmd, q.n,
                q.n == 1 ? "" : "s", q.name, q.n == 1 ? "" : " ... ", q.n == 1 ? "" : q.path,
                mb_mesh_vertex_count(s->mesh), o->method == MB_SKIN_DQS ? "DQS" : "LBS");
    }
    for (long i = 0; q.fo && i < q.n; ++i) {
        free(q.fo[i].target);
        free(q.fo[i].staged);
    }
    free(q.fo);
    free(q.sorted);
    free(q.name);
    free(q.path);
    render_skinner_free(&k);
    return rc;
}

int cmd_skin(int argc, char **argv)
{
    const char *cmd = "mblend skin";
    skin_args o;
    int rc = parse_args(cmd, argc, argv, &o);
    if (rc != CLI_EXIT_OK || o.help)
        return rc;
    cli_src s;
    if ((rc = cli_src_open(cmd, o.clip, &o.so, &s)) != CLI_EXIT_OK)
        return rc;
    long frames = mb_clip_frame_count(s.clip), first = 0, end = frames, step = 1;
    if (o.frames_text)
        rc = cli_take_frames(cmd, o.frames_text, frames, o.clip, &first, &end, &step);
    if (rc != CLI_EXIT_OK)
        ;
    else if (o.glb)
        rc = write_glb(cmd, &o, &s, first, end, step);
    else
        rc = write_obj_sequence(cmd, &o, &s, first, end, step);
    cli_src_close(&s);
    return rc;
}
