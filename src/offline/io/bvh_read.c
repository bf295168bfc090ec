/* BVH reader: text -> skeleton + clip of quaternion tracks.
 *
 * One pass over memory. The HIERARCHY is tokenised (braces are tokens of their own, so
 * "Hips{" parses too); the MOTION data is read value by value, independent of line breaks,
 * and converted frame by frame straight into the clip's tracks, so peak memory is the
 * text plus the tracks. Every error names line and column (1-based, bytes). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "offline/anim/clip_build_internal.h"
#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "offline/io/bvh_read_internal.h"
#include "offline/io/number_internal.h"
#include "math/euler_internal.h"
#include "mblend/offline/bvh.h"

#define DEG2RAD 0.017453292519943295

typedef struct tmp_joint {
    mb_joint_desc d;
    char name[MB_MAX_NAME + 1];
    int line;
    int has_offset, has_channels, end_site_children;
} tmp_joint;

typedef struct parser {
    const char *begin; /* first byte after an optional BOM */
    const char *p, *end, *line_start;
    int line;          /* saturates at INT_MAX (an 8 GiB file can hold more line breaks) */
    const char *source;
    mb_error *err;
    const mb_allocator *alloc;
    tmp_joint *joints;
    int joint_count, joint_cap;
    int root_close_line; /* line of the '}' that closed the last root ("extra '}'" hints) */
    int last_root;       /* index of the last ROOT read */
} parser;

/* ---------- positions and errors ---------- */

static int column_of(const parser *ps, const char *at)
{
    ptrdiff_t d = at - ps->line_start;
    return d >= INT_MAX ? INT_MAX : (int)d + 1;
}

static int is_line_end(char c) { return c == '\n' || c == '\r'; }

/* Where a "file ends ..." message points: just past the last non-space byte (the end of the
 * last line with content), not past the final newline, so editors show a real line.
 * 1:1 when the text holds nothing but whitespace. Only used on error paths. */
static void eof_position(const parser *ps, int *line, int *col)
{
    const char *q = ps->end;
    int ln = ps->line;
    while (q > ps->begin) {
        char c = q[-1];
        if (c == '\n') {
            --q;
            if (q > ps->begin && q[-1] == '\r')
                --q;
            --ln;
        } else if (c == '\r') {
            --q;
            --ln;
        } else if (c == ' ' || c == '\t' || c == '\v' || c == '\f') {
            --q;
        } else {
            break;
        }
    }
    const char *ls = q;
    while (ls > ps->begin && !is_line_end(ls[-1]))
        --ls;
    ptrdiff_t d = q - ls;
    *line = ln < 1 ? 1 : ln;
    *col = d >= INT_MAX ? INT_MAX : (int)d + 1;
}

static void set_source(mb_error *e, const char *source)
{
    snprintf(e->source, sizeof e->source, "%s", source ? source : "<memory>");
}


#define FAIL_HERE(ps, code, at, ...) \
    mb_error_set_at_((ps)->err, (code), (ps)->source, (ps)->line, column_of((ps), (at)), __VA_ARGS__)

/* A short printable excerpt of a token for messages (at most 40 bytes, non-printables as '?'). */
static const char *excerpt(const char *t, size_t n, char buf[48])
{
    size_t k = n > 40 ? 40 : n;
    for (size_t i = 0; i < k; ++i) {
        unsigned char c = (unsigned char)t[i];
        buf[i] = (c >= 0x20 && c < 0x7f) || c >= 0x80 ? (char)c : '?';
    }
    if (n > 40) {
        memcpy(buf + 40, "...", 3);
        k = 43;
    }
    buf[k] = '\0';
    return buf;
}

/* Why a file that does not start with HIERARCHY is not BVH, when its first bytes say so:
 * people hand a BVH reader the other files of a motion pipeline. "" when nothing is known. */
static const char *not_bvh_hint(const char *p, const char *end)
{
    size_t n = (size_t)(end - p);
    if (n >= 4 && memcmp(p, "glTF", 4) == 0)
        return " (a binary glTF file, not BVH: read it with mb_scene_read_file; mblend reads "
               "it under a .glb name)";
    if ((n >= 18 && memcmp(p, "Kaydara FBX Binary", 18) == 0) ||
        (n >= 5 && memcmp(p, "; FBX", 5) == 0))
        return " (an FBX file, not BVH: read it with mb_scene_read_file; mblend reads it "
               "under a .fbx name)";
    if (n >= 5 && memcmp(p, "<?xml", 5) == 0)
        return " (an XML file such as Collada, not BVH)";
    size_t k = n < 64 ? n : 64;
    for (size_t i = 0; i < k; ++i) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v'))
            return " (binary data: not a BVH text file)";
    }
    return "";
}

/* ---------- lexing ---------- */


/* Skips whitespace, counting lines: LF, CRLF and lone CR each end one line. */
static void skip_space(parser *ps)
{
    const char *p = ps->p, *end = ps->end;
    while (p < end) {
        char c = *p;
        if (c == ' ' || c == '\t') {
            ++p;
        } else if (c == '\n') {
            ++p;
            if (ps->line < INT_MAX)
                ++ps->line;
            ps->line_start = p;
        } else if (c == '\r') {
            ++p;
            if (p < end && *p == '\n')
                ++p;
            if (ps->line < INT_MAX)
                ++ps->line;
            ps->line_start = p;
        } else if (c == '\v' || c == '\f') {
            ++p;
        } else {
            break;
        }
    }
    ps->p = p;
}

/* The whitespace of mb_bvh_is_space_ as a table, for the motion loop. */
static const unsigned char space_tab[256] = {['\t'] = 1, ['\n'] = 1, ['\v'] = 1,
                                             ['\f'] = 1, ['\r'] = 1, [' '] = 1};

/* The motion loop moves a local pointer without counting lines; on an error or at the
 * end it calls this to bring ps->p, ps->line and ps->line_start up to `at` (same line
 * rules as skip_space: LF, CRLF and lone CR each end one line). */
static void sync_to(parser *ps, const char *at)
{
    const char *p = ps->p;
    while (p < at) {
        const char *nl = memchr(p, '\n', (size_t)(at - p));
        const char *cr = memchr(p, '\r', (size_t)((nl ? nl : at) - p));
        const char *b = cr ? cr : nl;
        if (!b)
            break;
        p = b + 1 + (b == cr && b + 1 < ps->end && b[1] == '\n');
        if (ps->line < INT_MAX)
            ++ps->line;
        ps->line_start = p;
    }
    ps->p = at;
}

typedef struct token {
    const char *s;
    size_t n;
    int line, column;
} token;

/* Next token: a brace alone, or a run of non-space, non-brace bytes. n = 0 at the end,
 * positioned just past the last content (see eof_position). */
