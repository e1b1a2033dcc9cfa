// pplx-kernels' dispatch: priced by the puts each peer receives, beside the
// link model's bytes.
#include "topoplan/cost/ep_kernel.hpp"

#include <catch2/catch.hpp>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/support/error.hpp"

using namespace topoplan;

namespace {

Topology dgx(int nodes) {
  return load_topology("dgx-h100:nodes=" + std::to_string(nodes),
                       [](const std::string&) { return std::optional<std::string>(); });
}

std::vector<DeviceId> first(const Topology& t, std::size_t n) {
  return {t.accelerators().begin(), t.accelerators().begin() + static_cast<std::ptrdiff_t>(n)};
}

constexpr std::uint64_t kToken = 7168;              // one token's FP8 hidden state
constexpr std::uint64_t kBytes = 128 * 8 * kToken;  // 128 tokens x top-8

// A cluster of DGX H100 nodes priced for a dispatch over all its GPUs.
struct Cluster {
  explicit Cluster(int nodes)
      : topology(dgx(nodes)), model(topology), ranks(first(topology, 8 * static_cast<std::size_t>(nodes))) {}
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
  Cluster(Cluster&&) = delete;
  Cluster& operator=(Cluster&&) = delete;
  ~Cluster() = default;
  CollectiveQuery query() const { return {ranks, Collective::alltoall, kBytes}; }

  Topology topology;
  CostModel model;  // over `topology`, so declared after it
  std::vector<DeviceId> ranks;
};

}  // namespace

TEST_CASE("pplx dispatch gets faster over more nodes where NCCL's all-to-all gets slower") {
  const Cluster two(2), sixteen(16);
  EpDispatchTerms t2, t16;
  const double pplx2 = pplx_dispatch(two.model, two.query(), kToken, &t2).time_us;
  const double pplx16 = pplx_dispatch(sixteen.model, sixteen.query(), kToken, &t16).time_us;
  CHECK(pplx16 < pplx2);
  // The fall is the puts per peer (1,024 over 15 peers, then over 127) ...
  CHECK(t16.per_put_us < t2.per_put_us / 8);
  // ... while the bytes and the peers to synchronise with grow.
  CHECK(t16.wire_us > t2.wire_us);
  CHECK(t16.fixed_us > t2.fixed_us);
  CHECK(sixteen.model.collective(sixteen.query()).time_us > two.model.collective(two.query()).time_us);
  const CollectiveCost c = pplx_dispatch(two.model, two.query(), kToken);
  CHECK(c.time_us == Approx(t2.fixed_us + t2.per_put_us + t2.wire_us));
  CHECK(c.outside_us > 0);
  CHECK(c.outside_us < c.time_us);
}

TEST_CASE("pplx dispatch: smaller puts of the same bytes cost more across nodes, not inside one") {
  for (const int nodes : {1, 2, 4}) {
    INFO(nodes << " nodes");
    const Cluster c(nodes);
    const bool across = nodes > 1;
    EpDispatchTerms terms;
    const CollectiveCost full = pplx_dispatch(c.model, c.query(), kToken, &terms);
    const double half = pplx_dispatch(c.model, c.query(), kToken / 2).time_us;
    CHECK((terms.per_put_us > 0) == across);
    CHECK((full.outside_us > 0) == across);
    if (across)
      CHECK(half > full.time_us);
    else
      CHECK(half == Approx(full.time_us));
  }
}

TEST_CASE("pplx dispatch refuses a zero message size; kernel names parse") {
  Topology one = dgx(1);
  CostModel m(one);
  const auto r = first(one, 8);
  CHECK_THROWS_AS(pplx_dispatch(m, {r, Collective::alltoall, kBytes}, 0), InputError);
  CHECK(parse_ep_kernel("pplx") == EpKernel::pplx);
  CHECK(parse_ep_kernel("nccl") == EpKernel::nccl);
  CHECK_FALSE(parse_ep_kernel("deepep"));
  CHECK(ep_kernel_name(EpKernel::pplx) == "pplx");
}
