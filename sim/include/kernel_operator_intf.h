// CANN header name (emulated): the basic API's interface header, which kernel_operator.h
// gathers; here the same declarations.
#pragma once
#include "kernel_operator.h"
