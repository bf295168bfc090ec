/* Finding the humanoid roles of a skeleton's joints (the contract is in offline/roles.h, the
 * rules in docs/retarget.md "Roles and the map file").
 *
 * Order: (1) names give each joint a kind (role_names.c); limb kinds become roles, and a
 * chain of joints named alike ("Leg01", "Leg02"; CesiumMan's "arm_joint_L") takes the
 * limb's roles in chain order; (2) one joint per role (the best-named one); (3) the map
 * overrides; (4) HIPS from the tree when no name gave it; (5) name matches that contradict
 * the tree are dropped; (6) CHEST is the joint the neck and both arms hang from, SPINE the
 * joints between it and the hips; (7) gaps in a limb chain are filled from the tree. Map
 * entries are never changed by (4)-(7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"
#include "offline/retarget/roles_internal.h"

static const char *const role_names_[MB_ROLE_COUNT] = {
    "none",        "hips",        "spine",       "chest",       "neck",        "head",
    "shoulder_l",  "shoulder_r",  "upper_arm_l", "upper_arm_r", "forearm_l",   "forearm_r",
    "hand_l",      "hand_r",      "upper_leg_l", "upper_leg_r", "lower_leg_l", "lower_leg_r",
    "foot_l",      "foot_r",      "toes_l",      "toes_r"};

const char *mb_role_name(mb_role role)
{
    return (int)role >= 0 && role < MB_ROLE_COUNT ? role_names_[role] : NULL;
}

mb_role mb_role_from_name(const char *name)
{
    for (int r = 1; name && r < MB_ROLE_COUNT; ++r)
        if (strcasecmp(name, role_names_[r]) == 0)
            return (mb_role)r;
    return MB_ROLE_NONE;
}

mb_role mb_role_mirror(mb_role role)
{
    if (role < MB_ROLE_SHOULDER_L || role >= MB_ROLE_COUNT)
        return role;
    return (mb_role)(((role - MB_ROLE_SHOULDER_L) & 1) ? role - 1 : role + 1);
}

/* The limbs, root to tip; the left role of each (the right one is the next value). */
static const mb_role arm_[4] = {MB_ROLE_SHOULDER_L, MB_ROLE_UPPER_ARM_L, MB_ROLE_FOREARM_L,
                                MB_ROLE_HAND_L};
static const mb_role leg_[4] = {MB_ROLE_UPPER_LEG_L, MB_ROLE_LOWER_LEG_L, MB_ROLE_FOOT_L,
                                MB_ROLE_TOES_L};

typedef struct finder_ {
    const mb_skeleton *skel;
    int n;
    const int *parent;
    int *depth;
    int *rank;                           /* family_ranks */
    unsigned char *several;
    mb_name_info_ *info;
    unsigned char *role, *how, *locked; /* locked: set by the map */
    int where[MB_ROLE_COUNT];            /* the joint of each role (SPINE: nearest the hips) */
    int map_spine;                       /* the map named spine joints */
} finder_;

/* ---------- tree helpers ---------- */

/* Whether a is b or one of its ancestors. */
static int above_or_at(const finder_ *f, int a, int b)
{
    for (; b >= 0; b = f->parent[b])
        if (b == a)
            return 1;
    return 0;
}

static int lca(const finder_ *f, int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    while (f->depth[a] > f->depth[b])
        a = f->parent[a];
    while (f->depth[b] > f->depth[a])
        b = f->parent[b];
    while (a != b)
        a = f->parent[a], b = f->parent[b];
    return a;
}

static void index_roles(finder_ *f)
{
    for (int r = 0; r < MB_ROLE_COUNT; ++r)
        f->where[r] = -1;
    for (int j = 0; j < f->n; ++j) {
        int r = f->role[j];
        if (r && (f->where[r] < 0 || f->depth[j] < f->depth[f->where[r]]))
            f->where[r] = j;
    }
}

static void set_role(finder_ *f, int j, int role, mb_role_how how)
{
    f->role[j] = (unsigned char)role;
    f->how[j] = (unsigned char)how;
}

/* ---------- (1) names ---------- */

