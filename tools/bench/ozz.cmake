# bench_vs_ozz (optional): mblend's per-frame jobs next to ozz-animation 0.16.0's, in one
# process on the same data (README.md, "How we compare with ozz-animation"). Off unless
# MB_OZZ_DIR names an ozz-animation 0.16.0 source tree. ozz is never copied into this
# repository: its runtime libraries compile from that tree into this build folder
# (<build>/tools/bench/ozz), with ozz's own flags and options (samples, tools, tests, fbx
# and gltf off). Only then is C++ enabled, so the default build stays pure C.
set(MB_OZZ_DIR "" CACHE PATH
  "An ozz-animation 0.16.0 source tree: builds tools/bench/bench_vs_ozz (empty: not built)")
if(MB_OZZ_DIR)
  if(NOT EXISTS "${MB_OZZ_DIR}/include/ozz/animation/runtime/blending_job.h"
     OR NOT EXISTS "${MB_OZZ_DIR}/CMakeLists.txt")
    message(FATAL_ERROR "MB_OZZ_DIR=${MB_OZZ_DIR} is not an ozz-animation source tree "
      "(no include/ozz/animation/runtime/blending_job.h); see tools/bench/README.md")
  endif()
  file(STRINGS "${MB_OZZ_DIR}/CMakeLists.txt" mb_ozz_minor REGEX "set\\(OZZ_VERSION_MINOR")
  if(NOT mb_ozz_minor MATCHES "OZZ_VERSION_MINOR 16\\)")
    message(WARNING "MB_OZZ_DIR: bench_vs_ozz is written for ozz-animation 0.16.0 "
      "(${mb_ozz_minor})")
  endif()
  enable_language(CXX)

  # ozz compiles as ozz does on its own: not with mblend's C warning set (-Wpedantic,
  # -Wshadow, -Wstrict-prototypes), -march=native or sanitizer flags, which the
  # subdirectory would otherwise inherit from this folder. Restored right after.
  get_directory_property(mb_saved_compile_options COMPILE_OPTIONS)
  set_directory_properties(PROPERTIES COMPILE_OPTIONS "")
  foreach(opt ozz_build_tools ozz_build_fbx ozz_build_gltf ozz_build_data ozz_build_samples
              ozz_build_howtos ozz_build_tests ozz_build_postfix)
    set(${opt} OFF)
  endforeach()
  set(BUILD_SHARED_LIBS OFF)
  add_subdirectory(${MB_OZZ_DIR} ${CMAKE_CURRENT_BINARY_DIR}/ozz EXCLUDE_FROM_ALL)
  set_directory_properties(PROPERTIES COMPILE_OPTIONS "${mb_saved_compile_options}")

  add_executable(bench_vs_ozz ${CMAKE_CURRENT_LIST_DIR}/bench_vs_ozz.cc)
  set_target_properties(bench_vs_ozz PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
    CXX_EXTENSIONS OFF)
  # mblend's warnings, minus the C-only one; ozz's headers are a system library here.
  list(REMOVE_ITEM mb_saved_compile_options -Wstrict-prototypes)
  set_property(TARGET bench_vs_ozz PROPERTY COMPILE_OPTIONS ${mb_saved_compile_options})
  target_include_directories(bench_vs_ozz SYSTEM PRIVATE ${MB_OZZ_DIR}/include)
  target_include_directories(bench_vs_ozz PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_compile_definitions(bench_vs_ozz PRIVATE _DEFAULT_SOURCE)
  # Public API only (include/mblend); LAPACKE for the double-precision blend reference.
  target_link_libraries(bench_vs_ozz PRIVATE mblend ozz_animation_offline ozz_animation
    ozz_geometry ozz_base PkgConfig::LAPACKE m)
endif()
