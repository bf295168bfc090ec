/* BVH writer: skeleton + clip -> BVH text (memory or file).
 *
 * The whole text is built in one buffer first and only then, for files, written to a
 * temporary file that is renamed over the target: a failure at any point leaves the target
 * as it was. Rotations are decomposed in double from the float quaternions, so a read-write
 * round trip loses no more than the float storage already did. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/anim/clip_internal.h"
#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "offline/io/number_internal.h"
#include "math/euler_internal.h"
#include "math/quat_internal.h"
#include "mblend/offline/bvh.h"
#include "mblend/offline/file.h"

#define RAD2DEG 57.295779513082320876798154814105
#define PI_ 3.14159265358979323846

/* Unwrapped angles may drift by whole turns over a spinning clip. Readers (ours included)
 * parse motion values as float, whose resolution falls with magnitude: below 1024 degrees
 * half an ulp is 3e-5 degree (5e-7 rad), at 36000 it would be 1e-3 degree. Past this
 * bound an angle goes back to [-180, 180] and takes the one jump. */
#define MAX_UNWRAPPED_DEG 720.0

/* cos(middle angle) below which a float quaternion is taken as exactly at gimbal lock:
 * 2^-22, a few float ulps of a quaternion component, the resolution floats have there. */
#define FLOAT_LOCK_COS 2.4e-7

/* ---------- output buffer ---------- */

typedef struct outbuf {
    const mb_allocator *alloc;
    char *p;
    size_t len, cap;
    int nomem;
} outbuf;

static int ob_reserve(outbuf *b, size_t extra)
{
    if (b->nomem)
        return 0;
    if (extra <= b->cap - b->len)
        return 1;
    /* The allocator hooks have no realloc: allocate, copy, free. Doubling keeps the copies
     * linear in the output size when the initial estimate was short. */
    size_t need = b->len + extra;
    if (need < b->len) {
        b->nomem = 1;
        return 0;
    }
    size_t cap = b->cap > SIZE_MAX / 2 ? need : b->cap * 2;
    if (cap < need)
        cap = need;
    char *np = mb_alloc_(b->alloc, cap);
    if (!np) {
        b->nomem = 1;
        return 0;
    }
    if (b->len)
        memcpy(np, b->p, b->len);
    mb_free_(b->alloc, b->p);
    b->p = np;
    b->cap = cap;
    return 1;
}

