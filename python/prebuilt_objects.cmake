# The Python module's core and simulator, taken from a configured Release tree
# (FILTERLAB_PREBUILT_TREE; ./filterlab passes build/) instead of compiled here:
# that tree compiles them position-independent and archives them as
# filterlab_module_objects. They are linked whole, because every filter variant
# registers itself from a static initializer that nothing else references.
#
# Objects compiled for another machine, another instruction set or another
# compiler would not be the code the module's own sources expect (inline
# functions and layouts differ with -march and FILTERLAB_FORCE_SCALAR), so the
# two trees must agree on what decides that. The root CMakeLists.txt takes
# FILTERLAB_NATIVE, FILTERLAB_FORCE_SCALAR and CMAKE_CXX_FLAGS from the tree
# before project(); what cannot be taken over (checkout, compiler, build type,
# sanitizers) is compared here and a mismatch refused.
set(prebuilt "${FILTERLAB_PREBUILT_TREE}")
if(NOT EXISTS "${prebuilt}/CMakeCache.txt")
  message(FATAL_ERROR "FILTERLAB_PREBUILT_TREE=${prebuilt} is not a configured build tree (no CMakeCache.txt); "
                      "give a Release tree of this checkout (./filterlab build makes build/) or leave it unset "
                      "to compile the core here")
endif()
load_cache("${prebuilt}" READ_WITH_PREFIX PREBUILT_ CMAKE_HOME_DIRECTORY CMAKE_BUILD_TYPE CMAKE_CXX_COMPILER
           CMAKE_CXX_FLAGS FILTERLAB_NATIVE FILTERLAB_FORCE_SCALAR FILTERLAB_SANITIZE FILTERLAB_FUZZ)
file(REAL_PATH "${PREBUILT_CMAKE_HOME_DIRECTORY}" prebuilt_source)
file(REAL_PATH "${CMAKE_SOURCE_DIR}" this_source)
file(REAL_PATH "${PREBUILT_CMAKE_CXX_COMPILER}" prebuilt_compiler)
file(REAL_PATH "${CMAKE_CXX_COMPILER}" this_compiler)
foreach(pair "source folder|${prebuilt_source}|${this_source}"
             "CMAKE_BUILD_TYPE|${PREBUILT_CMAKE_BUILD_TYPE}|${CMAKE_BUILD_TYPE}"
             "compiler|${prebuilt_compiler}|${this_compiler}"
             "CMAKE_CXX_FLAGS|${PREBUILT_CMAKE_CXX_FLAGS}|${CMAKE_CXX_FLAGS}"
             "FILTERLAB_NATIVE|${PREBUILT_FILTERLAB_NATIVE}|${FILTERLAB_NATIVE}"
             "FILTERLAB_FORCE_SCALAR|${PREBUILT_FILTERLAB_FORCE_SCALAR}|${FILTERLAB_FORCE_SCALAR}"
             "FILTERLAB_SANITIZE|${PREBUILT_FILTERLAB_SANITIZE}|${FILTERLAB_SANITIZE}"
             "FILTERLAB_FUZZ|${PREBUILT_FILTERLAB_FUZZ}|${FILTERLAB_FUZZ}")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 what)
  list(GET pair 1 theirs)
  list(GET pair 2 ours)
  if(NOT theirs STREQUAL ours)
    message(FATAL_ERROR "FILTERLAB_PREBUILT_TREE=${prebuilt} differs from this build in ${what} "
                        "('${theirs}' there, '${ours}' here); the module can only link objects compiled as "
                        "its own sources are (leave FILTERLAB_PREBUILT_TREE unset to compile them here)")
  endif()
endforeach()
set(archive "${prebuilt}/${CMAKE_STATIC_LIBRARY_PREFIX}filterlab_module_objects${CMAKE_STATIC_LIBRARY_SUFFIX}")
if(NOT EXISTS "${archive}")
  message(FATAL_ERROR "${archive} is missing: build it first (ninja -C ${prebuilt} filterlab_module_objects)")
endif()

add_library(filterlab_module_objects STATIC IMPORTED)
set_target_properties(filterlab_module_objects PROPERTIES IMPORTED_LOCATION "${archive}")
# The names the module's CMakeLists.txt links, as when they are compiled here.
add_library(filterlab_core INTERFACE)
target_link_libraries(filterlab_core INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,filterlab_module_objects>"
                      PkgConfig::XXHASH Eigen3::Eigen nlohmann_json::nlohmann_json Threads::Threads)
add_library(filterlab_sim_lib INTERFACE)
target_link_libraries(filterlab_sim_lib INTERFACE filterlab_core)
