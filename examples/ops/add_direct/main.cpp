/**
 * @file main.cpp
 * Host program of the kernel-direct Add sample (layout 2): generates x and y, computes the
 * tiling, runs add_custom, and checks z against a CPU loop.
 *   CPU build (-DASCENDC_CPU_DEBUG, tikicpulib.h): GmAlloc + ICPU_RUN_KF.
 *   NPU build: aclrtMalloc + ACLRT_LAUNCH_KERNEL(add_custom).
 * Usage: add_direct [totalLength (multiple of 16, default 73728)] [seed (default 2024)]
 * Prints "check: PASS" and exits 0 when every element matches, else "check: FAIL" and exits 1.
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "add_custom_tiling.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
#include "aclrtlaunch_add_custom.h"
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling);
#endif

namespace {
constexpr uint32_t BLOCK_DIM = 8;
constexpr uint32_t TILE_LENGTH = 2048;    // half elements per UB tile
constexpr uint32_t ALIGN_ELEMS = 16;      // 32 bytes of half
constexpr double ATOL = 1e-3;
constexpr double RTOL = 1e-3;

// IEEE binary16 <-> binary32, round to nearest even (host side; no device types needed).
uint16_t FloatToHalfBits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t absU = u & 0x7fffffffu;
    if (absU >= 0x7f800000u) {  // inf or nan
        return static_cast<uint16_t>(sign | 0x7c00u | (absU > 0x7f800000u ? 0x200u : 0u));
    }
    if (absU >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (absU < 0x38800000u) {  // below the smallest normal half: subnormal or zero
        float a;
        std::memcpy(&a, &absU, sizeof a);
        const float scaled = a * 16777216.0f;  // 2^24: units of the smallest subnormal
        const uint32_t q = static_cast<uint32_t>(std::nearbyint(scaled));
        return static_cast<uint16_t>(sign | q);
    }
    const uint32_t exp = ((absU >> 23) - 112u) << 10;
    const uint32_t mant = absU & 0x7fffffu;
    uint32_t h = exp | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) {
        ++h;
    }
    return static_cast<uint16_t>(sign | h);
}

float HalfBitsToFloat(uint16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    float out;
    if (exp == 0) {
        out = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -out : out;
    }
    uint32_t u;
    if (exp == 31) {
        u = sign | 0x7f800000u | (mant << 13);
    } else {
        u = sign | ((exp + 112u) << 23) | (mant << 13);
    }
    std::memcpy(&out, &u, sizeof out);
    return out;
}

// Host tiling: equal 32-byte-aligned shares per core, tiles of at most TILE_LENGTH.
bool GenerateTiling(uint32_t totalLength, uint32_t blockDim, AddCustomTilingData &tiling)
{
    if (totalLength == 0 || totalLength % ALIGN_ELEMS != 0) {
        std::fprintf(stderr, "add_direct: totalLength %u must be a positive multiple of %u\n", totalLength,
                     ALIGN_ELEMS);
        return false;
    }
    const uint32_t blocks = totalLength / ALIGN_ELEMS;
    const uint32_t perCore = (blocks + blockDim - 1) / blockDim;
    tiling.totalLength = totalLength;
    tiling.blockLength = perCore * ALIGN_ELEMS;
    tiling.tileLength = tiling.blockLength < TILE_LENGTH ? tiling.blockLength : TILE_LENGTH;
    return true;
}

#ifndef ASCENDC_CPU_DEBUG
#define CHECK_ACL(expr)                                                                     \
    do {                                                                                    \
        const aclError ret_ = (expr);                                                       \
        if (ret_ != ACL_SUCCESS) {                                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #expr, ret_); \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

void RunOnNpu(const std::vector<uint16_t> &x, const std::vector<uint16_t> &y, std::vector<uint16_t> &z,
              const AddCustomTilingData &tiling)
{
    const size_t bytes = x.size() * sizeof(uint16_t);
    CHECK_ACL(aclInit(nullptr));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK_ACL(aclrtCreateStream(&stream));
    void *xDevice = nullptr;
    void *yDevice = nullptr;
    void *zDevice = nullptr;
    void *tilingDevice = nullptr;
    CHECK_ACL(aclrtMalloc(&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&yDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&zDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&tilingDevice, sizeof(tiling), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemcpy(xDevice, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(yDevice, bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(tilingDevice, sizeof(tiling), &tiling, sizeof(tiling), ACL_MEMCPY_HOST_TO_DEVICE));
    ACLRT_LAUNCH_KERNEL(add_custom)(BLOCK_DIM, stream, xDevice, yDevice, zDevice, tilingDevice);
    CHECK_ACL(aclrtSynchronizeStream(stream));
    CHECK_ACL(aclrtMemcpy(z.data(), bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_ACL(aclrtFree(xDevice));
    CHECK_ACL(aclrtFree(yDevice));
    CHECK_ACL(aclrtFree(zDevice));
    CHECK_ACL(aclrtFree(tilingDevice));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
}
#else
void RunOnCpu(const std::vector<uint16_t> &x, const std::vector<uint16_t> &y, std::vector<uint16_t> &z,
              const AddCustomTilingData &tiling)
{
    const size_t bytes = x.size() * sizeof(uint16_t);
    uint8_t *xGm = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    uint8_t *yGm = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    uint8_t *zGm = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    uint8_t *tilingGm = static_cast<uint8_t *>(AscendC::GmAlloc(sizeof(tiling)));
    std::memcpy(xGm, x.data(), bytes);
    std::memcpy(yGm, y.data(), bytes);
    std::memcpy(tilingGm, &tiling, sizeof(tiling));
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(add_custom, BLOCK_DIM, xGm, yGm, zGm, tilingGm);
    std::memcpy(z.data(), zGm, bytes);
    AscendC::GmFree(static_cast<void *>(xGm));
    AscendC::GmFree(static_cast<void *>(yGm));
    AscendC::GmFree(static_cast<void *>(zGm));
    AscendC::GmFree(static_cast<void *>(tilingGm));
}
#endif
}  // namespace

int32_t main(int32_t argc, char *argv[])
{
    const uint32_t totalLength = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 73728u;
    const uint32_t seed = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 2024u;
    AddCustomTilingData tiling{};
    if (!GenerateTiling(totalLength, BLOCK_DIM, tiling)) {
        return 1;
    }
    std::printf("add_direct: totalLength %u, blockDim %u, blockLength %u, tileLength %u, seed %u\n",
                tiling.totalLength, BLOCK_DIM, tiling.blockLength, tiling.tileLength, seed);

    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<uint16_t> x(totalLength);
    std::vector<uint16_t> y(totalLength);
    std::vector<uint16_t> z(totalLength, 0);
    for (uint32_t i = 0; i < totalLength; ++i) {
        x[i] = FloatToHalfBits(dist(gen));
        y[i] = FloatToHalfBits(dist(gen));
    }

#ifdef ASCENDC_CPU_DEBUG
    RunOnCpu(x, y, z, tiling);
#else
    RunOnNpu(x, y, z, tiling);
#endif

    uint32_t mismatches = 0;
    double maxErr = 0.0;
    for (uint32_t i = 0; i < totalLength; ++i) {
        const float expected = HalfBitsToFloat(FloatToHalfBits(HalfBitsToFloat(x[i]) + HalfBitsToFloat(y[i])));
        const float actual = HalfBitsToFloat(z[i]);
        const double err = std::fabs(static_cast<double>(actual) - static_cast<double>(expected));
        if (!(err <= ATOL + RTOL * std::fabs(static_cast<double>(expected)))) {
            if (mismatches < 5) {
                std::printf("  mismatch at %u: x %g + y %g = %g, got %g\n", i, HalfBitsToFloat(x[i]),
                            HalfBitsToFloat(y[i]), expected, actual);
            }
            ++mismatches;
        }
        if (err > maxErr || std::isnan(err)) {
            maxErr = err;
        }
    }
    std::printf("add_direct: %u elements, max abs error %g, %u mismatches\n", totalLength, maxErr, mismatches);
    std::printf("check: %s\n", mismatches == 0 ? "PASS" : "FAIL");
    return mismatches == 0 ? 0 : 1;
}
