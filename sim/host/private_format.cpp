// The Cube's private tensor formats (aopt_sim/host/private_format.h).
#include "aopt_sim/host/private_format.h"

#include <string>

namespace aopt::sim::host {

namespace {

// N, C, D, H, W of an origin tensor (D = 1 for 4-D layouts), and each one's stride in it.
struct ncdhw {
  std::int64_t n = 1, c = 1, d = 1, h = 1, w = 1;
  std::int64_t sn = 0, sc = 0, sd = 0, sh = 0, sw = 0;
};

std::optional<ncdhw> axes_of(ge::Format layout, const std::vector<std::int64_t>& dims) {
  const char* order = nullptr;
  switch (layout) {
    case ge::FORMAT_NCHW: order = "NCHW"; break;
    case ge::FORMAT_NHWC: order = "NHWC"; break;
    case ge::FORMAT_NCDHW: order = "NCDHW"; break;
    case ge::FORMAT_NDHWC: order = "NDHWC"; break;
    default: return std::nullopt;
  }
  const std::string o = order;
  if (o.size() != dims.size()) return std::nullopt;
  ncdhw a;
  std::int64_t stride = 1;
  for (std::size_t k = o.size(); k-- > 0;) {
    const std::int64_t v = dims[k];
    if (v < 0) return std::nullopt;
    switch (o[k]) {
      case 'N': a.n = v; a.sn = stride; break;
      case 'C': a.c = v; a.sc = stride; break;
      case 'D': a.d = v; a.sd = stride; break;
      case 'H': a.h = v; a.sh = stride; break;
      default: a.w = v; a.sw = stride; break;
    }
    stride *= v;
  }
  return a;
}

std::int64_t c0_of(std::size_t elem_bytes) { return elem_bytes == 1 ? 32 : 16; }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::optional<std::size_t> private_format_origin_rank(ge::Format f) {
  switch (f) {
    case ge::FORMAT_NC1HWC0: case ge::FORMAT_FRACTAL_Z: return 4;
    case ge::FORMAT_NDC1HWC0: case ge::FORMAT_FRACTAL_Z_3D: return 5;
    default: return std::nullopt;
  }
}

std::optional<std::vector<std::int64_t>> private_storage_shape(ge::Format f, ge::Format origin_layout,
                                                               const std::vector<std::int64_t>& origin,
                                                               std::size_t elem_bytes) {
  const auto rank = private_format_origin_rank(f);
  const auto a = axes_of(origin_layout, origin);
  if (!rank || !a || *rank != origin.size()) return std::nullopt;
  const std::int64_t c0 = c0_of(elem_bytes), c1 = ceil_div(a->c, c0), n1 = ceil_div(a->n, 16);
  switch (f) {
    case ge::FORMAT_NC1HWC0: return std::vector<std::int64_t>{a->n, c1, a->h, a->w, c0};
    case ge::FORMAT_NDC1HWC0: return std::vector<std::int64_t>{a->n, a->d, c1, a->h, a->w, c0};
    case ge::FORMAT_FRACTAL_Z: return std::vector<std::int64_t>{c1 * a->h * a->w, n1, 16, c0};
    case ge::FORMAT_FRACTAL_Z_3D: return std::vector<std::int64_t>{a->d * c1 * a->h * a->w, n1, 16, c0};
    default: return std::nullopt;
  }
}

std::vector<std::uint64_t> private_format_index(ge::Format f, ge::Format origin_layout,
                                                const std::vector<std::int64_t>& origin, std::size_t elem_bytes) {
  const auto storage = private_storage_shape(f, origin_layout, origin, elem_bytes);
  const auto a = axes_of(origin_layout, origin);
  if (!storage || !a) return {};
  const std::int64_t c0 = c0_of(elem_bytes), c1 = ceil_div(a->c, c0), n1 = ceil_div(a->n, 16);
  std::int64_t total = 1;
  for (auto v : origin) total *= v;
  std::vector<std::uint64_t> idx(static_cast<std::size_t>(total));
  const bool filter = f == ge::FORMAT_FRACTAL_Z || f == ge::FORMAT_FRACTAL_Z_3D;
  for (std::int64_t n = 0; n < a->n; ++n)
    for (std::int64_t c = 0; c < a->c; ++c)
      for (std::int64_t d = 0; d < a->d; ++d)
        for (std::int64_t h = 0; h < a->h; ++h)
          for (std::int64_t w = 0; w < a->w; ++w) {
            const std::int64_t from = n * a->sn + c * a->sc + d * a->sd + h * a->sh + w * a->sw;
            std::int64_t to;
            if (filter) {
              const std::int64_t row = ((d * c1 + c / c0) * a->h + h) * a->w + w;
              to = ((row * n1 + n / 16) * 16 + n % 16) * c0 + c % c0;
            } else {
              to = ((((n * a->d + d) * c1 + c / c0) * a->h + h) * a->w + w) * c0 + c % c0;
            }
            idx[static_cast<std::size_t>(from)] = static_cast<std::uint64_t>(to);
          }
  return idx;
}

}  // namespace aopt::sim::host