/* The roles a chain of joints named alike takes, in chain order (from the shallowest). */
static int family_roles(mb_name_kind_ kind, mb_role *seq)
{
    static const mb_role neck[2] = {MB_ROLE_NECK, MB_ROLE_HEAD};
    const mb_role *from = kind == MB_KIND_ARM_ ? arm_ + 1 : kind == MB_KIND_LEG_ ? leg_
                        : kind == MB_KIND_FOOT_ ? leg_ + 2 : kind == MB_KIND_NECK_ ? neck : NULL;
    int n = kind == MB_KIND_ARM_ ? 3 : kind == MB_KIND_LEG_ ? 4 : 2;
    if (!from)
        return 0;
    for (int i = 0; i < n; ++i)
        seq[i] = from[i];
    return n;
}

static int same_name(const finder_ *f, int a, int b)
{
    return f->info[a].kind == f->info[b].kind && f->info[a].side == f->info[b].side &&
           strcmp(f->info[a].core, f->info[b].core) == 0;
}

/* For the joints of family kinds: rank[j], their place among the joints named alike on
 * their chain (0 = shallowest), and several[j], whether there are several. One pass,
 * parents first, each joint finding its nearest like-named ancestor: O(joints x depth). */
static void family_ranks(const finder_ *f, int *rank, unsigned char *several)
{
    mb_role seq[4];
    for (int j = 0; j < f->n; ++j) {
        rank[j] = 0;
        several[j] = 0;
        if (!family_roles(f->info[j].kind, seq))
            continue;
        int a = f->parent[j];
        while (a >= 0 && !same_name(f, a, j))
            a = f->parent[a];
        if (a >= 0) {
            rank[j] = rank[a] + 1;
            several[j] = several[a] = 1;
        }
    }
}

static mb_role role_of_kind(mb_name_kind_ kind)
{
    static const mb_role r[MB_KIND_COUNT_] = {
        [MB_KIND_HIPS_] = MB_ROLE_HIPS,          [MB_KIND_NECK_] = MB_ROLE_NECK,
        [MB_KIND_HEAD_] = MB_ROLE_HEAD,          [MB_KIND_COLLAR_] = MB_ROLE_SHOULDER_L,
        [MB_KIND_SHOULDER_] = MB_ROLE_SHOULDER_L, [MB_KIND_ARM_] = MB_ROLE_UPPER_ARM_L,
        [MB_KIND_UPPER_ARM_] = MB_ROLE_UPPER_ARM_L, [MB_KIND_FOREARM_] = MB_ROLE_FOREARM_L,
        [MB_KIND_HAND_] = MB_ROLE_HAND_L,        [MB_KIND_UPPER_LEG_] = MB_ROLE_UPPER_LEG_L,
        [MB_KIND_LEG_] = MB_ROLE_LOWER_LEG_L,    [MB_KIND_LOWER_LEG_] = MB_ROLE_LOWER_LEG_L,
        [MB_KIND_FOOT_] = MB_ROLE_FOOT_L,        [MB_KIND_TOES_] = MB_ROLE_TOES_L};
    return r[kind];
}

/* Whether a "shoulder" hangs below a collar of its side: then it is the upper arm. */
static int below_collar(const finder_ *f, int j)
{
    for (int a = f->parent[j]; a >= 0; a = f->parent[a])
        if (f->info[a].kind == MB_KIND_COLLAR_ && f->info[a].side == f->info[j].side)
            return 1;
    return 0;
}

static void roles_from_names(finder_ *f)
{
    for (int j = 0; j < f->n; ++j) /* End Sites keep a zeroed info: no kind */
        if (!mb_skeleton_is_end_site(f->skel, j))
            mb_name_classify_(mb_skeleton_name(f->skel, j), &f->info[j]);
    family_ranks(f, f->rank, f->several);
    for (int j = 0; j < f->n; ++j) {
        const mb_name_info_ *in = &f->info[j];
        mb_role role = role_of_kind(in->kind), seq[4];
        mb_role_how how = MB_ROLE_FROM_NAME;
        if (in->kind == MB_KIND_SHOULDER_ && below_collar(f, j))
            role = MB_ROLE_UPPER_ARM_L;
        int n = family_roles(in->kind, seq);
        if (n && f->several[j]) { /* the name says the limb, the chain the role */
            mb_role own = role;
            int rank = f->rank[j];
            role = rank < n ? seq[rank] : MB_ROLE_NONE;
            how = role == own ? MB_ROLE_FROM_NAME : MB_ROLE_FROM_TOPOLOGY;
        }
        if (role >= MB_ROLE_SHOULDER_L && in->side == 2)
            role = mb_role_mirror(role);
        if (role)
            set_role(f, j, role, how);
    }
}

