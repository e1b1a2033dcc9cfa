// What an accelerator's datasheet says it can do at most: dense BF16/FP16
// tensor throughput and HBM bandwidth, the two roofs of the serving latency
// model (placement/service_latency.hpp). Looked up by model name with a small
// table (the same normalisation as gpu_generation.hpp: upper case, without
// "NVIDIA", spaces, dashes and underscores; the first matching prefix wins).
//
// Every row is a vendor datasheet figure for the SXM/OAM part, dense (NVIDIA
// quotes sparse throughput too, twice the dense figure; the table halves it):
//   A100, A800   312 TFLOP/s, 2,039 GB/s  NVIDIA A100 datasheet (80GB SXM)
//   H100, H800   989 TFLOP/s, 3,350 GB/s  NVIDIA H100 datasheet (SXM)
//   H200         989 TFLOP/s, 4,800 GB/s  NVIDIA H200 datasheet (SXM)
//   B200       2,250 TFLOP/s, 8,000 GB/s  NVIDIA HGX B200 datasheet (36 PFLOP/s
//                                          sparse BF16 and 64 TB/s for 8 GPUs)
//   B300       2,250 TFLOP/s, 8,000 GB/s  NVIDIA HGX B300 datasheet (same per GPU)
//   GB200      2,500 TFLOP/s, 8,000 GB/s  NVIDIA GB200 NVL72 datasheet (360
//                                          PFLOP/s sparse BF16, 576 TB/s for 72)
//   GB300      2,500 TFLOP/s, 8,000 GB/s  NVIDIA GB300 NVL72 datasheet (same per GPU)
//   MI300X     1,307 TFLOP/s, 5,300 GB/s  AMD Instinct MI300X datasheet
//                                          (shared/reference/hardware.md 5.5: 5.3 TB/s)
// Narrower weights run on faster tensor paths where the part has them (the
// same datasheets, dense): FP8 at twice the BF16 rate on Hopper, Blackwell
// and MI300X (A100 has no FP8 path: weight-only FP8 computes in BF16), FP4
// at four times it on Blackwell (B200 and GB200 datasheets: 9 and 10 PFLOP/s
// dense; B300/GB300 are given the same, a floor), at the FP8 rate elsewhere.
// Other models (and LPUs, which keep weights in SRAM) have no row: their
// latency is priced without compute, and reports say so.
#pragma once

#include <optional>
#include <string_view>

namespace topoplan {

struct AcceleratorSpec {
  double peak_flops = 0;      // dense BF16 tensor FLOP/s
  double hbm_bytes_per_s = 0; // HBM bandwidth, bytes per second
  double fp8_factor = 1;      // dense FP8 over BF16 (1: no FP8 path)
  double fp4_factor = 1;      // dense FP4 over BF16 (the FP8 factor without an FP4 path)

  /// Dense tensor FLOP/s for weights of `bytes_per_parameter` (2 bf16, 1
  /// fp8, 0.5 fp4; wider than 2 counts as bf16).
  double peak_flops_at(double bytes_per_parameter) const;
};

/// The table's row for `model`, or nullopt when no entry matches.
std::optional<AcceleratorSpec> accelerator_spec(std::string_view model);

}  // namespace topoplan