static token next_token(parser *ps)
{
    skip_space(ps);
    token t = {ps->p, 0, ps->line, column_of(ps, ps->p)};
    const char *p = ps->p;
    if (p == ps->end) {
        eof_position(ps, &t.line, &t.column);
        return t;
    }
    if (p < ps->end && (*p == '{' || *p == '}')) {
        t.n = 1;
        ps->p = p + 1;
        return t;
    }
    while (p < ps->end && !mb_bvh_is_space_(*p) && *p != '{' && *p != '}')
        ++p;
    t.n = (size_t)(p - t.s);
    ps->p = p;
    return t;
}

/* The next token, not consumed: the position (line included) is restored. */
static token peek_token(parser *ps)
{
    const char *p = ps->p, *line_start = ps->line_start;
    int line = ps->line;
    token t = next_token(ps);
    ps->p = p;
    ps->line = line;
    ps->line_start = line_start;
    return t;
}

static int tok_is(token t, const char *kw)
{
    size_t n = strlen(kw);
    if (t.n != n)
        return 0;
    for (size_t i = 0; i < n; ++i) {
        char a = t.s[i], b = kw[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a + 32);
        if (b >= 'A' && b <= 'Z')
            b = (char)(b + 32);
        if (a != b)
            return 0;
    }
    return 1;
}

/* When t is kw followed by more characters ("Frames:2"), returns 1 and the rest as a token
 * of its own (some exporters write no space after the colon). */
static int tok_split_prefix(token t, const char *kw, token *rest)
{
    size_t n = strlen(kw);
    if (t.n <= n)
        return 0;
    token head = t;
    head.n = n;
    if (!tok_is(head, kw))
        return 0;
    *rest = t;
    rest->s += n;
    rest->n -= n;
    rest->column += (int)n;
    return 1;
}

static mb_status fail_tok(parser *ps, mb_status code, token t, const char *fmt, const char *arg)
{
    return mb_error_set_at_(ps->err, code, ps->source, t.line, t.column, fmt, arg);
}

/* ---------- hierarchy ---------- */

static const char *const channel_keywords[6] = {"Xposition", "Yposition", "Zposition",
                                                "Xrotation", "Yrotation", "Zrotation"};

static int channel_of(token t)
{
    for (int c = 0; c < 6; ++c)
        if (tok_is(t, channel_keywords[c]))
            return c;
    return -1;
}

static int is_block_keyword(token t)
{
    return t.n == 0 || tok_is(t, "JOINT") || tok_is(t, "End") || tok_is(t, "OFFSET") ||
           tok_is(t, "CHANNELS") || tok_is(t, "MOTION") || tok_is(t, "ROOT") ||
           (t.n == 1 && (t.s[0] == '{' || t.s[0] == '}'));
}

/* Appends a node; on failure returns the status (which does not depend on err being set). */
static mb_status add_joint(parser *ps, token at, tmp_joint **out)
{
    *out = NULL;
    if (ps->joint_count >= MB_MAX_JOINTS)
        return mb_error_set_at_(ps->err, MB_LIMIT, ps->source, at.line, at.column,
                       "more than %d joints and End Sites (the limit MB_MAX_JOINTS); split the "
                       "skeleton",
                       MB_MAX_JOINTS);
    if (ps->joint_count == ps->joint_cap) {
        int cap = ps->joint_cap ? ps->joint_cap * 2 : 64;
        if (cap > MB_MAX_JOINTS)
            cap = MB_MAX_JOINTS;
        tmp_joint *nj = mb_alloc_(ps->alloc, (size_t)cap * sizeof *nj);
        if (!nj)
            return mb_error_set_at_(ps->err, MB_NOMEM, ps->source, at.line, at.column, "out of memory reading the hierarchy");
        if (ps->joints)
            memcpy(nj, ps->joints, (size_t)ps->joint_count * sizeof *nj);
        mb_free_(ps->alloc, ps->joints);
        ps->joints = nj;
        ps->joint_cap = cap;
    }
    tmp_joint *j = &ps->joints[ps->joint_count++];
    memset(j, 0, sizeof *j);
    j->line = at.line;
    *out = j;
    return MB_OK;
}

static int find_joint(const parser *ps, const char *name, int upto)
{
    for (int i = 0; i < upto; ++i)
        if (strcmp(ps->joints[i].name, name) == 0)
            return i;
    return -1;
}

/* Makes the derived name of End Site `e` unique among the first `upto` nodes (and node e
 * itself excluded) by appending "_2", "_3", ...: a file may name a real joint the way we
 * name an End Site ("LeftHand_End" exists in real files), and the real name wins.
 * Returns 0 when no unique name fits MB_MAX_NAME. */
static int make_end_name_unique(parser *ps, int e, int upto)
{
    char base[MB_MAX_NAME + 1];
    memcpy(base, ps->joints[e].name, sizeof base);
    for (int k = 2; k < 100000; ++k) {
        int clash = 0;
        for (int i = 0; i < upto && !clash; ++i)
            clash = i != e && strcmp(ps->joints[i].name, ps->joints[e].name) == 0;
        if (!clash)
            return 1;
        char suffix[16];
        int sn = snprintf(suffix, sizeof suffix, "_%d", k);
        size_t bn = strlen(base);
        if (bn + (size_t)sn > MB_MAX_NAME)
            return 0;
        memcpy(ps->joints[e].name, base, bn);
        memcpy(ps->joints[e].name + bn, suffix, (size_t)sn + 1);
    }
    return 0;
}

/* Reads a joint name: the rest of the line up to '{', trimmed. Names with inner spaces
 * ("Bip01 L Thigh", as 3ds Max writes them) are kept as they are. */
static mb_status read_name(parser *ps, token kw, char out[MB_MAX_NAME + 1], int *out_col)
{
    const char *p = ps->p;
    while (p < ps->end && (*p == ' ' || *p == '\t'))
        ++p;
    const char *s = p;
    while (p < ps->end && *p != '\n' && *p != '\r' && *p != '{' && *p != '}')
        ++p;
    const char *e = p;
    while (e > s && mb_bvh_is_space_(e[-1]))
        --e;
    const char *kwname = kw.s[0] == 'R' || kw.s[0] == 'r' ? "ROOT" : "JOINT";
    if (e == s)
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, kw.line, column_of(ps, s),
                       "%s without a name (expected '%s <name>' on one line)", kwname, kwname);
    size_t n = (size_t)(e - s);
    if (n > MB_MAX_NAME - 4) /* room for the "_End" of a child End Site */
        return mb_error_set_at_(ps->err, MB_LIMIT, ps->source, kw.line, column_of(ps, s),
                       "%s name is %zu bytes long; at most %d are allowed", kwname, n,
                       MB_MAX_NAME - 4);
    for (size_t i = 0; i < n; ++i)
        if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, kw.line, column_of(ps, s + i),
                           "control character (byte 0x%02x) in %s name", (unsigned)(unsigned char)s[i],
                           kwname);
    memcpy(out, s, n);
    out[n] = '\0';
    if (out_col)
        *out_col = column_of(ps, s);
    ps->p = p;
    return MB_OK;
}

