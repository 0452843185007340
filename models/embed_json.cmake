# Sets <FUNCTION>_BODY to the initializer list of EmbeddedFile entries, one
# per *.json file in DIRECTORY, sorted by name, for embedded_files.cc.in.
# Runs at configure time; CONFIGURE_DEPENDS re-runs it when a file is added
# or removed, CMAKE_CONFIGURE_DEPENDS when one's content changes.
function(efimsim_embed_json function_name directory)
  file(GLOB files CONFIGURE_DEPENDS "${directory}/*.json")
  list(SORT files)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${files})
  set(body "")
  foreach(file IN LISTS files)
    get_filename_component(name "${file}" NAME)
    string(REGEX REPLACE "\\.json$" "" stem "${name}")
    file(READ "${file}" text)
    string(APPEND body "      {\"${stem}\", R\"efimsim_json(${text})efimsim_json\"},\n")
  endforeach()
  set(${function_name}_BODY "${body}" PARENT_SCOPE)
endfunction()

# Like efimsim_embed_json, for the files matching DIRECTORY/PATTERN
# (models/profiles/<gpu>/<source>/<model>.json with PATTERN "*/*/*.json");
# each entry is named by its path below DIRECTORY without ".json". A missing
# or empty DIRECTORY gives an empty list.
function(efimsim_embed_json_tree function_name directory pattern)
  file(GLOB files CONFIGURE_DEPENDS "${directory}/${pattern}")
  list(SORT files)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${files})
  set(body "")
  foreach(file IN LISTS files)
    file(RELATIVE_PATH relative "${directory}" "${file}")
    string(REGEX REPLACE "\\.json$" "" stem "${relative}")
    file(READ "${file}" text)
    string(APPEND body "      {\"${stem}\", R\"efimsim_json(${text})efimsim_json\"},\n")
  endforeach()
  set(${function_name}_BODY "${body}" PARENT_SCOPE)
endfunction()