static void ob_put(outbuf *b, const char *s, size_t n)
{
    if (ob_reserve(b, n)) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

static void ob_str(outbuf *b, const char *s) { ob_put(b, s, strlen(s)); }

static void ob_char(outbuf *b, char c) { ob_put(b, &c, 1); }

static void ob_tabs(outbuf *b, int n)
{
    for (int i = 0; i < n; ++i)
        ob_char(b, '\t');
}

/* ---------- numbers ---------- */

/* printf follows LC_NUMERIC, and a program that set a locale with a decimal comma would get
 * "0,5". The only locale-dependent part of %g output is the decimal point, so every byte
 * that is not part of the C-locale grammar is replaced by one '.' (a multi-byte decimal
 * point collapses to one). Returns the new length. */
static int to_c_locale(char *s, int n)
{
    int w = 0;
    int in_point = 0;
    for (int r = 0; r < n; ++r) {
        char c = s[r];
        int plain = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e' || c == 'E';
        if (plain) {
            s[w++] = c;
            in_point = 0;
        } else if (!in_point) {
            s[w++] = '.';
            in_point = 1;
        }
    }
    s[w] = '\0';
    return w;
}

/* Rewrites "d.ddde[+-]XX" (what %g printed, C locale) as the same decimal number in plain
 * notation when that is at most two characters longer: "9e+01" -> "90", "4.5e-05" -> "0.000045",
 * but "3e+14" stays. Not every BVH reader takes exponents; plain text is also easier to
 * read. Returns the new length, or n unchanged. */
static int plain_notation(char *buf, int n)
{
    const char *e = memchr(buf, 'e', (size_t)n);
    if (!e)
        return n;
    char digits[24];
    int nd = 0, point = 0, seen_point = 0, neg = buf[0] == '-';
    for (const char *p = buf + neg; p < e; ++p) {
        if (*p == '.') {
            seen_point = 1;
            continue;
        }
        if (nd == (int)sizeof digits)
            return n;
        digits[nd++] = *p;
        point += !seen_point;
    }
    point += atoi(e + 1); /* the decimal point's place in digits */
    char out[48];
    int m = 0;
    if (neg)
        out[m++] = '-';
    if (point <= 0) {
        out[m++] = '0';
        out[m++] = '.';
        for (int z = 0; z < -point && m < 40; ++z)
            out[m++] = '0';
        for (int i = 0; i < nd && m < 40; ++i)
            out[m++] = digits[i];
    } else {
        for (int i = 0; i < nd || i < point; ++i) {
            if (i == point)
                out[m++] = '.';
            out[m++] = i < nd ? digits[i] : '0';
            if (m >= 40)
                return n;
        }
    }
    if (m > n + 2 || m >= 40)
        return n;
    memcpy(buf, out, (size_t)m);
    buf[m] = '\0';
    return m;
}

/* %.{prec}g of a finite double in C-locale form, into buf (>= 40 bytes). Returns length. */
static int fmt_g(char *buf, double v, int prec)
{
    /* Adding 0.0 turns -0 into +0: "-0" is noise, not information, in a BVH file. */
    int n = snprintf(buf, 40, "%.*g", prec, v + 0.0);
    if (n < 0 || n >= 40)
        n = snprintf(buf, 40, "0");
    return plain_notation(buf, to_c_locale(buf, n));
}

/* The shortest %g form (at most max_prec digits, 1..9) that reads back as exactly v, both
 * through our own reader's parser and through strtof, so the value survives any correct
 * reader; 0.1f stays "0.1" instead of "0.100000001". */
static int fmt_float_shortest(char *buf, float v, int max_prec)
{
    int n = 0;
    for (int p = 1; p <= max_prec; ++p) {
        n = fmt_g(buf, (double)v, p);
        if (p == max_prec || p == 9)
            return n;
        float a, b2;
        const char *next;
        if (mb_parse_float_(buf, buf + n, &a, &next) != MB_NUM_OK || next != buf + n || a != v)
            continue;
        /* strtof uses the locale's decimal point; in a decimal-comma locale it stops at the
         * '.', the values differ and we just keep more digits. */
        b2 = strtof(buf, NULL);
        if (b2 == v)
            return n;
    }
    return n;
}

/* Same for a double (frame time), 1..17 digits. */
static int fmt_double_shortest(char *buf, double v)
{
    int n = 0;
    for (int p = 1; p <= 17; ++p) {
        n = fmt_g(buf, v, p);
        if (p == 17)
            break;
        double a;
        const char *next;
        if (mb_parse_double_(buf, buf + n, &a, &next) == MB_NUM_OK && next == buf + n &&
            a == v && strtod(buf, NULL) == v)
            break;
    }
    return n;
}

/* ---------- rotations ---------- */

/* Euler angles (radians) of q for a joint that writes nrot (1..3) rotation channels, the
 * first nrot axes of order o. With fewer than three channels the missing angles are read as
 * 0, so the general decomposition is not used: near its gimbal lock it splits a twist
 * between the first and third angle, and dropping the third would lose it.
 * - 1 channel: the twist angle about that axis, 2 atan2(q_axis, w); exact for a pure
 *   rotation about it, the closest such rotation otherwise.
 * - 2 channels, R = Ri(a) Rj(b): column j of R is Ri(a) e_j and row i is e_i^T Rj(b), which
 *   give a and b independently and well-conditioned at every angle. */
static void decompose(mb_euler_order o, int nrot, const double q_in[4], double a[3])
{
    double n = sqrt(q_in[0] * q_in[0] + q_in[1] * q_in[1] + q_in[2] * q_in[2] +
                    q_in[3] * q_in[3]);
    double q[4] = {0, 0, 0, 1};
    if (n > 0)
        for (int k = 0; k < 4; ++k)
            q[k] = q_in[k] / n;
    a[0] = a[1] = a[2] = 0.0;
    int i = mb_euler_order_axis(o, 0), j = mb_euler_order_axis(o, 1),
        k = mb_euler_order_axis(o, 2);
    double m[3][3];
    double s = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0; /* parity of (i, j, k) */
    if (nrot >= 3) {
        mb_quat_to_mat3_d_(q, m);
        double cb = hypot(m[i][i], m[i][j]);
        if (cb < FLOAT_LOCK_COS) {
            /* A lock rotation that went through float arithmetic (blending, sampling)
             * sits ~1e-7 off the lock, where the split of the twist between the outer
             * angles is decided by rounding noise ("-1 -89.9999952 -179" for "-148 -90
             * 0"). Inside float resolution it is the lock: same convention as
             * mb_quat_to_euler there (third angle 0); the rotation moves by at most
             * about 2 cb (5e-7) radians. */
            a[1] = atan2(s * m[i][k], cb);
            a[0] = atan2(s * m[k][j], m[j][j]);
            return;
        }
        mb_quat_to_euler(o, q, a);
        return;
    }
    if (nrot == 1) {
        double t = 2.0 * atan2(q[i], q[3]);
        if (t > PI_)
            t -= 2.0 * PI_;
        else if (t <= -PI_)
            t += 2.0 * PI_;
        a[0] = t;
        return;
    }
    mb_quat_to_mat3_d_(q, m);
    a[0] = atan2(s * m[k][j], m[j][j]);
    a[1] = atan2(s * m[i][k], m[i][i]);
}

/* 10^d for the decimal places fmt_fixed and start_decimals try */
static const double pow10_[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/* v to d decimals (0..9) as plain text, trailing zeros dropped ("-11.9008", "21", "0"),
 * into buf (>= 40 bytes), without printf (the writer tries several per angle). The last
 * digit comes from v * 10^d rounded in double, which may differ from exact decimal
 * rounding at a tie; every candidate is verified (euler_text_reproduces), so that can only
 * cost a digit. Returns the length, or -1 when the text would have more than max_sig
 * significant digits or v is too large for the integer arithmetic. */
static int fmt_fixed(char *buf, double v, int d, int max_sig)
{
    double x = nearbyint(fabs(v) * pow10_[d]);
    if (!(x < 9e15))
        return -1;
    long long n = (long long)x;
    while (d > 0 && n % 10 == 0) {
        n /= 10;
        --d;
    }
    char digits[24];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + n % 10);
        n /= 10;
    } while (n > 0);
    /* digits[] holds the significant digits, least first (0.005 at d = 3: "5", nd = 1) */
    int zero = nd == 1 && digits[0] == '0';
    if (nd > max_sig && !zero)
        return -1;
    int m = 0;
    if (v < 0.0 && !zero) /* "-0" is noise, as in fmt_g */
        buf[m++] = '-';
    if (nd <= d) { /* 0.00ddd */
        buf[m++] = '0';
        buf[m++] = '.';
        for (int z = 0; z < d - nd; ++z)
            buf[m++] = '0';
        for (int i = nd - 1; i >= 0; --i)
            buf[m++] = digits[i];
    } else {
        for (int i = nd - 1; i >= 0; --i) {
            buf[m++] = digits[i];
            if (i == d && d > 0)
                buf[m++] = '.';
        }
    }
    buf[m] = '\0';
    return m;
}

