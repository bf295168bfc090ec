/* Deterministic BVH text generator for the benchmarks (see bvh_gen.h). */
#include "bvh_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t bench_lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 32);
}

static double unit(uint64_t *st) { return bench_lcg(st) * (1.0 / 4294967296.0); }
static double uniform(uint64_t *st, double lo, double hi) { return lo + (hi - lo) * unit(st); }

/* ---------- growable buffer ---------- */

typedef struct buf {
    char *p;
    size_t len, cap;
    int oom;
} buf;

static int reserve(buf *b, size_t extra)
{
    if (b->oom)
        return 0;
    if (b->len + extra + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 1u << 16;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np) {
        b->oom = 1;
        return 0;
    }
    b->p = np;
    b->cap = cap;
    return 1;
}

static void put(buf *b, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void tabs(buf *b, int n)
{
    for (int i = 0; i < n; ++i)
        put(b, "\t");
}

/* ---------- skeleton ---------- */

#define GEN_MAX_NODES 96

typedef struct gnode {
    char name[48];
    int parent;
    int end_site;
    int order;      /* 0..5: XYZ XZY YXZ YZX ZXY ZYX */
    float offset[3];
} gnode;

typedef struct gskel {
    gnode n[GEN_MAX_NODES];
    int count;
} gskel;

static int add_node(gskel *s, uint64_t *st, const char *name, int parent, int end_site)
{
    gnode *g = &s->n[s->count];
    snprintf(g->name, sizeof g->name, "%s", name);
    g->parent = parent;
    g->end_site = end_site;
    /* Mixed orders: half ZXY (the CMU/MotionBuilder default), the rest spread over all six. */
    g->order = unit(st) < 0.5 ? 4 : (int)(bench_lcg(st) % 6u);
    for (int k = 0; k < 3; ++k)
        g->offset[k] = (float)uniform(st, -12.0, 12.0);
    return s->count++;
}

static int add_chain(gskel *s, uint64_t *st, int parent, const char *prefix, const char *const *names,
                     int n, int end_site)
{
    char nm[48];
    for (int i = 0; i < n; ++i) {
        snprintf(nm, sizeof nm, "%s%s", prefix, names[i]);
        parent = add_node(s, st, nm, parent, 0);
    }
    if (end_site)
        add_node(s, st, "End Site", parent, 1);
    return parent;
}

static void build_skeleton(gskel *s, uint64_t *st)
{
    s->count = 0;
    int hips = add_node(s, st, "Hips", -1, 0);
    static const char *const spine[] = {"Spine", "Spine1", "Spine2", "Spine3", "Neck", "Neck1", "Head"};
    add_chain(s, st, hips, "", spine, 7, 1);
    int spine3 = 4; /* Hips=0, Spine=1, ..., Spine3=4 */
    static const char *const sides[2] = {"Left", "Right"};
    static const char *const arm[] = {"Shoulder", "Arm", "ArmRoll", "ForeArm", "ForeArmRoll", "Hand"};
    static const char *const fingers[] = {"Thumb", "Index", "Middle", "Ring", "Pinky"};
    static const char *const leg[] = {"UpLeg", "Leg", "Foot", "ToeBase", "Toe"};
    for (int sd = 0; sd < 2; ++sd) {
        int hand = add_chain(s, st, spine3, sides[sd], arm, 6, 0);
        for (int f = 0; f < 5; ++f) {
            char pre[48];
            snprintf(pre, sizeof pre, "%sHand%s", sides[sd], fingers[f]);
            static const char *const seg[] = {"1", "2", "3"};
            add_chain(s, st, hand, pre, seg, 3, 1);
        }
    }
    for (int sd = 0; sd < 2; ++sd)
        add_chain(s, st, hips, sides[sd], leg, 5, 1);
}

static const char *const order_channels[6] = {
    "Xrotation Yrotation Zrotation", "Xrotation Zrotation Yrotation",
    "Yrotation Xrotation Zrotation", "Yrotation Zrotation Xrotation",
    "Zrotation Xrotation Yrotation", "Zrotation Yrotation Xrotation"};

static void emit_node(buf *b, const gskel *s, int i, int depth)
{
    const gnode *g = &s->n[i];
    char line[256];
    tabs(b, depth);
    if (g->end_site)
        put(b, "End Site\n");
    else {
        snprintf(line, sizeof line, "%s %s\n", g->parent < 0 ? "ROOT" : "JOINT", g->name);
        put(b, line);
    }
    tabs(b, depth);
    put(b, "{\n");
    tabs(b, depth + 1);
    snprintf(line, sizeof line, "OFFSET %.6f %.6f %.6f\n", g->offset[0], g->offset[1], g->offset[2]);
    put(b, line);
    if (!g->end_site) {
        tabs(b, depth + 1);
        if (g->parent < 0)
            snprintf(line, sizeof line, "CHANNELS 6 Xposition Yposition Zposition %s\n",
                     order_channels[g->order]);
        else
            snprintf(line, sizeof line, "CHANNELS 3 %s\n", order_channels[g->order]);
        put(b, line);
    }
    for (int c = 0; c < s->count; ++c)
        if (s->n[c].parent == i)
            emit_node(b, s, c, depth + 1);
    tabs(b, depth);
    put(b, "}\n");
}

/* ---------- motion ---------- */

typedef struct chan {
    double c, a, s, co, sw, cw, noise, drift;
    int tiny;
} chan;

static void init_channel(chan *ch, uint64_t *st, int index)
{
    memset(ch, 0, sizeof *ch);
    double period = uniform(st, 40.0, 400.0);
    double w = 6.283185307179586 / period, ph = uniform(st, 0.0, 6.283185307179586);
    ch->sw = sin(w);
    ch->cw = cos(w);
    ch->s = sin(ph);
    ch->co = cos(ph);
    if (index < 3) { /* root position: a walk along X and Z, a bounce in Y */
        ch->c = index == 1 ? 90.0 : uniform(st, -50.0, 50.0);
        ch->a = index == 1 ? 3.0 : uniform(st, 5.0, 40.0);
        ch->drift = index == 1 ? 0.0 : uniform(st, -0.02, 0.02);
        ch->noise = 0.01;
        return;
    }
    double u = unit(st);
    if (u < 0.65) {
        ch->c = uniform(st, -90.0, 90.0);
        ch->a = uniform(st, 1.0, 60.0);
        ch->noise = 0.02;
    } else if (u < 0.85) {
        ch->c = uniform(st, -2.0, 2.0);
        ch->a = uniform(st, 0.01, 1.0);
        ch->noise = 0.001;
    } else if (u < 0.95) { /* a nearly locked axis: exporters print these in %e */
        ch->a = uniform(st, 1e-6, 1e-3);
        ch->tiny = 1;
    } else {
        ch->c = uniform(st, -180.0, 180.0);
        ch->a = uniform(st, 90.0, 180.0);
        ch->noise = 0.05;
    }
}

static double next_value(chan *ch, uint64_t *st, int frame)
{
    double v = ch->c + ch->a * ch->s + ch->drift * frame + ch->noise * (unit(st) - 0.5);
    double s = ch->s * ch->cw + ch->co * ch->sw;
    double c = ch->co * ch->cw - ch->s * ch->sw;
    if ((frame & 1023) == 1023) { /* keep the phasor on the unit circle */
        double r = 1.0 / sqrt(s * s + c * c);
        s *= r;
        c *= r;
    }
    ch->s = s;
    ch->co = c;
    return v;
}

/* "%.<dec>f" without printf (fixed, dec <= 7); '-' for tiny negatives as printf does. */
static char *fmt_fixed(char *o, double v, int dec, int plus)
{
    static const uint64_t p10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    int neg = signbit(v) != 0;
    double a = neg ? -v : v;
    uint64_t s = (uint64_t)(a * (double)p10[dec] + 0.5);
    uint64_t ip = s / p10[dec], fp = s % p10[dec];
    if (neg)
        *o++ = '-';
    else if (plus)
        *o++ = '+';
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + ip % 10u);
        ip /= 10u;
    } while (ip);
    while (n)
        *o++ = tmp[--n];
    *o++ = '.';
    for (int k = dec - 1; k >= 0; --k) {
        o[k] = (char)('0' + fp % 10u);
        fp /= 10u;
    }
    return o + dec;
}

