// The HCCL tiling structs an MC2 operator keeps in its tiling data ("TilingData结构体" in the
// HCCL Tiling pages): Mc2InitTiling (the communication domain's initialisation, at most 64
// bytes) and Mc2CcTiling (one communication task's configuration, at most 280 bytes; an operator
// may hold up to 8). The documentation shows each as one opaque `reserved` field that "only
// GetTiling fills"; the kernel hands their addresses to Hccl::Init / SetCcTiling. One struct for
// host and kernel, as TCubeTiling: the kernel names them unqualified (the generated
// kernel_tiling.h defines them at global scope) or as AscendC::tiling::Mc2InitTiling (InitV2's
// example), the host as ::Mc2InitTiling (GetTiling's prototype) or inside its tiling-data class
// with TILING_DATA_FIELD_DEF_STRUCT.
//
// What the reserved bytes hold is sim's own encoding (below): the documentation leaves it
// private to GetTiling and the server. A magic word lets the kernel tell a filled struct from
// zeros (an operator that ignored GetTiling's failure).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace optiling {

struct Mc2InitTiling {
  std::uint8_t reserved[64] = {};
};
struct Mc2CcTiling {
  std::uint8_t reserved[280] = {};
};

}  // namespace optiling

using optiling::Mc2CcTiling;
using optiling::Mc2InitTiling;
namespace AscendC::tiling {
using Mc2CcTiling = optiling::Mc2CcTiling;
using Mc2InitTiling = optiling::Mc2InitTiling;
}  // namespace AscendC::tiling

namespace aopt::sim::hccl {

inline constexpr std::uint32_t init_magic = 0x49434341u;  // "ACCI": an Mc2InitTiling from GetTiling
inline constexpr std::uint32_t cc_magic = 0x43434341u;    // "ACCC": an Mc2CcTiling from GetTiling
inline constexpr std::size_t name_bytes = 128;            // groupName and algConfig: "最大长度为128字节"

// sim's layout of Mc2InitTiling::reserved.
struct init_record {
  std::uint32_t magic = init_magic;
  std::uint8_t debug_mode = 0;
  std::uint8_t comm_engine = 0;
  std::uint16_t comm_block_num = 0;
  std::uint8_t group_len = 0;  // the group name's first bytes, for messages
  char group[55] = {};
};
static_assert(sizeof(init_record) == sizeof(optiling::Mc2InitTiling), "init_record fills Mc2InitTiling");

// sim's layout of Mc2CcTiling::reserved: 24 bytes of settings, then the two names.
struct cc_record {
  std::uint32_t magic = cc_magic;
  std::uint32_t op_type = 0;
  std::uint32_t reduce_type = 0;
  std::uint16_t comm_block_num = 0;
  std::uint8_t skip_local_rank_copy = 0;
  std::uint8_t skip_buffer_window_copy = 0;
  std::uint8_t step_size = 0;
  std::uint8_t debug_mode = 0;
  std::uint8_t comm_engine = 0;
  std::uint8_t dst_data_type = 0;
  std::uint8_t src_data_type = 0;
  std::uint8_t group_len = 0;  // 0..128
  std::uint8_t alg_len = 0;    // 0..128
  std::uint8_t pad = 0;
  char group[name_bytes] = {};
  char alg_config[name_bytes] = {};
};
static_assert(sizeof(cc_record) == sizeof(optiling::Mc2CcTiling), "cc_record fills Mc2CcTiling");

// Reads a record from a tiling struct's bytes (the kernel's pointer may be unaligned or in GM).
template <class Record>
inline Record read_record(const void* bytes) {
  Record r{};
  std::memcpy(static_cast<void*>(&r), bytes, sizeof(Record));
  return r;
}

inline std::string record_name(const char* chars, std::uint8_t len) { return std::string(chars, len); }

}  // namespace aopt::sim::hccl