/* Whether the angle texts out[0..nrot) read back, through the BVH reader's parser and Euler
 * conversion (bvh_read.c, store_frame), as exactly the float rotation qf (either sign).
 * failed holds the floats of the caller's last failed try (NaN at first). */
static int euler_text_reproduces(mb_euler_order o, int nrot, char out[3][40], const int len[3],
                                 const float qf[4], float failed[3])
{
    unsigned char ord = (unsigned char)o;
    double back[3] = {0.0, 0.0, 0.0}, work[6], q[1][4];
    float v[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < nrot; ++k) {
        const char *next;
        if (mb_parse_float_(out[k], out[k] + len[k], &v[k], &next) != MB_NUM_OK ||
            next != out[k] + len[k])
            return 0;
        back[k] = (double)v[k];
    }
    /* past float resolution more digits parse to the floats already tried: no conversion */
    if (memcmp(v, failed, sizeof v) == 0)
        return 0;
    memcpy(failed, v, sizeof v); /* the caller stops at a success, so this is the last failure */
    mb_quat_from_euler_deg_n_(1, &ord, back, work, q);
    int same = 1, flip = 1;
    for (int c = 0; c < 4; ++c) {
        same &= (float)q[0][c] == qf[c];
        flip &= (float)-q[0][c] == qf[c];
    }
    return same || flip;
}

/* Decimals after which rounding an angle moves it by more than a rotation stored in float
 * can absorb: one angle moved by delta degrees moves the quaternion by pi delta / 360, and
 * within one float cell (components below 1, ulp <= 2^-24) it moves by at most 1.2e-7, so
 * delta <= 1.4e-5. The smallest d that rounds v within that is where the search starts. */
#define EULER_ABSORB_DEG_ 1.4e-5
static int start_decimals(double v)
{
    for (int d = 0; d < 9; ++d)
        if (fabs(nearbyint(v * pow10_[d]) / pow10_[d] - v) <= EULER_ABSORB_DEG_)
            return d;
    return 9;
}