static mb_status expect_open_brace(parser *ps, const char *what, const char *name)
{
    token t = next_token(ps);
    if (t.n == 1 && t.s[0] == '{')
        return MB_OK;
    char b[48];
    if (t.n == 0)
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "file ends where '{' should open %s '%s'", what, name);
    return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column, "expected '{' to open %s '%s', found '%s'",
                   what, name, excerpt(t.s, t.n, b));
}

/* "joint 'Spine'" or "End Site of 'Spine'" for messages. */
static const char *node_label(const parser *ps, const tmp_joint *j, char *buf, size_t n)
{
    if (j->d.end_site)
        snprintf(buf, n, "End Site of '%s'", ps->joints[j->d.parent].name);
    else
        snprintf(buf, n, "joint '%s'", j->name);
    return buf;
}

static mb_status read_offset(parser *ps, tmp_joint *j, token kw)
{
    char who[160], b[48];
    if (j->has_offset)
        return fail_tok(ps, MB_PARSE, kw, "second OFFSET for %s",
                        node_label(ps, j, who, sizeof who));
    for (int k = 0; k < 3; ++k) {
        token t = next_token(ps);
        const char *next = NULL;
        mb_num_result r = t.n ? mb_parse_float_(t.s, t.s + t.n, &j->d.offset[k], &next)
                              : MB_NUM_SYNTAX;
        if (r == MB_NUM_OK && next == t.s + t.n)
            continue;
        node_label(ps, j, who, sizeof who);
        if (t.n == 0)
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "file ends inside the OFFSET of %s (expected 3 numbers, found %d)",
                           who, k);
        if (r == MB_NUM_NONFINITE)
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "non-finite value '%s' in the OFFSET of %s (expected a finite number)",
                           excerpt(t.s, t.n, b), who);
        if (r == MB_NUM_RANGE)
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "value '%s' in the OFFSET of %s is outside the float range (about "
                           "+-3.4e38)",
                           excerpt(t.s, t.n, b), who);
        if (r == MB_NUM_TOO_LONG)
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "number '%s' in the OFFSET of %s is longer than %d characters",
                           excerpt(t.s, t.n, b), who, MB_NUM_MAX_TOKEN);
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "OFFSET of %s needs 3 numbers, found '%s' after %d", who,
                       excerpt(t.s, t.n, b), k);
    }
    j->has_offset = 1;
    return MB_OK;
}

static mb_status read_channels(parser *ps, tmp_joint *j, token kw, int had_child)
{
    char b[48];
    if (j->has_channels)
        return fail_tok(ps, MB_PARSE, kw, "second CHANNELS line for joint '%s'", j->name);
    if (had_child)
        return fail_tok(ps, MB_PARSE, kw,
                        "CHANNELS of joint '%s' must come before its child joints", j->name);
    token t = next_token(ps);
    int n = -1;
    if (t.n == 1 && t.s[0] >= '0' && t.s[0] <= '6')
        n = t.s[0] - '0';
    if (n < 0) {
        if (t.n == 0)
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "file ends inside the CHANNELS of joint '%s'", j->name);
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "expected the channel count (0 to 6, one per distinct channel) after "
                       "CHANNELS of joint '%s', found '%s'",
                       j->name, excerpt(t.s, t.n, b));
    }
    unsigned mask = 0;
    for (int k = 0; k < n; ++k) {
        t = next_token(ps);
        int c = channel_of(t);
        if (c < 0) {
            if (t.n == 0)
                return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                               "file ends inside the CHANNELS of joint '%s' (count %d, found "
                               "%d names)",
                               j->name, n, k);
            if (is_block_keyword(t))
                return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                               "CHANNELS count of joint '%s' is %d but only %d channel names "
                               "follow",
                               j->name, n, k);
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "unknown channel '%s' (expected Xposition, Yposition, Zposition, "
                           "Xrotation, Yrotation or Zrotation)",
                           excerpt(t.s, t.n, b));
        }
        if (mask & (1u << c))
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column, "channel %s listed twice for joint '%s'",
                           channel_keywords[c], j->name);
        mask |= 1u << c;
        j->d.channels[k] = (mb_channel)c;
    }
    j->d.channel_count = n;
    j->has_channels = 1;
    return MB_OK;
}

/* Checks the name of the node just added (the last one) against the earlier ones: a clash
 * with an End Site's derived name renames the End Site; any other is an error. */
static mb_status check_unique_name(parser *ps, token kw, int name_col)
{
    int self = ps->joint_count - 1;
    tmp_joint *nj = &ps->joints[self];
    int dup = find_joint(ps, nj->name, self);
    if (dup >= 0 && (nj->d.end_site || ps->joints[dup].d.end_site)) {
        int e = nj->d.end_site ? self : dup;
        if (!make_end_name_unique(ps, e, ps->joint_count))
            return mb_error_set_at_(ps->err, MB_LIMIT, ps->source, kw.line, kw.column,
                           "no unique name fits %d bytes for the End Site of '%s'",
                           MB_MAX_NAME, ps->joints[ps->joints[e].d.parent].name);
        dup = -1;
    }
    if (dup >= 0)
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, kw.line, name_col,
                       "duplicate joint name '%s' (first defined at line %d); joint "
                       "names must be unique",
                       nj->name, ps->joints[dup].line);
    return MB_OK;
}

/* A JOINT or End Site line inside joint parent, from its keyword t: the new node (an End
 * Site named "<parent>_End", then "_End2", ... for a joint with several), its name checked
 * unique, and its '{'. */
static mb_status read_child_header(parser *ps, token t, int parent)
{
    char b[48];
    mb_status st;
    int is_end = tok_is(t, "End");
    if (is_end) {
        token site = next_token(ps);
        if (!tok_is(site, "Site"))
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, site.line, site.column,
                           "expected 'Site' after 'End', found '%s'", excerpt(site.s, site.n, b));
    }
    tmp_joint *nj;
    if ((st = add_joint(ps, t, &nj)) != MB_OK)
        return st;
    tmp_joint *cur = &ps->joints[parent]; /* add_joint may have moved the array */
    nj->d.parent = parent;
    if (is_end) {
        nj->d.end_site = 1;
        int k = cur->end_site_children++;
        char suffix[16] = "_End";
        if (k > 0)
            snprintf(suffix, sizeof suffix, "_End%d", k + 1);
        size_t pn = strlen(cur->name), sn = strlen(suffix);
        if (pn + sn > MB_MAX_NAME)
            return mb_error_set_at_(ps->err, MB_LIMIT, ps->source, t.line, t.column,
                           "End Site of '%s' would be named '%s%s', longer than %d bytes",
                           cur->name, cur->name, suffix, MB_MAX_NAME);
        memcpy(nj->name, cur->name, pn);
        memcpy(nj->name + pn, suffix, sn + 1);
    }
    int name_col = t.column;
    if (!is_end && (st = read_name(ps, t, nj->name, &name_col)) != MB_OK)
        return st;
    if ((st = check_unique_name(ps, t, name_col)) != MB_OK)
        return st;
    return expect_open_brace(ps, is_end ? "End Site of" : "joint", is_end ? cur->name : nj->name);
}

