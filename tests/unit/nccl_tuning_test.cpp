// NCCL's NVLS and NVLSTree launch parameters as nccl_tuning.hpp transcribes
// them (src/transport/nvls.cc ncclNvlsTuning and ncclNvlsTreeSm100Tuning,
// src/enqueue.cc calcCollChunking at NVIDIA/nccl 5067397c): each case is a
// branch of NCCL's code, with the machine it is written for.
#include "topoplan/cost/nccl_tuning.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

namespace {

constexpr int kHopper = 2;
constexpr int kBlackwell = 3;
constexpr double kKiB = 1024;

}  // namespace

TEST_CASE("NVLS channels: 16 on Hopper, 24 in one Blackwell domain, 32 or 24 across") {
  CHECK(nccl::nvls_channels(kHopper, 1, 0, 8) == 16);
  CHECK(nccl::nvls_channels(kHopper, 4, 48, 8) == 16);
  CHECK(nccl::nvls_channels(kBlackwell, 1, 0, 72) == 24);
  // Two domains with 400G NICs (two NVL72 racks, two HGX B200 nodes): 32.
  CHECK(nccl::nvls_channels(kBlackwell, 2, 48, 72) == 32);
  CHECK(nccl::nvls_channels(kBlackwell, 2, 48, 8) == 32);
  // More domains: 24 on 400G NICs, and on 800G ones 24 for 8-GPU nodes and
  // 32 for larger domains (GB300 racks).
  CHECK(nccl::nvls_channels(kBlackwell, 4, 48, 72) == 24);
  CHECK(nccl::nvls_channels(kBlackwell, 4, 96, 8) == 24);
  CHECK(nccl::nvls_channels(kBlackwell, 4, 96, 72) == 32);
  // Slower NICs keep the multi-node default.
  CHECK(nccl::nvls_channels(kBlackwell, 4, 25, 8) == 32);
  // Before 2.30 (no ncclNvlsTreeSm100Tuning): 32 across domains whatever
  // the NICs; one domain 24 from 2.27.3 (NVLS_NCHANNELS_SM100_NVL) and 32
  // before it.
  CHECK(nccl::nvls_channels(kBlackwell, 4, 48, 72, false) == 32);
  CHECK(nccl::nvls_channels(kBlackwell, 4, 96, 8, false) == 32);
  CHECK(nccl::nvls_channels(kBlackwell, 1, 0, 72, false) == 24);
  CHECK(nccl::nvls_channels(kBlackwell, 1, 0, 72, false, false) == 32);
  CHECK(nccl::nvls_channels(kBlackwell, 4, 48, 72, false, false) == 32);
  CHECK(nccl::nvls_channels(kHopper, 4, 48, 8, false) == 16);
  CHECK(nccl::nvls_channels(kHopper, 1, 0, 8, false, false) == 16);
  // The releases: 32 in one domain up to 2.26, 24 from 2.27.3.
  CHECK_FALSE(nccl::tuner_tables(NcclVersion{2, 25, 1}).nvls_one_domain_24);
  CHECK_FALSE(nccl::tuner_tables(NcclVersion{2, 26, 6}).nvls_one_domain_24);
  CHECK(nccl::tuner_tables(NcclVersion{2, 27, 3}).nvls_one_domain_24);
  CHECK(nccl::newest_tuner_tables().nvls_one_domain_24);
}