/* The Euler triple deg (degrees, in order o's axis sequence; angles past nrot are 0) in as
 * few digits as read back as exactly the stored float rotation qf: a file read and written
 * again keeps "-21" and "-11.9008" instead of "-20.9999998" and "-11.9008003", and what is
 * written reads back bit for bit. Each angle starts at the fewest decimals that round it
 * within EULER_ABSORB_DEG_ (fewer cannot read back, up to a split at gimbal lock); each
 * try then adds a decimal, to every angle's own start and to the largest start for all
 * three, up to 9; then p = 1..8 significant digits on all three (tiny angles, written with
 * exponents). No angle gets more than max_sig significant digits (at most 9). Otherwise
 * prec digits, which read back within float rounding (an angle moved by whole turns for
 * continuity, whose float grid is coarser, or a component no float text pins). out[k]
 * receives angle k's text (40 bytes each), len[k] its length. */
static void fmt_euler_shortest(mb_euler_order o, int nrot, const double deg[3],
                               const float qf[4], int prec, char out[3][40], int len[3])
{
    int max_sig = prec < 9 ? prec : 9, d0[3] = {0, 0, 0}, dmax = 0;
    float failed[3] = {NAN, NAN, NAN};
    for (int k = 0; k < nrot; ++k) {
        d0[k] = start_decimals(deg[k]);
        dmax = d0[k] > dmax ? d0[k] : dmax;
    }
    /* s more decimals than each angle's start, then the same decimals on all three from
     * the largest start (files write one count of decimals; trailing zeros are dropped, so
     * "-3.816700" is "-3.8167") */
    for (int s = 0; s <= 9; ++s) {
        int tried = 0;
        for (int uniform = 0; uniform < 2; ++uniform) {
            int fits = 1, same = 1;
            for (int k = 0; k < nrot && fits; ++k) {
                int d = uniform ? dmax + s : d0[k] + s;
                d = d > 9 ? 9 : d;
                same &= d == (d0[k] + s > 9 ? 9 : d0[k] + s);
                fits = (len[k] = fmt_fixed(out[k], deg[k], d, max_sig)) > 0;
            }
            if (!fits || (uniform && same))
                continue;
            ++tried;
            if (euler_text_reproduces(o, nrot, out, len, qf, failed))
                return;
        }
        if (!tried)
            break; /* more decimals only add digits */
    }
    int e[3] = {0, 0, 0}; /* decimal exponents: p significant digits are p - 1 - e decimals */
    for (int k = 0; k < nrot; ++k)
        e[k] = deg[k] != 0.0 ? (int)floor(log10(fabs(deg[k]))) : 0;
    for (int p = 1; p < max_sig; ++p) {
        for (int k = 0; k < nrot; ++k) {
            int d = p - 1 - e[k];
            len[k] = d >= 0 && d <= 9 ? fmt_fixed(out[k], deg[k], d, max_sig) : -1;
            if (len[k] < 0)
                len[k] = fmt_g(out[k], deg[k], p);
        }
        if (euler_text_reproduces(o, nrot, out, len, qf, failed))
            return;
    }
    for (int k = 0; k < nrot; ++k)
        len[k] = fmt_g(out[k], deg[k], prec);
}

/* x plus whole turns, as close to prev as possible (degrees). */
static double unwrap_deg(double x, double prev)
{
    return x + 360.0 * nearbyint((prev - x) / 360.0);
}

/* Chooses, among the equivalent angle triples of one rotation, the one closest to the
 * previous frame's (degrees, in place), so curves stay continuous for editors:
 * whole turns on each angle, and for three channels also the second Tait-Bryan solution
 * (a + 180, 180 - b, c + 180), which takes over when the middle angle passes +-90. The
 * rotation is unchanged either way (up to rounding). The branch is chosen before the
 * magnitude bound is applied, so the bound cannot make the far branch look closer. */
static void make_continuous(int nrot, double d[3], const double prev[3])
{
    double best[3], cost = 0.0;
    for (int k = 0; k < nrot; ++k) {
        best[k] = unwrap_deg(d[k], prev[k]);
        cost += fabs(best[k] - prev[k]);
    }
    if (nrot == 3) {
        double alt[3] = {d[0] + 180.0, 180.0 - d[1], d[2] + 180.0}, c2 = 0.0;
        for (int k = 0; k < 3; ++k) {
            alt[k] = unwrap_deg(alt[k], prev[k]);
            c2 += fabs(alt[k] - prev[k]);
        }
        if (c2 < cost)
            memcpy(best, alt, sizeof best);
    }
    for (int k = 0; k < nrot; ++k)
        d[k] = fabs(best[k]) > MAX_UNWRAPPED_DEG ? remainder(best[k], 360.0) : best[k];
}

/* ---------- layout ---------- */

