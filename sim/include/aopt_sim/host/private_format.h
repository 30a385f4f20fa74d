// The Cube's private tensor formats (GE "私有格式") as the harness lays a case's tensors out in them:
// an operator whose OpDef column declares NC1HWC0, NDC1HWC0, FRACTAL_Z or FRACTAL_Z_3D for a
// tensor receives it in that layout, with the plain layout it came from as its origin format and
// shape (the runtime's TransData before the operator; the tree's convolution-gradient operators
// read both: conv3d_backprop_filter_v2 checks x's origin format NCDHW/NDHWC and its storage
// format NDC1HWC0, and writes y in FRACTAL_Z_3D).
//
// The layouts (C0 "固定值为16（对于u8/s8类型为32）", C1 = ceil(C / C0): the C-API pages of the L1 -> L0
// loads, asc_copy_l12l0a_arch_2201.md; N0 = 16, N1 = ceil(N / 16) for the filter formats, the
// Cube's fractal):
//   NC1HWC0      [N, C1, H, W, C0]               from a 4-D feature map
//   NDC1HWC0     [N, D, C1, H, W, C0]            from a 5-D feature map
//   FRACTAL_Z    [C1 * H * W, N1, N0, C0]         from a 4-D filter (N = Cout, C = Cin)
//   FRACTAL_Z_3D [D * C1 * H * W, N1, N0, C0]     from a 5-D filter
// element (n, c, d, h, w) at [n, d, c / C0, h, w, c % C0] and [((d * C1 + c / C0) * H + h) * W + w,
// n / 16, n % 16, c % C0] respectively; the padding (C or N past its size) holds zeros.
// [ASSUMED: the filter formats' row order D, C1, H, W as GE's FRACTAL_Z_3D names it.]
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "graph/types.h"

namespace aopt::sim::host {

// A private format this module lays out, with the rank of the plain layout it comes from (4 or
// 5), or nullopt for any other format (plain ones, FRACTAL_NZ, ...).
std::optional<std::size_t> private_format_origin_rank(ge::Format f);

// The storage shape of a tensor of `origin` dims in `origin_layout` (NCHW, NHWC, NCDHW, NDHWC)
// laid out in private format `f` with elements of `elem_bytes` bytes; nullopt when the layout and
// format do not fit (ranks differ, an unknown layout).
std::optional<std::vector<std::int64_t>> private_storage_shape(ge::Format f, ge::Format origin_layout,
                                                               const std::vector<std::int64_t>& origin,
                                                               std::size_t elem_bytes);

// For each element of the origin tensor in row-major order, its index in the storage tensor
// (private_storage_shape's); empty when they do not fit.
std::vector<std::uint64_t> private_format_index(ge::Format f, ge::Format origin_layout,
                                                const std::vector<std::int64_t>& origin, std::size_t elem_bytes);

}  // namespace aopt::sim::host