/* The error for token t inside node cur where none of OFFSET, CHANNELS, JOINT, End Site or
 * '}' is: a stray channel name, a MOTION or ROOT before the '}', a '{', anything else. */
static mb_status fail_unexpected(parser *ps, token t, const tmp_joint *cur)
{
    char b[48], who[160];
    if (channel_of(t) >= 0) {
        if (cur->has_channels)
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "more channel names than the CHANNELS count (%d) of joint '%s': "
                           "found '%s'",
                           cur->d.channel_count, cur->name, excerpt(t.s, t.n, b));
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "channel name '%s' outside a CHANNELS line in %s", excerpt(t.s, t.n, b),
                       node_label(ps, cur, who, sizeof who));
    }
    if (tok_is(t, "MOTION") || tok_is(t, "ROOT"))
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "%s reached inside %s (opened at line %d): missing '}'",
                       tok_is(t, "ROOT") ? "ROOT" : "MOTION", node_label(ps, cur, who, sizeof who),
                       cur->line);
    if (t.n == 1 && t.s[0] == '{')
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "unexpected '{' inside %s (a JOINT or End Site line must precede it)",
                       node_label(ps, cur, who, sizeof who));
    return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                   "unexpected '%s' in %s (expected OFFSET, CHANNELS, JOINT, "
                   "End Site or '}')",
                   excerpt(t.s, t.n, b), node_label(ps, cur, who, sizeof who));
}

/* Parses from just after "ROOT" to the closing brace of the root (one of several in a
 * multi-ROOT file). Iterative, with an explicit stack of open joints, so deep hierarchies
 * cannot overflow the C stack. */
static mb_status read_hierarchy(parser *ps, token root_kw)
{
    int stack[MB_MAX_JOINTS];
    int had_child[MB_MAX_JOINTS];
    int depth = 0;
    char who[160];

    tmp_joint *j;
    mb_status st = add_joint(ps, root_kw, &j);
    if (st != MB_OK)
        return st;
    int root_col = root_kw.column;
    st = read_name(ps, root_kw, j->name, &root_col);
    if (st != MB_OK)
        return st;
    j->d.parent = -1;
    /* a second ROOT's name against the first ROOT's joints */
    if ((st = check_unique_name(ps, root_kw, root_col)) != MB_OK)
        return st;
    ps->last_root = ps->joint_count - 1;
    if ((st = expect_open_brace(ps, "joint", j->name)) != MB_OK)
        return st;
    stack[depth] = ps->last_root;
    had_child[depth] = 0;
    ++depth;

    while (depth > 0) {
        token t = next_token(ps);
        tmp_joint *cur = &ps->joints[stack[depth - 1]];
        if (t.n == 0)
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "file ends inside %s (opened at line %d): missing '}'",
                           node_label(ps, cur, who, sizeof who), cur->line);
        if (t.n == 1 && t.s[0] == '}') {
            if (!cur->has_offset)
                return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                               "%s has no OFFSET (expected 'OFFSET x y z' before its '}')",
                               node_label(ps, cur, who, sizeof who));
            if (--depth == 0)
                ps->root_close_line = t.line;
            continue;
        }
        if (tok_is(t, "OFFSET")) {
            st = read_offset(ps, cur, t);
        } else if (tok_is(t, "CHANNELS")) {
            if (cur->d.end_site)
                return fail_tok(ps, MB_PARSE, t, "End Site of '%s' cannot have CHANNELS",
                                ps->joints[cur->d.parent].name);
            st = read_channels(ps, cur, t, had_child[depth - 1]);
        } else if (tok_is(t, "JOINT") || tok_is(t, "End")) {
            if (cur->d.end_site)
                return fail_tok(ps, MB_PARSE, t, "End Site of '%s' cannot have children",
                                ps->joints[cur->d.parent].name);
            if ((st = read_child_header(ps, t, stack[depth - 1])) != MB_OK)
                return st;
            had_child[depth - 1] = 1;
            stack[depth] = ps->joint_count - 1;
            had_child[depth] = 0;
            ++depth;
        } else {
            return fail_unexpected(ps, t, cur);
        }
        if (st != MB_OK)
            return st;
    }
    return MB_OK;
}

/* ---------- motion ---------- */

/* Per-joint layout of a motion row, precomputed once. */
typedef struct joint_map {
    int rot_idx[3];   /* row index of the angle for each axis of the order; a missing
                         axis reads the row's extra zero at index channel_count (a
                         sentinel: End Sites and partial lists made a per-angle branch
                         mispredict) */
    int pos_idx[3];   /* row index of x, y, z position, -1: keep the offset */
    mb_euler_order order;
} joint_map;

static void build_maps(const mb_skeleton *s, joint_map *maps)
{
    for (int i = 0; i < s->joint_count; ++i) {
        joint_map *m = &maps[i];
        const mb_joint_info_ *inf = &s->info[i];
        m->order = (mb_euler_order)inf->order;
        int zero = s->channel_count;
        int axis_idx[3] = {zero, zero, zero}, pos_idx[3] = {-1, -1, -1};
        for (int k = 0; k < inf->channel_count; ++k) {
            int c = (int)s->channels[6 * i + k];
            int row = inf->channel_start + k;
            if (c <= MB_CH_ZPOS)
                pos_idx[c] = row;
            else
                axis_idx[c - MB_CH_XROT] = row;
        }
        for (int k = 0; k < 3; ++k) {
            m->rot_idx[k] = axis_idx[mb_euler_order_axis(m->order, k)];
            m->pos_idx[k] = pos_idx[k];
        }
    }
}

/* Scratch for the batched Euler conversion of one frame (allocated once per read). */
typedef struct euler_batch {
    unsigned char *order; /* [n] */
    double *deg;          /* [3 n] angle k of joint i at k * n + i, degrees */
    double *work;         /* [6 n] */
    double (*q)[4];       /* [n] */
} euler_batch;

static size_t euler_batch_bytes(int n) { return (size_t)n * (13 * sizeof(double) + 1); }

static void euler_batch_init(euler_batch *eb, void *mem, const mb_skeleton *s)
{
    int n = s->joint_count;
    eb->deg = mem;
    eb->work = eb->deg + 3 * n;
    eb->q = (double(*)[4])(eb->work + 6 * n);
    eb->order = (unsigned char *)(eb->q + n);
    for (int i = 0; i < n; ++i)
        eb->order[i] = s->info[i].order;
}