/* Output layout of one joint: its channels (rewritten when asked) and rotation order. */
typedef struct out_joint {
    mb_channel ch[6];
    int n;
    int nrot;
    mb_euler_order order;
    int rot_slot[3]; /* index into the decomposed angles for X, Y, Z rotation, -1: unused */
    float off[3];    /* the OFFSET written (portable_offsets may change it) */
} out_joint;

/* Whether joint j's translation is its offset in every frame of c (to float noise:
 * mb_translation_at_rest_), so dropping its position channels loses nothing. */
static int translation_still(const mb_skeleton *s, const mb_clip *c, int j)
{
    for (int f = 0; f < mb_clip_frame_count(c); ++f)
        if (!mb_translation_at_rest_(mb_clip_pos_(s, c, f, j), &s->offsets[3 * j]))
            return 0;
    return 1;
}

/* Whether joint j's translation holds its frame-0 value in every frame of c (to float
 * noise, as mb_translation_at_rest_), so it can be written as an OFFSET. */
static int translation_constant(const mb_skeleton *s, const mb_clip *c, int j)
{
    int nf = mb_clip_frame_count(c);
    if (nf == 0)
        return 1;
    const float *p0 = mb_clip_pos_(s, c, 0, j);
    for (int f = 1; f < nf; ++f)
        if (!mb_translation_at_rest_(mb_clip_pos_(s, c, f, j), p0))
            return 0;
    return 1;
}

/* Joint j's position channels and OFFSET as written: all[0..n) its own channel list, kept
 * room for a shortened one; oj->off receives the OFFSET. Returns the list written (all or
 * kept) and its length in *n. Lossless (neither flag): as stored. drop_still_positions: a
 * non-root whose translation is its offset in every frame loses its position channels.
 * portable_offsets: a constant translation of a non-root becomes its OFFSET without
 * channels; a ROOT's or a moving joint's keeps its channels over OFFSET 0 on their axes,
 * so that adding or replacing the OFFSET gives the same position. */
static const mb_channel *position_layout(const mb_skeleton *s, const mb_clip *c,
                                         const mb_bvh_write_desc *d, int j,
                                         const mb_channel *all, mb_channel *kept, int *n,
                                         out_joint *oj)
{
    memcpy(oj->off, &s->offsets[3 * j], sizeof oj->off);
    int parent = s->parents[j];
    int root = parent < 0 || s->info[parent].roots_group;
    int has_pos = *n > s->info[j].rot_channels && !s->info[j].roots_group;
    int drop = 0;
    if (has_pos && d->portable_offsets) {
        /* a ROOT keeps its channels even when still: readers expect them there */
        drop = !root && translation_constant(s, c, j);
        if (drop && mb_clip_frame_count(c) > 0)
            memcpy(oj->off, mb_clip_pos_(s, c, 0, j), sizeof oj->off);
        for (int k = 0; k < *n && !drop; ++k)
            if (all[k] <= MB_CH_ZPOS)
                oj->off[all[k] - MB_CH_XPOS] = 0.0f;
    } else if (has_pos && d->drop_still_positions && !root) {
        drop = translation_still(s, c, j);
    }
    if (!drop)
        return all;
    int m = 0;
    for (int k = 0; k < *n; ++k)
        if (all[k] > MB_CH_ZPOS)
            kept[m++] = all[k];
    *n = m;
    return kept;
}

static void build_layout(const mb_skeleton *s, const mb_clip *c, const mb_bvh_write_desc *d,
                         out_joint *out)
{
    for (int j = 0; j < s->joint_count; ++j) {
        const mb_channel *all;
        mb_channel kept[6];
        int n = mb_skeleton_channels(s, j, &all);
        out_joint *oj = &out[j];
        const mb_channel *ch = position_layout(s, c, d, j, all, kept, &n, oj);
        int nrot = s->info[j].rot_channels;
        oj->order = mb_skeleton_rot_order(s, j);
        if (d->rewrite_order && nrot > 0) {
            /* Three rotation channels where the first one was; positions keep their places
             * relative to each other. */
            oj->order = d->order;
            oj->n = 0;
            int placed = 0;
            for (int k = 0; k < n; ++k) {
                if (ch[k] <= MB_CH_ZPOS) {
                    oj->ch[oj->n++] = ch[k];
                } else if (!placed) {
                    for (int r = 0; r < 3; ++r)
                        oj->ch[oj->n++] =
                            (mb_channel)(MB_CH_XROT + mb_euler_order_axis(d->order, r));
                    placed = 1;
                }
            }
            nrot = 3;
        } else {
            memcpy(oj->ch, ch, (size_t)n * sizeof *ch);
            oj->n = n;
        }
        oj->nrot = nrot;
        /* The first nrot axes of the order are the listed ones (the skeleton completes a
         * short list with the missing axes after them). */
        for (int a = 0; a < 3; ++a)
            oj->rot_slot[a] = -1;
        for (int k = 0; k < nrot; ++k)
            oj->rot_slot[mb_euler_order_axis(oj->order, k)] = k;
    }
}

