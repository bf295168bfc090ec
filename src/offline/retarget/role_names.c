/* What joint names say: the words of a name (rig prefixes, sides and digits set apart) and
 * the humanoid kind they name; the other side's joint by name. The conventions covered
 * (CMU, CMU 3dsMax, Bandai-Namco, Mixamo, Rokoko, LAFAN1, Xia, 3ds Max Biped, Unreal,
 * Blender rigify-style, the glTF samples CesiumMan and Fox) are listed in docs/retarget.md. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "offline/retarget/roles_internal.h"

#define MAX_TOKENS_ 24
#define MAX_TOKEN_ 32

typedef struct tokens_ {
    char word[MAX_TOKENS_][MAX_TOKEN_];
    int count;
} tokens_;

/* A word boundary inside a run of letters and digits: lower to upper ("LeftArm"), an upper
 * followed by upper-then-lower ("LHip" -> "L", "Hip"), letter to digit and back. */
static int camel_break(const char *s, int i)
{
    unsigned char a = (unsigned char)s[i - 1], b = (unsigned char)s[i], c = (unsigned char)s[i + 1];
    if (isdigit(a) != isdigit(b))
        return 1;
    if (islower(a) && isupper(b))
        return 1;
    return isupper(a) && isupper(b) && c && islower(c);
}

static void push_token(tokens_ *t, const char *s, int n)
{
    if (t->count >= MAX_TOKENS_ || n <= 0)
        return;
    if (n >= MAX_TOKEN_)
        n = MAX_TOKEN_ - 1;
    for (int i = 0; i < n; ++i)
        t->word[t->count][i] = (char)tolower((unsigned char)s[i]);
    t->word[t->count][n] = '\0';
    t->count++;
}

/* The words of a name after its namespace ("mixamorig:", "Armature|"): split at every
 * character that is not a letter or digit and at camel-case and digit boundaries. */
static void tokenize(const char *name, tokens_ *out)
{
    const char *s = name;
    for (const char *p = name; *p; ++p)
        if (*p == ':' || *p == '|')
            s = p + 1;
    out->count = 0;
    int start = -1;
    for (int i = 0;; ++i) {
        int alnum = s[i] && isalnum((unsigned char)s[i]);
        if (start >= 0 && (!alnum || camel_break(s, i))) {
            push_token(out, s + start, i - start);
            start = -1;
        }
        if (!s[i])
            break;
        if (alnum && start < 0)
            start = i;
    }
}

static int is_digits(const char *w)
{
    for (; *w; ++w)
        if (!isdigit((unsigned char)*w))
            return 0;
    return 1;
}

static int word_in(const char *w, const char *const *list)
{
    for (; *list; ++list)
        if (strcmp(w, *list) == 0)
            return 1;
    return 0;
}

/* Words that say nothing about the body part: rig and exporter prefixes. */
static const char *const noise_words_[] = {"mixamorig", "bip", "b", "def", "skeleton", "joint",
                                           "jnt", "bone", "armature", "rig", "cc", "base",
                                           NULL};
/* Words that make a joint a leaf marker, never a body part ("HeadTop_End", "Toe0Nub"). */
static const char *const end_words_[] = {"end", "nub", "tip", "site", "top", NULL};

typedef struct kind_name_ {
    const char *core;
    mb_name_kind_ kind;
} kind_name_;

/* Exact cores (the words of a name concatenated, see mb_name_info_). "base" is noise, so
 * "LeftToeBase" is "toe". */
static const kind_name_ kinds_[] = {
    {"hips", MB_KIND_HIPS_},           {"hip", MB_KIND_HIPS_},
    {"pelvis", MB_KIND_HIPS_},         {"spine", MB_KIND_TORSO_},
    {"lowerback", MB_KIND_TORSO_},     {"back", MB_KIND_TORSO_},
    {"chest", MB_KIND_TORSO_},         {"upperchest", MB_KIND_TORSO_},
    {"torso", MB_KIND_TORSO_},         {"abdomen", MB_KIND_TORSO_},
    {"neck", MB_KIND_NECK_},           {"lowerneck", MB_KIND_NECK_},
    {"head", MB_KIND_HEAD_},           {"collar", MB_KIND_COLLAR_},
    {"clavicle", MB_KIND_COLLAR_},     {"shoulder", MB_KIND_SHOULDER_},
    {"arm", MB_KIND_ARM_},             {"upperarm", MB_KIND_UPPER_ARM_},
    {"uparm", MB_KIND_UPPER_ARM_},     {"forearm", MB_KIND_FOREARM_},
    {"lowerarm", MB_KIND_FOREARM_},    {"elbow", MB_KIND_FOREARM_},
    {"hand", MB_KIND_HAND_},           {"wrist", MB_KIND_HAND_},
    {"upleg", MB_KIND_UPPER_LEG_},     {"upperleg", MB_KIND_UPPER_LEG_},
    {"thigh", MB_KIND_UPPER_LEG_},     {"leg", MB_KIND_LEG_},
    {"lowerleg", MB_KIND_LOWER_LEG_},  {"knee", MB_KIND_LOWER_LEG_},
    {"shin", MB_KIND_LOWER_LEG_},      {"calf", MB_KIND_LOWER_LEG_},
    {"foot", MB_KIND_FOOT_},           {"ankle", MB_KIND_FOOT_},
    {"toe", MB_KIND_TOES_},            {"toes", MB_KIND_TOES_},
    {"ball", MB_KIND_TOES_},
};