/* Converts one row of channel values into frame f of the tracks: rotations of every
 * joint, translations of the tracked joints (those with position channels, in slot
 * order; a missing axis keeps the offset, as position channels replace it per axis). */
static void store_frame(const mb_skeleton *s, const joint_map *maps, const euler_batch *eb,
                        const float *row, float *rot, float *trans, const float *prev_rot)
{
    int n = s->joint_count;
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < n; ++i)
            eb->deg[k * n + i] = (double)row[maps[i].rot_idx[k]];
    mb_quat_from_euler_deg_n_(n, eb->order, eb->deg, eb->work, eb->q);
    for (int i = 0; i < n; ++i) {
        const double *q = eb->q[i];
        float *o = rot + 4 * i;
        /* Sign continuity: same hemisphere as the previous frame (first frame: w >= 0). */
        double d = prev_rot ? q[0] * prev_rot[4 * i] + q[1] * prev_rot[4 * i + 1] +
                                  q[2] * prev_rot[4 * i + 2] + q[3] * prev_rot[4 * i + 3]
                            : q[3];
        double sg = d < 0.0 ? -1.0 : 1.0;
        for (int k = 0; k < 4; ++k)
            o[k] = (float)(sg * q[k]);
    }
    for (int t = 0; t < s->translation_count; ++t) {
        int i = s->translation_joints[t];
        const joint_map *m = &maps[i];
        const float *off = &s->offsets[3 * i];
        for (int k = 0; k < 3; ++k)
            trans[3 * t + k] = m->pos_idx[k] >= 0 ? row[m->pos_idx[k]] : off[k];
    }
}


/* Reads the nch values of one frame, each after optional whitespace, into row. Returns
 * nch when all were read, *at then just past the last one; else the index of the value
 * that could not be read, *at then at its first byte (the end of the text when the text
 * ran out), and the caller builds the message. The scalar loop: it reads what the values
 * kernel (bvh_read_internal.h) leaves, small texts and the last bytes of large ones, and
 * the value a message is about; it touches neither the parser struct nor an address-taken
 * local, so it stays in registers, and the out-of-line mb_parse_float_ only sees what the
 * inline fast path leaves. */
static inline int read_row(const char **at, const char *end, float *row, int nch)
{
    const char *p = *at;
    for (int c = 0; c < nch; ++c) {
        while (p < end && space_tab[(unsigned char)*p])
            ++p;
#ifdef MB_BVH_SPACE_MASK16_
        /* Where the next value starts comes from one 16-byte whitespace mask (the first
         * non-space byte after a space), not from the end of the parse: the parse of one
         * value and the search for the next then overlap instead of forming one long
         * chain of dependent loads. The parse must end exactly at the first whitespace,
         * else the value takes the path below (which also makes the messages). */
        if (end - p >= 32) {
            unsigned sm = mb_bvh_space_mask16_(p);
            unsigned starts = ~sm & (sm << 1) & 0xffffu;
            if (starts && mb_parse_float_swar_(p, end, &row[c]) == p + __builtin_ctz(sm)) {
                p += __builtin_ctz(starts);
                continue;
            }
        }
#endif
        const char *q = mb_parse_float_swar_(p, end, &row[c]);
        if (!q) {
            const char *q2;
            if (p == end || mb_parse_float_(p, end, &row[c], &q2) != MB_NUM_OK) {
                *at = p;
                return c;
            }
            q = q2;
        }
        if (q < end && !space_tab[(unsigned char)*q]) {
            *at = p;
            return c;
        }
        p = q;
    }
    *at = p;
    return nch;
}

/* Describes channel c of the row for messages: "joint 'Hips' Xrotation". */
static void describe_channel(const mb_skeleton *s, int c, char *buf, size_t n)
{
    for (int i = 0; i < s->joint_count; ++i) {
        const mb_joint_info_ *inf = &s->info[i];
        if (c >= inf->channel_start && c < inf->channel_start + inf->channel_count) {
            snprintf(buf, n, "%s %s", s->names[i],
                     channel_keywords[s->channels[6 * i + (c - inf->channel_start)]]);
            return;
        }
    }
    snprintf(buf, n, "channel %d", c);
}

/* Records the first warning (later ones are dropped: the first is usually the cause). */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void warn(parser *ps, mb_error *w, int line, int col, const char *fmt, ...)
{
    if (!w || w->code != MB_OK)
        return;
    w->code = MB_MISMATCH;
    w->line = line;
    w->column = col;
    set_source(w, ps->source);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->text, sizeof w->text, fmt, ap);
    va_end(ap);
}

/* A non-negative decimal integer token, at most limit (MB_LIMIT beyond it; digits past the
 * limit are not accumulated, so no overflow): the token in *at when at->n > 0 (already split
 * off its label, "Frames:2"), else the next one. *at receives the token for later messages. */
static mb_status read_int_token(parser *ps, const char *what, long long limit, long long *out,
                                token *at)
{
    token t = at->n > 0 ? *at : next_token(ps);
    *at = t;
    char b[48];
    if (t.n == 0)
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column, "file ends where the %s should be", what);
    long long v = 0;
    size_t i = 0;
    if (t.s[0] == '+')
        ++i;
    if (i == t.n)
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "the %s must be a non-negative integer, found '%s'", what,
                       excerpt(t.s, t.n, b));
    for (; i < t.n; ++i) {
        if (t.s[i] < '0' || t.s[i] > '9')
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                           "the %s must be a non-negative integer, found '%s'", what,
                           excerpt(t.s, t.n, b));
        if (v <= limit)
            v = v * 10 + (t.s[i] - '0');
    }
    if (v > limit)
        return mb_error_set_at_(ps->err, MB_LIMIT, ps->source, t.line, t.column,
                       "%s %s exceeds the limit of %lld", what, excerpt(t.s, t.n, b), limit);
    *out = v;
    return MB_OK;
}

/* "Frames:" may be written "Frames:", "Frames :" or glued to its value ("Frames:2", then
 * *rest is the value); "Frame Time:" likewise. rest->n is 0 when the value is not glued. */
static mb_status expect_label(parser *ps, const char *word1, const char *word2, token *rest)
{
    token t = next_token(ps);
    char b[48];
    rest->n = 0;
    if (!word2) {
        if (tok_is(t, "Frames:") || tok_split_prefix(t, "Frames:", rest))
            return MB_OK;
        if (tok_is(t, word1)) {
            token c = peek_token(ps);
            if (c.n == 1 && c.s[0] == ':')
                next_token(ps);
            return MB_OK;
        }
    } else if (tok_is(t, word1)) {
        token u = next_token(ps);
        if (tok_is(u, "Time:") || tok_split_prefix(u, "Time:", rest))
            return MB_OK;
        if (tok_is(u, "Time")) {
            token c = peek_token(ps);
            if (c.n == 1 && c.s[0] == ':')
                next_token(ps);
            return MB_OK;
        }
        t = u;
    }
    const char *form = word2 ? "'Frame Time: <seconds>' after the Frames line"
                             : "'Frames: <count>' after MOTION";
    if (t.n == 0)
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column, "file ends where %s should be", form);
    return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column, "expected %s, found '%s'", form,
                   excerpt(t.s, t.n, b));
}