/* Names go out verbatim after ROOT/JOINT; the reader takes the rest of the line up to '{'
 * and trims it, so anything that would change on the way back is refused. */
static const char *bad_name_reason(const char *name)
{
    size_t n = strlen(name);
    if (n == 0)
        return "is empty";
    if (n > MB_MAX_NAME - 4)
        return "is longer than the 123 bytes a BVH reader accepts (room for \"_End\")";
    if (name[0] == ' ' || name[0] == '\t' || name[n - 1] == ' ' || name[n - 1] == '\t')
        return "starts or ends with whitespace";
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)name[i];
        if (c == '{' || c == '}')
            return "contains a brace";
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return "contains a control character";
    }
    return NULL;
}

/* ---------- validation ---------- */

static mb_status validate(const mb_skeleton *s, const mb_clip *c, const mb_bvh_write_desc *d,
                          const char *source, mb_error *err)
{
    if (!s || !c)
        return mb_error_set_(err, MB_INVALID_ARG, source, "invalid argument (NULL skeleton or clip)");
    if (mb_clip_joint_count(c) != s->joint_count)
        return mb_error_set_(err, MB_MISMATCH, source,
                    "clip has %d joints but the skeleton has %d (End Sites included)",
                    mb_clip_joint_count(c), s->joint_count);
    if (d->precision < 0 || d->precision > 17)
        return mb_error_set_(err, MB_INVALID_ARG, source, "precision %d outside 0..17 (0: 9 digits)",
                    d->precision);
    if (d->rewrite_order && (unsigned)d->order >= 6u)
        return mb_error_set_(err, MB_INVALID_ARG, source, "rewrite order %d is not an mb_euler_order",
                    (int)d->order);
    if (s->info[0].end_site)
        return mb_error_set_(err, MB_INVALID_ARG, source, "the root '%s' cannot be an End Site",
                    s->names[0]);
    if (s->info[0].roots_group) {
        /* node 0 is not written: its children are the file's ROOTs */
        int roots = 0;
        for (int j = 1; j < s->joint_count; ++j) {
            if (s->parents[j] != 0)
                continue;
            if (s->info[j].end_site)
                return mb_error_set_(err, MB_INVALID_ARG, source,
                            "the ROOT '%s' (under the roots group '%s') cannot be an End Site",
                            s->names[j], s->names[0]);
            ++roots;
        }
        if (roots == 0)
            return mb_error_set_(err, MB_INVALID_ARG, source,
                        "the roots group '%s' holds no ROOT, so there is no hierarchy to write",
                        s->names[0]);
    }
    /* Rewriting the order never empties a channel list, so the stored count decides. */
    if (s->channel_count == 0 && mb_clip_frame_count(c) > 0)
        return mb_error_set_(err, MB_INVALID_ARG, source,
                    "the skeleton has no channels, so its %d frames cannot be written (a BVH "
                    "frame count must be 0 without channels)",
                    mb_clip_frame_count(c));
    for (int j = 0; j < s->joint_count; ++j) {
        int p = s->parents[j];
        if (p >= 0 && s->info[p].end_site)
            return mb_error_set_(err, MB_INVALID_ARG, source,
                        "End Site '%s' has a child '%s'; BVH End Sites are leaves",
                        s->names[p], s->names[j]);
        const char *why = s->info[j].end_site ? NULL : bad_name_reason(s->names[j]);
        if (why)
            return mb_error_set_(err, MB_INVALID_ARG, source, "joint name '%.64s' %s", s->names[j],
                        why);
    }
    return MB_OK;
}

/* ---------- text ---------- */

/* Depth-first preorder (children in index order): the order BVH nests joints and lists
 * motion channels. A reader-made skeleton already is in this order; one built by hand
 * only has to be parents-first, and is written (and read back) depth-first. */
static void preorder(const mb_skeleton *s, int *order, int *depth, int *stack)
{
    int n = s->joint_count, top = 0, w = 0;
    stack[top++] = 0;
    while (top > 0) {
        int j = stack[--top];
        order[w++] = j;
        depth[j] = s->parents[j] < 0 ? 0 : depth[s->parents[j]] + 1;
        /* Push children in reverse so the lowest index comes out first. */
        for (int c = n - 1; c > j; --c)
            if (s->parents[c] == j)
                stack[top++] = c;
    }
}