TEST_CASE("NVLSTree chunk: 128 KiB, 64 KiB from four nodes on, Blackwell's own table across nodes") {
  // Hopper: NCCL_NVLS_CHUNKSIZE, held to 64 KiB from 4 nodes on.
  CHECK(nccl::nvlstree_chunk(kHopper, 2, 8, 48, false) == 128 * kKiB);
  CHECK(nccl::nvlstree_chunk(kHopper, 3, 8, 48, false) == 128 * kKiB);
  CHECK(nccl::nvlstree_chunk(kHopper, 4, 8, 48, false) == 64 * kKiB);
  // Blackwell, two nodes of 400G NICs: GB200 trays of 4 GPUs 256 KiB; two
  // NVL72 racks 64 KiB; two HGX B200 nodes (NICs below PCIe switches) 64
  // KiB, but 128 KiB when their NICs sit behind the CPU.
  CHECK(nccl::nvlstree_chunk(kBlackwell, 2, 4, 48, true) == 256 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 2, 72, 48, true) == 64 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 2, 8, 48, false) == 64 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 2, 8, 48, true) == 128 * kKiB);
  // Blackwell, more nodes: 800G NICs give 8-GPU nodes 256 KiB and larger
  // domains 128 KiB under 32 GPUs, 64 KiB from 32 (GB300 racks); 400G NICs
  // 128 KiB through the CPU (GB200's NICs behind Grace), 64 KiB below PCIe
  // switches.
  CHECK(nccl::nvlstree_chunk(kBlackwell, 4, 8, 96, false) == 256 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 4, 16, 96, false) == 128 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 4, 72, 96, true) == 64 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 4, 72, 48, true) == 128 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 4, 72, 48, false) == 64 * kKiB);
  // NICs under 48 GB/s leave Blackwell with the default.
  CHECK(nccl::nvlstree_chunk(kBlackwell, 2, 8, 25, false) == 128 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 4, 8, 25, false) == 64 * kKiB);
  // Before 2.30 (no ncclNvlsTreeSm100Tuning) Blackwell took the default:
  // two NVL72 racks 128 KiB where 2.30 takes 64, four 64 where 2.30 takes 128.
  CHECK(nccl::nvlstree_chunk(kBlackwell, 2, 72, 48, true, false) == 128 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 2, 4, 48, true, false) == 128 * kKiB);
  CHECK(nccl::nvlstree_chunk(kBlackwell, 4, 72, 48, true, false) == 64 * kKiB);
  CHECK_FALSE(nccl::tuner_tables(NcclVersion{2, 29, 7}).nvls_sm100_tuning);
  CHECK(nccl::newest_tuner_tables().nvls_sm100_tuning);
}

TEST_CASE("NVLSTree caps are first stated in NCCL 2.28.3") {
  const nccl::TunerTables& first = nccl::first_nvls_tree_cap_tables();
  CHECK(first.since == NcclVersion{2, 28, 3});
  CHECK(first.nvls_tree[3][2] == Approx(43.1));
  CHECK(nccl::tuner_tables(NcclVersion{2, 27, 7}).nvls_tree[3][2] == 0);
}

TEST_CASE("NVLS and NVLSTree chunks shrink with the operations in flight") {
  // NVLS: 64 KiB below 64 loops of 128 KiB, 32 KiB below 8 of 64 KiB, 16 KiB
  // below 2 of 32 KiB (8 H100s: 16 channels x 8 heads = 128 operations).
  const double ops = 16 * 8;
  auto nvls = [&](double bytes) { return nccl::nvls_chunk(false, kHopper, 1, 8, 0, false, bytes, ops); };
  CHECK(nvls(1024.0 * 1024 * 1024) == 128 * kKiB);
  CHECK(nvls(1024.0 * 1024 * 1024 - 1) == 64 * kKiB);
  CHECK(nvls(64.0 * 1024 * 1024) == 64 * kKiB);
  CHECK(nvls(64.0 * 1024 * 1024 - 1) == 32 * kKiB);
  CHECK(nvls(8.0 * 1024 * 1024) == 32 * kKiB);
  CHECK(nvls(8.0 * 1024 * 1024 - 1) == 16 * kKiB);
  // NVLSTree: from its maximum (256 KiB for GB200 trays) down to 128 KiB
  // below 16 loops, 64 KiB below 4, 32 KiB below 1.
  const double tray_ops = 32 * 4;
  auto tree = [&](double bytes) { return nccl::nvls_chunk(true, kBlackwell, 2, 4, 48, true, bytes, tray_ops); };
  CHECK(tree(16 * tray_ops * 256 * kKiB) == 256 * kKiB);
  CHECK(tree(16 * tray_ops * 256 * kKiB - 1) == 128 * kKiB);
  CHECK(tree(4 * tray_ops * 128 * kKiB) == 128 * kKiB);
  CHECK(tree(4 * tray_ops * 128 * kKiB - 1) == 64 * kKiB);
  CHECK(tree(tray_ops * 64 * kKiB - 1) == 32 * kKiB);
  // NVLS's chunk is at most a Simple step (NCCL_BUFFSIZE / 8): a 256 KiB
  // buffer holds 32 KiB steps, whatever the size. NVLSTree's is not bound by it.
  const double small_buffer = 256 * kKiB;
  CHECK(nccl::nvls_chunk(false, kHopper, 1, 8, 0, false, 1024.0 * 1024 * 1024, ops, true, small_buffer) ==
        32 * kKiB);
  CHECK(nccl::nvls_chunk(true, kBlackwell, 2, 4, 48, true, 16 * tray_ops * 256 * kKiB, tray_ops, true,
                         small_buffer) == 256 * kKiB);
}