/* Fails for a bad token where the MOTION keyword should be, with a hint for the usual cause. */
static mb_status fail_no_motion(parser *ps, token t)
{
    char b[48];
    const char *root = ps->joints[ps->last_root].name;
    if (t.n == 0)
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "file ends after the hierarchy: missing MOTION section (expected 'MOTION', "
                       "'Frames: <count>', 'Frame Time: <seconds>' and the data)%s",
                       "");
    if (t.n == 1 && t.s[0] == '}')
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "unmatched '}': the root joint '%s' was already closed at line %d (one "
                       "'}' too many?)",
                       root, ps->root_close_line);
    if (tok_is(t, "JOINT") || tok_is(t, "End") || tok_is(t, "OFFSET") || tok_is(t, "CHANNELS"))
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "'%s' after the root joint '%s' was closed at line %d (one '}' too many "
                       "above it?)",
                       excerpt(t.s, t.n, b), root, ps->root_close_line);
    return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                   "expected MOTION after the hierarchy, found '%s'", excerpt(t.s, t.n, b));
}

/* The MOTION section into a clip. One function on purpose (scripts/lint.sh allows its
 * length): its frame loop is the reader's hot path (tools/bench/bench_bvh_read), keeps the
 * read position in a local, and its rare error branches report from the loop's state. */
static mb_status read_motion(parser *ps, const mb_skeleton *s, int lenient, mb_error *warning,
                             mb_clip **out_clip)
{
    mb_status st;
    token t = next_token(ps);
    char b[48];
    if (!tok_is(t, "MOTION"))
        return fail_no_motion(ps, t);
    token count_tok, time_tok;
    if ((st = expect_label(ps, "Frames", NULL, &count_tok)) != MB_OK)
        return st;
    long long declared = 0;
    if ((st = read_int_token(ps, "frame count", MB_MAX_FRAMES, &declared, &count_tok)) != MB_OK)
        return st;
    int frames_line = count_tok.line;
    if ((st = expect_label(ps, "Frame", "Time", &time_tok)) != MB_OK)
        return st;
    t = time_tok.n > 0 ? time_tok : next_token(ps);
    double frame_time = 0.0;
    const char *next = NULL;
    if (t.n == 0)
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "file ends where the frame time should be (expected 'Frame Time: "
                       "<seconds>')%s",
                       "");
    mb_num_result r = mb_parse_double_(t.s, t.s + t.n, &frame_time, &next);
    if (r != MB_NUM_OK || next != t.s + t.n || !(frame_time > 0.0))
        return mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                       "frame time must be a positive number of seconds, found '%s'",
                       excerpt(t.s, t.n, b));

    int nch = s->channel_count;
    int nj = s->joint_count;
    if (nch == 0 && declared > 0) {
        /* Nothing in the data can confirm the count, and accepting it would let a tiny
         * file allocate gigabytes of identical frames. */
        if (!lenient)
            return mb_error_set_at_(ps->err, MB_PARSE, ps->source, count_tok.line, count_tok.column,
                           "the hierarchy has no channels, so frames hold no values: the frame "
                           "count must be 0, found %lld",
                           declared);
        warn(ps, warning, count_tok.line, count_tok.column,
             "the hierarchy has no channels, so frames hold no values; loaded 0 of the %lld "
             "declared frames",
             declared);
        declared = 0;
    }
    /* Capacity before allocating: each value needs at least one byte and one separator,
     * so a short file cannot make us allocate for a huge declared frame count. The loop
     * still runs to the declared count; a frame beyond the capacity cannot be complete,
     * so it ends in the usual "file ends" or bad-value error. */
    long long cap = declared;
    skip_space(ps);
    if (nch > 0) {
        long long remaining = (long long)(ps->end - ps->p);
        long long possible = (remaining + 1) / (2LL * nch);
        if (cap > possible)
            cap = possible;
    }
    /* Translations only for the joints with position channels (the clip's tracked set). */
    int nt = s->translation_count;
    unsigned long long bytes = (unsigned long long)cap *
                               ((unsigned long long)nj * 16u + (unsigned long long)nt * 12u);
    if (bytes > MB_MAX_TRACK_BYTES)
        return mb_error_set_at_(ps->err, MB_LIMIT, ps->source, count_tok.line, count_tok.column,
                       "%lld frames of %d joints (%d with position channels) need %llu bytes "
                       "of tracks, more than the limit MB_MAX_TRACK_BYTES (%llu)",
                       cap, nj, nt, bytes, (unsigned long long)MB_MAX_TRACK_BYTES);
    mb_clip *clip = NULL;
    st = mb_clip_alloc(nj, (int)cap, frame_time, s->translation_joints, nt, ps->alloc, &clip, NULL);
    if (st != MB_OK)
        return mb_error_set_at_(ps->err, st, ps->source, count_tok.line, count_tok.column,
                       "cannot allocate tracks for %lld frames of %d joints (%s)", cap, nj,
                       mb_status_str(st));
    /* The values of one frame, then the zero that missing rotation axes read. */
    float *row = mb_alloc_(ps->alloc, ((size_t)nch + 1) * sizeof(float));
    joint_map *maps = mb_alloc_(ps->alloc, (size_t)nj * sizeof *maps);
    void *eb_mem = mb_alloc_(ps->alloc, euler_batch_bytes(nj));
    /* The token window of the values kernel (bvh_read_internal.h): starts, then ends. */
    uint32_t *tok_mem = mb_alloc_(ps->alloc, 2u * MB_BVH_TOK_CAP_ * sizeof(uint32_t));
    mb_bvh_tokens_ tk = {NULL, tok_mem, tok_mem ? tok_mem + MB_BVH_TOK_CAP_ : NULL, 0, 0};
    mb_bvh_values_fn_ values = mb_bvh_values_kernel_(MB_ISA_AUTO_);
    if (!row || !maps || !eb_mem || !tok_mem) {
        st = mb_error_set_at_(ps->err, MB_NOMEM, ps->source, count_tok.line, count_tok.column, "out of memory%s", "");
        goto done;
    }
    row[nch] = 0.0f;
    build_maps(s, maps);
    euler_batch eb;
    euler_batch_init(&eb, eb_mem, s);
    float *rot = mb_clip_rotations_mut(clip);
    float *trans = mb_clip_translations_mut(clip);

    long long f = 0;
    /* ps->p, ps->line and ps->line_start stay at the start of the data while the loop
     * moves `at`; sync_to brings them up to date only where a message needs a position. */
    const char *at = ps->p;
    for (; f < declared; ++f) {
        const char *p = at;
        /* The kernel reads what it can; the scalar loop the rest of the row, from where
         * the kernel stopped, with the same values, and makes every message. */
        int c = values(&tk, ps->begin, &p, ps->end, row, nch);
        if (c < nch) {
            tk.count = tk.next = 0;
            c += read_row(&p, ps->end, row + c, nch - c);
        }
        if (c < nch) {
            if (p == ps->end) {
                sync_to(ps, p);
                int el, ec;
                eof_position(ps, &el, &ec);
                if (lenient) {
                    warn(ps, warning, el, ec,
                         "file holds %lld complete frames, its Frames line (line %d) says %lld; "
                         "loaded the frames present",
                         f, frames_line, declared);
                    goto truncated;
                }
                if (c == 0)
                    st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, el, ec,
                                 "file ends after %lld frames, but the Frames line (line %d) "
                                 "says %lld",
                                 f, frames_line, declared);
                else
                    st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, el, ec,
                                 "expected %d channel values in frame %lld, found %d (file ends)",
                                 nch, f, c);
                goto done;
            }
            /* A bad value: parse it again for the reason (the fast path and
             * mb_parse_float_ accept the same texts and stop at the same byte). */
            const char *q;
            r = mb_parse_float_(p, ps->end, &row[c], &q);
            sync_to(ps, p);
            const char *e = p;
            while (e < ps->end && !mb_bvh_is_space_(*e))
                ++e;
            char what[300];
            describe_channel(s, c, what, sizeof what);
            const char *tx = excerpt(p, (size_t)(e - p), b);
            int line = ps->line, col = column_of(ps, p);
            if (r == MB_NUM_NONFINITE)
                st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, line, col,
                             "non-finite value '%s' for %s in frame %lld (expected a finite "
                             "number)",
                             tx, what, f);
            else if (r == MB_NUM_RANGE)
                st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, line, col,
                             "value '%s' for %s in frame %lld is outside the float range "
                             "(about +-3.4e38)",
                             tx, what, f);
            else if (r == MB_NUM_TOO_LONG)
                st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, line, col,
                             "number '%s' for %s in frame %lld is longer than %d characters",
                             tx, what, f, MB_NUM_MAX_TOKEN);
            else if (r == MB_NUM_OK)
                st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, line, col,
                             "malformed number '%s' for %s in frame %lld (values must be "
                             "separated by whitespace)",
                             tx, what, f);
            else
                st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, line, col,
                             "expected a number for %s in frame %lld, found '%s'", what, f, tx);
            goto done;
        }
        at = p;
        if (f >= cap) { /* impossible: the capacity bound above is exact for dense data */
            sync_to(ps, at);
            st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, ps->line, column_of(ps, ps->p),
                         "internal error: frame %lld exceeds the computed capacity %lld", f, cap);
            goto done;
        }
        size_t off = (size_t)f * (size_t)nj;
        store_frame(s, maps, &eb, row, rot + 4 * off,
                    trans ? trans + 3 * (size_t)f * (size_t)nt : NULL,
                    f > 0 ? rot + 4 * (off - (size_t)nj) : NULL);
    }
    while (at < ps->end && space_tab[(unsigned char)*at])
        ++at;
    if (at < ps->end) {
        sync_to(ps, at);
        if (lenient) {
            warn(ps, warning, ps->line, column_of(ps, ps->p),
                 "data continues after the %lld frames the Frames line (line %d) declares; "
                 "ignored",
                 declared, frames_line);
        } else {
            st = mb_error_set_at_(ps->err, MB_PARSE, ps->source, ps->line, column_of(ps, ps->p),
                         "data continues after the %lld frames declared by the Frames line "
                         "(line %d); fix the count or load leniently",
                         declared, frames_line);
            goto done;
        }
    }