static char *fmt_value(char *o, double v, const chan *ch, uint64_t *st)
{
    double u = unit(st);
    int plus = v > 0.0 && unit(st) < 0.01;
    if (ch->tiny ? u < 0.6 : (u >= 0.95 && u < 0.99)) {
        int n = snprintf(o, 32, plus ? "%+.6e" : "%.6e", v);
        return o + n;
    }
    return fmt_fixed(o, v, u < 0.80 ? 4 : 6, plus);
}

int bench_gen(uint64_t seed, size_t target_bytes, int frames, bench_text *out)
{
    memset(out, 0, sizeof *out);
    uint64_t st = seed;
    gskel *s = malloc(sizeof *s);
    if (!s)
        return -1;
    build_skeleton(s, &st);
    buf b = {0};
    put(&b, "HIERARCHY\n");
    emit_node(&b, s, 0, 0);
    put(&b, "MOTION\nFrames: ");
    size_t frames_at = b.len;
    put(&b, "          \nFrame Time: 0.008333\n"); /* the count is patched in at the end */
    size_t motion_off = b.len;

    int joints = 0, nodes = s->count;
    for (int i = 0; i < s->count; ++i)
        joints += !s->n[i].end_site;
    int channels = 6 + 3 * (joints - 1);
    chan *ch = malloc((size_t)channels * sizeof *ch);
    if (!ch) {
        free(s);
        free(b.p);
        return -1;
    }
    for (int c = 0; c < channels; ++c)
        init_channel(&ch[c], &st, c);
    if (frames <= 0) /* reserve once: the text is about target_bytes */
        reserve(&b, target_bytes + 2u * (size_t)channels * 40u + 65536u);

    int f = 0;
    for (;; ++f) {
        if (frames > 0 && f >= frames)
            break;
        size_t before = b.len;
        if (!reserve(&b, (size_t)channels * 40u + 2u))
            break;
        char *o = b.p + b.len;
        for (int c = 0; c < channels; ++c) {
            if (c)
                *o++ = ' ';
            o = fmt_value(o, next_value(&ch[c], &st, f), &ch[c], &st);
        }
        *o++ = '\n';
        b.len = (size_t)(o - b.p);
        if (frames <= 0 && b.len > target_bytes && f > 0) {
            b.len = before;
            break;
        }
    }
    free(ch);
    free(s);
    if (b.oom) {
        free(b.p);
        return -1;
    }
    char num[16];
    int n = snprintf(num, sizeof num, "%d", f);
    memcpy(b.p + frames_at, num, (size_t)n);
    b.p[b.len] = '\0';
    out->text = b.p;
    out->len = b.len;
    out->motion_off = motion_off;
    out->frames = f;
    out->joints = joints;
    out->nodes = nodes;
    out->channels = channels;
    out->values = (long long)f * channels;
    return 0;
}

