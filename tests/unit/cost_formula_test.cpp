// Each collective's time against a hand computation from the topology's link
// figures, NCCL's published constants and the nccl-tests definitions. The
// expectations restate the numbers (18 x 25 GB/s x 20.6/25, 8.4 + 14 x 3.4 us
// ...) instead of asking the model for them.
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/nccl_tuning.hpp"
#include "topoplan/model/nccl_environment.hpp"

#include <algorithm>
#include <array>

#include <catch2/catch.hpp>

#include "cost_test_topologies.hpp"
#include "test_presets.hpp"

using namespace topoplan;
using namespace cost_test;
using topoplan::test::preset;

namespace {

// One H100 of kBoxes: 18 NVLink 4 links at NCCL's 20.6 GB/s each (topo.h SM90).
constexpr double kNvl = 18 * 20.6;
// Its NIC: PCIe Gen5 x16 as NCCL models it, 16 x 240 / 80 = 48 GB/s < 50 GB/s NDR.
constexpr double kNic = 48.0;

double us(double bytes, double gbps) { return bytes / (gbps * 1e3); }

}  // namespace

TEST_CASE("ring allreduce: 2(n-1)/n of the data over each rank's NVLink, NCCL's ring latency") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  auto ranks = first(t, 8);
  CollectiveCost c = model.collective({ranks, Collective::allreduce, std::uint64_t{1} << 30, Algorithm::ring});
  const double s = kGiB;
  const double latency = 8.4 + 14 * 3.4;  // base Ring/Simple + 2(n-1) NVLink Ring/Simple steps
  const double expected = latency + us(s * 14 / 8, kNvl) / eta(s, kSimpleBuffer);
  CHECK(c.algorithm == Algorithm::ring);
  CHECK(c.protocol == Protocol::simple);
  CHECK(c.latency_us == Approx(latency));
  CHECK(c.time_us == Approx(expected).epsilon(1e-9));
  CHECK(c.algbw_gbps == Approx(s / (expected * 1e3)).epsilon(1e-9));
  CHECK(c.busbw_gbps == Approx(c.algbw_gbps * 14 / 8).epsilon(1e-12));
  REQUIRE(c.tiers().size() == 1);
  CHECK(c.tiers()[0].tier == Tier::scale_up);
  CHECK(c.tiers()[0].bandwidth == Approx(kNvl));
}

TEST_CASE("NVLS allreduce: (n+1)/n of the data through the switch, two loops of fill") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  auto ranks = first(t, 8);
  CollectiveCost c = model.collective({ranks, Collective::allreduce, std::uint64_t{1} << 30, Algorithm::nvls});
  const double s = kGiB;
  // Each GPU serves its slices to the switch's reductions (S) and takes its
  // reduced slice back (S/n); the multicast of the result is the mirror
  // image. The 16 NVLS channels of a Hopper GPU walk 16 x 19 = 304 GB/s
  // of the buffer, 9/8 of that (342) on the head's links, more than the
  // links' 0.85 x 370.8 = 315: the links bind.
  const double nvls = kNvl * 0.85;
  CHECK(16 * nccl::kNvlsChannelBw * 9 / 8 > nvls);
  // A loop is a 128 KiB chunk on every channel of every head (16 x 8 x 128
  // KiB = 16 MiB at 1 GiB); the first loop's scatter and reduce, two loops
  // at the algorithm's rate, are the fill.
  const double loop = 16.0 * 8 * 128 * 1024;
  const double expected = 25 + us(s * 9 / 8, nvls) + 2 * us(loop * 9 / 8, nvls);
  CHECK(c.time_us == Approx(expected).epsilon(1e-9));
  CHECK(c.latency_us == Approx(25));
  CHECK(c.busbw_gbps == Approx(s / (expected * 1e3) * 14 / 8).epsilon(1e-9));
  // At 16 MiB NCCL's chunk is 32 KiB (below 8 loops of 64 KiB): a quarter
  // of the fill.
  const double mid = 16.0 * 1024 * 1024;
  CollectiveCost m = model.collective({ranks, Collective::allreduce, std::uint64_t{16} << 20, Algorithm::nvls});
  CHECK(m.time_us == Approx(25 + us(mid * 9 / 8, nvls) + 2 * us(16.0 * 8 * 32 * 1024 * 9 / 8, nvls)).epsilon(1e-9));
}

TEST_CASE("NVLS on a 72-GPU domain: the channels, not the links, bind") {
  Topology t = preset("gb200-nvl72");
  CostModel model(t);
  CollectiveCost c = model.collective({first(t, 72), Collective::allreduce, std::uint64_t{8} << 30});
  const double s = 8.0 * kGiB;
  // 24 NVLS channels walk 24 x 19 GB/s of the buffer. 32 heads (NCCL's
  // NVLS arity), the busiest GPUs, each carry 33/32 of it on their links:
  // 470.3 GB/s < 0.74 x 721.8 = 534. A loop is 32 heads x 24 channels x
  // 128 KiB = 96 MiB, and Blackwell fills four of them (Hopper two).
  CHECK(c.algorithm == Algorithm::nvls);
  const double nvls = 24 * nccl::kNvlsChannelBw * 33 / 32;
  CHECK(nvls < 0.74 * 721.8);
  const double loop = 32.0 * 24 * 128 * 1024;
  CHECK(c.time_us == Approx(25 + us(s * 33 / 32, nvls) + 4 * us(loop * 33 / 32, nvls)).epsilon(1e-9));
}

TEST_CASE("NVLS fills two loops in one host's NVSwitch domain, four where the domain spans hosts") {
  // 8 B200s of one DGX and 8 GB200s of an NVL72 rack (two trays): the same
  // 24 channels x 8 heads at the same 24 x 19 GB/s of the buffer, 128 KiB
  // chunks at 8 GiB, so the loop is the same 24 MiB; the rack's NVLink
  // domain spans hosts and fills four loops, the DGX's two.
  Topology dgx = preset("dgx-b200:nodes=1");
  Topology rack = preset("gb200-nvl72");
  CostModel box_model(dgx);
  CostModel rack_model(rack);
  const std::uint64_t s = std::uint64_t{8} << 30;
  const CollectiveCost box = box_model.collective({first(dgx, 8), Collective::allreduce, s, Algorithm::nvls});
  const CollectiveCost slice = rack_model.collective({first(rack, 8), Collective::allreduce, s, Algorithm::nvls});
  const double nvls = 24 * nccl::kNvlsChannelBw * 9 / 8;
  REQUIRE(box.tiers()[0].bandwidth == Approx(nvls));
  REQUIRE(slice.tiers()[0].bandwidth == Approx(nvls));
  CHECK(box.nvls_channels == 24);
  CHECK(slice.nvls_channels == 24);
  CHECK(box.nvls_chunk_bytes == slice.nvls_chunk_bytes);
  const double loop = 24.0 * 8 * box.nvls_chunk_bytes;
  CHECK(box.time_us ==
        Approx(box.latency_us + us(8.0 * kGiB * 9 / 8, nvls) + 2 * us(loop * 9 / 8, nvls)).epsilon(1e-9));
  CHECK(slice.time_us - box.time_us == Approx(2 * us(loop * 9 / 8, nvls)).epsilon(1e-9));
}

