// The cost model against the published measurements of bench/data: the same
// comparison bench/calibration_report.cpp prints, with issue 10's bounds.
#include "topoplan/cost/calibration.hpp"
#include "topoplan/cost/serial_launch.hpp"

#include <fstream>
#include <limits>
#include <sstream>

#include <catch2/catch.hpp>

#include "source_dir.hpp"

using namespace topoplan;

namespace {

const std::string kData = std::string(TOPOPLAN_SOURCE_DIR) + "/bench/data";
const std::string kPointsHeader = "id,setup,gpus,nodes,collective,algorithm,size_bytes,metric,value,source\n";
const std::string kSetupsHeader =
    "id,topology,ranks,algorithm,size_bytes,compare,group,role,nccl,gpus_per_thread,note\n";

// The calibration of inline rows (headers added) on built-in topologies only.
CalibrationSummary run_rows(const std::string& points, const std::string& setups) {
  return run_calibration(parse_calibration_points(kPointsHeader + points, "p.csv"),
                         parse_calibration_setups(kSetupsHeader + setups, "s.csv"),
                         [](const std::string&) { return std::optional<std::string>(); });
}

std::optional<std::string> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<CalibrationPoint> points() {
  auto out = parse_calibration_points(*read(kData + "/collectives-calibration.csv"), "collectives-calibration.csv");
  auto added = parse_calibration_points(*read(kData + "/collectives-added.csv"), "collectives-added.csv");
  out.insert(out.end(), added.begin(), added.end());
  return out;
}

CalibrationSummary run() {
  auto setups = parse_calibration_setups(*read(kData + "/calibration-setups.csv"), "calibration-setups.csv");
  return run_calibration(points(), setups, [](const std::string& path) { return read(kData + "/" + path); });
}

void check_bounds(const char* what, const CalibrationStats& st, double scale) {
  INFO(what << ": " << st.count << " points, median " << st.median << ", p90 " << st.p90 << ", worst x"
            << st.worst_ratio);
  CHECK(st.count > 0);
  CHECK(st.median <= 0.10 * scale);
  CHECK(st.p90 <= 0.25 * scale);
  CHECK(st.worst_ratio < 2.0 * scale);
}

// What the model reaches today, a little above it: a change that makes any
// statistic worse than this fails, even inside the bounds.
struct Reached {
  double median;
  double p90;
  double worst;
};

void check_reached(const char* what, const CalibrationStats& st, Reached r) {
  INFO(what << ": median " << st.median << ", p90 " << st.p90 << ", worst x" << st.worst_ratio);
  CHECK(st.median <= r.median);
  CHECK(st.p90 <= r.p90);
  CHECK(st.worst_ratio < r.worst);
}

}  // namespace