static mb_name_kind_ kind_of_core(const char *core)
{
    for (size_t i = 0; i < sizeof kinds_ / sizeof kinds_[0]; ++i)
        if (strcmp(core, kinds_[i].core) == 0)
            return kinds_[i].kind;
    return MB_KIND_NONE_;
}

/* Whether a kind names a part with sides (arms, legs) rather than the middle of the body. */
static int kind_has_sides(mb_name_kind_ k) { return k >= MB_KIND_COLLAR_; }

static int side_of_word(const char *w)
{
    if (strcmp(w, "l") == 0 || strcmp(w, "left") == 0)
        return 1;
    if (strcmp(w, "r") == 0 || strcmp(w, "right") == 0)
        return 2;
    return 0;
}

void mb_name_classify_(const char *name, mb_name_info_ *out)
{
    tokens_ t;
    tokenize(name, &t);
    memset(out, 0, sizeof *out);
    int conflict = 0;
    for (int i = 0; i < t.count; ++i) {
        const char *w = t.word[i];
        int side = side_of_word(w);
        if (word_in(w, end_words_))
            return; /* a leaf marker: no kind */
        if (side) {
            conflict |= out->side && out->side != side;
            out->side = side;
        } else if (!is_digits(w) && !word_in(w, noise_words_)) {
            size_t have = strlen(out->core), add = strlen(w);
            if (have + add < sizeof out->core)
                memcpy(out->core + have, w, add + 1);
        }
    }
    if (conflict)
        out->side = 0;
    out->kind = kind_of_core(out->core);
    /* "hip" with a side is the upper leg (CMU 3dsMax "LeftHip", "B_Hip_Left"). */
    if (out->kind == MB_KIND_HIPS_ && out->side && strcmp(out->core, "hip") == 0)
        out->kind = MB_KIND_UPPER_LEG_;
    /* A side on a middle part, or a limb without one, says nothing reliable. */
    if ((out->side != 0) != kind_has_sides(out->kind))
        out->kind = MB_KIND_NONE_;
}

/* ---------- the other side's joint by name ---------- */

/* Copies name into out with every "left" and "right" (any case, case kept: "Left" ->
 * "Right", "LEFT" -> "RIGHT") swapped. Returns 0 when there was none or out is too small. */
static int swap_words(const char *name, char *out, size_t size)
{
    static const char *const from[2] = {"left", "right"}, *const to[2] = {"right", "left"};
    size_t o = 0;
    int swapped = 0;
    for (const char *p = name; *p;) {
        int k = strncasecmp(p, from[0], 4) == 0 ? 0 : strncasecmp(p, from[1], 5) == 0 ? 1 : -1;
        if (k >= 0) {
            size_t n = strlen(from[k]), m = strlen(to[k]);
            int upper = isupper((unsigned char)p[0]), all = n > 1 && isupper((unsigned char)p[1]);
            if (o + m >= size)
                return 0;
            for (size_t i = 0; i < m; ++i)
                out[o + i] = (char)((i == 0 ? upper : all) ? toupper(to[k][i]) : to[k][i]);
            o += m, p += n, swapped = 1;
            continue;
        }
        if (o + 1 >= size)
            return 0;
        out[o++] = *p++;
    }
    out[o] = '\0';
    return swapped;
}

/* Whether name[i] is a one-letter word: not a letter on its left (or a lower-case one
 * before an upper-case L/R), and no lower-case letter on its right ("Hand_L", "LThumb",
 * "leg_L_1"). */
static int single_letter(const char *name, size_t i)
{
    unsigned char c = (unsigned char)name[i], next = (unsigned char)name[i + 1];
    int left_ok = i == 0 || !isalpha((unsigned char)name[i - 1]) ||
                  (isupper(c) && islower((unsigned char)name[i - 1]));
    return left_ok && !islower(next);
}

/* Copies name with its one-letter side words L/R (l/r) swapped; 0 when there was none. */
static int swap_letters(const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    if (n >= size)
        return 0;
    int swapped = 0;
    for (size_t i = 0; i <= n; ++i) {
        char c = name[i];
        out[i] = c;
        if (strchr("LRlr", c) && c && single_letter(name, i)) {
            out[i] = c == 'L' ? 'R' : c == 'R' ? 'L' : c == 'l' ? 'r' : 'l';
            swapped = 1;
        }
    }
    return swapped;
}

int mb_name_mirror_joint_(const mb_skeleton *skel, const char *name)
{
    char buf[MB_MAX_NAME + 8];
    int self = mb_skeleton_find(skel, name);
    if (swap_words(name, buf, sizeof buf)) {
        int j = mb_skeleton_find(skel, buf);
        if (j >= 0 && j != self)
            return j;
    }
    if (swap_letters(name, buf, sizeof buf)) {
        int j = mb_skeleton_find(skel, buf);
        if (j >= 0 && j != self)
            return j;
    }
    /* A side glued to a lower-case word: CMU 3dsMax "lhand" / "rhand". */
    if ((name[0] == 'l' || name[0] == 'r') && strlen(name) < sizeof buf) {
        memcpy(buf, name, strlen(name) + 1);
        buf[0] = name[0] == 'l' ? 'r' : 'l';
        int j = mb_skeleton_find(skel, buf);
        if (j >= 0 && j != self)
            return j;
    }
    return -1;
}
