// Independent reference of conv2d_im2col: the direct convolution, in double, of x [N, C1, H, W,
// 16] (channel c = c1 * 16 + c0) with w [Cout, C1, KH, KW, 16], stride 1, zero padding KH / 2
// and KW / 2, into y [N, H, W, Cout].
#include <cstdint>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  const auto& w = ctx.in("w");
  auto& y = ctx.out("y");
  const std::int64_t n = x.dim(0), c1 = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const std::int64_t cout = w.dim(0), kh = w.dim(2), kw = w.dim(3);
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t oh = 0; oh < h; ++oh)
      for (std::int64_t ow = 0; ow < wd; ++ow)
        for (std::int64_t o = 0; o < cout; ++o) {
          double s = 0;
          for (std::int64_t cb = 0; cb < c1; ++cb)
            for (std::int64_t i = 0; i < kh; ++i)
              for (std::int64_t j = 0; j < kw; ++j) {
                const std::int64_t ih = oh + i - kh / 2, iw = ow + j - kw / 2;
                if (ih < 0 || iw < 0 || ih >= h || iw >= wd) continue;
                for (std::int64_t c0 = 0; c0 < 16; ++c0) {
                  s += x.data[static_cast<std::size_t>((((b * c1 + cb) * h + ih) * wd + iw) * 16 + c0)] *
                       w.data[static_cast<std::size_t>((((o * c1 + cb) * kh + i) * kw + j) * 16 + c0)];
                }
              }
          y.data[static_cast<std::size_t>(((b * h + oh) * wd + ow) * cout + o)] = aopt::ref::round_to(y.dtype, s);
        }
}
