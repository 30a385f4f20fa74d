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
