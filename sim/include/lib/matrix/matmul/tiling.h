// CANN's kernel-side Matmul tiling header (lib/matrix/matmul/tiling.h: the MatmulConfig
// templates and constant tilings a kernel names, e.g. flash_attention_score_with_large_head_dim).
// On sim they are all in the Matmul API header.
#pragma once
#include "aopt_sim/kernel/matmul.h"
