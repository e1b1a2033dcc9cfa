// Expert-parallel kernels: pplx-kernels priced by the puts each peer
// receives, DeepEP's kernels by their paths, beside the link model's bytes;
// and a step's EP part priced by the job's kernel.
#include "topoplan/cost/ep_kernel.hpp"

#include <catch2/catch.hpp>

#include "topoplan/cost/cost_model.hpp"
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
constexpr std::uint64_t kBytes = std::uint64_t{128} * 8 * kToken;  // 128 tokens x top-8

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

TEST_CASE("pplx dispatch refuses a zero message size, kernel names parse") {
  Topology one = dgx(1);
  CostModel m(one);
  const auto r = first(one, 8);
  CHECK_THROWS_AS(pplx_dispatch(m, {r, Collective::alltoall, kBytes}, 0), InputError);
  CHECK(parse_ep_kernel("pplx") == EpKernel::pplx);
  CHECK(parse_ep_kernel("nccl") == EpKernel::nccl);
  CHECK(parse_ep_kernel("deepep-ll") == EpKernel::deepep_ll);
  CHECK_FALSE(parse_ep_kernel("deepep_ll"));
  for (EpKernel k : {EpKernel::nccl, EpKernel::pplx, EpKernel::deepep, EpKernel::deepep_ll})
    CHECK(parse_ep_kernel(ep_kernel_name(k)) == k);
}

namespace {

Topology h800(int nodes) {
  return load_topology("h800:nodes=" + std::to_string(nodes),
                       [](const std::string&) { return std::optional<std::string>(); });
}

constexpr std::uint64_t kLowLatencyDispatch = std::uint64_t{128} * 8 * 7392;  // 128 tokens x top-8, FP8 with scales
constexpr std::uint64_t kLowLatencyCombine = std::uint64_t{128} * 8 * 14336;  // BF16 back

}  // namespace

TEST_CASE("DeepEP low-latency: one fixed cost over the wire time of direct sends") {
  Topology one = h800(1), four = h800(4), thirty_two = h800(32);
  CostModel m1(one), m4(four), m32(thirty_two);
  const auto r1 = first(one, 8), r4 = first(four, 32), r32 = first(thirty_two, 256);
  EpDispatchTerms t1, t4, t32;
  const CollectiveCost c1 =
      ep_collective(m1, {r1, Collective::alltoall, kLowLatencyDispatch}, EpKernel::deepep_ll, EpPhase::dispatch, 0, &t1);
  const CollectiveCost c4 =
      ep_collective(m4, {r4, Collective::alltoall, kLowLatencyDispatch}, EpKernel::deepep_ll, EpPhase::dispatch, 0, &t4);
  const CollectiveCost c32 = ep_collective(m32, {r32, Collective::alltoall, kLowLatencyDispatch}, EpKernel::deepep_ll,
                                           EpPhase::dispatch, 0, &t32);
  // The same fixed cost everywhere, no per-message term: the wire makes the difference.
  CHECK(t1.fixed_us == t4.fixed_us);
  CHECK(t4.fixed_us == t32.fixed_us);
  CHECK(t4.per_put_us == 0);
  CHECK(c4.time_us == Approx(t4.fixed_us + t4.wire_us));
  CHECK(c4.algorithm == Algorithm::p2p);
  // More nodes: more of the bytes leave the node, up to nearly all of them.
  CHECK(c1.time_us < c4.time_us);
  CHECK(c4.time_us < c32.time_us);
  CHECK(c32.time_us < c4.time_us * 1.5);
  CHECK(c1.outside_us == 0);
  CHECK(c32.outside_us > 0);
  // Combine moves BF16, twice the bytes, over the same path.
  const CollectiveCost back = ep_collective(m4, {r4, Collective::alltoall, kLowLatencyCombine}, EpKernel::deepep_ll,
                                            EpPhase::combine, 0);
  CHECK(back.time_us > c4.time_us * 1.5);
  // Its time does not depend on a message size.
  CHECK(ep_collective(m4, {r4, Collective::alltoall, kLowLatencyDispatch}, EpKernel::deepep_ll, EpPhase::dispatch,
                      7392)
            .time_us == c4.time_us);
}

