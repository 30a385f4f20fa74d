// Independent reference of cast: y = x in y's dtype; float16/bfloat16 targets use the round_mode attribute
// (0 rint, 1 round, 2 floor, 3 ceil, 4 trunc, 5 odd); widening is exact.
#include <cmath>

#include "aopt/reference.h"

#include <stdexcept>
#include <string>

namespace {

// Rounds v to a binary format with `precision` significand bits (implicit bit included) and
// minimum normal exponent `emin`, in rounding mode `mode` (0 rint, 1 round half away, 2 floor,
// 3 ceil, 4 trunc, 5 odd). Values stay far from the format's overflow threshold in our cases.
double round_binary(double v, int precision, int emin, int mode) {
  if (v == 0.0 || !std::isfinite(v)) return v;
  int e = std::ilogb(v);                 // |v| in [2^e, 2^(e+1))
  if (e < emin) e = emin;                // subnormal range: fixed spacing
  const double ulp = std::ldexp(1.0, e - (precision - 1));
  const double lo_m = std::floor(v / ulp);  // exact: v/ulp is a small binary fraction
  const double lo = lo_m * ulp;
  if (lo == v) return v;
  const double hi = lo + ulp;
  const bool lo_even = std::fmod(std::fabs(lo_m), 2.0) == 0.0;
  switch (mode) {
    case 2: return lo;
    case 3: return hi;
    case 4: return v > 0 ? lo : hi;
    case 5: return lo_even ? hi : lo;  // round to odd: keep the neighbour with an odd last bit
    default: break;
  }
  const double dlo = v - lo;
  const double dhi = hi - v;
  if (dlo < dhi) return lo;
  if (dhi < dlo) return hi;
  if (mode == 1) return v > 0 ? hi : lo;  // tie: away from zero
  return lo_even ? lo : hi;               // tie: to even
}

}  // namespace

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  const int mode = ctx.attr<int>("round_mode", 0);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const double v = x.data[i];
    if (y.dtype == "float16") {
      y.data[i] = round_binary(v, 11, -14, mode);
    } else if (y.dtype == "bfloat16") {
      y.data[i] = round_binary(v, 8, -126, mode);
    } else if (y.dtype == "float32") {
      y.data[i] = v;  // float16 and bfloat16 values are exact in float32
    } else {
      throw std::runtime_error("cast reference: unsupported output dtype " + y.dtype);
    }
  }
}
