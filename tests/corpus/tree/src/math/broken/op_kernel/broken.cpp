// Fixture: a kernel using an API the emulator does not have (a corpus "missing_api" row).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void broken(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    AscendC::NoSuchVectorInstruction(x, y);
}
