# bench_fk: mb_fk's kernels against the previous implementation and ozz's LocalToModelJob
# algorithm (SSE2), in one process. It forces kernels through a private hook, so it uses
# private headers through the src path (and the static library's internal symbols).
add_executable(bench_fk bench_fk.c)
target_include_directories(bench_fk PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(bench_fk PRIVATE _DEFAULT_SOURCE _ISOC11_SOURCE)
target_link_libraries(bench_fk PRIVATE mblend m)
