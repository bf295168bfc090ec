# Motion benchmarks (included by tools/bench/CMakeLists.txt).
# bench_controller: controller update cost against the sampling + blending it performs,
#                   and 1000 characters of 64 joints per frame on one core.
# bench_match:      transition-point search between two 10,000-frame clips, BLAS share.
foreach(b bench_controller bench_match)
  add_executable(${b} ${CMAKE_CURRENT_LIST_DIR}/${b}.c)
  target_include_directories(${b} PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_LIST_DIR})
  target_compile_definitions(${b} PRIVATE _DEFAULT_SOURCE MB_BENCH_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
  target_link_libraries(${b} PRIVATE mblend m)
endforeach()
target_link_libraries(bench_match PRIVATE PkgConfig::OPENBLAS)
# bench_controller times the sampling and blending inside each update by wrapping the two
# library functions at link time (the library is static, so calls between its objects go
# through the wrappers).
if(NOT BUILD_SHARED_LIBS)
  target_link_options(bench_controller PRIVATE -Wl,--wrap=mb_clip_sample -Wl,--wrap=mb_blend_run)
  target_compile_definitions(bench_controller PRIVATE MB_BENCH_WRAP=1)
endif()
