# bench_skin: mb_skin_run (LBS, DQS; AVX2 and portable kernels) against the memory floor at
# 100k and 1M vertices. It forces the kernel through a private hook, so it uses private
# headers through the src path (and the static library's internal symbols).
add_executable(bench_skin bench_skin.c)
target_include_directories(bench_skin PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(bench_skin PRIVATE _DEFAULT_SOURCE _ISOC11_SOURCE)
target_link_libraries(bench_skin PRIVATE mblend m)
