// Accelerator generations, which select NCCL's per-architecture constants
// (hardware.md 1.1: Volta / Ampere / Hopper / Blackwell rows), inferred from a
// device's model name with a small table.
//
// The table (first matching prefix of the upper-cased model name without
// "NVIDIA", spaces, dashes and underscores):
//   V100                                      -> volta
//   A100 A800 A30 A40 A10 A16 L40 L20 L4 RTX  -> ampere (NCCL's sm80-sm89 row)
//   H100 H200 H800 H20 GH200                  -> hopper
//   B100 B200 B300 GB200 GB300                -> blackwell
//   MI                                        -> cdna (AMD Instinct)
// Unknown models fall back on their scale-up links: NVLink 1-2 -> volta,
// 3 -> ampere, 4 -> hopper, 5 -> blackwell, xGMI -> cdna; a GPU with none of
// these gets the ampere row, which NCCL also uses for every sm80-sm89 part.
// LPUs are always `lpu`.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace topoplan {

enum class Generation : std::uint8_t { volta, ampere, hopper, blackwell, cdna, lpu };

std::string_view generation_name(Generation generation);

/// The generation the table above gives `model`, or nullopt when no entry matches.
std::optional<Generation> generation_from_model(std::string_view model);

/// The row of NCCL's [arch] tables: 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell.
/// AMD parts use the Hopper row (RCCL keeps its own tables, which we do not
/// model); LPUs have no row and get the Hopper row where one is needed.
int nccl_arch_index(Generation generation);

/// Whether NVLink SHARP (NVLS) exists on this generation (Hopper and later;
/// NCCL's nvlsEfficiency is 0 before Hopper).
bool has_nvls(Generation generation);

}  // namespace topoplan