TEST_CASE("tuner tables follow the NCCL release: each holds until the next release changed them") {
  auto since = [](int major, int minor, int patch) {
    return nccl::tuner_tables(NcclVersion{major, minor, patch}).since.str();
  };
  CHECK(nccl::tuner_tables(std::nullopt).since == nccl::newest_tuner_tables().since);
  CHECK(since(2, 18, 5) == "2.0.0");
  CHECK(since(2, 20, 2) == "2.0.0");
  CHECK(since(2, 20, 3) == "2.20.3");
  CHECK(since(2, 27, 2) == "2.20.3");
  CHECK(since(2, 27, 3) == "2.27.3");
  CHECK(since(2, 28, 8) == "2.28.3");
  CHECK(since(2, 29, 3) == "2.29.2");
  CHECK(since(3, 0, 0) == nccl::newest_tuner_tables().since.str());
  // Blackwell's caps were twice Hopper's until 2.28.3 lowered them from
  // measurements (tuning.cc): Tree across 4+ nodes 72 -> 24 GB/s a channel.
  const auto& old_tables = nccl::tuner_tables(NcclVersion{2, 26, 2});
  const auto& newest = nccl::newest_tuner_tables();
  CHECK(old_tables.tree[kBlackwell][2] == Approx(72.0));
  CHECK(newest.tree[kBlackwell][2] == Approx(24.0));
  CHECK(old_tables.tree[kHopper] == newest.tree[kHopper]);
  // No NVLSTree cap before 2.28.3; NVLSTree's network step 14 us until 2.28.9.
  CHECK(old_tables.nvls_tree[kHopper][2] == 0);
  CHECK(newest.nvls_tree[kHopper][2] == Approx(45.5));
  CHECK(nccl::tuner_tables(NcclVersion{2, 28, 7}).nvlstree_net_latency == Approx(14.0));
  CHECK(nccl::tuner_tables(NcclVersion{2, 28, 9}).nvlstree_net_latency == Approx(20.9));
  CHECK_FALSE(old_tables.ll128_over_c2c);
  CHECK(nccl::tuner_tables(NcclVersion{2, 27, 3}).ll128_over_c2c);
  // Tree/Simple's chunk shrank with the size until 2.20.3 (enqueue.cc); the
  // two entries before 2.27.3 differ in nothing else.
  const auto& before = nccl::tuner_tables(NcclVersion{2, 18, 5});
  const auto& after = nccl::tuner_tables(NcclVersion{2, 20, 3});
  CHECK(before.tree_chunk_by_depth);
  CHECK_FALSE(after.tree_chunk_by_depth);
  CHECK_FALSE(newest.tree_chunk_by_depth);
  CHECK(before.tree == after.tree);
  CHECK(before.ring_ll128 == after.ring_ll128);
  CHECK(before.nvlstree_net_latency == after.nvlstree_net_latency);
}