truncated:
    if (f < cap)
        mb_clip_truncate_(clip, (int)f);
    st = MB_OK;
done:
    mb_free_(ps->alloc, row);
    mb_free_(ps->alloc, maps);
    mb_free_(ps->alloc, eb_mem);
    mb_free_(ps->alloc, tok_mem);
    if (st != MB_OK) {
        mb_clip_destroy(clip);
        return st;
    }
    *out_clip = clip;
    return MB_OK;
}

/* ---------- entry points ---------- */

/* HIERARCHY and every ROOT's hierarchy into ps->joints; *group is set when there are
 * several ROOTs (Blender reads them; some exporters write one per actor): each one is read
 * like the first, and node 0 of the skeleton becomes a group that holds them. */
static mb_status read_roots(parser *ps, int *group)
{
    mb_status st;
    char b[48];
    token t = next_token(ps);
    if (!tok_is(t, "HIERARCHY"))
        return t.n == 0 ? mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column, "empty file: expected HIERARCHY")
                        : mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                                  "expected HIERARCHY at the start of a BVH file, found '%s'%s",
                                  excerpt(t.s, t.n, b), not_bvh_hint(ps->p - t.n, ps->end));
    t = next_token(ps);
    if (!tok_is(t, "ROOT"))
        return t.n == 0 ? mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column, "file ends before the ROOT joint")
                        : mb_error_set_at_(ps->err, MB_PARSE, ps->source, t.line, t.column,
                                  "expected ROOT after HIERARCHY, found '%s'", excerpt(t.s, t.n, b));
    if ((st = read_hierarchy(ps, t)) != MB_OK)
        return st;
    int roots = 1;
    token second_root = {0};
    while (tok_is(peek_token(ps), "ROOT")) {
        t = next_token(ps);
        if (roots++ == 1)
            second_root = t;
        if ((st = read_hierarchy(ps, t)) != MB_OK)
            return st;
    }
    *group = roots > 1;
    if (*group && ps->joint_count + 1 > MB_MAX_JOINTS)
        return mb_error_set_at_(ps->err, MB_LIMIT, ps->source, second_root.line, second_root.column,
                       "%d joints and End Sites under %d ROOTs, plus the node that groups the "
                       "ROOTs, are more than the limit MB_MAX_JOINTS (%d)",
                       ps->joint_count, roots, MB_MAX_JOINTS);
    return MB_OK;
}

