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

}  // namespace

TEST_CASE("pplx dispatch gets faster over more nodes where NCCL's all-to-all gets slower") {
  Topology two = dgx(2), sixteen = dgx(16);
  CostModel m2(two), m16(sixteen);
  const auto r2 = first(two, 16), r16 = first(sixteen, 128);
  CollectiveQuery q2{r2, Collective::alltoall, kBytes};
  CollectiveQuery q16{r16, Collective::alltoall, kBytes};
  EpDispatchTerms t2, t16;
  const double pplx2 = pplx_dispatch(m2, q2, kToken, &t2).time_us;
  const double pplx16 = pplx_dispatch(m16, q16, kToken, &t16).time_us;
  CHECK(pplx16 < pplx2);
  // The fall is the puts per peer (1,024 over 15 peers, then over 127) ...
  CHECK(t16.per_put_us < t2.per_put_us / 8);
  // ... while the bytes and the peers to synchronise with grow.
  CHECK(t16.wire_us > t2.wire_us);
  CHECK(t16.fixed_us > t2.fixed_us);
  CHECK(m16.collective(q16).time_us > m2.collective(q2).time_us);
  const CollectiveCost c = pplx_dispatch(m2, q2, kToken);
  CHECK(c.time_us == Approx(t2.fixed_us + t2.per_put_us + t2.wire_us));
  CHECK(c.outside_us > 0);
  CHECK(c.outside_us < c.time_us);
}

TEST_CASE("pplx dispatch: smaller puts of the same bytes cost more across nodes, not inside one") {
  Topology two = dgx(2), one = dgx(1);
  CostModel m2(two), m1(one);
  const auto r2 = first(two, 16), r1 = first(one, 8);
  CollectiveQuery q2{r2, Collective::alltoall, kBytes};
  CollectiveQuery q1{r1, Collective::alltoall, kBytes};
  CHECK(pplx_dispatch(m2, q2, kToken / 2).time_us > pplx_dispatch(m2, q2, kToken).time_us);
  EpDispatchTerms t1;
  const double inside = pplx_dispatch(m1, q1, kToken, &t1).time_us;
  CHECK(t1.per_put_us == 0);
  CHECK(pplx_dispatch(m1, q1, kToken / 2).time_us == Approx(inside));
  CHECK(pplx_dispatch(m1, q1, kToken).outside_us == 0);
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