TEST_CASE("a collective runs on twice its graph's channels, and old trees shrink their chunk by depth") {
  // connect.cc duplicates the graph's channels once more, up to MAXCHANNELS.
  CHECK(nccl::comm_channels(8) == 16);
  CHECK(nccl::comm_channels(12) == 24);
  CHECK(nccl::comm_channels(32) == 64);
  CHECK(nccl::comm_channels(40) == 64);
  // NCCL's depth: ranks per node - 1 + floor(log2(nodes)).
  CHECK(nccl::nccl_tree_depth(8, 1) == 7);
  CHECK(nccl::nccl_tree_depth(8, 2) == 8);
  CHECK(nccl::nccl_tree_depth(8, 3) == 8);
  CHECK(nccl::nccl_tree_depth(4, 20) == 7);
  // 16 MiB on 16 channels of a depth-8 tree from a 512 KiB step: 2 whole
  // steps a channel (< 64) -> 128 KiB, 8 (< 32) -> 64 KiB, 16 (>= 8) stays.
  const double mib = 1024.0 * 1024;
  CHECK(nccl::tree_chunk_for_size(512 * 1024, 16 * mib, 16, 8) == 64 * 1024);
  // Large enough: the whole step.
  CHECK(nccl::tree_chunk_for_size(512 * 1024, 1024 * 64 * mib, 16, 8) == 512 * 1024);
  // Tiny: never below 32 KiB.
  CHECK(nccl::tree_chunk_for_size(512 * 1024, 4096, 16, 8) == 32 * 1024);
  // The thresholds are NCCL's integer division: 8 x depth whole chunks keep it.
  CHECK(nccl::tree_chunk_for_size(512 * 1024, 16 * 64 * 512 * 1024.0, 16, 8) == 512 * 1024);
  CHECK(nccl::tree_chunk_for_size(512 * 1024, 16 * 64 * 512 * 1024.0 - 1, 16, 8) == 256 * 1024);
}

TEST_CASE("a small Simple collective runs on fewer channels, each with its 32 KiB") {
  constexpr int nt = nccl::kSimpleMaxThreads;
  constexpr int th = nccl::kSimpleThreadThreshold;
  static_assert(nt * th == 32 * 1024);
  // 32 channels: a channel is dropped while bytes < channels x 32 KiB.
  CHECK(nccl::collective_channels(32, 1024.0 * 1024, nt, th) == 32);
  CHECK(nccl::collective_channels(32, 1024.0 * 1024 - 1, nt, th) == 31);
  CHECK(nccl::collective_channels(32, 256.0 * 1024, nt, th) == 8);
  CHECK(nccl::collective_channels(32, 64.0 * 1024, nt, th) == 2);
  // Below one channel's share: one channel, never none.
  CHECK(nccl::collective_channels(32, 8, nt, th) == 1);
  CHECK(nccl::collective_channels(0, 8, nt, th) == 1);
  // Large sizes keep them all; RCCL's 256 threads give 16 KiB a channel.
  CHECK(nccl::collective_channels(32, 1e9, nt, th) == 32);
  CHECK(nccl::collective_channels(32, 64.0 * 1024, nccl::kRcclSimpleMaxThreads, th) == 4);
}

TEST_CASE("a tree over two nodes: the search raises its intra-node speed towards twice the network's") {
  constexpr int kAmpere = 1;
  // A3 Mega: 8 NICs of 25 GB/s give 8 channels of 24 GB/s; the second pass
  // tries 30, 40, 42, 45 and stops before 48, which 8 channels would need
  // 384 GB/s of NVLink for (370.8 a GPU).
  const nccl::GraphEstimate a3 = nccl::ring_graph(kHopper, true, 370.8, 25, 8);
  CHECK(a3.channels == 8);
  CHECK(a3.speed == 24);
  CHECK(nccl::tree_intra_speed(kHopper, a3, 370.8) == 45);
  // With NVLink to spare it stops at the first speed of twice the network's.
  CHECK(nccl::tree_intra_speed(kHopper, a3, 1000) == 48);
  // A DGX H100 node's 8 x 400G NICs: 8 channels of 48 GB/s, and NVLink
  // cannot carry more: the tree keeps the network's speed.
  const nccl::GraphEstimate h100 = nccl::ring_graph(kHopper, true, 370.8, 50, 8);
  CHECK(nccl::tree_intra_speed(kHopper, h100, 370.8) == h100.speed);
  // An AWS p4d's 4 x 100G EFA: 4 channels of 12 GB/s; its NVLink lets the
  // tree run at 24, twice that.
  const nccl::GraphEstimate p4d = nccl::ring_graph(kAmpere, true, 240, 12.5, 4);
  CHECK(p4d.channels == 4);
  CHECK(p4d.speed == 12);
  CHECK(nccl::tree_intra_speed(kAmpere, p4d, 240) == 24);
}