TEST_CASE("every published point is priced within the issue's error bounds") {
  CalibrationSummary s = run();
  // The team's 50 points and topoplan's 429.
  REQUIRE(s.results.size() == 479);
  check_bounds("all", s.all, 1.0);
  check_bounds("fit", s.fit, 1.0);
  // Points the model was never adjusted to: within 1.5 times the bounds.
  check_bounds("check", s.check, 1.5);
  // Measured 2026-12-02 with pplx-kernels' combine and DeepEP's kernels
  // added (a26-a53): all 3.8 %, 22.9 %, x1.59; fit 2.5 %, 8.7 %, x1.20;
  // check 6.4 %, 27.4 %, x1.59 (bench/topoplan_calibration). The all p90
  // rose from 19.9 % because of new checks the model misses by 17-35 %:
  // pplx-kernels' combine at EP64-EP128 (a34, a35) and NVLink (a33), and
  // DeepEP's normal kernels at EP32-EP64 (a48, a49, a52; node-limited
  // routing), each documented in topoplan-cost(7).
  // 2026-12-03: the A3 Mega rows follow GCP's TCPXO environment (Ring and
  // Tree, Simple only, no NVLS), which the model used to ignore: all median
  // 4.0 %, check median 6.8 %.
  // Then DeepEP's normal kernels send a token once per node and GPU it goes
  // to, and are compared as DeepEP's test counts RDMA bytes: a48-a53 within
  // 6 % at EP32-EP64, EP16 (c18, a51) 15-21 % high: all 4.0 %, 20.8 %, x1.59;
  // fit 2.5 %, 9.5 %, x1.20; check 5.7 %, 25.4 %, x1.59.
  // 2026-12-04: 25 unseen points added as checks (a54-a78: MI300X on one
  // and two nodes, a GB200 tray with NCCL_ALGO=Ring, a B200 node), and RCCL's
  // NET latency row (Ring/Simple 320 us a step) steers RCCL's choice but no
  // longer times the steps: MI300X over two nodes from 40 % to 8-14 % low.
  // all 5.0 %, 22.9 %, x1.70; fit 2.5 %, 9.5 %, x1.20; check 6.3 %, 25.4 %,
  // x1.70 (a58, MI300X at 1 KiB). c50 then compared as DeepEP counts RDMA
  // bytes (an outlier): all 4.9 %, check 6.5 %. With a79-a80 (small
  // all-reduces on 16 H100 nodes, 7-15 % fast): all 5.2 %, check 6.7 %.
  // Then a81-a111, H100 over 2, 4 and 8 nodes (NVIDIA/nccl-tests#309) and a
  // B200 pair on GCP's RoCE, with LL and LL128 no longer paying a Simple
  // step's pipeline fill (1 MiB trees over 2-8 nodes from 18-49 % slow to
  // within 14 %): all 6.1 %, 22.9 %, x1.70; check 7.0 %, 25.4 %, x1.70;
  // multi-node p90 21.0 %.
  // Then NVLS and NVLSTree pay their first loop's fill instead of a sqrt
  // ramp (8 H100s at 64 MiB-1 GiB from 6-9 % slow to within 6 %, NVLSTree
  // over 2-4 H100 nodes from 12-21 % slow to within 7 % from 256 MiB on),
  // with the NVLS channel rate refitted on the 72-GPU rack: all 4.5 %,
  // 22.1 %, x1.70; fit 2.1 %, 9.5 %, x1.21; check 6.6 %, 27.4 %, x1.70.
  // The check p90 rose by one point crossing it: a107, a 4-node run 25 %
  // below a90's same setup at 256 MiB (+33 % against +6 %).
  // Then a112-a119: CoreWeave's two-rack GB200 curve (144 GPUs; the model's
  // NVLSTree 5-32 % fast, most at 512 MiB) and the 8 and 16 GiB rows of its
  // 20-rack run, whose NCCL 2.26.2 had no LL128 across GB200 nodes (a6-a9
  // and these are compared so; a9 from +27 % to -4 %): all 5.1 %, 22.9 %,
  // x1.70; check 6.7 %, 29.5 %, x1.70.
  // Then a120-a126, OCI's 64 GB200 GPUs in one domain on NCCL 2.29.3
  // (within 8 % to 4 GiB, 7-9 % under its 8-32 GiB plateau): all 5.2 %,
  // 22.1 %, x1.70; check 6.7 %, 25.4 %, x1.70.
  // Then Blackwell's NVLS fills four loops (Hopper's two), with the channel
  // rate refitted on both GB200 domain curves (a1-a5 and a120-a126, now fit
  // points): the GB200 rack at 0.5-2 GiB from 8-21 % fast to within 8 %,
  // two racks at 512 MiB-1 GiB from 25-33 % to 16 %, 8 B200s at 16 MiB
  // from 19 % fast to 8 % slow: all 5.2 %, 20.3 %, x1.70; fit 2.1 %, 7.3 %,
  // x1.15; check 6.5 %, 25.4 %, x1.70.
  // 2026-12-06: rows whose run states its NCCL release are chosen by that
  // release's tuner tables (the `nccl` column): the 20-rack run's 2.26.2
  // keeps Tree at 8-16 GiB (a118, a119 from +16 % / +35 % to -7 % / -10 %),
  // c40's 2.21.5 charges NVLSTree 14 us a network step (+43 % to +14 %),
  // H100 NVLSTree at 16 MiB over 2-4 nodes from 15-20 % to 9-13 % fast;
  // three checks move the other way (a66 ring/LL128 under 2.25.1's caps
  // -6 % to -12 %, a91 -3 % to -9 %, a10/a11 tree/LL128 under 2.27.3's
  // -1 % to -8 %): all 5.3 %, 18.7 %, x1.70; check 7.0 %, 22.9 %, x1.70.
  // Then NVLSTree's launch follows the release too: before 2.30 Blackwell
  // ran 32 channels of 128 KiB across two domains (2.30's tuning: 64 KiB),
  // so CoreWeave's two racks on 2.26.2 (a112-a117) from +6..+17 % to -12..+5 %:
  // all 4.9 %, 18.7 %, x1.70; check 6.7 %, 22.9 %, x1.70.
  // Then a127-a172, 46 unseen checks: a GB200 and a GB300 rack (Together
  // AI on 2.29.2, Verda), NVIDIA's certification runs (GB200/GB300 trays
  // with MNNVL on and off, H100 pairs on EFA and TCPXO; all-reduce,
  // all-gather, all-to-all at 16 GiB) and a GCP B200 pair from 8 MiB to
  // 8 GiB: all 4.8 %, 18.7 %, x1.70; check 6.1 %, 22.1 %, x1.70. The B200
  // pair at 8-64 MiB is the worst of them (NVLSTree 16-36 % slow).
  // Then one Blackwell domain runs NCCL's 32 NVLS channels before 2.27.3
  // (longer loops, the same ceiling) and the channel rate is refitted on
  // the two domain curves (18.5 -> 19.0 GB/s): CoreWeave's rack on 2.25.1
  // from +5..+7 % at 0.5-2 GiB to +1..+5 %, OCI's on 2.29.3 from -2..-8 % to
  // within 5 %: all 4.3 %, 18.7 %, x1.70; fit 1.9 %, 6.2 %, x1.15; check
  // 5.7 %, 22.1 %, x1.70.
  // Then a173-a190, two AWS p5 over EFA (a topology file whose EFA link
  // latency a173, 8 B, sets): 1 MiB-16 GiB within 18 %, 64 KiB 32 % fast;
  // multi-node median 5.7 % -> 4.9 %, p90 22.1 % -> 19.1 %.
  // Then DeepEP's normal kernels across nodes move what a GPU receives no
  // faster than their 12 forwarding SMs copy it (one rate, fitted on c18):
  // c50, DeepEP on two H200 nodes, from an outlier at +110 % to a check at
  // +10 %, a51 +21 % -> +5 %; a191-a192, the same run's combine and FP8
  // dispatch, +1 % and +13 %: all 4.3 %, 18.4 %, x1.70; fit 1.7 %, 5.1 %,
  // x1.09; check 5.7 %, 19.3 %, x1.70.
  // 2026-12-07: a193-a202, ten unseen AMD checks from the MI300X rows'
  // source: MI325X rings on 1-8 nodes at 16 GiB (-7..+4 %) and an MI355X
  // pair on AMD's Pollara NICs and ANP plugin (RCCL 2.26.6): within 7 % from
  // 256 MiB, 16-33 % slow from 8 B to 16 MiB, where the MI300X pair of a59
  // on RCCL 2.22.3 is 23 % fast: all 4.4 %, 18.7 %, x1.70; check 5.7 %,
  // 22.2 %, x1.70.
  // Then NVLSTree's channels walk 5/7 of one domain's pace on Blackwell
  // (kNvlsTreeChannelShare: 5 gather warps against 7, all_reduce.h):
  // CoreWeave's two racks at 1-16 GiB from +0..+8 % to -3..+4 % (512 MiB
  // -10 % -> -12 %); and a203-a212, OCI's GB200 over 2 and 3 racks (16
  // trays each, NCCL 2.27.3: +2 %, +8 %; +6 % and +13 % at the old pace),
  // its GB300 over 2 racks (2.28.7: +13..+15 %, +19..+20 % at the old pace)
  // and one-domain runs of 8 and 64 GPUs (-12..-5 %): all 4.3 %, 18.7 %,
  // x1.70; check 5.7 %, 22.1 %, x1.70; multi-rack-nvl72 median 7.0 ->
  // 5.6 %. With a213-a219, an H100 curve over 4 nodes on NCCL 2.24.3
  // (within 9 % but a dip at 256 MiB, +32 %, where the run took the ring
  // NCCL's estimates put 5 % behind NVLSTree): check p90 22.2 %.
  // Then a tree's fill counts the channels the collective runs on (the
  // graph's, doubled when NCCL connects its trees), RCCL and NCCL before
  // 2.20.3 shrink Tree/Simple's chunk by depth, and a topology's
  // NCCL_BUFFSIZE sets the Simple buffer (A3 Mega's TCPXO profile: 8 MiB):
  // the A3 Mega curve within 8 % from 1 MiB to 8 GiB, c29 from an outlier
  // (x2.2) to a check (-2 %); the MI355X pair at 16 MiB (a200) -29 -> +7 %,
  // CoreWeave's 20 racks on 2.26.2 from +23..-10 % to -9..-12 %; a59, whose
  // run pays ~220 us a call (a64), from +23 % to +83 % (x1.83): all 4.5 %,
  // 16.3 %, x1.83; check 5.7 %, 19.1 %, x1.83.
  // With a220-a231, an A3 Mega pair's all-gather over TCPXO on NCCL 2.28.7
  // (within 4 % from 256 MiB, -12 % at 64 MiB, 17-39 % fast at 64 KiB-4 MiB,
  // where the run pays more a step than c32's fitted latency) and one VM's
  // NVLS all-reduce from 16 MiB (within 10 %): all 4.5 %, 17.9 %, x1.83.
  // Then over two nodes NCCL's tuner prices trees at their raised intra-node
  // speed (no point moves but c21), and a232-a239, an A100 pair on AWS p4d
  // over EFA (NCCL 2.23.4, Simple only): within 1 % at 8 B and 12 % from 16
  // MiB, 17 % fast at 64 KiB and 26-37 % at 1-4 MiB, where the run's own
  // fill reaches 8 MiB and the model's 4: all 4.6 %, 18.0 %, x1.83; check
  // 5.7 %, 22.2 %, x1.83 (the check p90 back where it was before the tree
  // fill).
  // Then a tree chain's hop goes at most at NCCL's per-channel tree rate
  // (perChMaxTreeBws, one node, as algBw), and across nodes the channels'
  // chains start at their NICs' GPUs, so the link is shared by fewer:
  // CoreWeave's 20 racks (a6-a9, a118-a119) from -9..-12 % to +7..-10 %,
  // p4d's 1-4 MiB +26/+37 -> +20/+25 %, A3 Mega's 16 and 256 MiB (c29, c30)
  // -2/-8 -> -13/-12 %: all 4.5 %, 17.9 %, x1.83; check 5.7 %, 20.0 %.
  // Then a small Simple tree runs on NCCL's fewer channels, 32 KiB each
  // (enqueue.cc's channel tuning), so its fill no longer vanishes: A3 Mega's
  // and p4d's 64 KiB (c33, a233) -18/-17 -> -5/-3 %; the figures above hold.
  // Then 8 MI300X of one node run RCCL's MSCCL all-pairs all-reduce from
  // 1 KiB to 16 MiB (its Simple rate fitted on a243-a245, AMD's own curve,
  // with a240-a248 and a249-a251, OCI's MI300X pair, added): a54 (1 MiB)
  // from an outlier (x3.2) to -3 %, a58 (1 KiB) +70 -> 0 %, a55 (16 MiB)
  // -16 -> -1 %; c43, a one-process run of the same size, becomes the
  // outlier (x2.8): all 4.4 %, 17.3 %, x1.83; check 5.4 %, 19.3 %, x1.83;
  // amd 6.4 %, 13.7 %.
  // Then a send inside an NVLink domain runs on the channels NCCL gives its
  // size (enqueue.cc addP2pToPlan), each one CTA at the NVLS channel's rate,
  // with a252-a267 added as checks (an H100 node's five collectives on NCCL
  // 2.29.2, a B200 pair's sends): 32 MiB among 8 H100s (a261) from +214 %
  // to -7 %, the B200 pair's 16 MiB (a265) +44 % -> 0 %; c39 (B200 at 16
  // GiB) +7 % -> -9 %: all 4.4 %, 16.3 %, x1.83; check 5.0 %, 19.1 %.
  // With a268-a274, GCP's A3 Ultra pair (H200, gIB over RoCE) all-gathering
  // 1 KiB to 8 GiB on NCCL 2.26.6 (-16 % at 1 KiB, -8..+11 % beyond): all
  // 4.5 %, 15.9 %; check 5.0 %, 18.7 %.
  // With a275-a282, a Lambda B200 pair on NCCL 2.26.2 (InfiniBand; the same
  // curve as GCP A4's pair over RoCE within 11 % from 8 MiB), NVLS fills two
  // loops in one host's NVSwitch domain on Blackwell too, four only where
  // the domain spans hosts (NVL72): the B200 pairs' NVLSTree from 16 MiB to
  // 256 MiB from -17..-35 % to -14..+6 % (GCP's 128 MiB dip +5 -> +19 %),
  // MGHPCC's one-process B200 node at 16 MiB (a71) -6 -> +23 %. The Lambda
  // pair's 8 B to 1 MiB are 29-47 % slower than the model (x1.90 at 1 MiB,
  // now the worst): all 4.7 %, 17.9 %, x1.90; check 5.4 %, 19.4 %.
  // Then a Hopper channel moves at most 20.5 GB/s through the network
  // (fitted on a100 and a219, now fit points): H100 rings and NVLSTree over
  // 4 and 8 nodes at 4-8 GiB from 8-19 % fast to within 3 %, A3 Ultra's
  // all-gather (a274) +11 -> +1 %, NVIDIA/nccl-tests#309's four VMs (a91-a93)
  // -9..-1 -> -14..-11 %: all 4.4 %, 17.3 %; check 5.0 %, 18.7 %.
  // With a283-a288 (a Nebius H100 pair, 21 % fast at 1 MiB, within 4 % from
  // 16 MiB) and NCCL choosing by the plugin's reported latency (75 us from
  // aws-ofi-nccl on p5: a181 +18 -> +5 %): all 4.3 %, 16.6 %; check 4.9 %,
  // 18.7 %.
  // With a289-a315 (an H200 node and a p6-b200 node on 4 to 8 GPUs, NVLS on
  // and off, within 6 % and choosing as their NCCL logs show; four p6-b200
  // over EFA, +28 % to -17 %, as aws-ofi-nccl's region tuner chooses): all
  // 4.3 %, 16.5 %; check 4.8 %, 18.5 %.
  // Then a Simple ring's steps across nodes without NCCL's 1.4 (its
  // estimate keeps it): every multi-node ring from 256 MiB moves toward its
  // measurement (four p6-b200 at 512 MiB -17 -> -12 %, an MI300X pair at
  // 256 MiB -14 -> -10 %): all 4.2 %, 16.3 %; check 4.7 %, 18.5 %.
  // With a316-a317 (an HGX B300 node, NVLS off +1 %, on -6 %): unchanged.
  // Then RCCL's rings across AMD nodes leave by every GPU's NIC, so a GPU
  // forwards 7 of 8 over xGMI (rome_model_81): the MI300X and MI325X rings
  // over 2 to 8 nodes from -6..-13 % to -1..+8 %; amd 5.9 -> 4.1 %, p90
  // 12.6 -> 11.2 %; all and check unchanged.
  // With a318 (4 H100s' all-to-all at 500 MB, +1 %) and a319-a344, a B200
  // cluster's 8 GiB all-reduce on 1 to 64 nodes (NCCL 2.29.7) with NCCL_ALGO
  // Ring, Tree, NVLSTree and NVLS allowed: rings from 4 nodes 12-22 % fast
  // (the same cluster's CollNet runs move 384 GB/s through those NICs),
  // NVLSTree from 4 nodes 27-37 % fast, a Tree/Simple pair 95 % fast (the
  // new worst, x1.95): all 4.3 %, 19.3 %, x1.95; check 4.8 %, 20.7 %.
  // Then Blackwell's two-node tree caps (NCCL 2.28.3's, 42.8 GB/s a channel
  // for Tree/Simple) bound the link times: the B200 pair's Tree/Simple
  // (a323) +95 -> -7 %, the Lambda pair's 1 MiB (a277) -47 -> -35 %: all
  // 4.3 %, 18.7 %, x1.79 (a59, an MI300X pair at 16 MiB, the worst again).
  // Then Blackwell's NVLSTree keeps the cap of its release's launch (43.8
  // GB/s a head from four nodes before 2.30's new channels and chunks): the
  // B200 cluster's NVLSTree from 4 to 64 nodes +27..+37 -> +20..+25 %, four
  // p6-b200 at 128-256 MiB +13/+22 -> +8/+15 %: all 4.3 %, 18.5 %,
  // x1.79; check 4.8 %, 20.0 %.
  // With a345-a374, sources the model had not seen: a second B200 cluster
  // with its vendor IB settings from 1 to 64 nodes on NCCL 2.28.9 and 2.30.7
  // (rings and trees within 7 %, NVLSTree from 4 nodes 10 % slow), a p5
  // pair on NCCL 2.22.3 (-15..+20 %), OCI's MI355X with Pollara NICs on 1 to
  // 4 nodes (all-reduce within 4 %, all-to-all -1..+21 %): all 4.3 %,
  // 18.4 %, x1.79; check 4.7 %, 19.8 %.
  // With a375-a386 (two AWS p6-b300, 16 EFA devices each, two a GPU) and a
  // GPU's NICs taking together what the path beyond each NIC's own link
  // carries (that link bounding each NIC once, whatever shares it): the
  // p6-b300 all-gather, reduce-scatter and all-to-all from -51 % to
  // -11..+26 %, its all-reduce from 8 GiB -18 -> -13 % but 16 MiB (Tree/LL128,
  // as the plugin's tuner chooses) +0 -> +53 %; AWS p4d within 3 points of
  // before: all 4.3 %, 18.7 %, x1.79; check 4.8 %, 19.8 %.
  // With a387-a403, OCI's GB200 and GB300 racks the model had not seen: 32
  // GB200-v3.4 trays over two racks with NVLS off from 1 KiB to 32 GiB
  // (NCCL 2.29.2; from 8 GiB within 3 %, 16-256 MiB 12-44 % fast, 1 and 64
  // KiB x2.10 and x1.93 slow, 1 GiB 37 % slow where the tree's fill over
  // 64-GPU chains is priced with 2 MiB chunks) and all-to-all from one tray
  // to three racks (within 15 %; GB300 across two racks an outlier), and
  // an MI350X node at 1 and 8 GiB (a404-a405, +4/+9 %): all 4.5 %, 19.4 %,
  // x2.10; check 4.9 %, 20.6 %.
  // Then Google Cloud's A4X all-gathers on 2 and 8 GB200 trays (a406-a415)
  // and a step between GPUs of a multi-host NVLink domain a microsecond
  // above NCCL's row (nccl::kMultiHostNvlinkStepUs, fitted on a387 and
  // a406): the OCI racks' 1 KiB to 256 MiB from -52..+44 % to -11..+14 %,
  // the A4X 1 KiB points -16 and -1 %; their large all-gathers stay 45-55 %
  // above the measured: all 4.6 %, 19.3 %, x1.79; fit 1.9 %, 6.4 %, x1.19
  // (a406); check 4.9 %, 20.3 %, x1.79. With the same site's GB300 pair
  // over its gIB RoCE (a416-a420: the model's 4 KiB and 64 KiB 37-42 %
  // short of the measured times, 1 and 16 MiB +66 and +89 %, 16 GiB +6 %,
  // as Google's A4 pair, a110-a111): all 4.6 %, 20.0 %, x1.89 (a419); check
  // 5.0 %, 20.8 %. c43 and the rest of its benchmark (c44-c46, one process
  // driving 8 MI300X) priced with ROCm's serial launches (serial_launch.hpp):
  // c43 from x2.79 (an outlier) to +19 %, c44 +13 -> -10 %; 467 points, the
  // figures unchanged. With that, the MI350X sweep's 1 KiB, 1 MiB and 16 MiB
  // from one process (a421-a423: +24, -21, -17 %; without the launches the
  // 1 KiB would be x3.1 fast): all 4.6 %, 20.0 %; check 5.1 %, 22.0 %. Then
  // the first reduce and broadcast points (a424-a429, a B200 node from 256
  // MiB to 16 GiB: -7..+3 %): check 5.0 %, 21.0 %. Blackwell's all-to-alls
  // inside one domain on NCCL's 32 send channels (c38, a146, a152, a161,
  // a395-a402: mean |error| 10.0 -> 8.2 %, worst +24.9 -> -12.6 %): check
  // 20.8 %. Then a send's CTA at a rate of its own (kP2pChannelBw, fitted
  // on c39, now a fit point) instead of NVLS's: those Blackwell all-to-alls
  // and the sends (a261-a267) from a mean |error| 8.0 to 4.2 %, a146 +15 %,
  // a262 +10 %: all 4.4 %, 20.0 %; fit 1.8 %; check 4.8 %, 20.8 %. Then an
  // all-to-all's channels without the links' ramp (its channels are its
  // size dependence; ramped, few channels made a larger all-to-all faster
  // than a smaller one): those Blackwell points -3..+17 % (a146), all-to-all
  // p90 15.2 -> 17.0 %; all 4.5 %; check 4.9 %.
  check_reached("all", s.all, {0.045, 0.201, 1.95});
  check_reached("fit", s.fit, {0.02, 0.065, 1.20});
  check_reached("check", s.check, {0.05, 0.215, 1.95});
  // Measurements the model cannot reproduce (their setups say why) are
  // listed apart, few, and kept from drifting further.
  CHECK(s.fit.count + s.check.count + s.outliers.count == s.results.size());
  // c21, and an MI300X run whose setup, not the hardware, sets the figure
  // (a64: a fixed ~220 us a call). c43 (one process driving 8 MI300X) was
  // one until 2026-12-07, when ROCm's serial launches priced it. c50 (DeepEP
  // on two H200 nodes) was one until 2026-12-06, when the forwarding SMs'
  // rate priced it; c29 (A3 Mega at 16 MiB) until 2026-12-07, when the
  // tree's fill counted NCCL's channels and the platform's buffer.
  // a403: GB300 all-to-all across two racks at a quarter of its NICs.
  CHECK(s.outliers.count <= 3);
  CHECK(s.outliers.worst_ratio < 6.5);
  for (const CalibrationResult& r : s.results) {
    INFO(r.point.id);
    CHECK(r.cost.reachable);
    CHECK(r.model > 0);
  }
  // Every group of the report has points.
  CHECK(s.groups.size() == calibration_groups().size());
}