static void write_offset(outbuf *b, const float *off)
{
    char num[40];
    ob_str(b, "OFFSET");
    for (int k = 0; k < 3; ++k) {
        ob_char(b, ' ');
        ob_put(b, num, (size_t)fmt_float_shortest(num, off[k], 9));
    }
    ob_char(b, '\n');
}

static void write_hierarchy(outbuf *b, const mb_skeleton *s, const out_joint *layout,
                            const int *order, const int *depth)
{
    int n = s->joint_count;
    /* a roots group (first in preorder) is not written; its children are the ROOTs */
    const int group = s->info[0].roots_group;
    ob_str(b, "HIERARCHY\n");
    for (int w = group; w < n; ++w) {
        int j = order[w], dj = depth[j] - group;
        if (s->info[j].end_site) {
            ob_tabs(b, dj);
            ob_str(b, "End Site\n");
        } else {
            ob_tabs(b, dj);
            ob_str(b, dj == 0 ? "ROOT " : "JOINT ");
            ob_str(b, s->names[j]);
            ob_char(b, '\n');
        }
        ob_tabs(b, dj);
        ob_str(b, "{\n");
        ob_tabs(b, dj + 1);
        write_offset(b, layout[j].off);
        if (!s->info[j].end_site) {
            char cnt[8];
            ob_tabs(b, dj + 1);
            snprintf(cnt, sizeof cnt, "%d", layout[j].n);
            ob_str(b, "CHANNELS ");
            ob_str(b, cnt);
            for (int k = 0; k < layout[j].n; ++k) {
                ob_char(b, ' ');
                ob_str(b, mb_channel_name(layout[j].ch[k]));
            }
            ob_char(b, '\n');
        }
        /* Close every block the next joint in preorder is not inside of. */
        int next_depth = w + 1 < n ? depth[order[w + 1]] - group : 0;
        for (int d = dj; d >= next_depth; --d) {
            ob_tabs(b, d);
            ob_str(b, "}\n");
        }
    }
}

/* Writes the motion rows; returns MB_OK or MB_NUMERIC (via err) for a non-finite value. */
static mb_status write_motion(outbuf *b, const mb_skeleton *s, const mb_clip *c,
                              const out_joint *layout, const int *order, int prec,
                              double *prev, const char *source, mb_error *err)
{
    int nj = s->joint_count, nf = mb_clip_frame_count(c);
    const float *rot = mb_clip_rotations(c);
    char num[40];
    for (int f = 0; f < nf; ++f) {
        int first = 1;
        for (int w = 0; w < nj; ++w) {
            int j = order[w];
            const out_joint *oj = &layout[j];
            if (oj->n == 0)
                continue;
            size_t fj = (size_t)f * (size_t)nj + (size_t)j;
            double deg[3] = {0, 0, 0};
            char rot_txt[3][40];
            int rot_len[3] = {0, 0, 0};
            if (oj->nrot > 0) {
                const float *qf = &rot[4 * fj];
                double q[4] = {qf[0], qf[1], qf[2], qf[3]}, a[3];
                if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]) || !isfinite(q[3]))
                    return mb_error_set_(err, MB_NUMERIC, source,
                                "non-finite rotation for joint '%s' in frame %d", s->names[j], f);
                decompose(oj->order, oj->nrot, q, a);
                for (int k = 0; k < 3; ++k)
                    deg[k] = a[k] * RAD2DEG;
                if (f > 0)
                    make_continuous(oj->nrot, deg, &prev[3 * j]);
                memcpy(&prev[3 * j], deg, sizeof deg);
                fmt_euler_shortest(oj->order, oj->nrot, deg, qf, prec, rot_txt, rot_len);
            }
            const float *pos = mb_clip_pos_(s, c, f, j);
            for (int k = 0; k < oj->n; ++k) {
                int len;
                mb_channel ch = oj->ch[k];
                if (ch <= MB_CH_ZPOS) {
                    float v = pos[ch - MB_CH_XPOS];
                    if (!isfinite(v))
                        return mb_error_set_(err, MB_NUMERIC, source,
                                    "non-finite translation for joint '%s' in frame %d",
                                    s->names[j], f);
                    /* Positions are floats already: the shortest exact form, capped. */
                    len = fmt_float_shortest(num, v, prec < 9 ? prec : 9);
                } else {
                    int slot = oj->rot_slot[ch - MB_CH_XROT];
                    len = rot_len[slot];
                    memcpy(num, rot_txt[slot], (size_t)len);
                }
                if (!first)
                    ob_char(b, ' ');
                first = 0;
                ob_put(b, num, (size_t)len);
            }
        }
        ob_char(b, '\n');
        if (b->nomem)
            break;
    }
    return MB_OK;
}

