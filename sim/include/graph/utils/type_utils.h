// Emulated ge::TypeUtils: data type names and element sizes. The *ToAscendString forms give the
// serial strings as a ge::AscendString (cann-ops' cube tilings print dtypes and formats with them).
#pragma once

#include <cstdint>
#include <string>

#include "graph/ascend_string.h"
#include "graph/types.h"

namespace ge {
class TypeUtils {
 public:
  // Element size in bytes; false for types without one (DT_STRING, DT_UNDEFINED, ...).
  static bool GetDataTypeLength(DataType data_type, uint32_t& length) {
    const int n = GetSizeByDataType(data_type);
    if (n <= 0) return false;
    length = static_cast<uint32_t>(n);
    return true;
  }
  static std::string DataTypeToSerialString(DataType data_type) {
    switch (data_type) {
      case DT_FLOAT: return "DT_FLOAT";
      case DT_FLOAT16: return "DT_FLOAT16";
      case DT_BF16: return "DT_BF16";
      case DT_INT8: return "DT_INT8";
      case DT_UINT8: return "DT_UINT8";
      case DT_INT16: return "DT_INT16";
      case DT_UINT16: return "DT_UINT16";
      case DT_INT32: return "DT_INT32";
      case DT_UINT32: return "DT_UINT32";
      case DT_INT64: return "DT_INT64";
      case DT_UINT64: return "DT_UINT64";
      case DT_DOUBLE: return "DT_DOUBLE";
      case DT_BOOL: return "DT_BOOL";
      default: return "DT_UNDEFINED";
    }
  }
  static std::string FormatToSerialString(Format format) {
    switch (format) {
      case FORMAT_NCHW: return "NCHW";
      case FORMAT_NHWC: return "NHWC";
      case FORMAT_ND: return "ND";
      case FORMAT_NC1HWC0: return "NC1HWC0";
      case FORMAT_FRACTAL_Z: return "FRACTAL_Z";
      case FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
      case FORMAT_NCDHW: return "NCDHW";
      case FORMAT_NDHWC: return "NDHWC";
      case FORMAT_NCL: return "NCL";
      // The private (5HD / fractal) formats of the cube operators' OpDefs (conv*_backprop_filter:
      // NC1HWC0, NDC1HWC0, FRACTAL_Z_3D, FRACTAL_Z_C04): named, so kernels get FORMAT_<NAME>.
      case FORMAT_NDC1HWC0: return "NDC1HWC0";
      case FORMAT_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
      case FORMAT_FRACTAL_Z_3D_TRANSPOSE: return "FRACTAL_Z_3D_TRANSPOSE";
      case FORMAT_FRACTAL_Z_C04: return "FRACTAL_Z_C04";
      case FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
      case FORMAT_FRACTAL_ZZ: return "FRACTAL_ZZ";
      case FORMAT_FRACTAL_Z_G: return "FRACTAL_Z_G";
      case FORMAT_C1HWNCoC0: return "C1HWNCoC0";
      case FORMAT_HWCN: return "HWCN";
      case FORMAT_DHWCN: return "DHWCN";
      case FORMAT_DHWNC: return "DHWNC";
      case FORMAT_CHWN: return "CHWN";
      case FORMAT_NC: return "NC";
      case FORMAT_CN: return "CN";
      default: return "RESERVED";
    }
  }
  static AscendString DataTypeToAscendString(DataType data_type) {
    const std::string s = DataTypeToSerialString(data_type);
    return AscendString(s.c_str(), s.size());
  }
  static AscendString FormatToAscendString(Format format) {
    const std::string s = FormatToSerialString(format);
    return AscendString(s.c_str(), s.size());
  }
};
}  // namespace ge