/* ---------- (2) one joint per role ---------- */

/* Whether candidate a is better than b for role r: a role read from the name beats one
 * from a chain of like names; then the upper leg takes the deepest (CMU's "LHipJoint"
 * above "LeftUpLeg"), every other role the shallowest ("Neck" above "Neck1"). */
static int better(const finder_ *f, int r, int a, int b)
{
    if (f->how[a] != f->how[b])
        return f->how[a] == MB_ROLE_FROM_NAME;
    int deep = r == MB_ROLE_UPPER_LEG_L || r == MB_ROLE_UPPER_LEG_R;
    if (f->depth[a] != f->depth[b])
        return deep ? f->depth[a] > f->depth[b] : f->depth[a] < f->depth[b];
    return a < b;
}

static void keep_one_per_role(finder_ *f)
{
    int best[MB_ROLE_COUNT];
    for (int r = 0; r < MB_ROLE_COUNT; ++r)
        best[r] = -1;
    for (int j = 0; j < f->n; ++j) {
        int r = f->role[j];
        if (r && r != MB_ROLE_SPINE && (best[r] < 0 || better(f, r, j, best[r])))
            best[r] = j;
    }
    for (int j = 0; j < f->n; ++j)
        if (f->role[j] && f->role[j] != MB_ROLE_SPINE && best[f->role[j]] != j)
            set_role(f, j, MB_ROLE_NONE, MB_ROLE_FROM_NAME);
    index_roles(f);
}

/* ---------- (3) the map ---------- */

static mb_status apply_map(finder_ *f, const mb_role_map *map, mb_error *err)
{
    for (int i = 0; map && i < map->count; ++i) {
        const mb_role_map_entry_ *e = &map->entries[i];
        int j = mb_skeleton_find(f->skel, e->joint);
        if (j < 0 || mb_skeleton_is_end_site(f->skel, j))
            return mb_error_set_at_(err, MB_INVALID_ARG, map->path, e->line, e->column,
                                    "the skeleton has no joint \"%s\"%s", e->joint,
                                    j >= 0 ? " (it is an End Site)" : "");
        for (int k = 0; e->role && e->role != MB_ROLE_SPINE && k < f->n; ++k)
            if (f->role[k] == e->role && !f->locked[k])
                set_role(f, k, MB_ROLE_NONE, MB_ROLE_FROM_NAME);
        set_role(f, j, e->role, MB_ROLE_FROM_MAP);
        f->locked[j] = 1;
        f->map_spine |= e->role == MB_ROLE_SPINE;
    }
    index_roles(f);
    return MB_OK;
}

/* ---------- (4) hips from the tree ---------- */

/* The first joint of a chain of roles (sided: left roles, side 0 or 1). */
static int first_of(const finder_ *f, const mb_role *seq, int n, int side)
{
    for (int i = 0; i < n; ++i)
        if (f->where[seq[i] + side] >= 0)
            return f->where[seq[i] + side];
    return -1;
}

/* Without a hips name: the joint both upper legs and the upper body hang from. */
static void hips_from_tree(finder_ *f)
{
    static const mb_role top[2] = {MB_ROLE_NECK, MB_ROLE_HEAD};
    int l = f->where[MB_ROLE_UPPER_LEG_L], r = f->where[MB_ROLE_UPPER_LEG_R];
    if (f->where[MB_ROLE_HIPS] >= 0 || l < 0 || r < 0)
        return;
    int h = lca(f, l, r);
    int upper[3] = {first_of(f, top, 2, 0), first_of(f, arm_, 4, 0), first_of(f, arm_, 4, 1)};
    for (int i = 0; i < 3; ++i)
        h = upper[i] >= 0 ? lca(f, h, upper[i]) : h;
    if (h >= 0 && !f->role[h] && !f->locked[h])
        set_role(f, h, MB_ROLE_HIPS, MB_ROLE_FROM_TOPOLOGY);
    index_roles(f);
}

