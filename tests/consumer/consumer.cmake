# The consumer test: installs the build tree to a fresh prefix, runs the
# installed tool, then builds consumer.c against the install with
# find_package(gpuprim) and with pkg-config, and runs both programs.
#
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DC_COMPILER=... [-DCONFIG=...] -P consumer.cmake
foreach(var BUILD_DIR WORK_DIR C_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer.cmake: ${var} is not set")
  endif()
endforeach()
set(here ${CMAKE_CURRENT_LIST_DIR})
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# step(NAME COMMAND...): runs a command, stops the test with its output if it fails.
function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${name}: ${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(config_args "")
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
step(install ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})

if(EXISTS ${prefix}/bin/gpuprim)
  step("installed gpuprim --version" ${prefix}/bin/gpuprim --version)
endif()

step("find_package: configure" ${CMAKE_COMMAND} -S ${here} -B ${WORK_DIR}/cmake-build
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release)
step("find_package: build" ${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
step("find_package: run" ${WORK_DIR}/cmake-build/consumer)

find_program(PKG_CONFIG_EXECUTABLE pkg-config REQUIRED)
file(GLOB pc_file ${prefix}/*/pkgconfig/gpuprim.pc ${prefix}/*/*/pkgconfig/gpuprim.pc)
if(NOT pc_file)
  message(FATAL_ERROR "no gpuprim.pc under ${prefix}")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
step("pkg-config --cflags" ${PKG_CONFIG_EXECUTABLE} --cflags gpuprim)
separate_arguments(cflags UNIX_COMMAND "${step_output}")
# A static libgpuprim.a needs what Libs.private names (OpenMP, ...) beside it.
set(static_flag "")
file(GLOB static_lib ${pc_dir}/../libgpuprim.a)
if(static_lib)
  set(static_flag --static)
endif()
step("pkg-config --libs" ${PKG_CONFIG_EXECUTABLE} --libs ${static_flag} gpuprim)
separate_arguments(libs UNIX_COMMAND "${step_output}")
step("pkg-config --variable=libdir" ${PKG_CONFIG_EXECUTABLE} --variable=libdir gpuprim)
string(STRIP "${step_output}" libdir)
step("pkg-config: build" ${C_COMPILER} ${cflags} ${here}/consumer.c -o ${WORK_DIR}/consumer-pc ${libs}
  -Wl,-rpath,${libdir})
step("pkg-config: run" ${WORK_DIR}/consumer-pc)