TEST_CASE("pplx combine: puts per peer like dispatch, no token-count exchange with the peers") {
  Topology two = dgx(2), sixteen = dgx(16);
  CostModel m2(two), m16(sixteen);
  const auto r2 = first(two, 16), r16 = first(sixteen, 128);
  constexpr std::uint64_t kBf16 = 14336;
  EpDispatchTerms d2, d16, c2, c16;
  ep_collective(m2, {r2, Collective::alltoall, 8 * kToken}, EpKernel::pplx, EpPhase::dispatch, kToken, &d2);
  ep_collective(m16, {r16, Collective::alltoall, 8 * kToken}, EpKernel::pplx, EpPhase::dispatch, kToken, &d16);
  ep_collective(m2, {r2, Collective::alltoall, 8 * kBf16}, EpKernel::pplx, EpPhase::combine, kBf16, &c2);
  ep_collective(m16, {r16, Collective::alltoall, 8 * kBf16}, EpKernel::pplx, EpPhase::combine, kBf16, &c16);
  CHECK(d16.fixed_us > d2.fixed_us);   // dispatch: counts exchanged with every remote peer
  CHECK(c16.fixed_us == c2.fixed_us);  // combine: routing known from the dispatch
  CHECK(c2.fixed_us < d2.fixed_us);
  // 128 tokens: the puts a peer receives fall with the peers, as in dispatch.
  EpDispatchTerms big2, big16;
  ep_collective(m2, {r2, Collective::alltoall, std::uint64_t{128} * 8 * kBf16}, EpKernel::pplx, EpPhase::combine, kBf16, &big2);
  ep_collective(m16, {r16, Collective::alltoall, std::uint64_t{128} * 8 * kBf16}, EpKernel::pplx, EpPhase::combine, kBf16, &big16);
  CHECK(big16.per_put_us < big2.per_put_us / 8);
  CHECK(big2.per_put_us == Approx(d2.per_put_us * 128).epsilon(0.02));
  CHECK_THROWS_AS(ep_collective(m2, {r2, Collective::alltoall, 8 * kBf16}, EpKernel::pplx, EpPhase::combine, 0),
                  InputError);
}

TEST_CASE("DeepEP normal kernels forward through NVLink across nodes and send directly inside one") {
  Topology one = h800(1), two = h800(2);
  CostModel m1(one), m2(two);
  const auto r1 = first(one, 8), r2 = first(two, 16);
  constexpr std::uint64_t kBytes224 = 234881024;
  const CollectiveCost inside = ep_collective(m1, {r1, Collective::alltoall, kBytes224}, EpKernel::deepep,
                                              EpPhase::dispatch, 0);
  const CollectiveCost across = ep_collective(m2, {r2, Collective::alltoall, kBytes224}, EpKernel::deepep,
                                              EpPhase::dispatch, 0);
  CHECK(inside.algorithm == Algorithm::p2p);
  CHECK(across.algorithm == Algorithm::hierarchical);
  // The link model's algorithm, with its bytes cut to the distinct nodes and
  // GPUs each token goes to: a token's 8 copies are not all sent.
  CollectiveQuery q{r2, Collective::alltoall, kBytes224, Algorithm::hierarchical};
  const CollectiveCost wire = m2.collective(q);
  CHECK(across.time_us < wire.time_us);
  CHECK(across.latency_us == wire.latency_us);
  // The bottleneck is the busiest tier after the cut.
  REQUIRE(across.bottleneck != kNone);
  for (const TierCost& tier : across.tiers()) CHECK(tier.time_us <= across.tiers()[across.bottleneck].time_us);
  const DeepEpRouting route = deepep_routing(16, 2);
  for (const TierCost& tier : across.tiers())
    if (tier.tier == Tier::nic) CHECK(tier.bytes == Approx(kBytes224 / 8.0 * route.remote_nodes));
  for (const TierCost& tier : inside.tiers())
    if (tier.tier == Tier::scale_up) CHECK(tier.bytes == Approx(kBytes224 / 8.0 * deepep_routing(8, 1).gpus * 7 / 8));
}

