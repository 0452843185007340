# Smoke test of efimsim-calibrate: --help works, a bad option is a usage error
# (exit 2), and `--check` either passes on a GPU (exit 0) or reports that
# there is no device (exit 3). Run with -DEXE=<path to efimsim-calibrate>.
execute_process(COMMAND ${EXE} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "--compare-torch")
  message(FATAL_ERROR "--help failed (${rc}): ${out}")
endif()
execute_process(COMMAND ${EXE} --bogus RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "--bogus should exit 2, got ${rc}: ${err}")
endif()
execute_process(COMMAND ${EXE} --check RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 3)
  message(STATUS "no CUDA device: ${err}")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "--check failed (${rc}):\n${out}\n${err}")
endif()
