// Expert-parallel dispatch by a kernel library that is not an NCCL
// collective: pplx-kernels sends one NVSHMEM put per token and expert, so its
// time is set by how many puts each peer receives, not only by the bytes.
// topoplan-cost(7), "Expert-parallel kernels", gives the model and its fit.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "topoplan/cost/cost_model.hpp"

namespace topoplan {

/// The library that runs an expert-parallel dispatch: NCCL's all-to-all
/// (what the cost model prices by default; DeepEP's normal kernels move the
/// same bytes the same way) or pplx-kernels.
enum class EpKernel : std::uint8_t { nccl, pplx };

std::string_view ep_kernel_name(EpKernel kernel);
/// `nccl` or `pplx`; nullopt for any other name.
std::optional<EpKernel> parse_ep_kernel(std::string_view name);

/// The terms of a pplx-kernels dispatch, in microseconds.
struct EpDispatchTerms {
  double fixed_us = 0;    // launch and the token-count exchange with every remote peer
  double per_put_us = 0;  // puts each peer receives x the cost of one put
  double wire_us = 0;     // the bytes over the busiest tier of the link model
};

/// Prices a pplx-kernels dispatch of `query.bytes` per rank sent as puts of
/// `message_bytes` (one token's hidden state) spread evenly over all other
/// ranks: the link model's direct (p2p) all-to-all gives the wire time, the
/// kernel adds its fixed and per-put costs. Throws InputError as
/// CostModel::collective does, and for a zero message size.
CollectiveCost pplx_dispatch(const CostModel& model, const CollectiveQuery& query, std::uint64_t message_bytes,
                             EpDispatchTerms* terms = nullptr);

}  // namespace topoplan