TEST_CASE("a ring across nodes whose GPUs each have a NIC: a GPU forwards (g - 1) / g of the channels") {
  // 8 MI300X-class GPUs of 7 xGMI links at 48 GB/s (336 a GPU) and 8 NICs
  // of 50: counting every channel through every GPU, 7 channels of 48 fit;
  // with each channel leaving by another GPU's NIC (RCCL's rome_model_81),
  // a GPU forwards 7 of 8 and 8 channels of 48 fit, as many as the NICs.
  const nccl::GraphEstimate all = nccl::ring_graph(kHopper, true, 336, 50, 8);
  CHECK(all.channels == 7);
  CHECK(all.speed == 48);
  const nccl::GraphEstimate spread = nccl::ring_graph(kHopper, true, 336, 50, 8, 8);
  CHECK(spread.channels == 8);
  CHECK(spread.speed == 48);
  // Fewer NICs than GPUs: the GPUs without one forward every channel.
  const nccl::GraphEstimate four = nccl::ring_graph(kHopper, true, 336, 50, 4, 8);
  const nccl::GraphEstimate four_all = nccl::ring_graph(kHopper, true, 336, 50, 4);
  CHECK(four.channels == four_all.channels);
  CHECK(four.speed == four_all.speed);
  // The share itself: 7 of 8 with a NIC each; all of them where a GPU has
  // none (more GPUs than NICs) or no spread is given.
  CHECK(nccl::ring_forward_share(8, 8) == Approx(7.0 / 8));
  CHECK(nccl::ring_forward_share(4, 8) == 1.0);
  CHECK(nccl::ring_forward_share(8, 0) == 1.0);
  CHECK(nccl::ring_forward_share(8, 1) == 1.0);
  // Inside one node a ring is a cycle: every GPU forwards every channel.
  const nccl::GraphEstimate inside = nccl::ring_graph(kHopper, false, 336, 50, 8, 8);
  CHECK(inside.total() == Approx(nccl::ring_graph(kHopper, false, 336, 50, 8).total()));
}

TEST_CASE("RCCL's MSCCL all-pairs XML: LL to 512 KiB, Simple to 16 MiB, whole loops of chunks only") {
  // allreduce-allpairs-8n-ll-32tb: 256 chunks a loop, to 64 KiB; -ll-64tb:
  // 512 chunks, 64 KiB + 1 to 512 KiB - 1; -simple: 512 chunks, 512 KiB
  // to 16 MiB (msccl_lifecycle.cc: count % chunks == 0 and min <= bytes <= max).
  CHECK(rccl::allpairs_protocol(1024) == Protocol::ll);  // 256 floats
  CHECK_FALSE(rccl::allpairs_protocol(512));             // 128 floats
  CHECK_FALSE(rccl::allpairs_protocol(8));
  CHECK(rccl::allpairs_protocol(65536) == Protocol::ll);
  CHECK(rccl::allpairs_protocol(65536 + 2048) == Protocol::ll);  // 512 floats a loop past 64 KiB
  CHECK_FALSE(rccl::allpairs_protocol(65536 + 1024));            // 256 floats: not a loop of 512
  CHECK(rccl::allpairs_protocol(524288 - 2048) == Protocol::ll);
  CHECK(rccl::allpairs_protocol(524288) == Protocol::simple);
  CHECK(rccl::allpairs_protocol(16777216) == Protocol::simple);
  CHECK_FALSE(rccl::allpairs_protocol(16777216 + 2048));
  CHECK_FALSE(rccl::allpairs_protocol(std::uint64_t{1} << 30));
  // Two-byte elements divide smaller buffers into whole loops.
  CHECK(rccl::allpairs_protocol(512, 2) == Protocol::ll);
  CHECK_FALSE(rccl::allpairs_protocol(1022, 4));
  CHECK_FALSE(rccl::allpairs_protocol(0));
}