/* The skeleton of the joints read, under a "ROOTS" group node when group is set. */
static mb_status create_skeleton(parser *ps, int group, const mb_bvh_read_desc *d,
                                 mb_skeleton **skel)
{
    const int n = ps->joint_count + group;
    mb_joint_desc *descs = mb_alloc_(ps->alloc, (size_t)n * sizeof *descs);
    if (!descs)
        return mb_error_set_at_(ps->err, MB_NOMEM, ps->source, ps->line, 1, "out of memory");
    char group_name[24] = "ROOTS";
    if (group) {
        /* named after what it holds, unless a joint has that name */
        for (int k = 2; find_joint(ps, group_name, ps->joint_count) >= 0; ++k)
            snprintf(group_name, sizeof group_name, "ROOTS_%d", k);
        memset(&descs[0], 0, sizeof descs[0]);
        descs[0].name = group_name;
        descs[0].parent = -1;
        descs[0].roots_group = 1;
    }
    for (int i = 0; i < ps->joint_count; ++i) {
        mb_joint_desc *jd = &descs[i + group];
        *jd = ps->joints[i].d;
        jd->name = ps->joints[i].name;
        if (group)
            jd->parent = jd->parent < 0 ? 0 : jd->parent + 1;
    }
    mb_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.joints = descs;
    sd.joint_count = n;
    sd.allocator = d->allocator;
    mb_error why;
    mb_status st = mb_skeleton_create(&sd, skel, &why);
    mb_free_(ps->alloc, descs);
    if (st != MB_OK) /* the parser checks everything create checks; this is a safety net */
        return st == MB_NOMEM
                   ? mb_error_set_at_(ps->err, st, ps->source, ps->line, 1, "out of memory creating the skeleton")
                   : mb_error_set_at_(ps->err, st, ps->source, ps->line, 1, "invalid skeleton: %s", why.text);
    return MB_OK;
}

mb_status mb_bvh_read_mem(const char *text, size_t len, const char *source,
                          const mb_bvh_read_desc *d, mb_skeleton **out_skel, mb_clip **out_clip,
                          mb_error *err)
{
    if (out_skel)
        *out_skel = NULL;
    if (out_clip)
        *out_clip = NULL;
    mb_error_clear_(err);
    mb_bvh_read_desc defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!d)
        d = &defaults;
    if (d->warning) {
        memset(d->warning, 0, sizeof *d->warning);
        set_source(d->warning, source);
    }
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.source = source ? source : "<memory>";
    ps.err = err;
    ps.alloc = &d->allocator;
    if (!out_skel || (!text && len > 0))
        return mb_error_set_(err, MB_INVALID_ARG, ps.source, "invalid argument (NULL text or output)");
    ps.p = text ? text : "";
    ps.end = ps.p + len;
    ps.line = 1;
    if (len >= 3 && (unsigned char)ps.p[0] == 0xEF && (unsigned char)ps.p[1] == 0xBB &&
        (unsigned char)ps.p[2] == 0xBF)
        ps.p += 3; /* UTF-8 byte order mark */
    ps.begin = ps.p;
    ps.line_start = ps.p;

    mb_status st;
    mb_skeleton *skel = NULL;
    mb_clip *clip = NULL;
    int group = 0;
    if ((st = read_roots(&ps, &group)) != MB_OK || (st = create_skeleton(&ps, group, d, &skel)) != MB_OK)
        goto out;
    if ((st = read_motion(&ps, skel, d->lenient, d->warning, &clip)) != MB_OK)
        goto out;

out:
    mb_free_(ps.alloc, ps.joints);
    if (st != MB_OK) {
        mb_skeleton_destroy(skel);
        mb_clip_destroy(clip);
        return st;
    }
    *out_skel = skel;
    if (out_clip)
        *out_clip = clip;
    else
        mb_clip_destroy(clip);
    return MB_OK;
}

/* Regular file f of st_size bytes into *buf (allocated with a, one spare byte), *size
 * bytes. On failure the status and *why; *buf may hold memory for the caller to free. */
static mb_status slurp_regular(FILE *f, long long st_size, const mb_allocator *a, char **buf,
                               long long *size, const char **why)
{
    *size = st_size;
    if ((unsigned long long)st_size > MB_BVH_MAX_FILE_BYTES) {
        *why = "file larger than the 8 GiB limit (MB_BVH_MAX_FILE_BYTES)";
        return MB_LIMIT;
    }
    *buf = mb_alloc_(a, (size_t)st_size + 1);
    if (!*buf) {
        *why = "out of memory reading the file";
        return MB_NOMEM;
    }
    if (st_size > 0 && fread(*buf, 1, (size_t)st_size, f) != (size_t)st_size) {
        *why = ferror(f) ? strerror(errno) : "file shrank while reading";
        return MB_IO;
    }
    return MB_OK;
}

/* A pipe or device: no size up front, so read in growing chunks (the allocator hooks have
 * no realloc: copy on growth, doubling keeps it linear) into *buf, *size bytes. Failure as
 * slurp_regular. */
static mb_status slurp_stream(FILE *f, const mb_allocator *a, char **buf, long long *size,
                              const char **why)
{
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            if (ncap > MB_BVH_MAX_FILE_BYTES + 1)
                ncap = (size_t)MB_BVH_MAX_FILE_BYTES + 1;
            if (ncap <= cap) {
                *why = "input larger than the 8 GiB limit (MB_BVH_MAX_FILE_BYTES)";
                return MB_LIMIT;
            }
            char *nb = mb_alloc_(a, ncap);
            if (!nb) {
                *why = "out of memory reading the file";
                return MB_NOMEM;
            }
            if (n)
                memcpy(nb, *buf, n);
            mb_free_(a, *buf);
            *buf = nb;
            cap = ncap;
        }
        size_t r = fread(*buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                *why = strerror(errno);
                return MB_IO;
            }
            break;
        }
    }
    if (n > MB_BVH_MAX_FILE_BYTES) {
        *why = "input larger than the 8 GiB limit (MB_BVH_MAX_FILE_BYTES)";
        return MB_LIMIT;
    }
    *size = (long long)n;
    return MB_OK;
}

mb_status mb_bvh_read_file(const char *path, const mb_bvh_read_desc *d, mb_skeleton **out_skel,
                           mb_clip **out_clip, mb_error *err)
{
    if (out_skel)
        *out_skel = NULL;
    if (out_clip)
        *out_clip = NULL;
    mb_error_clear_(err);
    const mb_allocator *a = d ? &d->allocator : NULL;
    if (!path || !out_skel)
        return mb_error_set_(err, MB_INVALID_ARG, path, "invalid argument (NULL path or output)");
    mb_status st = MB_IO;
    char *buf = NULL;
    FILE *f = fopen(path, "rb");
    const char *why = NULL;
    long long size = -1;
    struct stat sb;
    if (!f) {
        why = strerror(errno);
        goto fail;
    }
    if (fstat(fileno(f), &sb) != 0) {
        why = strerror(errno);
        goto fail;
    }
    if (S_ISDIR(sb.st_mode)) {
        why = "it is a directory";
        goto fail;
    }
    st = S_ISREG(sb.st_mode) ? slurp_regular(f, (long long)sb.st_size, a, &buf, &size, &why)
                             : slurp_stream(f, a, &buf, &size, &why);
    if (st != MB_OK)
        goto fail;
    fclose(f);
    f = NULL;
    st = mb_bvh_read_mem(buf, (size_t)size, path, d, out_skel, out_clip, err);
    mb_free_(a, buf);
    return st;
fail:
    if (f)
        fclose(f);
    mb_free_(a, buf);
    return mb_error_set_(err, st, path, "cannot read file: %s", why);
}
