// CANN header name (emulated): register/register_types.h, the symbol-visibility macros the
// registration headers put on their classes (FMK_FUNC_HOST_VISIBILITY, FMK_FUNC_DEV_VISIBILITY).
// sim builds an operator's host code into one executable, so they mark default visibility.
#pragma once

#ifndef FMK_FUNC_HOST_VISIBILITY
#define FMK_FUNC_HOST_VISIBILITY __attribute__((visibility("default")))
#endif
#ifndef FMK_FUNC_DEV_VISIBILITY
#define FMK_FUNC_DEV_VISIBILITY __attribute__((visibility("default")))
#endif