TEST_CASE("a step between GPUs of an NVLink domain that spans hosts costs a microsecond more than NCCL's row") {
  // The same 8 Blackwell GPUs on one NVLink 5 domain: a DGX B200's one host
  // and two trays of a GB200 rack. A 1 KiB all-gather runs ring/LL on both,
  // NCCL's 6.6 us base and 7 steps of 0.6 us; the trays' 7 steps take
  // kMultiHostNvlinkStepUs more each. NCCL's choice does not see it: the
  // four GPUs of one tray (one host) keep NCCL's row.
  Topology dgx = preset("dgx-b200:nodes=1");
  Topology rack = preset("gb200-nvl72");
  CostModel box_model(dgx);
  CostModel rack_model(rack);
  const CollectiveCost box = box_model.collective({first(dgx, 8), Collective::allgather, 1024});
  const CollectiveCost trays = rack_model.collective({first(rack, 8), Collective::allgather, 1024});
  const CollectiveCost tray = rack_model.collective({first(rack, 4), Collective::allgather, 1024});
  REQUIRE(box.algorithm == Algorithm::ring);
  REQUIRE(trays.algorithm == Algorithm::ring);
  REQUIRE(box.protocol == Protocol::ll);
  REQUIRE(trays.protocol == Protocol::ll);
  CHECK(box.latency_us == Approx(6.6 + 7 * 0.6));
  CHECK(trays.latency_us == Approx(6.6 + 7 * (0.6 + nccl::kMultiHostNvlinkStepUs)));
  CHECK(tray.latency_us == Approx(6.6 + 3 * 0.6));
  // A tree's chain through the trays pays it on every hop up and down.
  const CollectiveCost chain = rack_model.collective(
      {first(rack, 8), Collective::allreduce, 1024, Algorithm::tree, kAllAlgorithms, protocol_bit(Protocol::ll)});
  const CollectiveCost box_chain = box_model.collective(
      {first(dgx, 8), Collective::allreduce, 1024, Algorithm::tree, kAllAlgorithms, protocol_bit(Protocol::ll)});
  CHECK(chain.latency_us - box_chain.latency_us == Approx(2 * 7 * nccl::kMultiHostNvlinkStepUs));
}

TEST_CASE("NVLS in one Blackwell domain before NCCL 2.27.3: 32 channels fill longer loops at the domain's ceiling") {
  Topology t = preset("gb200-nvl72");
  const std::uint64_t s = std::uint64_t{16} << 30;
  const auto ranks = first(t, 72);
  CostModel newer(t, CostModelOptions{.size_efficiency = true, .nccl_version = NcclVersion{2, 29, 3}});
  CostModel older(t, CostModelOptions{.size_efficiency = true, .nccl_version = NcclVersion{2, 25, 1}});
  const CollectiveCost a = newer.collective({ranks, Collective::allreduce, s, Algorithm::nvls});
  const CollectiveCost b = older.collective({ranks, Collective::allreduce, s, Algorithm::nvls});
  // The same 24 x 19 GB/s ceiling of the buffer on both...
  const double nvls = 24 * nccl::kNvlsChannelBw * 33 / 32;
  CHECK(a.tiers()[0].bandwidth == Approx(nvls));
  CHECK(b.tiers()[0].bandwidth == Approx(nvls));
  // ...and a third longer loops before 2.27.3 (32 x 32 heads x 128 KiB
  // against 24 x 32 x 128 KiB), four of which fill the pipeline.
  const double fill = 4 * us(32.0 * 32 * 128 * 1024 * 33 / 32, nvls) - 4 * us(24.0 * 32 * 128 * 1024 * 33 / 32, nvls);
  CHECK(b.time_us - a.time_us == Approx(fill).epsilon(1e-9));
}

TEST_CASE("NVLSTree across four or more Blackwell nodes keeps the cap of its release's launch") {
  // Eight DGX B200s, 8 NDR NICs a node: NVLSTree's network tree, NIC-bound,
  // would carry twice the buffer a node at 384 GB/s, about 375 GB/s of
  // busbw. NCCL 2.28.9 to 2.29 state 43.8 GB/s a head from four nodes for
  // the launch they have (32 channels, 64 KiB chunks), 2.28.3 43.1, which
  // the releases before with the same launch take too; 2.30, with its own
  // channels and chunks, 80 (not binding).
  Topology t = preset("dgx-b200:nodes=8");
  const std::uint64_t s = std::uint64_t{16} << 30;
  const auto ranks = first(t, 64);
  const auto busbw = [&](std::optional<NcclVersion> v) {
    CostModel m(t, CostModelOptions{.size_efficiency = true, .nccl_version = v});
    return m.collective({ranks, Collective::allreduce, s, Algorithm::nvlstree}).busbw_gbps;
  };
  const double b2297 = busbw(NcclVersion{2, 29, 7});
  const double b2277 = busbw(NcclVersion{2, 27, 7});
  const double newest = busbw(std::nullopt);
  CHECK(b2297 < 8 * 43.8);
  CHECK(b2297 > 0.95 * 8 * 43.8);
  CHECK(b2277 < 8 * 43.1);
  CHECK(b2277 > 0.95 * 8 * 43.1);
  CHECK(newest > 8 * 43.8);
}

TEST_CASE("NVLS channels walk the same buffer rate on 8 and 72 GPUs of a domain, the head's share costs only links") {
  Topology t = preset("gb200-nvl72");
  CostModel model(t);
  const std::uint64_t s = std::uint64_t{8} << 30;
  auto nvls_tier = [&](std::size_t gpus) {
    CollectiveCost c = model.collective({first(t, gpus), Collective::allreduce, s, Algorithm::nvls});
    for (const TierCost& tier : c.tiers())
      if (tier.tier == Tier::scale_up) return tier;
    FAIL("no NVLS tier");
    return TierCost{};
  };
  const TierCost eight = nvls_tier(8), all = nvls_tier(72);
  // A head carries 9/8 of the buffer on 8 GPUs, 33/32 on 72 (32 heads).
  CHECK(eight.bytes == Approx(static_cast<double>(s) * 9 / 8));
  CHECK(all.bytes == Approx(static_cast<double>(s) * 33 / 32));
  // Both bound by the 24 channels, at the same rate over the buffer: 24 x
  // 19 x 9/8 = 513 GB/s of link bytes on 8 GPUs stays under 0.74 x 721.8.
  const double buffer_rate = 24 * nccl::kNvlsChannelBw;
  CHECK(eight.bandwidth * static_cast<double>(s) / eight.bytes == Approx(buffer_rate));
  CHECK(all.bandwidth * static_cast<double>(s) / all.bytes == Approx(buffer_rate));
  CHECK(eight.bandwidth < 0.74 * 721.8);
  CHECK(eight.bandwidth > all.bandwidth);
}

