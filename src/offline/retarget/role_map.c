/* The role map file (format: docs/retarget.md "Roles and the map file"): one
 * "role joint name" per line, '#' comments, blank lines. Every error carries the file, line
 * and column. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"
#include "offline/retarget/roles_internal.h"

#define MAP_LINE_MAX 4096 /* bytes in one line, end of line excluded */

void mb_role_map_destroy(mb_role_map *map)
{
    if (!map)
        return;
    for (int i = 0; i < map->count; ++i)
        free(map->entries[i].joint);
    free(map->entries);
    free(map->path);
    free(map);
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Checks an entry against the earlier ones: a role (other than spine and none) and a
 * joint are each named once. */
static mb_status check_repeat(const mb_role_map *m, const mb_role_map_entry_ *e, int role_col,
                              mb_error *err)
{
    for (int i = 0; i < m->count; ++i) {
        const mb_role_map_entry_ *o = &m->entries[i];
        if (strcmp(o->joint, e->joint) == 0)
            return mb_error_set_at_(err, MB_PARSE, m->path, e->line, e->column,
                                    "joint \"%s\" already has a role (line %d)", e->joint,
                                    o->line);
        if (o->role == e->role && e->role != MB_ROLE_SPINE && e->role != MB_ROLE_NONE)
            return mb_error_set_at_(err, MB_PARSE, m->path, e->line, role_col,
                                    "role %s already given (line %d); only spine may name "
                                    "several joints", mb_role_name((mb_role)e->role), o->line);
    }
    return MB_OK;
}

static mb_status add_entry(mb_role_map *m, const mb_role_map_entry_ *e, int role_col,
                           mb_error *err)
{
    /* Each joint is named once, so a longer map cannot fit any skeleton; the bound also
     * keeps check_repeat's pairwise scan short (100k lines took 10 s). */
    if (m->count >= MB_MAX_JOINTS)
        return mb_error_set_at_(err, MB_LIMIT, m->path, e->line, 1,
                                "more than %d entries (a skeleton has at most %d joints)",
                                MB_MAX_JOINTS, MB_MAX_JOINTS);
    mb_status st = check_repeat(m, e, role_col, err);
    if (st != MB_OK)
        return st;
    mb_role_map_entry_ *grown = realloc(m->entries, (size_t)(m->count + 1) * sizeof *grown);
    char *name = strdup(e->joint);
    if (!grown || !name) {
        free(name);
        if (grown)
            m->entries = grown;
        return mb_error_set_(err, MB_NOMEM, m->path, "out of memory");
    }
    m->entries = grown;
    m->entries[m->count] = *e;
    m->entries[m->count++].joint = name;
    return MB_OK;
}

/* One line without its end of line: blank, a comment, or "role joint name". */
static mb_status parse_line(mb_role_map *m, char *s, int line, mb_error *err)
{
    int i = 0;
    while (is_blank(s[i]))
        ++i;
    if (!s[i] || s[i] == '#')
        return MB_OK;
    int role_at = i;
    while (s[i] && !is_blank(s[i]))
        ++i;
    char role_word[32] = "";
    if (i - role_at < (int)sizeof role_word)
        memcpy(role_word, s + role_at, (size_t)(i - role_at));
    mb_role role = mb_role_from_name(role_word);
    if (!role && strcasecmp(role_word, "none") != 0)
        return mb_error_set_at_(err, MB_PARSE, m->path, line, role_at + 1,
                                "unknown role \"%.*s\" (roles: hips, spine, chest, neck, head, "
                                "shoulder_l, upper_arm_l, forearm_l, hand_l, upper_leg_l, "
                                "lower_leg_l, foot_l, toes_l, their _r, none)",
                                i - role_at > 40 ? 40 : i - role_at, s + role_at);
    while (is_blank(s[i]))
        ++i;
    int end = (int)strlen(s);
    while (end > i && is_blank(s[end - 1]))
        --end;
    if (end == i)
        return mb_error_set_at_(err, MB_PARSE, m->path, line, i + 1,
                                "role %s without a joint name", role_word);
    if (end - i > MB_MAX_NAME)
        return mb_error_set_at_(err, MB_LIMIT, m->path, line, i + 1,
                                "joint name longer than %d bytes", MB_MAX_NAME);
    s[end] = '\0';
    mb_role_map_entry_ e = {(int)role, s + i, line, i + 1};
    return add_entry(m, &e, role_at + 1, err);
}

/* One line of f into buf (MAP_LINE_MAX + 2 bytes), its end of line dropped (LF, or CR LF).
 * Returns its length; -1 at the end of the file; -2 for a line over MAP_LINE_MAX bytes; -3
 * for a NUL byte, *col its column. Byte by byte (getc) so that a NUL is seen, not taken for
 * the end of the line as fgets + strlen would. */
static int map_getline(FILE *f, char *buf, int *col)
{
    int n = 0, c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\0') {
            *col = n + 1;
            return -3;
        }
        if (n > MAP_LINE_MAX) /* room for a CR after MAP_LINE_MAX bytes */
            return -2;
        buf[n++] = (char)c;
    }
    if (c == EOF && n == 0)
        return -1;
    if (n > 0 && buf[n - 1] == '\r')
        --n;
    if (n > MAP_LINE_MAX)
        return -2;
    buf[n] = '\0';
    return n;
}

