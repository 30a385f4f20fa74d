// CANN header name (emulated): the basic API's types (TPosition, HardEvent, LocalTensor, ...).
#pragma once
#include "kernel_operator.h"