/* ---------- (5) drop what contradicts the tree ---------- */

static void drop(finder_ *f, int j)
{
    if (j >= 0 && !f->locked[j])
        set_role(f, j, MB_ROLE_NONE, MB_ROLE_FROM_NAME);
}

/* Each role of a chain must hang below the one before it (the first below the hips). */
static void check_chain(finder_ *f, const mb_role *seq, int n, int side)
{
    int prev = f->where[MB_ROLE_HIPS];
    for (int i = 0; i < n; ++i) {
        int j = f->where[seq[i] + side];
        if (j < 0)
            continue;
        if (prev >= 0 && (j == prev || !above_or_at(f, prev, j)))
            drop(f, j);
        else
            prev = j;
    }
}

/* A limb inside another limb (an arm below a leg, a leg below an arm or the neck), or a
 * left role above or below its right one, is a misread name. */
static int inside_other_part(const finder_ *f, int j)
{
    int r = f->role[j];
    int is_leg = r >= MB_ROLE_UPPER_LEG_L && r <= MB_ROLE_TOES_R;
    for (int a = f->parent[j]; a >= 0; a = f->parent[a]) {
        int ra = f->role[a];
        if (ra >= MB_ROLE_UPPER_LEG_L && !is_leg)
            return 1; /* an arm, neck or head below a leg */
        if (is_leg && ra >= MB_ROLE_NECK && ra <= MB_ROLE_HAND_R)
            return 1;
    }
    int m = f->where[mb_role_mirror((mb_role)r)];
    return m >= 0 && m != j && (above_or_at(f, m, j) || above_or_at(f, j, m));
}

static void drop_contradictions(finder_ *f)
{
    static const mb_role top[2] = {MB_ROLE_NECK, MB_ROLE_HEAD};
    int bad[MB_MAX_JOINTS];
    int nbad = 0;
    for (int j = 0; j < f->n; ++j) /* first: a misplaced joint must not break a chain below */
        if (f->role[j] && f->role[j] != MB_ROLE_HIPS && inside_other_part(f, j))
            bad[nbad++] = j;
    for (int i = 0; i < nbad; ++i)
        drop(f, bad[i]);
    index_roles(f);
    for (int side = 0; side < 2; ++side) {
        check_chain(f, arm_, 4, side);
        check_chain(f, leg_, 4, side);
        index_roles(f);
    }
    check_chain(f, top, 2, 0);
    int hips = f->where[MB_ROLE_HIPS];
    for (int j = 0; hips >= 0 && j < f->n; ++j)
        if (f->role[j] && j != hips && !above_or_at(f, hips, j))
            drop(f, j); /* everything hangs below the hips */
    index_roles(f);
}

/* ---------- (6) chest and spine ---------- */

static mb_role_how torso_how(const finder_ *f, int j)
{
    return f->info[j].kind == MB_KIND_TORSO_ ? MB_ROLE_FROM_NAME : MB_ROLE_FROM_TOPOLOGY;
}

/* The chest: where the neck (or head) and both arms meet; without two of them, the
 * deepest torso-named joint below the hips. */
static int find_chest(const finder_ *f, int hips)
{
    static const mb_role top[2] = {MB_ROLE_NECK, MB_ROLE_HEAD};
    int item[3] = {first_of(f, top, 2, 0), first_of(f, arm_, 4, 0), first_of(f, arm_, 4, 1)};
    int c = -1, count = 0;
    for (int i = 0; i < 3; ++i)
        if (item[i] >= 0)
            c = lca(f, c, item[i]), ++count;
    while (count >= 2 && c >= 0 && (f->role[c] == MB_ROLE_NECK || f->role[c] == MB_ROLE_HEAD))
        c = f->parent[c]; /* Biped: the clavicles hang from the neck; the chest is below it */
    if (count >= 2)
        return c >= 0 && c != hips && above_or_at(f, hips, c) ? c : -1;
    c = -1;
    for (int j = 0; j < f->n; ++j)
        if (f->info[j].kind == MB_KIND_TORSO_ && !f->role[j] && j != hips &&
            above_or_at(f, hips, j) && (c < 0 || f->depth[j] > f->depth[c]))
            c = j;
    return c;
}