/* Reads the lines of f into m; a NUL byte or an over-long line is an error. */
static mb_status read_lines(mb_role_map *m, FILE *f, mb_error *err)
{
    char buf[MAP_LINE_MAX + 2];
    int n, col = 0;
    for (int line = 1; (n = map_getline(f, buf, &col)) != -1; ++line) {
        if (n == -2)
            return mb_error_set_at_(err, MB_LIMIT, m->path, line, MAP_LINE_MAX + 1,
                                    "line longer than %d bytes", MAP_LINE_MAX);
        if (n == -3)
            return mb_error_set_at_(err, MB_PARSE, m->path, line, col, "NUL byte");
        if (line == 1 && strncmp(buf, "\xEF\xBB\xBF", 3) == 0)
            memmove(buf, buf + 3, strlen(buf + 3) + 1); /* a UTF-8 byte order mark */
        for (size_t k = 0; buf[k]; ++k)
            if ((unsigned char)buf[k] < 0x20 && buf[k] != '\t')
                return mb_error_set_at_(err, MB_PARSE, m->path, line, (int)k + 1,
                                        "control character 0x%02x", (unsigned char)buf[k]);
        mb_status st = parse_line(m, buf, line, err);
        if (st != MB_OK)
            return st;
    }
    if (ferror(f)) /* a directory opens, then fails here with EISDIR: say so */
        return mb_error_set_(err, MB_IO, m->path, "cannot read: %s", strerror(errno));
    return MB_OK;
}

/* Reads a map from an open stream; path names it in messages (tools/fuzz: fmemopen). */
mb_status mb_role_map_read_stream_(FILE *f, const char *path, mb_role_map **out, mb_error *err)
{
    mb_error_clear_(err);
    *out = NULL;
    mb_role_map *m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(path))) {
        free(m);
        return mb_error_set_(err, MB_NOMEM, path, "out of memory");
    }
    mb_status st = read_lines(m, f, err);
    if (st != MB_OK) {
        mb_role_map_destroy(m);
        return st;
    }
    *out = m;
    return MB_OK;
}

mb_status mb_role_map_read(const char *path, mb_role_map **out, mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    if (!path || !out)
        return mb_error_set_(err, MB_INVALID_ARG, "role map", "no %s given",
                             !path ? "path" : "output");
    FILE *f = fopen(path, "rb");
    if (!f)
        return mb_error_set_(err, MB_IO, path, "cannot open: %s", strerror(errno));
    mb_status st = mb_role_map_read_stream_(f, path, out, err);
    fclose(f);
    return st;
}
