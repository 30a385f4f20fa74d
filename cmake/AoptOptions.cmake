# Project-wide warning and sanitizer flags, applied through aopt_target_defaults().
function(aopt_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(AOPT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(AOPT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