TEST_CASE("calibration statistics: median, nearest-rank p90 and the worst factor") {
  CalibrationStats st = calibration_stats({110, 90, 100, 300}, {100, 100, 100, 100});
  CHECK(st.count == 4);
  CHECK(st.median == Approx(0.10));  // |errors| 0, .1, .1, 2: mean of the middle two
  CHECK(st.p90 == Approx(2.0));      // ceil(0.9 x 4) = 4th smallest
  CHECK(st.worst_ratio == Approx(3.0));
  CalibrationStats under = calibration_stats({50}, {100});
  CHECK(under.worst_ratio == Approx(2.0));  // half as fast counts like twice as fast
  CHECK(calibration_stats({0}, {100}).worst_ratio == std::numeric_limits<double>::infinity());
}

TEST_CASE("calibration files are checked") {
  CHECK_THROWS_AS(parse_calibration_points("id,a\nc1,x\n", "p.csv"), InputError);
  CHECK_THROWS_AS(parse_calibration_setups(kSetupsHeader + "c1,dgx-h100,most:8,,,,single-node,fit,,,\n", "s.csv"),
                  InputError);
  CHECK_THROWS_WITH(parse_calibration_setups(kSetupsHeader + "c1,dgx-h100,first:8,,,,nowhere,fit,,,\n", "s.csv"),
                    Catch::Contains("unknown group 'nowhere'"));
  CHECK_THROWS_WITH(parse_calibration_setups(kSetupsHeader + "c1,dgx-h100,first:8,,,,amd,tuned,,,\n", "s.csv"),
                    Catch::Contains("must be fit, check or outlier"));
  CHECK_THROWS_WITH(parse_calibration_setups(kSetupsHeader + "c1,dgx-h100,first:8,,,,amd,outlier,,,\n", "s.csv"),
                    Catch::Contains("must say why"));
  CHECK_THROWS_WITH(run_calibration(points(), {}, [](const std::string&) { return std::optional<std::string>(); }),
                    Catch::Contains("has no setup"));
  // The algorithm column is checked where the line is known.
  for (const char* algorithm : {"ringg", "^nvls+nvlstree/^ll256"}) {
    try {
      parse_calibration_setups(kSetupsHeader + "c1,dgx-h100,first:8," + algorithm + ",,,single-node,fit,,,\n", "s.csv");
      FAIL("accepted " << algorithm);
    } catch (const InputError& e) {
      REQUIRE(!e.diagnostics().empty());
      CHECK(e.diagnostics().front().where.file == "s.csv");
      CHECK(e.diagnostics().front().where.line == 2);
      CHECK_THAT(e.what(), Catch::Contains("unknown"));
    }
  }
}