TEST_CASE("NVLSTree over NVL72 racks: channels at NVLSTree's copy pace, never faster than one rack") {
  Topology t = preset("gb200-nvl72:racks=4");
  CostModel model(t);
  const std::uint64_t s = std::uint64_t{1} << 30;
  CollectiveCost one = model.collective({first(t, 72), Collective::allreduce, s});
  CollectiveCost two = model.collective({first(t, 144), Collective::allreduce, s});
  CollectiveCost four = model.collective({first(t, 288), Collective::allreduce, s});
  REQUIRE(two.algorithm == Algorithm::nvlstree);
  REQUIRE(four.algorithm == Algorithm::nvlstree);
  // The buffer's bytes per second on the switch side: the tier's over a
  // head's share.
  auto walked = [&](const CollectiveCost& c) {
    for (const TierCost& tier : c.tiers())
      if (tier.tier == Tier::scale_up) return tier.bandwidth * static_cast<double>(s) / tier.bytes;
    return 0.0;
  };
  // One rack: 24 channels at a domain's pace.
  CHECK(walked(one) == Approx(24 * nccl::kNvlsChannelBw));
  // NCCL 2.30 runs 32 NVLS channels across two domains with 400G NICs and
  // 24 across four or more (ncclNvlsTreeSm100Tuning); an NVLSTree CTA gives
  // 5 warps to its gather where one domain's gives 7 (all_reduce.h), so each
  // channel walks 5/7 of a domain's pace: 32 channels just under one rack's
  // 24, 24 channels a quarter less.
  CHECK(walked(two) == Approx(32 * nccl::kNvlsChannelBw * 5 / 7));
  CHECK(walked(four) == Approx(24 * nccl::kNvlsChannelBw * 5 / 7));
  CHECK(walked(two) < walked(one));
  // The launch the result reports: 24 channels in one rack, 32 of 64 KiB
  // chunks across two, 24 of 128 KiB (Grace's P2C path) across four.
  CHECK(one.nvls_channels == 24);
  CHECK(two.nvls_channels == 32);
  CHECK(two.nvls_chunk_bytes == 64 * 1024);
  CHECK(four.nvls_channels == 24);
  CHECK(four.nvls_chunk_bytes == 128 * 1024);
  CHECK(two.nvls_heads == four.nvls_heads);
  CHECK(two.nvls_heads > 1);
  // Other algorithms launch no NVLS.
  CollectiveCost ring = model.collective({first(t, 144), Collective::allreduce, s, Algorithm::ring});
  CHECK(ring.nvls_channels == 0);
  CHECK(ring.nvls_chunk_bytes == 0);
  // Before 2.30 NCCL launched 32 channels across any number of domains.
  CostModel older(t, CostModelOptions{.size_efficiency = true, .nccl_version = NcclVersion{2, 29, 7}});
  CHECK(walked(older.collective({first(t, 288), Collective::allreduce, s})) ==
        Approx(32 * nccl::kNvlsChannelBw * 5 / 7));
  // Both racks reduce the whole buffer inside and then cross: slower.
  CHECK(two.time_us > one.time_us);
  CHECK(two.outside_us > 0);
  // At 16 GiB too, where NVLSTree's 64 KiB chunks make smaller loops than
  // one rack's 128 KiB NVLS ones: the fill of its NVLS side is held to one
  // rack's and its network hops come on top, so beyond the latency it
  // always takes longer than one rack.
  const std::uint64_t big = std::uint64_t{16} << 30;
  for (std::uint32_t racks : {2u, 4u}) {
    Topology many = preset("gb200-nvl72:racks=" + std::to_string(racks));
    CostModel wide(many);
    const CollectiveCost alone = wide.collective({first(many, 72), Collective::allreduce, big});
    const CollectiveCost across = wide.collective({first(many, std::size_t{72} * racks), Collective::allreduce, big});
    REQUIRE(across.algorithm == Algorithm::nvlstree);
    CHECK(across.time_us - across.latency_us > alone.time_us - alone.latency_us);
  }
}