TEST_CASE("DeepEP's forwarding SMs bound two nodes whatever their NVLinks but not four") {
  auto load = [](const std::string& name) {
    return load_topology(name, [](const std::string&) { return std::optional<std::string>(); });
  };
  constexpr std::uint64_t kBytes448 = 469762048;  // 4096 tokens x top-8 x 7168 x 2 B
  struct Run {
    CollectiveCost cost;
    EpDispatchTerms terms;
  };
  auto run = [&](const std::string& name, std::size_t ranks) {
    const Topology t = load(name);
    const CostModel m(t);
    Run r;
    r.cost = ep_collective(m, {first(t, ranks), Collective::alltoall, kBytes448}, EpKernel::deepep,
                           EpPhase::dispatch, 0, &r.terms);
    return r;
  };
  const Run h800 = run("h800:nodes=2", 16);
  const Run h200 = run("dgx-h200:nodes=2", 16);
  // H200 has 18 NVLinks to H800's 8: the links alone would make it much
  // faster, but every byte a GPU receives passes through the same 12
  // forwarding SMs, so both take the forwarders' time.
  REQUIRE(h800.terms.forward_us > 0);
  CHECK(h200.terms.forward_us == Approx(h800.terms.forward_us));
  CHECK(h200.terms.wire_us < h800.terms.wire_us);
  CHECK(h200.terms.forward_us > h200.terms.wire_us);
  CHECK(h200.cost.time_us == Approx(h800.cost.time_us).epsilon(0.02));
  CHECK(h200.cost.candidate_count == 0);  // NCCL's candidates price another kernel
  // The bound shows on the NVLink tier, the bottleneck.
  REQUIRE(h200.cost.bottleneck != kNone);
  CHECK(h200.cost.tiers()[h200.cost.bottleneck].tier == Tier::scale_up);
  // On four nodes a token reaches fewer GPUs of each node: the NIC binds.
  const Run four = run("h800:nodes=4", 32);
  REQUIRE(four.terms.forward_us > 0);
  CHECK(four.terms.forward_us < four.terms.wire_us);
  REQUIRE(four.cost.bottleneck != kNone);
  CHECK(is_outside(four.cost.tiers()[four.cost.bottleneck].tier));
  // Inside one node the kernel sends directly: no forwarders.
  CHECK(run("h800:nodes=1", 8).terms.forward_us == 0);
}

namespace {

// C(n, k) / C(n0, k) the long way, for the routing's closed form.
double binomial(int n, int k) {
  double r = 1;
  for (int i = 0; i < k; ++i) r = r * (n - i) / (i + 1);
  return r;
}

}  // namespace

TEST_CASE("an EP kernel's wire is its own sends: no NCCL batches or channel CTAs") {
  // 128 DGX H100s: NCCL's all-to-all runs a node's eight peers as one batch
  // a channel, 128 nodes over its channels in several; DeepEP's puts do not
  // wait for them.
  const Topology t = dgx(128);
  const CostModel m(t);
  const auto ranks = first(t, 1024);
  const CollectiveQuery q{ranks, Collective::alltoall, kBytes, Algorithm::hierarchical};
  const CollectiveCost nccl_wire = m.collective(q);
  REQUIRE(nccl_wire.p2p_batches > 1);
  REQUIRE(nccl_wire.p2p_batch_us > 0);
  CollectiveQuery own = q;
  own.nccl_sends = false;
  const CollectiveCost own_wire = m.collective(own);
  CHECK(own_wire.p2p_batches == 0);
  CHECK(own_wire.latency_us == Approx(nccl_wire.latency_us - nccl_wire.p2p_batch_us));
  const CollectiveCost deepep = ep_collective(m, q, EpKernel::deepep, EpPhase::dispatch, 0);
  CHECK(deepep.p2p_batches == 0);
  CHECK(deepep.latency_us == Approx(own_wire.latency_us));
  // NCCL's kernel is NCCL's wire, batches and all.
  const CollectiveQuery chosen{ranks, Collective::alltoall, kBytes};
  const CollectiveCost nccl = ep_collective(m, chosen, EpKernel::nccl, EpPhase::dispatch, 0);
  CHECK(nccl.latency_us == Approx(m.collective(chosen).latency_us));
  CHECK(nccl.p2p_batches == nccl_wire.p2p_batches);
}

TEST_CASE("DeepEP's routing: distinct nodes and GPUs of a token under node-limited gating") {
  // One node: every token stays, spread over the GPUs holding its experts.
  const DeepEpRouting one = deepep_routing(8, 1);
  CHECK(one.nodes == Approx(1));
  CHECK(one.remote_nodes == Approx(0));
  // 8 of 256 experts, 32 per GPU: E[GPUs hit] = 8 (1 - C(224, 8) / C(256, 8)).
  CHECK(one.gpus == Approx(8 * (1 - binomial(224, 8) / binomial(256, 8))));
  // Two nodes, both chosen: E[nodes] = 2 (1 - C(128, 8) / C(256, 8)), half of them remote.
  const DeepEpRouting two = deepep_routing(16, 2);
  CHECK(two.nodes == Approx(2 * (1 - binomial(128, 8) / binomial(256, 8))));
  CHECK(two.remote_nodes == Approx(two.nodes / 2));
  // Four nodes, all chosen: a uniform draw of 8 from 256, 64 per node.
  const DeepEpRouting four = deepep_routing(32, 4);
  CHECK(four.nodes == Approx(4 * (1 - binomial(192, 8) / binomial(256, 8))));
  // Eight nodes: 4 chosen of 8 by their best expert, which each receives;
  // the other 4 experts a uniform draw from the pool's 124 others. A GPU (4
  // of its node's 32 experts) misses its node's best with chance 7/8.
  const DeepEpRouting eight = deepep_routing(64, 8);
  CHECK(eight.nodes == Approx(4));
  CHECK(eight.remote_nodes == Approx(4.0 * 7 / 8));
  CHECK(eight.gpus == Approx(32 * (1 - 7.0 / 8 * binomial(120, 4) / binomial(124, 4))));
  // Choosing nodes by their best expert reaches more of them than a uniform
  // draw from 4 would (DeepEP's own count on EP64 is about 3.98).
  CHECK(eight.nodes > four.nodes);
  // Never more nodes than groups or GPUs than copies; more nodes, fewer local.
  for (std::uint32_t n : {2u, 4u, 8u, 16u, 32u}) {
    const DeepEpRouting r = deepep_routing(8 * n, n);
    CHECK(r.nodes <= 4.0 + 1e-12);
    CHECK(r.gpus <= 8.0 + 1e-12);
    CHECK(r.remote_nodes < r.nodes);
    CHECK(r.remote_nodes >= deepep_routing(8 * n / 2, n / 2 > 0 ? n / 2 : 1).remote_nodes - 1e-12);
  }
}

