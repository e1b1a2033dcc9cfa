// The NCCL environment a platform sets for every job: which algorithms
// (NCCL_ALGO, NCCL_NVLS_ENABLE) and protocols (NCCL_PROTO) NCCL may choose
// from, and the Simple protocol's buffer (NCCL_BUFFSIZE). A topology file
// records it in its `nccl:` mapping, because some platforms enforce or ship
// it: Google Cloud's GPUDirect-TCPXO guest configuration for A3 Mega VMs
// requires NCCL_ALGO=Ring,Tree and NCCL_PROTO=Simple and its profile sets
// NCCL_NVLS_ENABLE=0 and NCCL_BUFFSIZE=8388608 (google/nccl-plugin-gpudirect-
// tcpxo, a3plus_guest_config.textproto and nccl-env-profile-simple.sh). The
// cost model prices every collective within it. The mapping may also name the NCCL
// release the platform runs (`version: 2.26.2`), whose tuner tables decide
// what NCCL chooses (topoplan/model/nccl_version.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/nccl_version.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

/// NCCL's algorithm names as NCCL_ALGO spells them (lower case; NCCL
/// compares them without case). The cost model prices the first four; the
/// others may be named but never change a price.
inline constexpr std::array<std::string_view, 7> kNcclAlgorithmNames = {
    "ring", "tree", "nvls", "nvlstree", "collnetdirect", "collnetchain", "pat"};
/// NCCL's protocol names as NCCL_PROTO spells them (lower case).
inline constexpr std::array<std::string_view, 3> kNcclProtocolNames = {"ll", "ll128", "simple"};

/// One setting as written, for messages and for writing the topology back.
struct NcclSetting {
  std::string name;
  std::string value;
  SourceLocation where;
};

struct NcclEnvironment {
  /// Bit i allows kNcclAlgorithmNames[i]; bit i of `protocols` allows
  /// kNcclProtocolNames[i].
  std::uint8_t algorithms = 0x7f;
  std::uint8_t protocols = 0x07;
  std::vector<NcclSetting> settings;  // in the order given
  /// The NCCL release (`version:`); empty for the newest the model knows.
  std::optional<NcclVersion> version;
  /// NCCL_BUFFSIZE: the Simple protocol's buffer per channel and peer in
  /// bytes (src/init.cc computeBuffSizes); empty for NCCL's 4 MiB.
  std::optional<std::uint64_t> simple_buffer_bytes;
  /// `net_latency`: the latency in microseconds the network plugin reports to
  /// NCCL (ncclNetProperties_t.latency), which NCCL's search keeps as the
  /// graph's latencyInter and its tuner adds to every network step (twice
  /// for Simple, tuning.cc). NCCL's own InfiniBand and socket transports
  /// report 0 (net_ib.cc "Not set"); aws-ofi-nccl reports its platform's
  /// figure (75 us on p4d and p5, src/platform-aws). Empty: 0. It steers
  /// NCCL's choice only; the links' latencies time the steps.
  std::optional<double> net_latency_us;
  /// NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS: the bounds NCCL puts on a
  /// communicator's channels once its graphs are doubled (connect.cc
  /// ncclTopoPostset: at most the maximum, then copied up to the minimum);
  /// empty for none. Rings and trees run on those channels; NVLS keeps its
  /// own.
  std::optional<int> min_channels;
  std::optional<int> max_channels;
  /// NCCL_MIN_CTAS and NCCL_MAX_CTAS (ncclConfig_t's minCTAs and maxCTAs,
  /// which they override, init.cc): bounds on the rings' and trees' channels
  /// as the pair above, and on NVLS's (transport/nvls.cc); empty for none.
  std::optional<int> min_ctas;
  std::optional<int> max_ctas;
  /// NCCL_NVLS_NCHANNELS (nvlsCTAs): NVLS's channels instead of the count
  /// NCCL tunes for the architecture and NICs; empty for that count.
  std::optional<int> nvls_channels;

  bool empty() const { return settings.empty(); }
  bool allows_algorithm(std::size_t index) const { return (algorithms >> index) & 1u; }
  bool allows_protocol(std::size_t index) const { return (protocols >> index) & 1u; }
  /// "NCCL_ALGO=Ring,Tree NCCL_PROTO=Simple", as written ("NCCL 2.26.2" for a version).
  std::string describe() const;
};

/// The variables an NcclEnvironment understands.
inline constexpr std::array<std::string_view, 9> kNcclVariables = {
    "NCCL_ALGO",          "NCCL_PROTO",    "NCCL_NVLS_ENABLE", "NCCL_BUFFSIZE",      "NCCL_MIN_NCHANNELS",
    "NCCL_MAX_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MAX_CTAS",    "NCCL_NVLS_NCHANNELS"};
/// NCCL's MAXCHANNELS (src/include/device.h), the most channels any of the
/// variables above may name.
inline constexpr int kNcclMaxChannels = 64;
/// The key that names the NCCL release instead of a variable.
inline constexpr std::string_view kNcclVersionKey = "version";
/// The key that gives the latency the network plugin reports to NCCL.
inline constexpr std::string_view kNcclNetLatencyKey = "net_latency";

/// Applies one setting: NCCL_ALGO and NCCL_PROTO take NCCL's list syntax
/// (`Ring,Tree` allows those, `^NVLS,NVLSTree` all but those; names without
/// case), NCCL_NVLS_ENABLE takes 0 or 1 (0 removes nvls and nvlstree),
/// NCCL_BUFFSIZE a whole number of bytes from 1 to 2^31 - 1 (NCCL keeps it
/// in an int), in decimal or 0x hexadecimal as NCCL reads it (strtoll base
/// 0; a leading 0, octal to NCCL, is refused), NCCL_MIN_NCHANNELS,
/// NCCL_MAX_NCHANNELS, NCCL_MIN_CTAS, NCCL_MAX_CTAS and NCCL_NVLS_NCHANNELS a
/// whole number of channels from 1 to kNcclMaxChannels (NCCL itself lowers
/// larger ones with a note; here they are refused), `version` an NCCL release
/// (parse_nccl_version), `net_latency` microseconds from 0 to 10000 (a
/// plain decimal number). A
/// later setting of the same variable replaces the earlier one's effect.
/// Returns "" or the reason the setting cannot be applied (an unknown
/// variable or name, per-collective NCCL_ALGO lists, a list that leaves
/// nothing).
std::string apply_nccl_setting(NcclEnvironment& env, NcclSetting setting);

/// `word` (NAME=VALUE, split at the first '=') as a setting located at
/// `where`; empty, with the reason in `problem`, when it has no '=' or no
/// name. The one reading of a setting written on one line (a command's
/// --nccl, the calibration's nccl column).
std::optional<NcclSetting> split_nccl_setting(std::string_view word, const SourceLocation& where, std::string& problem);

class Topology;
/// `topology` with one more setting in its environment, as if its file had
/// it last (a command's --nccl-version). Throws InputError located at the
/// setting's `where` when it cannot be applied.
Topology with_nccl_setting(Topology topology, NcclSetting setting);

}  // namespace topoplan
