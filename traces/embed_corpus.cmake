# Sets <NAME>_BODY to the initializer list of PinnedCorpusFile entries for
# pinned_corpus.cc.in: one per *.py file below DIRECTORY (recursively), named
# by its path relative to DIRECTORY, sorted, with the file's exact bytes as a
# raw string literal. Runs at configure time; adding, removing or editing a
# file re-runs it. Stops with an error for a file whose bytes a raw string
# literal would not keep (a carriage return, the delimiter).
function(efimsim_embed_corpus name directory)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS "${directory}/*.py")
  list(SORT files)
  if(NOT files)
    message(FATAL_ERROR "pinned corpus: no *.py file under ${directory}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${files})
  set(body "")
  foreach(file IN LISTS files)
    file(RELATIVE_PATH relative "${directory}" "${file}")
    file(READ "${file}" text)
    string(FIND "${text}" ")efimsim_corpus\"" delimiter_at)
    string(FIND "${text}" "\r" carriage_return_at)
    if(NOT delimiter_at EQUAL -1 OR NOT carriage_return_at EQUAL -1)
      message(FATAL_ERROR "pinned corpus: ${file} holds a carriage return or )efimsim_corpus\", "
        "which a raw string literal would not keep byte for byte")
    endif()
    string(APPEND body "        {\"${relative}\", R\"efimsim_corpus(${text})efimsim_corpus\"},\n")
  endforeach()
  set(${name}_BODY "${body}" PARENT_SCOPE)
endfunction()
