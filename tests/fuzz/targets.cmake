# The fuzz targets: name, extra sources, libraries. Included by
# tests/fuzz/CMakeLists.txt (libFuzzer binaries, clang) and by
# tests/fuzz/replay/CMakeLists.txt (corpus replay under ctest, any compiler).
set(EFIMSIM_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(EFIMSIM_FUZZ_TARGETS efim_trace importers edited_document specs tokenizer sweep_inputs
  profile_sources serving_runs otel_spans guidellm_results speculation spec_decode_counters)
# The calibration harness's reader exists only where kernels/ is built
# (EFIMSIM_BUILD_KERNELS; its CPU part needs no CUDA).
if(TARGET efimsim_kernels_calib_io)
  list(APPEND EFIMSIM_FUZZ_TARGETS calibrate_json)
endif()
set(EFIMSIM_FUZZ_efim_trace_SOURCES fuzz_efim_trace.cc trace_round_trip.cc long_line_checks.cc)
set(EFIMSIM_FUZZ_efim_trace_LIBS efimsim_traces)
set(EFIMSIM_FUZZ_importers_SOURCES fuzz_importers.cc trace_round_trip.cc long_line_checks.cc)
set(EFIMSIM_FUZZ_importers_LIBS efimsim_traces)
set(EFIMSIM_FUZZ_edited_document_SOURCES fuzz_edited_document.cc)
set(EFIMSIM_FUZZ_edited_document_LIBS efimsim_traces)
set(EFIMSIM_FUZZ_specs_SOURCES fuzz_specs.cc)
set(EFIMSIM_FUZZ_specs_LIBS efimsim_models)
set(EFIMSIM_FUZZ_tokenizer_SOURCES fuzz_tokenizer.cc)
set(EFIMSIM_FUZZ_tokenizer_LIBS efimsim_tokenizer efimsim_base)
set(EFIMSIM_FUZZ_sweep_inputs_SOURCES fuzz_sweep_inputs.cc)
set(EFIMSIM_FUZZ_sweep_inputs_LIBS efimsim_app)
set(EFIMSIM_FUZZ_profile_sources_SOURCES fuzz_profile_sources.cc)
set(EFIMSIM_FUZZ_profile_sources_LIBS efimsim_models)
set(EFIMSIM_FUZZ_serving_runs_SOURCES fuzz_serving_runs.cc)
set(EFIMSIM_FUZZ_serving_runs_LIBS efimsim_traces)
set(EFIMSIM_FUZZ_otel_spans_SOURCES fuzz_otel_spans.cc)
set(EFIMSIM_FUZZ_otel_spans_LIBS efimsim_traces)
set(EFIMSIM_FUZZ_guidellm_results_SOURCES fuzz_guidellm_results.cc)
set(EFIMSIM_FUZZ_guidellm_results_LIBS efimsim_traces)
set(EFIMSIM_FUZZ_speculation_SOURCES fuzz_speculation.cc)
set(EFIMSIM_FUZZ_speculation_LIBS efimsim_engine_vllm)
set(EFIMSIM_FUZZ_spec_decode_counters_SOURCES fuzz_spec_decode_counters.cc)
set(EFIMSIM_FUZZ_spec_decode_counters_LIBS efimsim_engine_vllm)
set(EFIMSIM_FUZZ_calibrate_json_SOURCES fuzz_calibrate_json.cc)
set(EFIMSIM_FUZZ_calibrate_json_LIBS efimsim_kernels_calib_io)

# Bugs found by the fuzzers and not yet fixed in product code (README.md,
# "Findings"): the targets tolerate their effect so campaigns can go on.
# Delete a line once its fix has landed: the corpus then replays the
# reproducer as a regression test.
set(EFIMSIM_FUZZ_OPEN_BUGS)  # all eight findings are fixed; list new ones here while open

# Sources of target `name`, with the shared helper, as absolute paths.
function(efimsim_fuzz_sources name out)
  set(sources ${EFIMSIM_FUZZ_DIR}/fuzz_common.cc)
  foreach(source IN LISTS EFIMSIM_FUZZ_${name}_SOURCES)
    list(APPEND sources ${EFIMSIM_FUZZ_DIR}/${source})
  endforeach()
  set(${out} ${sources} PARENT_SCOPE)
endfunction()

# Properties every build of a target needs (include root, fixture path).
function(efimsim_fuzz_configure target name)
  target_link_libraries(${target} PRIVATE ${EFIMSIM_FUZZ_${name}_LIBS} efimsim_warnings)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(${target} PRIVATE
    EFIMSIM_FUZZ_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ${EFIMSIM_FUZZ_OPEN_BUGS})
endfunction()