void bench_text_free(bench_text *t)
{
    free(t->text);
    memset(t, 0, sizeof *t);
}

/* ---------- random decimal strings ---------- */

/* 1..20 significant digits, decimal exponent of the value -45..+38, in plain, scientific,
 * integer-mantissa and leading/trailing-point spellings, with random signs. */
size_t bench_random_decimal(uint64_t *st, char *o)
{
    char dig[24];
    int nd = 1 + (int)(bench_lcg(st) % 20u);
    dig[0] = (char)('1' + bench_lcg(st) % 9u);
    for (int i = 1; i < nd; ++i)
        dig[i] = (char)('0' + bench_lcg(st) % 10u);
    int e10 = -45 + (int)(bench_lcg(st) % 84u); /* value = d.ddd x 10^e10 */
    char *s = o;
    uint32_t sg = bench_lcg(st) % 10u;
    if (sg < 3)
        *s++ = '-';
    else if (sg == 3)
        *s++ = '+';
    int style = (int)(bench_lcg(st) % 4u);
    if (style == 2 && (e10 < -30 || e10 > 30))
        style = 0;
    if (style == 0 || style == 1) { /* scientific, point after k digits */
        int k = style == 0 ? 1 : 1 + (int)(bench_lcg(st) % (uint32_t)nd);
        for (int i = 0; i < nd; ++i) {
            if (i == k)
                *s++ = '.';
            *s++ = dig[i];
        }
        if (k == nd && bench_lcg(st) % 4u == 0)
            *s++ = '.';
        s += sprintf(s, "%c%d", bench_lcg(st) % 2u ? 'e' : 'E', e10 - (k - 1));
    } else if (style == 3) { /* integer mantissa */
        memcpy(s, dig, (size_t)nd);
        s += nd;
        s += sprintf(s, "e%+d", e10 - (nd - 1));
    } else { /* plain */
        if (e10 < 0) {
            if (bench_lcg(st) % 2u)
                *s++ = '0';
            *s++ = '.';
            for (int i = 0; i < -e10 - 1; ++i)
                *s++ = '0';
            memcpy(s, dig, (size_t)nd);
            s += nd;
        } else {
            int ip = e10 + 1; /* digits before the point */
            for (int i = 0; i < ip; ++i)
                *s++ = i < nd ? dig[i] : '0';
            if (ip < nd) {
                *s++ = '.';
                memcpy(s, dig + ip, (size_t)(nd - ip));
                s += nd - ip;
            } else if (bench_lcg(st) % 3u == 0) {
                *s++ = '.';
            }
        }
    }
    *s = '\0';
    return (size_t)(s - o);
}