TEST_CASE("allgather and broadcast rings move (n-1)/n and all of the buffer") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  auto ranks = first(t, 8);
  const double s = kGiB;
  CollectiveCost ag = model.collective({ranks, Collective::allgather, std::uint64_t{1} << 30, Algorithm::ring});
  CHECK(ag.time_us == Approx(8.4 + 7 * 3.4 + us(s * 7 / 8, kNvl) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(ag.busbw_gbps == Approx(ag.algbw_gbps * 7 / 8));
  CollectiveCost rs = model.collective({ranks, Collective::reducescatter, std::uint64_t{1} << 30, Algorithm::ring});
  CHECK(rs.time_us == Approx(ag.time_us));
  CollectiveCost bc = model.collective({ranks, Collective::broadcast, std::uint64_t{1} << 30});
  CHECK(bc.algorithm == Algorithm::ring);
  CHECK(bc.time_us == Approx(8.4 + 7 * 3.4 + us(s, kNvl) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(bc.busbw_gbps == Approx(bc.algbw_gbps));
}

TEST_CASE("tree allreduce in one box: a chain up and down, and the pipeline's fill") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  auto ranks = first(t, 8);
  CollectiveCost c = model.collective({ranks, Collective::allreduce, std::uint64_t{1} << 30, Algorithm::tree});
  const double s = kGiB;
  // The chain carries S up and S down through each GPU's 370.8 GB/s; NCCL's
  // per-channel tree caps apply from four nodes on only. NCCL's ring search
  // finds 6 channels of 60 GB/s and doubles them (12 channels, what its tuner
  // counts), and connecting the rings and trees doubles them again: the
  // collective runs on 24. The first 512 KiB chunk (a Simple buffer step) of
  // every channel crosses the 14 hops of the chain up and down before the
  // last leaves.
  const double alg = kNvl / 2;
  const double chunks = 24 * 512.0 * 1024;
  const double fill = 14 * us(chunks, kNvl) - us(chunks, alg);
  const double latency = 8.4 + 2 * (7 * 4.0);
  CHECK(c.protocol == Protocol::simple);
  CHECK(c.latency_us == Approx(latency));
  CHECK(c.time_us == Approx(latency + us(s, alg) / eta(s, kSimpleBuffer) + fill).epsilon(1e-9));
}

TEST_CASE("a small tree runs on fewer channels: 32 KiB each through the chain at NCCL's per-channel rate") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  const double s = 256.0 * 1024;
  CollectiveCost c = model.collective({first(t, 8), Collective::allreduce, 256 << 10, Algorithm::tree});
  const Candidate* simple = nullptr;
  for (const Candidate& cand : c.candidates())
    if (cand.protocol == Protocol::simple) simple = &cand;
  REQUIRE(simple);
  // Of the communicator's 24 channels NCCL drops one while the buffer is
  // under channels x 512 threads x 64 B: 8 channels of 32 KiB. Each chunk
  // crosses the 14 hops of the chain at the channel's rate: its share of the
  // NVLink (370.8 / 8) held to NCCL's per-channel tree rate, Hopper's 38.7
  // GB/s busBw cap halved into algBw.
  const double alg = kNvl / 2;
  const double chunk = 32.0 * 1024;
  const double rate = std::min(kNvl / 8, 38.7 / 2);
  const double fill = 14 * us(chunk, rate) - us(8 * chunk, alg);
  const double latency = 8.4 + 2 * (7 * 4.0);
  CHECK(simple->time_us == Approx(latency + us(s, alg) / eta(s, kSimpleBuffer) + fill).epsilon(1e-9));
}

TEST_CASE("tree across three or four groups: the double binary tree's traffic and NCCL's caps") {
  // The busiest box of NCCL's double binary tree sends 1.5 S (three boxes)
  // or 2 S (four) through its eight NICs of 48 GB/s. From four boxes on
  // NCCL's per-channel Simple tree cap (Hopper, N4: 36 GB/s) binds as well:
  // 8 channels x 36 = 288 GB/s of busBw, below the NICs' 384.
  Topology three = parse(kBoxes, {{"nodes", "3"}});
  CostModel m3(three);
  CollectiveCost c3 = m3.collective({first(three, 24), Collective::allreduce, std::uint64_t{16} << 30,
                                      Algorithm::tree});
  const double s = 16.0 * kGiB;
  REQUIRE(c3.tiers().size() == 2);
  CHECK(c3.tiers()[1].tier == Tier::island);
  CHECK(c3.tiers()[1].bytes == Approx(1.5 * s));
  CHECK(c3.tiers()[1].bandwidth == Approx(8 * kNic));
  Topology four = parse(kBoxes, {{"nodes", "4"}});
  CostModel m4(four);
  CollectiveCost c4 = m4.collective({first(four, 32), Collective::allreduce, std::uint64_t{16} << 30,
                                      Algorithm::tree});
  CHECK(c4.tiers()[1].bytes == Approx(2 * s));
  // NCCL's search: 8 channels of 45 GB/s (7 of 48 would use less of the
  // 370.8 GB/s of NVLink); the cap leaves an algBw of 8 x 36 / 2.
  const double capped_alg = 8 * 36.0 / 2;
  CHECK(c4.algbw_gbps < capped_alg);
  CHECK(c4.algbw_gbps > 0.95 * capped_alg);
}

TEST_CASE("a tree over two Blackwell nodes runs at NCCL's two-node cap, a Hopper pair above its own") {
  // Tree/Simple over two DGX B200s: NCCL's search finds 8 channels, held to
  // Blackwell's two-node per-channel cap (42.8 GB/s of busBw since NCCL
  // 2.28.3), where the NICs and NVLink would carry twice that. A public B200
  // pair measures 334 GB/s at 8 GiB (bench/data a323).
  const std::uint64_t size = std::uint64_t{16} << 30;
  Topology b200 = preset("dgx-b200:nodes=2");
  CostModel blackwell(b200);
  CollectiveCost b = blackwell.collective({first(b200, 16), Collective::allreduce, size, Algorithm::tree});
  const double cap = 8 * nccl::newest_tuner_tables().tree[3][1];
  CHECK(cap == Approx(8 * 42.8));
  CHECK(b.busbw_gbps * 16 / 15 < cap);
  CHECK(b.busbw_gbps * 16 / 15 > 0.85 * cap);
  // Hopper's two-node cap (41.4) is older than its measurements: GCP A3
  // Mega's pair runs its tree at 338.8 GB/s, above 8 x 41.4, and the model
  // leaves the pair to its links (NVLink binds first).
  Topology h100 = preset("dgx-h100:nodes=2");
  CostModel hopper(h100);
  CollectiveCost h = hopper.collective({first(h100, 16), Collective::allreduce, size, Algorithm::tree});
  CHECK(h.busbw_gbps * 16 / 15 > 8 * nccl::newest_tuner_tables().tree[2][1]);
}

TEST_CASE("sendrecv across nodes: the NIC behind its PCIe link, the network's latency") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  auto ranks = devices(t, {"box0/gpu0", "box1/gpu0"});
  CollectiveCost c = model.collective({ranks, Collective::sendrecv, std::uint64_t{1} << 30});
  const double s = kGiB;
  // Ring/Simple base 8.4 + NET Ring/Simple 14 + twice (Simple's flush) the
  // route NIC-leaf-NIC of two 0.15 us InfiniBand hops.
  const double latency = 8.4 + 14 + 2 * 0.3;
  CHECK(c.algorithm == Algorithm::p2p);
  CHECK(c.latency_us == Approx(latency));
  CHECK(c.time_us == Approx(latency + us(s, kNic) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(c.busbw_gbps == Approx(c.algbw_gbps));
}

TEST_CASE("alltoall across two nodes: half of every rank's data leaves through its NIC") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  auto ranks = first(t, 16);
  CollectiveCost c = model.collective({ranks, Collective::alltoall, std::uint64_t{1} << 30, Algorithm::p2p});
  const double s = kGiB;
  const double latency = 8.4 + 14 + 2 * 0.3;
  CHECK(c.time_us == Approx(latency + us(s * 8 / 16, kNic) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  bool nic = false;
  for (const TierCost& tier : c.tiers())
    if (tier.tier == Tier::nic) {
      nic = true;
      CHECK(tier.bytes == Approx(s / 2));
    }
  CHECK(nic);
  CHECK(c.busbw_gbps == Approx(c.algbw_gbps * 15 / 16));
}

TEST_CASE("an all-to-all's latency grows with its nodes: a channel's batches of eight peers one after another") {
  // kBoxes' ring graph: 8 channels, one a NIC, doubled to the communicator's
  // 16 (a power of two already). A node's eight peers make one batch on one
  // channel: 2 nodes fit one batch a channel, 64 nodes take 64 / 16 = 4.
  const double step = 14 + 2 * 0.3;  // NET Ring/Simple and the NIC-leaf-NIC route, as a send
  Topology two = parse(kBoxes, {{"nodes", "2"}});
  CollectiveCost c2 =
      CostModel(two).collective({first(two, 16), Collective::alltoall, std::uint64_t{1} << 30, Algorithm::p2p});
  CHECK(c2.p2p_batches == 1);
  CHECK(c2.p2p_batch_us == 0);
  CHECK(c2.latency_us == Approx(8.4 + step));
  Topology many = parse(kBoxes, {{"nodes", "64"}});
  CostModel model(many);
  CollectiveCost c64 =
      model.collective({first(many, 512), Collective::alltoall, std::uint64_t{1} << 30, Algorithm::p2p});
  CHECK(c64.p2p_batches == 4);
  CHECK(c64.latency_us == Approx(8.4 + 4 * step));
  CHECK(c64.p2p_batch_us == Approx(3 * step));
  // One peer, one batch: a send's latency does not grow; nor does a ring's
  // all-reduce report batches.
  const auto all = first(many, 512);
  const std::array<DeviceId, 2> pair{all[0], all[511]};
  CollectiveCost send = model.collective({pair, Collective::sendrecv, std::uint64_t{1} << 30});
  CHECK(send.latency_us == Approx(8.4 + step));
  CHECK(send.p2p_batches == 0);
  CHECK(model.collective({all, Collective::allreduce, 1 << 20}).p2p_batches == 0);
}

TEST_CASE("NCCL's sends go LL up to 16 KiB a channel, Simple above, whatever the link model prefers") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  const auto node = first(t, 8);
  auto protocol = [&](std::span<const DeviceId> ranks, Collective op, std::uint64_t bytes) {
    return model.collective({ranks, op, bytes, Algorithm::p2p}).protocol;
  };
  // An all-to-all's part is the buffer / ranks: 16 KiB a peer on one
  // channel is LL, 32 KiB (still one channel: parts of 64 KiB) Simple.
  CHECK(protocol(node, Collective::alltoall, std::uint64_t{8} * 16384) == Protocol::ll);
  CHECK(protocol(node, Collective::alltoall, std::uint64_t{8} * 32768) == Protocol::simple);
  CHECK(protocol(node, Collective::alltoall, 1 << 20) == Protocol::simple);
  const std::array<DeviceId, 2> pair{node[0], first(t, 16)[8]};
  CHECK(protocol(pair, Collective::sendrecv, 16384) == Protocol::ll);
  CHECK(protocol(pair, Collective::sendrecv, 16385) == Protocol::simple);
  // One protocol, so one p2p candidate.
  const CollectiveCost c = model.collective({node, Collective::alltoall, std::uint64_t{1} << 30, Algorithm::p2p});
  REQUIRE(c.candidates().size() == 1);
  CHECK(c.candidates()[0].protocol == Protocol::simple);
}

TEST_CASE("a ring on a direct mesh uses only the links between its members") {
  Topology t = parse(kMesh);
  CostModel model(t);
  const double s = kGiB;
  const double link = 64 * 0.75;  // RCCL's 48 GB/s per MI300X xGMI link
  CollectiveCost four = model.collective({first(t, 4), Collective::allreduce, std::uint64_t{1} << 30});
  CollectiveCost two = model.collective({first(t, 2), Collective::allreduce, std::uint64_t{1} << 30});
  // AMD: RCCL's own latencies (gfx942: Ring/Simple base 17 us, 2.1 us per
  // xGMI step) and its size ranges pick Simple above 9 MiB; no NVLS.
  CHECK(four.algorithm == Algorithm::ring);
  CHECK(four.protocol == Protocol::simple);
  CHECK(four.time_us == Approx(17 + 6 * 2.1 + us(s * 1.5, 3 * link) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(two.time_us == Approx(17 + 2 * 2.1 + us(s, link) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  // Up to 1 MiB RCCL runs LL, which moves 8 % of the links (bwRatio) and no
  // further ramp; 6 steps of 0.8 us after a 12 us base.
  CollectiveCost small = model.collective({first(t, 4), Collective::allreduce, 1 << 20});
  CHECK(small.protocol == Protocol::ll);
  CHECK(small.time_us == Approx(12 + 6 * 0.8 + us((1 << 20) * 1.5, 0.08 * 3 * link)).epsilon(1e-9));
  CHECK(four.busbw_gbps / two.busbw_gbps == Approx(3).epsilon(0.01));
}

TEST_CASE("a ring across MI300X nodes: each GPU hands one channel in eight to its NIC") {
  Topology t = preset("mi300x:nodes=2");
  CostModel model(t, CostModelOptions{.size_efficiency = false, .nccl_version = {}});
  const std::uint64_t s = std::uint64_t{16} << 30;
  CollectiveCost c = model.collective({first(t, 16), Collective::allreduce, s, Algorithm::ring});
  // 2 x 15/16 of the buffer per GPU; RCCL's 8 rings leave each node by all 8
  // GPUs' NICs, so a GPU sends 7/8 of it over its 7 xGMI links (48 GB/s
  // each) and the node's 8 NICs (48 GB/s each, PCIe Gen5 behind NDR) carry
  // all of it: both at 384 GB/s of ring traffic.
  const double bytes = 2.0 * 15 / 16 * static_cast<double>(s);
  const TierCost* up = nullptr;
  const TierCost* egress = nullptr;
  for (const TierCost& tier : c.tiers()) {
    if (tier.tier == Tier::scale_up) up = &tier;
    if (tier.tier == Tier::island) egress = &tier;
  }
  REQUIRE(up != nullptr);
  REQUIRE(egress != nullptr);
  CHECK(up->bytes == Approx(bytes * 7 / 8));
  CHECK(up->bandwidth == Approx(7 * 48.0));
  CHECK(egress->bytes == Approx(bytes));
  CHECK(egress->bandwidth == Approx(8 * 48.0));
  CHECK(c.busbw_gbps < 8 * 48.0);
  CHECK(c.busbw_gbps > 0.95 * 8 * 48.0);
  // Inside one node the ring is a cycle through all 8: every byte over xGMI.
  CollectiveCost one = model.collective({first(t, 8), Collective::allreduce, s, Algorithm::ring});
  REQUIRE(one.tiers().size() == 1);
  CHECK(one.tiers()[0].bytes == Approx(2.0 * 7 / 8 * static_cast<double>(s)));
}

TEST_CASE("PCIe-only nodes: each GPU's link, and the socket link when a ring crosses it") {
  Topology t = parse(kPcie);
  CostModel model(t);
  const double s = kGiB;
  const double pcie = 16 * 120 / 80.0;  // NCCL's Gen4 x16: 24 GB/s
  CollectiveCost near = model.collective({devices(t, {"p0/gpu0", "p0/gpu1"}), Collective::allreduce,
                                          std::uint64_t{1} << 30});
  CollectiveCost far = model.collective({devices(t, {"p0/gpu0", "p0/gpu2"}), Collective::allreduce,
                                         std::uint64_t{1} << 30});
  const double latency = 8.4 + 2 * 5.7;  // PCI Ring/Simple
  CHECK(near.protocol == Protocol::simple);  // no LL128 off NVLink
  CHECK(near.time_us == Approx(latency + us(s, pcie) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(far.time_us == Approx(latency + us(s, 22.0) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(far.tiers()[far.bottleneck].tier == Tier::socket);
}

TEST_CASE("LPU chains: per-hop latency on a folded ring, no protocol overhead") {
  Topology t = parse(kChain);
  CostModel model(t);
  const double s = 1 << 20;
  CollectiveCost ar = model.collective({first(t, 4), Collective::allreduce, 1 << 20});
  // Folded order 0, 2, 3, 1: its longest edges span two hops (2 us); six
  // steps; the chain's end chips have one 14 GB/s link.
  CHECK(ar.protocol == Protocol::scheduled);
  CHECK(ar.latency_us == Approx(6 * 2.0));
  CHECK(ar.time_us == Approx(12 + us(s * 1.5, 14)).epsilon(1e-9));
  CollectiveCost bc = model.collective({first(t, 4), Collective::broadcast, 1 << 20});
  CHECK(bc.latency_us == Approx(3.0));  // along the chain: three hops
  CHECK(bc.time_us == Approx(3 + us(s, 14)).epsilon(1e-9));
  CHECK_THROWS_AS(model.collective({first(t, 4), Collective::allreduce, 1 << 20, Algorithm::tree}), InputError);
}

TEST_CASE("one rank costs nothing") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  CollectiveCost c = model.collective({first(t, 1), Collective::allreduce, 1 << 20});
  CHECK(c.time_us == 0);
  CHECK(c.busbw_gbps == 0);
}

TEST_CASE("generations come from model names, then from NVLink generations") {
  CHECK(generation_from_model("H100-SXM5-80GB") == Generation::hopper);
  CHECK(generation_from_model("NVIDIA H200") == Generation::hopper);
  CHECK(generation_from_model("GB200") == Generation::blackwell);
  CHECK(generation_from_model("b300") == Generation::blackwell);
  CHECK(generation_from_model("A100-SXM4-80GB") == Generation::ampere);
  CHECK(generation_from_model("A10") == Generation::ampere);
  CHECK(generation_from_model("V100") == Generation::volta);
  CHECK(generation_from_model("MI300X") == Generation::cdna);
  CHECK_FALSE(generation_from_model("X9000"));
  Topology t = parse(R"(
name: unknown
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "u0"
    devices:
      - {name: "gpu[0-1]", kind: gpu, model: X9000}
      - {name: "nvsw", kind: nvswitch}
    links:
      - {from: "gpu*", to: "nvsw", type: nvlink5, count: 18}
  cluster:
    level: cluster
    children:
      - {block: node, count: 1, name: "n0"}
root: cluster
)");
  CostModel model(t);
  CHECK(model.fabric().accelerator(0).generation == Generation::blackwell);
  CHECK(model.fabric().accelerator(0).switch_bw == Approx(18 * 40.1));
}

TEST_CASE("NVLSTree across four boxes: NVLS inside, a tree of twice the data through the NICs") {
  Topology t = parse(kBoxes, {{"nodes", "4"}});
  CostModel model(t);
  CollectiveCost c = model.collective({first(t, 32), Collective::allreduce, std::uint64_t{1} << 30, Algorithm::nvlstree});
  const double s = kGiB;
  // Inside: 9/8 S at 370.8 x 0.85 = 315 GB/s; across four boxes each box
  // sends and receives 2 S through the NICs of its 8 NVLS heads (8 x 48):
  // the NICs bind, 2 S / 384 GB/s, a busBw of 384 x 2 x 31/32 / 2 = 372,
  // held to NCCL's 8 heads x 45.5 GB/s (perChMaxNVLSTreeBw, Hopper, N4).
  CHECK(c.tiers()[c.bottleneck].tier == Tier::island);
  const double alg = 8 * 45.5 / (2.0 * 31 / 32);
  // NVLSTree: 25 us inside, then 2 log2(4) network steps of 20.9 us plus
  // twice the 0.3 us route.
  const double latency = 25 + 2 * 2 * (20.9 + 2 * 0.3);
  CHECK(c.latency_us == Approx(latency));
  // Loops of 64 KiB chunks (NCCL's NVLSTree maximum from four nodes on) on
  // 16 channels x 8 heads, 8 MiB: the first fills NVLS's two loops at the
  // switch side's 0.85 x 370.8 GB/s links (9/8 of the data), held to what
  // NVLS fills on one box alone (two loops of 128 KiB chunks: 16 MiB), and
  // the network tree's 2 log2(4) hops through the heads' 8 x 48 GB/s, less
  // the hop the bandwidth term holds.
  const double loop = 16.0 * 8 * 64 * 1024;
  const double alone = 16.0 * 8 * 128 * 1024;
  CHECK(alone > loop);
  const double fill = 2 * us(alone * 9 / 8, 0.85 * kNvl) + (4 - 1) * us(loop, 8 * kNic);
  // The 16 NVLS channels move those 2 S through each box's NICs at a Hopper
  // channel's 20.5 GB/s, 328 GB/s: slower than the NICs and NCCL's cap, so
  // the channels set the transfer.
  const double channels = us(2 * s, 16 * nccl::kHopperNetChannelBw);
  CHECK(channels > us(s, alg));
  CHECK(c.network_channels == 16);
  CHECK(c.network_channels_us == Approx(channels).epsilon(1e-12));
  CHECK(c.time_us == Approx(latency + channels + fill).epsilon(1e-9));
}

TEST_CASE("a ring across Hopper nodes moves at its channels' pace where they are slower than the NICs") {
  Topology t = parse(kBoxes, {{"nodes", "4"}});
  CostModel model(t);
  const auto ranks = first(t, 32);
  const std::uint64_t s = std::uint64_t{8} << 30;
  CollectiveCost c = model.collective(
      {ranks, Collective::allreduce, s, Algorithm::ring, kAllAlgorithms, protocol_bit(Protocol::simple)});
  // NCCL's ring graph across boxes: 8 channels at 48 GB/s, one a NIC,
  // doubled when NCCL connects them: 16 channels, each carrying its share
  // of 2 x 31/32 S across every box boundary at 20.5 GB/s.
  const double channels = us(2.0 * 31 / 32 * static_cast<double>(s), 16 * nccl::kHopperNetChannelBw);
  CHECK(c.network_channels == 16);
  CHECK(c.network_channels_us == Approx(channels).epsilon(1e-12));
  CHECK(c.time_us == Approx(c.latency_us + channels).epsilon(1e-9));
  CHECK(c.busbw_gbps < 16 * nccl::kHopperNetChannelBw);
  // Small enough that the links' ramped transfer is the longer: no bound.
  CollectiveCost small = model.collective({ranks, Collective::allreduce, std::uint64_t{4} << 20, Algorithm::ring,
                                           kAllAlgorithms, protocol_bit(Protocol::simple)});
  CHECK(small.network_channels == 0);
  // Inside one box the channels never leave it.
  CollectiveCost one = model.collective({first(t, 8), Collective::allreduce, s, Algorithm::ring});
  CHECK(one.network_channels == 0);
}

TEST_CASE("NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS bound the channels a ring runs on, not its graph's") {
  // The 16 channels of the test above, copied up to 32 or cut to 8 as
  // NCCL does after the doubling (connect.cc): 32 move 32 x 20.5 GB/s, more
  // than the boxes' 8 NICs take, so the NICs bind again; 8 move half of 16.
  // NCCL's tuner still multiplies its per-channel figures by the graph's 8.
  const Topology t = parse(kBoxes, {{"nodes", "4"}});
  const std::uint64_t s = std::uint64_t{8} << 30;
  const auto ring = [&](const Topology& topology) {
    CostModel model(topology);
    return model.collective({first(topology, 32), Collective::allreduce, s, Algorithm::ring, kAllAlgorithms,
                             protocol_bit(Protocol::simple)});
  };
  const CollectiveCost plain = ring(t);
  const CollectiveCost many = ring(with_nccl_setting(t, {"NCCL_MIN_NCHANNELS", "32", {}}));
  const CollectiveCost few = ring(with_nccl_setting(t, {"NCCL_MAX_NCHANNELS", "8", {}}));
  const double bytes = 2.0 * 31 / 32 * static_cast<double>(s);
  CHECK(plain.network_channels == 16);
  CHECK(few.network_channels == 8);
  CHECK(few.network_channels_us == Approx(us(bytes, 8 * nccl::kHopperNetChannelBw)).epsilon(1e-12));
  CHECK(few.time_us == Approx(few.latency_us + few.network_channels_us).epsilon(1e-9));
  // With 32 the links' ramped transfer is the longer: the channels no longer
  // bind (the cost names channels only where they do).
  CHECK(many.network_channels == 0);
  CHECK(many.time_us < plain.time_us);
  CHECK(many.time_us > many.latency_us + us(bytes, 32 * nccl::kHopperNetChannelBw));
  CHECK(many.busbw_gbps < 8 * kNic);
  // A maximum below the minimum: NCCL cuts to the maximum, then copies up to the minimum.
  CHECK(nccl::comm_channels(8, {.min_channels = 24, .max_channels = 4}) == 24);
  CHECK(nccl::comm_channels(8, {}) == 16);
  CHECK(nccl::comm_channels(40, {}) == nccl::kMaxChannels);
  // The CTA bounds cut and fill the same channels; a minCTAs above maxCTAs
  // is lowered to it (init.cc), and NCCL_MIN_NCHANNELS still copies up.
  CHECK(nccl::comm_channels(8, {.max_ctas = 4}) == 4);
  CHECK(nccl::comm_channels(8, {.min_ctas = 32}) == 32);
  CHECK(nccl::comm_channels(8, {.min_ctas = 32, .max_ctas = 8}) == 8);
  CHECK(nccl::comm_channels(8, {.min_channels = 24, .max_ctas = 8}) == 24);
  CHECK(nccl::comm_channels(8, {.max_channels = 12, .max_ctas = 10}) == 10);
}

TEST_CASE("NVLS runs on NCCL_NVLS_NCHANNELS channels within the CTA bounds, not the NCHANNELS pair's") {
  CHECK(nccl::bounded_nvls_channels(24, {}) == 24);
  CHECK(nccl::bounded_nvls_channels(24, {.nvls_channels = 8}) == 8);
  CHECK(nccl::bounded_nvls_channels(24, {.min_channels = 32, .max_channels = 4}) == 24);
  CHECK(nccl::bounded_nvls_channels(24, {.max_ctas = 16}) == 16);
  CHECK(nccl::bounded_nvls_channels(24, {.min_ctas = 12, .nvls_channels = 8}) == 12);
  // One H100 node's NVLS all-reduce at 8 GiB: NCCL's 16 channels move what
  // the links allow; 4 of them move 4 channels' worth, and NCCL's tuner,
  // which counts the graph's heads, still chooses NVLS.
  const Topology t = preset("dgx-h100:nodes=1");
  const auto nvls = [&](const Topology& topology) {
    CostModel model(topology);
    return model.collective({first(topology, 8), Collective::allreduce, std::uint64_t{8} << 30});
  };
  const CollectiveCost plain = nvls(t);
  const CollectiveCost four = nvls(with_nccl_setting(t, {"NCCL_NVLS_NCHANNELS", "4", {}}));
  const CollectiveCost capped = nvls(with_nccl_setting(t, {"NCCL_MAX_CTAS", "4", {}}));
  REQUIRE(plain.algorithm == Algorithm::nvls);
  REQUIRE(four.algorithm == Algorithm::nvls);
  CHECK(plain.nvls_channels == 16);
  CHECK(four.nvls_channels == 4);
  CHECK(capped.nvls_channels == 4);
  CHECK(four.busbw_gbps < plain.busbw_gbps / 2);
  CHECK(capped.time_us == Approx(four.time_us));
}

TEST_CASE("a Simple ring across nodes: NCCL's steps, and its 1.4 only in NCCL's estimate") {
  Topology t = parse(kBoxes, {{"nodes", "4"}});
  CostModel model(t);
  const std::uint64_t s = std::uint64_t{1} << 30;
  CollectiveCost c = model.collective(
      {first(t, 32), Collective::allreduce, s, Algorithm::ring, kAllAlgorithms, protocol_bit(Protocol::simple)});
  // Ring/Simple base 8.4; 62 steps, of which 2(4 - 1) = 6 leave a box at
  // NET Ring/Simple 14 plus twice the 0.3 us route, the other 56 at
  // NVLink's 3.4 (above the 3 us net overhead of an Intel host's Simple).
  const double latency = 8.4 + 56 * 3.4 + 6 * (14 + 2 * 0.3);
  CHECK(c.latency_us == Approx(latency));
  // NCCL's estimate is its latency plus the size over its graph's algBw:
  // twice the estimate at 1 GiB less the one at 2 GiB leaves the latency,
  // the same steps with the plugin's reported latency (0 on InfiniBand) in
  // the route's place, times 1.4 ("plateau effect of ring": far above 64
  // bytes a channel and rank).
  CollectiveCost twice = model.collective(
      {first(t, 32), Collective::allreduce, 2 * s, Algorithm::ring, kAllAlgorithms, protocol_bit(Protocol::simple)});
  REQUIRE(c.candidates().size() == 1);
  REQUIRE(twice.candidates().size() == 1);
  CHECK(c.candidates()[0].time_us == Approx(c.time_us));
  const double nccl_latency = 1.4 * (8.4 + 56 * 3.4 + 6 * 14);
  CHECK(2 * c.candidates()[0].tuner_us - twice.candidates()[0].tuner_us == Approx(nccl_latency).epsilon(1e-9));
  CHECK(twice.latency_us == Approx(latency));
}

TEST_CASE("hierarchical allreduce: reduce-scatter inside, all-reduce over rails, all-gather inside") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  CollectiveCost c =
      model.collective({first(t, 16), Collective::allreduce, std::uint64_t{1} << 30, Algorithm::hierarchical});
  const double s = kGiB;
  // Phases one after another: 7/8 S over NVLink, then each rank's 1/8 slice
  // all-reduced with its peer in the other box over its NIC (2(N-1)/N = 1),
  // then 7/8 S over NVLink again.
  const double bw_us = 2 * us(s * 7 / 8, kNvl) + us(s / 8, kNic);
  const double latency = 3 * 8.4 + 2 * 7 * 3.4 + 2 * (14 + 2 * 0.3);
  CHECK(c.latency_us == Approx(latency));
  CHECK(c.time_us == Approx(latency + bw_us / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CollectiveCost reduce = model.collective({first(t, 16), Collective::reduce, std::uint64_t{1} << 30});
  CollectiveCost broadcast = model.collective({first(t, 16), Collective::broadcast, std::uint64_t{1} << 30});
  CHECK(reduce.time_us == Approx(broadcast.time_us));
}

TEST_CASE("RCCL's MSCCL all-pairs on 8 MI300X: two xGMI steps of RCCL's latency, LL at half the links") {
  // The MI300X preset: 7 xGMI links of 48 GB/s each (RCCL's realised rate).
  Topology t = preset("mi300x:nodes=1");
  CostModel model(t);
  auto ranks = first(t, 8);
  const double links = 7 * 48.0;
  // Each GPU sends every peer 1/8 and gets the sums back: 2 x 7/8 of the
  // buffer over its 7 links.
  const double ll_s = 256 * 1024.0;
  CollectiveCost ll = model.collective({ranks, Collective::allreduce, std::uint64_t{256} << 10});
  CHECK(ll.algorithm == Algorithm::allpairs);
  CHECK(ll.protocol == Protocol::ll);
  CHECK(ll.latency_us == Approx(12.0 + 2 * 0.8));  // RCCL's LL base + two xGMI ring steps
  CHECK(ll.time_us == Approx(12.0 + 2 * 0.8 + us(ll_s * 14 / 8, links * 0.5)).epsilon(1e-9));
  // Simple moves at the share AMD's curve shows.
  const double simple_s = 4 * 1048576.0;
  CollectiveCost simple = model.collective({ranks, Collective::allreduce, std::uint64_t{4} << 20});
  CHECK(simple.algorithm == Algorithm::allpairs);
  CHECK(simple.protocol == Protocol::simple);
  CHECK(simple.latency_us == Approx(17.0 + 2 * 2.1));
  CHECK(simple.time_us ==
        Approx(17.0 + 2 * 2.1 + us(simple_s * 14 / 8, links * rccl::kAllPairsSimpleEfficiency)).epsilon(1e-9));
  REQUIRE(simple.tiers().size() == 1);
  CHECK(simple.tiers()[0].bandwidth == Approx(links));
}

TEST_CASE("an all-to-all on few channels takes no less time as it grows") {
  // NCCL gives each peer more channels as its part grows (64 KiB a channel
  // at first), so the channels' bound grows with the size; the links' ramp
  // must not apply on top of it, or 4 H100s' 1 MiB all-to-all would beat
  // their 256 KiB one.
  Topology t = preset("dgx-h100:nodes=1");
  CostModel model(t);
  for (const std::size_t n : {std::size_t{4}, std::size_t{8}}) {
    auto ranks = first(t, n);
    double previous = 0;
    for (std::uint64_t bytes = 4096; bytes <= (std::uint64_t{64} << 20); bytes *= 2) {
      INFO(n << " ranks, " << bytes << " B");
      CollectiveCost c = model.collective({ranks, Collective::alltoall, bytes, Algorithm::p2p});
      CHECK(c.time_us >= previous);
      previous = c.time_us;
    }
  }
}

TEST_CASE("the report splits the time into latency, transfer and the pipeline's fill") {
  Topology t = preset("gb200-nvl72:racks=1");
  CostModel model(t);
  // NVLS has no size ramp: its time is the latency, its NVLS tier and the
  // fill of its first loop.
  CollectiveCost nvls = model.collective({first(t, 72), Collective::allreduce, kGiB});
  REQUIRE(nvls.algorithm == Algorithm::nvls);
  REQUIRE(nvls.bottleneck != kNone);
  CHECK(nvls.fill_us > 0);
  CHECK(nvls.time_us == Approx(nvls.latency_us + nvls.tiers()[nvls.bottleneck].time_us + nvls.fill_us));
  CHECK(nvls.transfer_us == Approx(nvls.tiers_us));
  // A ring forwards as it goes: no fill. Its transfer is its tiers' time
  // slowed by the size ramp, and with the latency it makes the time.
  CollectiveCost ring = model.collective({first(t, 72), Collective::allreduce, kGiB, Algorithm::ring});
  CHECK(ring.fill_us == 0);
  CHECK(ring.transfer_us > ring.tiers_us);
  CHECK(ring.time_us == Approx(ring.latency_us + ring.transfer_us));
  // Nor does LL, which carries a flag in every line.
  CollectiveCost small = model.collective({first(t, 8), Collective::allreduce, 4096, Algorithm::ring});
  CHECK(small.protocol != Protocol::simple);
  CHECK(small.fill_us == 0);
  CHECK(small.time_us == Approx(small.latency_us + small.transfer_us));
  // Across nodes, where the channels' pace sets the transfer.
  Topology four = preset("dgx-h100:nodes=4");
  CollectiveCost paced = CostModel(four).collective({first(four, 32), Collective::allreduce, std::uint64_t{8} << 30});
  REQUIRE(paced.network_channels > 0);
  CHECK(paced.transfer_us == Approx(paced.network_channels_us));
  CHECK(paced.time_us == Approx(paced.latency_us + paced.transfer_us + paced.fill_us));
}

TEST_CASE("the report names NCCL's per-head NVLSTree cap where it sets the transfer") {
  // Two DGX H100s: NVLSTree's 8 heads held to 57.7 GB/s each (NCCL's
  // perChMaxNVLSTreeBw for two Hopper nodes), under their NVLS links; the
  // time is the latency, the fill and the transfer at the cap.
  Topology two = preset("dgx-h100:nodes=2");
  CollectiveCost c = CostModel(two).collective({first(two, 16), Collective::allreduce, kGiB});
  REQUIRE(c.algorithm == Algorithm::nvlstree);
  CHECK(c.nvls_heads == 8);
  CHECK(c.nvlstree_cap_gbps == Approx(57.7));
  // busBw held to 8 x 57.7 GB/s: the buffer's 2 (n - 1) / n at that rate.
  CHECK(c.transfer_us == Approx(us(kGiB * 2.0 * 15 / 16, 8 * c.nvlstree_cap_gbps)));
  CHECK(c.time_us == Approx(c.latency_us + c.fill_us + c.transfer_us));
  // Four: the channels' pace through the NICs binds before the cap.
  Topology four = preset("dgx-h100:nodes=4");
  CollectiveCost f = CostModel(four).collective({first(four, 32), Collective::allreduce, std::uint64_t{8} << 30});
  REQUIRE(f.algorithm == Algorithm::nvlstree);
  CHECK(f.network_channels == 16);
  CHECK(f.nvlstree_cap_gbps == 0);
}

TEST_CASE("the report names the send channels where they, not the links, set the transfer") {
  Topology t = preset("dgx-h100:nodes=1");
  CostModel model(t);
  // 32 MiB from each of 8 H100s to the next: 4 channels bind (83 GB/s).
  CollectiveCost send = model.collective({first(t, 8), Collective::sendrecv, std::uint64_t{32} << 20});
  CHECK(send.send_channels == 4);
  CHECK(send.send_channels_per_peer == 4);
  CHECK(send.transfer_us == Approx(us(32.0 * 1048576, 4 * nccl::kP2pChannelBw)));
  CHECK(send.time_us == Approx(send.latency_us + send.transfer_us));
  // 4 H100s' 256 KiB all-to-all: 64 KiB parts, one channel a peer, 3 in
  // all (62 GB/s), under the links' ramped rate; at 1 GiB the links bind.
  CollectiveCost small = model.collective({first(t, 4), Collective::alltoall, std::uint64_t{256} << 10});
  CHECK(small.send_channels == 3);
  CHECK(small.send_channels_per_peer == 1);
  CollectiveCost large = model.collective({first(t, 8), Collective::alltoall, std::uint64_t{1} << 30});
  CHECK(large.send_channels == 0);
  // 8 GB200s' 512 MiB: 64 MiB parts on 4 channels each, 28 in all (582
  // GB/s), under Blackwell's 722 of NVLink.
  Topology rack = preset("gb200-nvl72:racks=1");
  CollectiveCost ep = CostModel(rack).collective({first(rack, 8), Collective::alltoall, std::uint64_t{512} << 20});
  CHECK(ep.send_channels == 28);
  CHECK(ep.send_channels_per_peer == 4);
  CHECK(ep.time_us == Approx(ep.latency_us + us(512.0 * 1048576 * 7 / 8, 28 * nccl::kP2pChannelBw)));
  // Across nodes NCCL's sends are not bound by a CTA rate.
  Topology two = preset("dgx-h100:nodes=2");
  CollectiveCost across =
      CostModel(two).collective({first(two, 16), Collective::alltoall, std::uint64_t{32} << 20, Algorithm::p2p});
  CHECK(across.send_channels == 0);
}

TEST_CASE("a send among 8 H100s of one node runs on NCCL's channels for its size, one CTA each") {
  Topology t = preset("dgx-h100:nodes=1");
  CostModel model(t);
  auto ranks = first(t, 8);
  // 32 MiB: 4 channels of 8 MiB, each at a send CTA's rate, far under the
  // 18 NVLinks.
  const double mid = 32.0 * 1048576;
  CollectiveCost c = model.collective({ranks, Collective::sendrecv, std::uint64_t{32} << 20});
  CHECK(c.protocol == Protocol::simple);
  CHECK(c.time_us == Approx(c.latency_us + us(mid, 4 * nccl::kP2pChannelBw)).epsilon(1e-9));
  // 1 GiB: 32 channels would move 666 GB/s; the links bind.
  const double large = kGiB;
  CollectiveCost l = model.collective({ranks, Collective::sendrecv, std::uint64_t{1} << 30});
  CHECK(l.time_us == Approx(l.latency_us + us(large, kNvl)).epsilon(1e-9));
}