TEST_CASE("a setup's protocols after '/' restrict NCCL's choice as NCCL_PROTO does") {
  // A 4 GiB all-reduce over 20 NVL72 racks with NVLS off: today's tuner runs
  // ring/LL128; without LL128 (NCCL before 2.27.3 on GB200) it does not.
  auto run_with = [](const std::string& algorithm, const std::string& nccl = "") {
    return run_rows("x1,GB200 20 racks,1440,360,allreduce,auto,4294967296,busbw,346.38,test\n",
                    "x1,gb200-nvl72:racks=20,first:1440," + algorithm + ",,,multi-rack-nvl72,check," + nccl + ",,\n");
  };
  const CalibrationSummary all = run_with("^nvls+nvlstree");
  const CalibrationSummary no_ll128 = run_with("^nvls+nvlstree/^ll128");
  REQUIRE(all.results.size() == 1);
  REQUIRE(no_ll128.results.size() == 1);
  CHECK(all.results[0].cost.protocol == Protocol::ll128);
  CHECK(no_ll128.results[0].cost.protocol != Protocol::ll128);
  CHECK(no_ll128.results[0].model < all.results[0].model);
  CHECK_THROWS_WITH(run_with("^nvls+nvlstree/^ll256"), Catch::Contains("unknown protocols '^ll256'"));
  // The run's release says the same: 2.26.2 has no LL128 over GB200's C2C
  // path to its NICs, 2.27.3 has.
  const CalibrationSummary v2262 = run_with("^nvls+nvlstree", "2.26.2");
  const CalibrationSummary v2273 = run_with("^nvls+nvlstree", "2.27.3");
  REQUIRE(v2262.results.size() == 1);
  REQUIRE(v2273.results.size() == 1);
  CHECK(v2262.results[0].cost.protocol != Protocol::ll128);
  CHECK(v2273.results[0].cost.protocol == Protocol::ll128);
  CHECK(v2262.results[0].setup.nccl_version == NcclVersion{2, 26, 2});
  CHECK_THROWS_WITH(run_with("^nvls+nvlstree", "2.x"), Catch::Contains("NCCL version '2.x'"));
  // Settings the run made follow the release: NCCL_PROTO=^LL128 as the
  // algorithm column's '/^ll128' does, on one model of its own.
  const CalibrationSummary env = run_with("^nvls+nvlstree", "2.27.3 NCCL_PROTO=^LL128");
  REQUIRE(env.results.size() == 1);
  CHECK(env.results[0].cost.protocol != Protocol::ll128);
  CHECK(env.results[0].setup.nccl_settings.size() == 1);
  CHECK(run_with("^nvls+nvlstree", "NCCL_PROTO=^LL128").results[0].cost.protocol != Protocol::ll128);
  CHECK_THROWS_WITH(run_with("^nvls+nvlstree", "2.27.3 NCCL_BUFFSIZE=0"), Catch::Contains("NCCL_BUFFSIZE '0'"));
  CHECK_THROWS_WITH(run_with("^nvls+nvlstree", "NCCL_PROTO=Simple 2.27.3"), Catch::Contains("the release comes first"));
  CHECK_THROWS_WITH(run_with("^nvls+nvlstree", "2.27.3 NCCL_DEBUG=INFO"), Catch::Contains("not a variable"));
  // A setting is read as --nccl reads one (split_nccl_setting).
  CHECK_THROWS_WITH(run_with("^nvls+nvlstree", "2.27.3 =4"), Catch::Contains("'=4' must be NAME=VALUE"));
}

