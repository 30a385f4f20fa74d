/**
 * @file mul_v3_tiling_key.h
 * Tiling-key template arguments of MulV3: schMode 0 streams tiles double-buffered, schMode 1
 * handles inputs that fit in one tile per core (single buffer, no loop).
 */
#ifndef MUL_V3_TILING_KEY_H
#define MUL_V3_TILING_KEY_H
#include "ascendc/host_api/tiling/template_argument.h"

#define MUL_V3_TPL_SCH_MODE_STREAM 0
#define MUL_V3_TPL_SCH_MODE_ONE_TILE 1

ASCENDC_TPL_ARGS_DECL(MulV3, ASCENDC_TPL_UINT_DECL(schMode, 1, ASCENDC_TPL_UI_LIST, MUL_V3_TPL_SCH_MODE_STREAM,
                                                   MUL_V3_TPL_SCH_MODE_ONE_TILE));

ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, MUL_V3_TPL_SCH_MODE_STREAM,
                                                          MUL_V3_TPL_SCH_MODE_ONE_TILE)));
#endif  // MUL_V3_TILING_KEY_H
