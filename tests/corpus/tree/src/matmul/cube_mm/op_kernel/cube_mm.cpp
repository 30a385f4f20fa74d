// Fixture: a Cube-unit kernel on a part of the Cube sim does not emulate (LoadData 3D v1, im2col):
// the corpus classifies it "cube" from its source without building it, naming what is missing.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cube_mm(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    LocalTensor<float> c;
    LocalTensor<half> a, b;
    LoadData3DParamsV1<half> im2col;
    LoadData(a, b, im2col);
    MmadParams params;
    Mmad(c, a, b, params);
}
