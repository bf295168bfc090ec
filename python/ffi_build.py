"""Writes the C source of mblend._mblend_cffi (cffi API mode) for CMake to compile.

Usage: python3 ffi_build.py OUT.c

The declarations below are the part of mblend's public C API the package uses. Structs end in
"...;" where the package sets only some fields: the C compiler then fills in the layout from
the real headers, and any declaration that disagrees with them is a compile error.
"""
import sys

import cffi

CDEF = r"""
typedef enum mb_axis { MB_AXIS_DETECT, MB_AXIS_X, MB_AXIS_Y, MB_AXIS_Z } mb_axis;
int mb_axis_index(mb_axis a);
typedef enum mb_status { MB_OK, MB_INVALID_ARG, MB_TOO_SMALL, MB_NOMEM, MB_IO, MB_PARSE,
                         MB_LIMIT, MB_MISMATCH, MB_NUMERIC, ... } mb_status;
typedef struct mb_error {
    mb_status code;
    int line, column;
    char source[256];
    char text[256];
} mb_error;
const char *mb_status_str(mb_status s);
char *mb_error_format(const mb_error *e, char *buf, size_t size);

typedef struct mb_xform { float rot[4]; float pos[3]; } mb_xform;
typedef struct mb_pose { mb_xform *joints; int count; } mb_pose;
typedef struct mb_allocator { ...; } mb_allocator;

typedef struct mb_skeleton mb_skeleton;
typedef struct mb_clip mb_clip;
void mb_skeleton_destroy(mb_skeleton *s);
int mb_skeleton_joint_count(const mb_skeleton *s);
const int *mb_skeleton_parents(const mb_skeleton *s);
const char *mb_skeleton_name(const mb_skeleton *s, int joint);
const float *mb_skeleton_offset(const mb_skeleton *s, int joint);
int mb_skeleton_is_end_site(const mb_skeleton *s, int joint);
int mb_skeleton_has_translation(const mb_skeleton *s, int joint);
const int *mb_skeleton_translation_joints(const mb_skeleton *s, int *out_count);
int mb_skeleton_same_topology(const mb_skeleton *a, const mb_skeleton *b, int *first_diff);

mb_status mb_clip_alloc(int joint_count, int frame_count, double frame_time,
                        const int *translation_joints, int translation_count,
                        const mb_allocator *a, mb_clip **out, mb_error *err);
void mb_clip_destroy(mb_clip *c);
int mb_clip_joint_count(const mb_clip *c);
int mb_clip_frame_count(const mb_clip *c);
double mb_clip_frame_time(const mb_clip *c);
const float *mb_clip_rotations(const mb_clip *c);
int mb_clip_translation_count(const mb_clip *c);
const int *mb_clip_translation_joints(const mb_clip *c);
const float *mb_clip_translations(const mb_clip *c);
float *mb_clip_rotations_mut(mb_clip *c);
float *mb_clip_translations_mut(mb_clip *c);
typedef enum mb_wrap { MB_WRAP_CLAMP, MB_WRAP_LOOP, ... } mb_wrap;
mb_status mb_clip_sample(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap,
                         mb_pose out);
mb_status mb_clip_frame_pose(const mb_skeleton *s, const mb_clip *c, int frame, mb_pose out);
mb_status mb_fk(const mb_skeleton *s, const mb_pose *local, float (*out_world)[16],
                int out_count);

typedef struct mb_mesh mb_mesh;
typedef struct mb_scene mb_scene;
int mb_scene_supported(void);
const mb_mesh *mb_scene_mesh(const mb_scene *s);
typedef struct mb_mesh_look mb_mesh_look;
const mb_mesh_look *mb_scene_look(const mb_scene *s);
void mb_mesh_destroy(mb_mesh *m);
typedef struct mb_skin_gen_desc { ...; } mb_skin_gen_desc;
mb_status mb_skin_generate(const mb_skeleton *s, const mb_skin_gen_desc *d, mb_mesh **out,
                           mb_error *err);

typedef struct mb_source mb_source;
typedef struct mb_source_desc {
    int lenient;
    int probe;
    mb_error *warning;
} mb_source_desc;
mb_status mb_source_open(const char *spec, const mb_source_desc *d, mb_source **out,
                         mb_error *err);
void mb_source_destroy(mb_source *s);
const mb_skeleton *mb_source_skeleton(const mb_source *s);
const mb_clip *mb_source_clip(const mb_source *s);
const mb_scene *mb_source_scene(const mb_source *s);
const char *mb_source_file(const mb_source *s);
mb_axis mb_source_up_axis(const mb_source *s);

typedef struct mb_bvh_read_desc { int lenient; mb_error *warning; ...; } mb_bvh_read_desc;
mb_status mb_bvh_read_file(const char *path, const mb_bvh_read_desc *d,
                           mb_skeleton **out_skel, mb_clip **out_clip, mb_error *err);

typedef struct mb_bvh_write_desc {
    int drop_still_positions;
    int portable_offsets;
    ...;
} mb_bvh_write_desc;
mb_status mb_bvh_write_file(const char *path, const mb_skeleton *s, const mb_clip *c,
                            const mb_bvh_write_desc *d, mb_error *err);

typedef enum mb_loop_kind { MB_LOOP_NONE, MB_LOOP_REPEATS, MB_LOOP_RUNS_ON, ... } mb_loop_kind;
typedef struct mb_gltf_write_desc {
    const mb_skeleton *skeleton;
    const mb_mesh *mesh;
    const mb_mesh_look *look;
    const mb_clip *clip;
    const char *clip_name;
    float scale;
    mb_axis up_axis;
    mb_loop_kind loop;
    ...;
} mb_gltf_write_desc;
mb_status mb_gltf_write_file(const char *path, const mb_gltf_write_desc *d, mb_error *err);
mb_status mb_gltf_loop_kind(const mb_skeleton *s, const mb_clip *c, int cyclic,
                            mb_loop_kind *out, mb_error *err);

#define MB_BLEND_MAX_LAYERS ...
typedef enum mb_blend_method { MB_BLEND_LOGEXP, MB_BLEND_NLERP, MB_BLEND_KARCHER, ... }
    mb_blend_method;
typedef enum mb_eigen_solver { MB_EIGEN_AUTO, MB_EIGEN_LAPACKE, MB_EIGEN_FAST, ... }
    mb_eigen_solver;
mb_status mb_blend_method_parse(const char *name, mb_blend_method *out);
typedef struct mb_blend_layer {
    const mb_pose *pose;
    float weight;
    const float *joint_weights;
} mb_blend_layer;
typedef struct mb_blend_diag { ...; } mb_blend_diag;
typedef struct mb_blend_desc {
    const mb_blend_layer *layers;
    int layer_count;
    mb_blend_method method;
    mb_eigen_solver solver;
    float gap_threshold;
    mb_pose out;
    mb_blend_diag *diag;
    ...;
} mb_blend_desc;
mb_status mb_blend_run(const mb_blend_desc *d);
typedef struct mb_blend_rotations_desc {
    const float *rotations;
    const float *weights;
    int per_set_weights;
    int layer_count;
    int count;
    mb_blend_method method;
    mb_eigen_solver solver;
    float gap_threshold;
    float *out;
    float *eigen_gap;
    float *max_angle;
    int low_gap_sets;
    ...;
} mb_blend_rotations_desc;
mb_status mb_blend_rotations_run(mb_blend_rotations_desc *d, mb_error *err);

typedef struct mb_motion_info {
    mb_axis up_axis;
    int root;
    int left_foot;
    int right_foot;
    int first_frame;
    float height;
    float ground;
    float speed;
    ...;
} mb_motion_info;
typedef struct mb_analyze_desc { mb_axis up_axis; ...; } mb_analyze_desc;
mb_status mb_motion_analyze(const mb_skeleton *s, const mb_clip *c, const mb_analyze_desc *d,
                            const char *source, mb_motion_info *out, mb_error *err);

typedef struct mb_frame_range { int start, end; } mb_frame_range;
typedef struct mb_prepared_clip mb_prepared_clip;

typedef struct mb_match_desc {
    const mb_skeleton *skeleton_a, *skeleton_b;
    const mb_clip *a, *b;
    const mb_motion_info *info_a, *info_b;
    double window;
    int window_samples;
    double a_from, a_to, b_from, b_to;
    int use_double;
    int min_separation;
    const mb_prepared_clip *prepared_a, *prepared_b;
    ...;
} mb_match_desc;
typedef struct mb_match_pair { int a, b; float cost; float theta, dx, dz; } mb_match_pair;
typedef struct mb_match_stats { ...; } mb_match_stats;
mb_status mb_match_find(const mb_match_desc *d, mb_match_pair *out, int capacity,
                        int *out_count, mb_match_stats *stats, mb_error *err);

typedef enum mb_selection { MB_SELECT_PENDING, MB_SELECT_GIVEN, MB_SELECT_LEFT_FOOT,
                            MB_SELECT_RIGHT_FOOT, MB_SELECT_WHOLE_LOOP, MB_SELECT_MOTION, ... }
    mb_selection;
typedef enum mb_cycle_mode { MB_CYCLE_AUTO, MB_CYCLE_NONE, ... } mb_cycle_mode;
typedef struct mb_prepare_desc {
    const mb_skeleton *skeleton;
    const mb_clip *clip;
    const char *source;
    mb_axis up_axis;
    const char *left_foot;
    const char *right_foot;
    mb_frame_range range;
    const mb_motion_info *info;
    ...;
} mb_prepare_desc;
#define MB_PREPARE_MAX_WARNINGS ...
typedef struct mb_prepared_info {
    const char *source;
    mb_motion_info motion;
    mb_loop_kind loop;
    mb_frame_range range;
    mb_selection selection;
    int range_clamped;
    double range_seconds;
    int warning_count;
    char warnings[][160];
    ...;
} mb_prepared_info;
mb_status mb_clip_prepare(const mb_prepare_desc *d, mb_prepared_clip **out, mb_error *err);
mb_status mb_clips_prepare(const mb_prepare_desc *descs, int n, mb_prepared_clip **out,
                           mb_error *err);
void mb_prepared_clip_destroy(mb_prepared_clip *p);
const mb_prepared_info *mb_prepared_clip_info(const mb_prepared_clip *p);
mb_status mb_prepared_select_cycles(mb_prepared_clip *const *clips, int n, mb_cycle_mode mode,
                                    mb_error *err);

typedef struct mb_clip_input { float weight; ...; } mb_clip_input;
typedef struct mb_clip_blend_desc {
    const mb_clip_input *inputs;
    int input_count;
    int cyclic;
    mb_blend_method method;
    mb_eigen_solver solver;
    mb_axis up_axis;
    const mb_prepared_clip *const *prepared;
    ...;
} mb_clip_blend_desc;
mb_status mb_clip_blend(const mb_clip_blend_desc *d, mb_clip **out, mb_error *err);

typedef enum mb_transition_mode { MB_TRANSITION_CROSSFADE, MB_TRANSITION_INERTIALIZE, ... }
    mb_transition_mode;
typedef enum mb_fade_curve { MB_CURVE_SMOOTHSTEP, MB_CURVE_LINEAR, ... } mb_fade_curve;
typedef struct mb_transition_desc {
    float duration;
    mb_transition_mode mode;
    mb_fade_curve curve;
    int sync;
    float start_phase;
    int sync_keep_start;
    ...;
} mb_transition_desc;

typedef struct mb_transition_build_desc {
    const mb_skeleton *skeleton;
    const mb_clip *a, *b;
    const char *source_a, *source_b;
    const mb_motion_info *info_a, *info_b;
    double at;
    double b_start;
    mb_transition_desc transition;
    mb_frame_range cycle_a, cycle_b;
    mb_axis up_axis;
    const mb_prepared_clip *prepared_a, *prepared_b;
    ...;
} mb_transition_build_desc;
typedef struct mb_transition_result {
    int frames;
    int transition_start;
    int transition_end;
    double b_start;
    double frame_time;
} mb_transition_result;
mb_status mb_transition_build(const mb_transition_build_desc *d, mb_clip **out,
                              mb_transition_result *res, mb_error *err);
typedef struct mb_transition_plan_desc {
    const mb_skeleton *skeleton_a, *skeleton_b;
    const mb_clip *a, *b;
    const mb_motion_info *info_a, *info_b;
    const char *source_a, *source_b;
    int at_auto;
    double at;
    int b_auto;
    double b_start;
    double duration;
    int sync;
    double search_from, search_to;
    double window;
    const mb_prepared_clip *prepared_a, *prepared_b;
    ...;
} mb_transition_plan_desc;
typedef struct mb_transition_plan {
    int a_frame, b_frame;
    double at, b_start;
    double cost;
} mb_transition_plan;
mb_status mb_transition_plan_find(const mb_transition_plan_desc *d, mb_transition_plan *out,
                                  mb_error *err);

#define MB_STATE_MAX_CLIPS ...
#define MB_STATE_MAX_STATES ...
#define MB_CONTROLLER_MAX_TRACKS ...
typedef struct mb_state_clip {
    const mb_clip *clip;
    mb_frame_range range;
    mb_frame_range cycle;
    float param;
    const mb_motion_info *info;
    ...;
} mb_state_clip;
typedef struct mb_state_desc {
    const char *name;
    const mb_state_clip *clips;
    int clip_count;
    int loop;
    float param;
    ...;
} mb_state_desc;
typedef struct mb_state_set_desc {
    const mb_skeleton *skeleton;
    const mb_state_desc *states;
    int state_count;
    mb_axis up_axis;
    const char *root;
    ...;
} mb_state_set_desc;
typedef struct mb_state_set mb_state_set;
mb_status mb_state_set_create(const mb_state_set_desc *d, mb_state_set **out, mb_error *err);
void mb_state_set_destroy(mb_state_set *s);
int mb_state_set_count(const mb_state_set *s);
int mb_state_set_find(const mb_state_set *s, const char *name);
mb_axis mb_state_set_up_axis(const mb_state_set *s);
int mb_state_set_root(const mb_state_set *s);
double mb_state_set_cycle_duration(const mb_state_set *s, int state, float param);

typedef struct mb_root_motion { float translation[3]; float heading; } mb_root_motion;
typedef struct mb_controller_desc {
    const mb_state_set *states;
    int initial_state;
    float initial_phase;
    int max_tracks;
    ...;
} mb_controller_desc;
typedef struct mb_controller mb_controller;
mb_status mb_controller_create(const mb_controller_desc *d, mb_controller **out, mb_error *err);
void mb_controller_destroy(mb_controller *c);
mb_status mb_controller_request(mb_controller *c, int state, const mb_transition_desc *t);
mb_status mb_controller_set_param(mb_controller *c, int state, float value);
mb_status mb_controller_update(mb_controller *c, float dt, mb_pose out,
                               mb_root_motion *out_delta);
mb_status mb_controller_reset(mb_controller *c, int state, float phase);
typedef struct mb_controller_status {
    int state;
    int transitioning;
    float progress;
    double phase;
    double time;
    int finished;
    int tracks;
} mb_controller_status;
mb_status mb_controller_get_status(const mb_controller *c, mb_controller_status *out);
mb_status mb_controller_state_weights(const mb_controller *c, float *out, int count);
static const double MB_CONTROLLER_MAX_DT;

/* ---- roles, mirroring, retargeting (mblend.roles, mirror, retarget) ---- */
typedef enum mb_role { MB_ROLE_NONE, MB_ROLE_HIPS, MB_ROLE_COUNT, ... } mb_role;
const char *mb_role_name(mb_role role);
typedef struct mb_roles {
    int joint_count;
    unsigned char *of_joint;
    unsigned char *how;
    int joint[...];
    ...;
} mb_roles;
typedef struct mb_role_map mb_role_map;
mb_status mb_role_map_read(const char *path, mb_role_map **out, mb_error *err);
void mb_role_map_destroy(mb_role_map *map);
mb_status mb_roles_find(const mb_skeleton *skel, const mb_role_map *map, mb_roles *out,
                        mb_error *err);
void mb_roles_free(mb_roles *roles);
int mb_mesh_skeleton_joint_count(const mb_mesh *m);
const mb_xform *mb_mesh_bind_pose(const mb_mesh *m);

typedef struct mb_mirror_desc {
    const mb_skeleton *skeleton;
    const mb_clip *clip;
    const mb_roles *roles;
    mb_axis up_axis;
    const mb_xform *reference;
    int plane_from_clip;
    const char *source;
    ...;
} mb_mirror_desc;
typedef struct mb_mirror_plane {
    double normal[3];
    double point[3];
    int from_clip;
    int reference_from_clip;
    int first_frame;
    mb_axis up_axis;
} mb_mirror_plane;
mb_status mb_clip_mirror(const mb_mirror_desc *d, mb_clip **out, mb_mirror_plane *out_plane,
                         mb_error *err);

typedef struct mb_retarget_side {
    const mb_skeleton *skeleton;
    const mb_roles *roles;
    const mb_xform *reference;
    mb_axis up_axis;
    const char *source;
} mb_retarget_side;
typedef enum mb_retarget_feet { MB_RETARGET_FEET_IK, MB_RETARGET_FEET_FK, ... } mb_retarget_feet;
typedef struct mb_retarget_desc {
    mb_retarget_side from;
    const mb_clip *clip;
    mb_retarget_side to;
    const mb_clip *to_clip;
    mb_retarget_feet feet;
    ...;
} mb_retarget_desc;
typedef struct mb_retarget_report {
    int mapped_joints;
    int unmapped_joints;
    double scale;
    ...;
} mb_retarget_report;
mb_status mb_retarget(const mb_retarget_desc *d, mb_clip **out, mb_retarget_report *report,
                      mb_error *err);
int mb_retarget_report_format(const mb_retarget_report *r, const mb_skeleton *from,
                              const mb_skeleton *to, char *buf, size_t size);

/* ---- corpus (mblend.corpus: analysis rows and motion-graph walks) ---- */
mb_status mb_motion_contacts(const mb_skeleton *s, const mb_clip *c,
                             const mb_motion_info *info, unsigned char *out_left,
                             unsigned char *out_right, mb_error *err);
mb_status mb_motion_find_cycle(const mb_skeleton *s, const mb_clip *c,
                               const mb_motion_info *info, int foot, const char *source,
                               mb_frame_range *out, mb_error *err);
/* ---- end corpus ---- */
"""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ffi_build.py OUT.c")
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source("mblend._mblend_cffi", "#include <mblend/mblend.h>\n")
    ffi.emit_c_code(sys.argv[1])


if __name__ == "__main__":
    main()