TEST_CASE("a step's expert-parallel part is priced by the job's kernel, dispatch and combine") {
  Topology t = dgx(4);
  CostModel model(t);
  const auto ranks = first(t, 32);
  Parallelism p;
  p.dp = 32;
  p.ep = 32;
  Workload w;
  w.moe_dispatch_bytes = 128.0 * 8 * kToken;
  w.moe_layers = 10;
  w.micro_batches = 3;
  const StepCost nccl = model.step(ranks, p, w);
  CollectiveQuery q{ranks, Collective::alltoall, static_cast<std::uint64_t>(w.moe_dispatch_bytes)};
  CHECK(nccl.ep == Approx(4 * 10 * 3 * model.collective(q).time_us * 1e-6));

  w.ep_kernel = EpKernel::pplx;
  w.ep_message_bytes = kToken;
  const StepCost pplx = model.step(ranks, p, w);
  const double d = ep_collective(model, q, EpKernel::pplx, EpPhase::dispatch, kToken).time_us;
  const double c = ep_collective(model, q, EpKernel::pplx, EpPhase::combine, kToken).time_us;
  // Training: a dispatch and a combine forward, a combine and a dispatch backward.
  CHECK(pplx.ep == Approx(2 * 10 * 3 * (d + c) * 1e-6));
  CHECK(pplx.ep != Approx(nccl.ep));
  CHECK(pplx.part(StepKind::ep).algorithm == Algorithm::p2p);
  CHECK(pplx.part(StepKind::ep).outside_seconds > 0);

  // DeepEP's normal kernels: the same two phases, each on its distinct nodes and GPUs.
  w.ep_kernel = EpKernel::deepep;
  const StepCost normal = model.step(ranks, p, w);
  const double nd = ep_collective(model, q, EpKernel::deepep, EpPhase::dispatch, 0).time_us;
  CHECK(normal.ep == Approx(4 * 10 * 3 * nd * 1e-6));
  CHECK(normal.ep < nccl.ep);

  w.training = false;
  w.ep_kernel = EpKernel::deepep_ll;
  const StepCost ll = model.step(ranks, p, w);
  const double lld = ep_collective(model, q, EpKernel::deepep_ll, EpPhase::dispatch, 0).time_us;
  const double llc = ep_collective(model, q, EpKernel::deepep_ll, EpPhase::combine, 0).time_us;
  CHECK(ll.ep == Approx(10 * 3 * (lld + llc) * 1e-6));

  // pplx needs its put size.
  w.ep_kernel = EpKernel::pplx;
  w.ep_message_bytes = 0;
  CHECK_THROWS_AS(model.step(ranks, p, w), InputError);
}

TEST_CASE("a kernel's time is its latency and its transfer, as NCCL's are") {
  const Topology t = dgx(2);
  const CostModel model(t);
  const auto ranks = first(t, 16);
  for (const EpKernel kernel : {EpKernel::deepep, EpKernel::deepep_ll, EpKernel::pplx}) {
    INFO(ep_kernel_name(kernel));
    const CollectiveCost c =
        ep_collective(model, {ranks, Collective::alltoall, kBytes}, kernel, EpPhase::dispatch, kToken);
    CHECK(c.fill_us == 0);
    CHECK(c.transfer_us > 0);
    CHECK(c.time_us == Approx(c.latency_us + c.transfer_us));
  }
}