static void chest_and_spine(finder_ *f)
{
    int hips = f->where[MB_ROLE_HIPS];
    if (hips < 0)
        return;
    int chest = f->where[MB_ROLE_CHEST];
    if (chest < 0) {
        chest = find_chest(f, hips);
        if (chest < 0 || f->role[chest] || f->locked[chest])
            return;
        set_role(f, chest, MB_ROLE_CHEST, torso_how(f, chest));
    }
    for (int j = f->parent[chest]; !f->map_spine && j >= 0 && j != hips; j = f->parent[j])
        if (!f->role[j] && !f->locked[j])
            set_role(f, j, MB_ROLE_SPINE, torso_how(f, j));
    index_roles(f);
}

/* ---------- (7) gaps in a limb ---------- */

/* Whether j may take a role of side side (0 left, 1 right) from the tree: it has none, the
 * map left it alone, and its name does not name the other side. */
static int free_joint(const finder_ *f, int j, int side)
{
    return j >= 0 && !f->role[j] && !f->locked[j] && !mb_skeleton_is_end_site(f->skel, j) &&
           (f->info[j].side == 0 || f->info[j].side == side + 1);
}

/* The only child of j that is not an End Site, or -1. */
static int only_child(const finder_ *f, int j)
{
    int c = -1;
    for (int k = j + 1; k < f->n; ++k)
        if (f->parent[k] == j && !mb_skeleton_is_end_site(f->skel, k)) {
            if (c >= 0)
                return -1;
            c = k;
        }
    return c;
}

/* Roles seq[i..i+run) are missing between joint prev (an earlier role or the anchor) and
 * next (the next role present, -1 at the tip). Between two roles: the joints between them
 * when there are exactly run of them; before the first role: the last run joints above it;
 * past the last role: a chain of only children. */
static void fill_run(finder_ *f, const mb_role *seq, int side, int i, int run, int prev, int next,
                     int at_start)
{
    int path[8], len = 0;
    if (next < 0) {
        for (int k = 0, j = only_child(f, prev); k < run && free_joint(f, j, side); ++k) {
            set_role(f, j, seq[i + k] + side, MB_ROLE_FROM_TOPOLOGY);
            j = only_child(f, j);
        }
        return;
    }
    if (!above_or_at(f, prev, next))
        return;
    for (int j = f->parent[next]; j != prev && len < 8; j = f->parent[j])
        path[len++] = j; /* tip first */
    if (len < run || (len > run && !at_start))
        return;
    for (int k = 0; k < run; ++k)
        if (!free_joint(f, path[k], side))
            return;
    for (int k = 0; k < run; ++k)
        set_role(f, path[k], seq[i + run - 1 - k] + side, MB_ROLE_FROM_TOPOLOGY);
}

static void fill_chain(finder_ *f, const mb_role *seq, int n, int side, int anchor)
{
    if (anchor < 0 || first_of(f, seq, n, side) < 0)
        return; /* nothing of this limb was found: the tree alone cannot tell left from right */
    int prev = anchor;
    for (int i = 0; i < n;) {
        if (f->where[seq[i] + side] >= 0) {
            prev = f->where[seq[i] + side];
            ++i;
            continue;
        }
        int k = i;
        while (k < n && f->where[seq[k] + side] < 0)
            ++k;
        if (k < n || prev != anchor)
            fill_run(f, seq, side, i, k - i, prev, k < n ? f->where[seq[k] + side] : -1, i == 0);
        i = k;
    }
    index_roles(f);
}