TEST_CASE("a setup's gpus_per_thread prices the serial launches of one thread driving them") {
  auto run_with = [](const std::string& g) {
    return run_rows(
        "x1,8 MI300X,8,1,allreduce,auto,1048576,time_us,80,test\n"
        "x2,8 H100,8,1,allreduce,auto,1048576,time_us,40,test\n",
        "x1,mi300x:nodes=1,first:8,,,,amd,check,," + g + ",\nx2,dgx-h100:nodes=1,first:8,,,,single-node,check,," + g +
            ",\n");
  };
  const CalibrationSummary alone = run_with("");
  const CalibrationSummary eight = run_with("8");
  REQUIRE(alone.results.size() == 2);
  REQUIRE(eight.results.size() == 2);
  CHECK(alone.results[0].setup.gpus_per_thread == 1);
  CHECK(eight.results[0].setup.gpus_per_thread == 8);
  // ROCm: seven launches more; CUDA: the same time.
  CHECK(eight.results[0].model - alone.results[0].model == Approx(7 * kRocmLaunchUs));
  CHECK(eight.results[1].model == Approx(alone.results[1].model));
  CHECK_THROWS_WITH(run_with("0"), Catch::Contains("gpus_per_thread 0 must be 1 to 64"));
  CHECK_THROWS_WITH(run_with("eight"), Catch::Contains("gpus_per_thread"));
}
