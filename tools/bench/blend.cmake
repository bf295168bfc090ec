# bench_blend: mb_blend_run against an ozz-style nlerp baseline (see README_blend.md).
# It times the SIMD group kernel directly, so it uses private headers through the src path
# (and, like bench_bvh_read, needs the static library's internal symbols).
add_executable(bench_blend bench_blend.c)
target_include_directories(bench_blend PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(bench_blend PRIVATE _DEFAULT_SOURCE)
target_link_libraries(bench_blend PRIVATE mblend m)