/* Builds the whole text; on success *out owns it (NUL-terminated). */
static mb_status build_text(const mb_skeleton *s, const mb_clip *c, const mb_bvh_write_desc *d,
                            const char *source, outbuf *b, mb_error *err)
{
    int nj = s->joint_count, nf = mb_clip_frame_count(c);
    int prec = d->precision ? d->precision : 9;
    const mb_allocator *a = &d->allocator;

    out_joint *layout = mb_alloc_(a, (size_t)nj * sizeof *layout);
    int *ints = mb_alloc_(a, (size_t)nj * 3 * sizeof(int));
    double *prev = mb_alloc_(a, (size_t)nj * 3 * sizeof(double));
    mb_status st = MB_OK;
    if (!layout || !ints || !prev) {
        st = mb_error_set_(err, MB_NOMEM, source, "out of memory");
        goto done;
    }
    build_layout(s, c, d, layout);
    int *order = ints, *depth = ints + nj, *stack = ints + 2 * nj;
    preorder(s, order, depth, stack);

    /* A close first estimate saves the copies of growing: per value a sign, the digits,
     * a point, an exponent and a separator; per joint a header line or three. */
    int nch = 0;
    for (int j = 0; j < nj; ++j)
        nch += layout[j].n;
    unsigned long long est = 256ull + (unsigned long long)nj * 192ull +
                             (unsigned long long)nf * ((unsigned long long)nch * (prec + 8u) + 1u);
    if (est > (64ull << 20))
        est = 64ull << 20; /* beyond that, grow on demand rather than over-reserve */
    ob_reserve(b, (size_t)est);

    write_hierarchy(b, s, layout, order, depth);
    char num[40], line[64];
    snprintf(line, sizeof line, "MOTION\nFrames: %d\nFrame Time: ", nf);
    ob_str(b, line);
    ob_put(b, num, (size_t)fmt_double_shortest(num, mb_clip_frame_time(c)));
    ob_char(b, '\n');
    st = write_motion(b, s, c, layout, order, prec, prev, source, err);
    if (st == MB_OK) {
        ob_char(b, '\0');
        if (b->nomem)
            st = mb_error_set_(err, MB_NOMEM, source, "out of memory building the BVH text");
        else
            b->len--; /* the NUL is not part of the length */
    }
done:
    mb_free_(a, layout);
    mb_free_(a, ints);
    mb_free_(a, prev);
    if (st != MB_OK) {
        mb_free_(a, b->p);
        b->p = NULL;
        b->len = b->cap = 0;
    }
    return st;
}

mb_status mb_bvh_write_mem(const mb_skeleton *s, const mb_clip *c, const mb_bvh_write_desc *d,
                           char **out_text, size_t *out_len, mb_error *err)
{
    mb_error_clear_(err);
    if (out_text)
        *out_text = NULL;
    if (out_len)
        *out_len = 0;
    if (!out_text)
        return mb_error_set_(err, MB_INVALID_ARG, NULL, "invalid argument (NULL output)");
    mb_bvh_write_desc defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!d)
        d = &defaults;
    mb_status st = validate(s, c, d, NULL, err);
    if (st != MB_OK)
        return st;
    outbuf b = {&d->allocator, NULL, 0, 0, 0};
    st = build_text(s, c, d, NULL, &b, err);
    if (st != MB_OK)
        return st;
    *out_text = b.p;
    if (out_len)
        *out_len = b.len;
    return MB_OK;
}

/* ---------- files ---------- */

mb_status mb_bvh_write_file(const char *path, const mb_skeleton *s, const mb_clip *c,
                            const mb_bvh_write_desc *d, mb_error *err)
{
    mb_error_clear_(err);
    if (!path || !*path)
        return mb_error_set_(err, MB_INVALID_ARG, path, "invalid argument (NULL or empty path)");
    mb_bvh_write_desc defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!d)
        d = &defaults;
    /* Everything that can be checked is checked before the file system is touched. */
    mb_status st = validate(s, c, d, path, err);
    if (st != MB_OK)
        return st;
    outbuf b = {&d->allocator, NULL, 0, 0, 0};
    st = build_text(s, c, d, path, &b, err);
    if (st != MB_OK)
        return st;

    st = mb_file_write_atomic(path, b.p, b.len, err);
    mb_free_(&d->allocator, b.p);
    return st;
}
