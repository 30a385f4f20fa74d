// CANN header name for AscendC::ListTensorDesc (emulated).
#pragma once
#include "aopt_sim/host/list_tensor_desc.h"