static void fill_gaps(finder_ *f)
{
    int chest = f->where[MB_ROLE_CHEST] >= 0 ? f->where[MB_ROLE_CHEST] : f->where[MB_ROLE_HIPS];
    for (int side = 0; side < 2; ++side) {
        fill_chain(f, leg_, 4, side, f->where[MB_ROLE_HIPS]);
        fill_chain(f, arm_, 4, side, chest);
    }
}

/* ---------- the public functions ---------- */

static void finder_free(finder_ *f)
{
    free(f->depth);
    free(f->rank);
    free(f->several);
    free(f->info);
    free(f->locked);
}

static mb_status finder_init(finder_ *f, const mb_skeleton *skel, mb_roles *out)
{
    memset(f, 0, sizeof *f);
    f->skel = skel;
    f->n = mb_skeleton_joint_count(skel);
    f->parent = mb_skeleton_parents(skel);
    f->depth = malloc((size_t)f->n * sizeof *f->depth);
    f->rank = malloc((size_t)f->n * sizeof *f->rank);
    f->several = malloc((size_t)f->n);
    f->info = calloc((size_t)f->n, sizeof *f->info);
    f->locked = calloc((size_t)f->n, 1);
    out->of_joint = calloc((size_t)f->n, 1);
    out->how = calloc((size_t)f->n, 1);
    if (!f->depth || !f->rank || !f->several || !f->info || !f->locked || !out->of_joint ||
        !out->how)
        return MB_NOMEM;
    f->role = out->of_joint;
    f->how = out->how;
    for (int j = 0; j < f->n; ++j)
        f->depth[j] = f->parent[j] < 0 ? 0 : f->depth[f->parent[j]] + 1;
    return MB_OK;
}

mb_status mb_roles_find(const mb_skeleton *skel, const mb_role_map *map, mb_roles *out,
                        mb_error *err)
{
    mb_error_clear_(err);
    if (!skel || !out)
        return mb_error_set_(err, MB_INVALID_ARG, "roles", "no %s given",
                             !skel ? "skeleton" : "output");
    memset(out, 0, sizeof *out);
    finder_ f;
    mb_status st = finder_init(&f, skel, out);
    if (st == MB_OK) {
        roles_from_names(&f);
        keep_one_per_role(&f);
        st = apply_map(&f, map, err);
    }
    if (st == MB_OK) {
        hips_from_tree(&f);
        drop_contradictions(&f);
        chest_and_spine(&f);
        fill_gaps(&f);
        out->joint_count = f.n;
        memcpy(out->joint, f.where, sizeof out->joint);
        out->joint[MB_ROLE_NONE] = -1;
    }
    finder_free(&f);
    if (st != MB_OK) {
        mb_roles_free(out);
        return st == MB_NOMEM ? mb_error_set_(err, st, "roles", "out of memory") : st;
    }
    return MB_OK;
}

void mb_roles_free(mb_roles *roles)
{
    if (!roles)
        return;
    free(roles->of_joint);
    free(roles->how);
    memset(roles, 0, sizeof *roles);
}

mb_status mb_roles_require(const mb_roles *roles, const mb_role *need, int n, const char *what,
                           mb_error *err)
{
    mb_error_clear_(err);
    if (!roles || (n > 0 && !need) || n < 0)
        return mb_error_set_(err, MB_INVALID_ARG, mb_name_(what, "roles"), "no roles given");
    char list[256] = "";
    int missing = 0;
    size_t len = 0;
    for (int i = 0; i < n; ++i) {
        int r = need[i];
        if (r <= MB_ROLE_NONE || r >= MB_ROLE_COUNT || roles->joint[r] >= 0)
            continue;
        const char *name = role_names_[r];
        int w = snprintf(list + len, sizeof list - len, "%s%s", missing ? ", " : "", name);
        if (w > 0 && (size_t)w < sizeof list - len)
            len += (size_t)w;
        ++missing;
    }
    if (!missing)
        return MB_OK;
    return mb_error_set_(err, MB_INVALID_ARG, mb_name_(what, "roles"),
                         "no joint for the role%s %s (give them in a role map)",
                         missing > 1 ? "s" : "", list);
}
