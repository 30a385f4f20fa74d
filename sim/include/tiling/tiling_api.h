// CANN header name (emulated): see register/op_def_registry.h.
#pragma once
#include "register/op_def_registry.h"