TEST_CASE("an all-to-all's sends run in batches of eight peers, a channel's batches one after another") {
  // The communicator's channels as a power of two, within MAXCHANNELS.
  CHECK(nccl::p2p_comm_channels(16) == 16);
  CHECK(nccl::p2p_comm_channels(24) == 32);
  CHECK(nccl::p2p_comm_channels(0) == 1);
  CHECK(nccl::p2p_comm_channels(100) == 64);
  // One node: a round (peer) a channel, each its own batch where the
  // channels are at least eight: 8 H100s on 32 channels in one batch, the 72
  // GPUs of an NVL72 rack on 16 in five.
  CHECK(nccl::p2p_batches(8, 1, 32) == 1);
  CHECK(nccl::p2p_batches(72, 1, 16) == 5);
  CHECK(nccl::p2p_batches(72, 1, 64) == 2);
  // Fewer than eight channels: a channel's rounds within the same eight
  // share a batch, so eight rounds make a batch.
  CHECK(nccl::p2p_batches(8, 1, 2) == 1);
  CHECK(nccl::p2p_batches(72, 1, 4) == 9);
  // Across nodes: a node's eight peers are one batch on one channel, the
  // nodes spread over the channels: 2 to 16 DGX nodes on 16 channels in one
  // batch, 128 in eight, 1024 in 64.
  CHECK(nccl::p2p_batches(16, 2, 16) == 1);
  CHECK(nccl::p2p_batches(128, 16, 16) == 1);
  CHECK(nccl::p2p_batches(136, 17, 16) == 2);
  CHECK(nccl::p2p_batches(1024, 128, 16) == 8);
  CHECK(nccl::p2p_batches(8192, 1024, 16) == 64);
  // Nodes of four GPUs (trays without MNNVL): a batch of four; of 72 (racks
  // as NCCL's nodes): nine batches a node.
  CHECK(nccl::p2p_batches(256, 64, 16) == 4);
  CHECK(nccl::p2p_batches(144, 2, 16) == 2);
  CHECK(nccl::p2p_batches(1440, 20, 16) == 12);
  CHECK(nccl::p2p_batches(0, 0, 0) == 1);
}

TEST_CASE("NCCL's sends inside a node: few channels for mid sizes, all of a peer's for large ones") {
  // 8 H100s: 32 communicator channels, 18 NVLinks to every peer (2 x 18 ->
  // 64 -> at most 32 a peer), started on 4 so that 8 ranks fit 32 channels.
  const nccl::P2pChannels h100 = nccl::p2p_channels(32, 18, 8);
  CHECK(h100.per_peer == 32);
  CHECK(h100.start == 4);
  CHECK(nccl::p2p_channels(32, 18, 2).start == 16);
  CHECK(nccl::p2p_channels(24, 12, 8).per_peer == 32);  // A100: 24 channels and links, as powers of two
  CHECK(nccl::p2p_channels(32, 1, 8).per_peer == 2);    // one NVLink: two channels
  // Parts of 64 KiB (512 KiB / 8) to 16 MiB (x 32), doubling up to per_peer.
  CHECK(nccl::p2p_send_channels(64 * 1024, h100) == 1);
  CHECK(nccl::p2p_send_channels(192 * 1024, h100) == 3);
  CHECK(nccl::p2p_send_channels(32.0 * 1048576, h100) == 4);    // parts of 8 MiB
  CHECK(nccl::p2p_send_channels(64.0 * 1048576, h100) == 4);    // 16 MiB: not above the limit
  CHECK(nccl::p2p_send_channels(256.0 * 1048576, h100) == 16);  // 64 -> 32 -> 16 MiB parts
  CHECK(nccl::p2p_send_channels(1024.0 * 1048576, h100) == 32);
  CHECK(nccl::p2p_send_channels(16.0 * 1073741824, h100) == 32);  // never beyond per_peer
}
