// A topology's NCCL environment (`nccl:`): how settings combine, how the
// topology file reports bad ones, and that every price stays within it.
#include "topoplan/model/nccl_environment.hpp"

#include <catch2/catch.hpp>

#include "cost_test_topologies.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/io/topology_writer.hpp"
#include "topoplan/io/topology_yaml.hpp"

using namespace topoplan;
using namespace cost_test;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string apply(NcclEnvironment& env, const std::string& name, const std::string& value) {
  return apply_nccl_setting(env, {name, value, {}});
}

// kBoxes (line 5: its levels) with an `nccl:` mapping after its levels,
// whose first setting is on line 7.
std::string boxes_with(const std::string& nccl) {
  std::string text = kBoxes;
  const std::string levels = "levels: [cluster, node]\n";
  text.insert(text.find(levels) + levels.size(), "nccl:\n" + nccl);
  return text;
}

Topology load(const std::string& text, const std::string& nodes = "2") {
  ParameterSettings p;
  p.values = {{"nodes", nodes}};
  return parse_topology_yaml(text, "env.yaml", p);
}

std::string load_error(const std::string& text) {
  try {
    load(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a setting on one line splits at its first '=' and needs a name") {
  const SourceLocation where{"--nccl", 0, 0};
  std::string problem;
  const auto buff = split_nccl_setting("NCCL_BUFFSIZE=16777216", where, problem);
  REQUIRE(buff);
  CHECK(buff->name == "NCCL_BUFFSIZE");
  CHECK(buff->value == "16777216");
  CHECK(buff->where.file == "--nccl");
  const auto algo = split_nccl_setting("NCCL_ALGO=allreduce:tree=x", where, problem);
  REQUIRE(algo);
  CHECK(algo->value == "allreduce:tree=x");
  const auto empty = split_nccl_setting("NCCL_ALGO=", where, problem);
  REQUIRE(empty);
  CHECK(empty->value.empty());
  CHECK_FALSE(split_nccl_setting("NCCL_BUFFSIZE", where, problem));
  CHECK(contains(problem, "'NCCL_BUFFSIZE' must be NAME=VALUE"));
  problem.clear();
  CHECK_FALSE(split_nccl_setting("=4", where, problem));
  CHECK(contains(problem, "'=4' must be NAME=VALUE"));
}

TEST_CASE("NCCL_ALGO and NCCL_PROTO take NCCL's list syntax without case") {
  NcclEnvironment env;
  CHECK(env.allows_algorithm(0));
  CHECK(apply(env, "NCCL_ALGO", "Ring,Tree").empty());
  CHECK(env.allows_algorithm(0));        // ring
  CHECK(env.allows_algorithm(1));        // tree
  CHECK_FALSE(env.allows_algorithm(2));  // nvls
  CHECK_FALSE(env.allows_algorithm(3));  // nvlstree
  CHECK(apply(env, "NCCL_PROTO", "^LL128").empty());
  CHECK(env.allows_protocol(0));
  CHECK_FALSE(env.allows_protocol(1));
  CHECK(env.allows_protocol(2));
  CHECK(env.describe() == "NCCL_ALGO=Ring,Tree NCCL_PROTO=^LL128");
  // A later value of a variable replaces the earlier one.
  CHECK(apply(env, "NCCL_ALGO", "^tree").empty());
  CHECK_FALSE(env.allows_algorithm(1));
  CHECK(env.allows_algorithm(2));
  CHECK(env.describe() == "NCCL_PROTO=^LL128 NCCL_ALGO=^tree");
}

TEST_CASE("NCCL_BUFFSIZE sets the Simple buffer in bytes as NCCL reads it") {
  NcclEnvironment env;
  CHECK_FALSE(env.simple_buffer_bytes);
  CHECK(apply(env, "NCCL_BUFFSIZE", "8388608").empty());
  REQUIRE(env.simple_buffer_bytes);
  CHECK(*env.simple_buffer_bytes == 8388608);
  CHECK(apply(env, "NCCL_BUFFSIZE", "0x200000").empty());
  CHECK(*env.simple_buffer_bytes == 2097152);
  CHECK(apply(env, "NCCL_BUFFSIZE", "2147483647").empty());
  CHECK(*env.simple_buffer_bytes == 2147483647);
  CHECK(env.describe() == "NCCL_BUFFSIZE=2147483647");
  // It does not touch the algorithms or protocols.
  CHECK(env.algorithms == NcclEnvironment{}.algorithms);
  CHECK(env.protocols == NcclEnvironment{}.protocols);
}

TEST_CASE("NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS take a channel count up to MAXCHANNELS") {
  NcclEnvironment env;
  CHECK(!env.min_channels);
  CHECK(apply(env, "NCCL_MIN_NCHANNELS", "32").empty());
  CHECK(apply(env, "NCCL_MAX_NCHANNELS", "64").empty());
  CHECK(env.min_channels == 32);
  CHECK(env.max_channels == 64);
  CHECK(env.describe() == "NCCL_MIN_NCHANNELS=32 NCCL_MAX_NCHANNELS=64");
  CHECK(apply(env, "NCCL_MIN_NCHANNELS", "4").empty());  // the later replaces the earlier
  CHECK(env.min_channels == 4);
  for (const char* bad : {"0", "65", "-1", "16.5", "", "x"}) {
    CAPTURE(bad);
    CHECK(contains(apply(env, "NCCL_MAX_NCHANNELS", bad), "from 1 to 64"));
  }
  CHECK(env.max_channels == 64);
}

TEST_CASE("NCCL_MIN_CTAS, NCCL_MAX_CTAS and NCCL_NVLS_NCHANNELS take a channel count up to MAXCHANNELS") {
  NcclEnvironment env;
  CHECK(!env.min_ctas);
  CHECK(!env.max_ctas);
  CHECK(!env.nvls_channels);
  CHECK(apply(env, "NCCL_MIN_CTAS", "8").empty());
  CHECK(apply(env, "NCCL_MAX_CTAS", "16").empty());
  CHECK(apply(env, "NCCL_NVLS_NCHANNELS", "12").empty());
  CHECK(env.min_ctas == 8);
  CHECK(env.max_ctas == 16);
  CHECK(env.nvls_channels == 12);
  CHECK(!env.min_channels);  // each is its own variable
  CHECK(env.describe() == "NCCL_MIN_CTAS=8 NCCL_MAX_CTAS=16 NCCL_NVLS_NCHANNELS=12");
  for (const char* name : {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_NVLS_NCHANNELS"}) {
    CAPTURE(name);
    CHECK(contains(apply(env, name, "0"), "from 1 to 64"));
    CHECK(contains(apply(env, name, "65"), name));
  }
  CHECK(env.nvls_channels == 12);
}

TEST_CASE("NCCL_NVLS_ENABLE=0 rules out NVLS and NVLSTree whatever NCCL_ALGO says") {
  NcclEnvironment env;
  CHECK(apply(env, "NCCL_NVLS_ENABLE", "0").empty());
  CHECK(apply(env, "NCCL_ALGO", "NVLS,Ring").empty());
  CHECK(env.allows_algorithm(0));
  CHECK_FALSE(env.allows_algorithm(2));
  CHECK(apply(env, "NCCL_NVLS_ENABLE", "1").empty());
  CHECK(env.allows_algorithm(2));
  CHECK_FALSE(env.allows_algorithm(3));  // NCCL_ALGO=NVLS,Ring still leaves NVLSTree out
}

TEST_CASE("settings that cannot be applied say why and change nothing") {
  NcclEnvironment env;
  CHECK(contains(apply(env, "NCCL_IB_HCA", "mlx5_0"), "not a variable the cost model follows"));
  CHECK(contains(apply(env, "NCCL_BUFFSIZE", "8M"), "whole number of bytes"));
  CHECK(contains(apply(env, "NCCL_BUFFSIZE", "-1"), "whole number of bytes"));
  CHECK(contains(apply(env, "NCCL_BUFFSIZE", "0"), "from 1 to 2147483647"));
  CHECK(contains(apply(env, "NCCL_BUFFSIZE", "2147483648"), "from 1 to 2147483647"));
  CHECK(contains(apply(env, "NCCL_BUFFSIZE", "99999999999999999999999"), "from 1 to 2147483647"));
  CHECK(contains(apply(env, "NCCL_BUFFSIZE", "0x"), "whole number of bytes"));
  CHECK(contains(apply(env, "NCCL_BUFFSIZE", "08388608"), "octal"));
  CHECK(contains(apply(env, "NCCL_ALGO", "Rnig"), "unknown name 'Rnig'"));
  CHECK(contains(apply(env, "NCCL_ALGO", "allreduce:tree;allgather:ring"), "per-collective"));
  CHECK(contains(apply(env, "NCCL_ALGO", "Ring,"), "empty name"));
  CHECK(contains(apply(env, "NCCL_PROTO", "^LL,LL128,Simple"), "no protocol"));
  CHECK(contains(apply(env, "NCCL_NVLS_ENABLE", "yes"), "must be 0 or 1"));
  CHECK(apply(env, "NCCL_ALGO", "NVLS,NVLSTree").empty());
  CHECK(contains(apply(env, "NCCL_NVLS_ENABLE", "0"), "leaves none"));
  CHECK(env.describe() == "NCCL_ALGO=NVLS,NVLSTree");
  CHECK(env.allows_algorithm(2));
}

TEST_CASE("a topology file's nccl: mapping is read, reported where it is wrong, and written back") {
  Topology t = load(boxes_with("  NCCL_ALGO: Ring,Tree\n  NCCL_PROTO: Simple\n"));
  REQUIRE(t.nccl_environment().settings.size() == 2);
  CHECK(t.nccl_environment().describe() == "NCCL_ALGO=Ring,Tree NCCL_PROTO=Simple");
  CHECK(t.nccl_environment().settings[1].where.line == 8);

  Topology back = parse_topology_yaml(write_topology_yaml(t, {}), "back.yaml", {});
  CHECK(back.nccl_environment().describe() == t.nccl_environment().describe());
  CHECK(back.nccl_environment().protocols == t.nccl_environment().protocols);

  // The value's line and column for a bad value, the key's for an unknown variable.
  CHECK(contains(load_error(boxes_with("  NCCL_PROTO: LL256\n")), "env.yaml:7:15"));
  CHECK(contains(load_error(boxes_with("  NCCL_PROTO: LL256\n")), "unknown name 'LL256'"));
  CHECK(contains(load_error(boxes_with("  NCCL_IB_HCA: mlx5_0\n")), "env.yaml:7:3"));
  CHECK(contains(load_error(boxes_with("  - NCCL_PROTO\n")), "must map NCCL variables"));
}

TEST_CASE("every price stays within the topology's NCCL environment") {
  const std::uint64_t big = std::uint64_t{8} << 30;
  Topology open = load(kBoxes);
  Topology simple = load(boxes_with("  NCCL_PROTO: Simple\n  NCCL_NVLS_ENABLE: 0\n"));
  CostModel free_model(open);
  CostModel env_model(simple);
  const auto ranks = first(open, 16);

  // Without the environment NCCL would take NVLSTree for 8 GiB and LL for 4 KiB.
  CHECK(free_model.collective({ranks, Collective::allreduce, big}).algorithm == Algorithm::nvlstree);
  CHECK(free_model.collective({ranks, Collective::allreduce, 4096}).protocol == Protocol::ll);

  for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{1} << 20, big}) {
    CollectiveCost c = env_model.collective({ranks, Collective::allreduce, bytes});
    INFO(bytes);
    CHECK(c.protocol == Protocol::simple);
    CHECK(c.algorithm != Algorithm::nvls);
    CHECK(c.algorithm != Algorithm::nvlstree);
    for (const Candidate& cand : c.candidates()) {
      CHECK(cand.protocol == Protocol::simple);
      CHECK(cand.algorithm != Algorithm::nvlstree);
    }
    // Fewer choices never make it faster.
    CHECK(c.time_us >= free_model.collective({ranks, Collective::allreduce, bytes}).time_us - 1e-9);
  }

  // The step path (concurrent, no candidates) prices within it too.
  CollectiveQuery q{ranks, Collective::allreduce, 4096};
  const auto both = env_model.concurrent(std::span<const CollectiveQuery>(&q, 1));
  CHECK(both[0].protocol == Protocol::simple);

  // A requested algorithm the environment rules out is an error naming the setting.
  CollectiveQuery nvls{ranks, Collective::allreduce, big, Algorithm::nvlstree};
  const std::string why = error_of(env_model, nvls);
  CHECK(contains(why, "rules out algorithm 'nvlstree'"));
  CHECK(contains(why, "NCCL_NVLS_ENABLE=0"));
  // A request may narrow the environment further, never widen it.
  CollectiveQuery ll{ranks, Collective::allreduce, 4096};
  ll.protocols = *parse_protocol_set("LL");
  CHECK(contains(error_of(env_model, ll), "no allowed protocol"));
  CHECK(free_model.collective(ll).protocol == Protocol::ll);
}

TEST_CASE("NCCL_BUFFSIZE prices the Simple pipeline: a larger buffer fills longer at mid sizes") {
  Topology base = load(kBoxes);
  Topology same = load(boxes_with("  NCCL_BUFFSIZE: 4194304\n"));
  Topology big = load(boxes_with("  NCCL_BUFFSIZE: 8388608\n"));
  const CostModel base_model(base), same_model(same), big_model(big);
  const auto ranks = first(base, 16);
  auto time = [&](const CostModel& m, std::uint64_t bytes, Algorithm a, const char* protos) {
    CollectiveQuery q{ranks, Collective::allreduce, bytes, a};
    q.protocols = *parse_protocol_set(protos);
    return m.collective(q).time_us;
  };
  const std::uint64_t mid = std::uint64_t{16} << 20, large = std::uint64_t{8} << 30;
  for (Algorithm a : {Algorithm::ring, Algorithm::tree}) {
    INFO(algorithm_name(a));
    // NCCL's own 4 MiB, written out, is no setting at all.
    CHECK(time(same_model, mid, a, "Simple") == time(base_model, mid, a, "Simple"));
    // Twice the buffer: a step holds twice the bytes, so the pipeline ramps
    // up later (and a tree's first chunks take longer to cross it).
    const double slower = time(big_model, mid, a, "Simple") / time(base_model, mid, a, "Simple");
    CHECK(slower > 1.05);
    // At 8 GiB the bandwidth term dwarfs it.
    CHECK(time(big_model, large, a, "Simple") / time(base_model, large, a, "Simple") < 1.02);
    // LL has buffers of its own.
    CHECK(time(big_model, 65536, a, "LL") == time(base_model, 65536, a, "LL"));
  }
}

TEST_CASE("before NCCL 2.20.3 a tree's Simple chunk shrinks with the size") {
  // The releases before and from 2.20.3 differ in nothing else the model
  // follows: a difference in price is the chunk.
  Topology t = load(kBoxes);
  const auto ranks = first(t, 16);
  CostModelOptions old_release, new_release;
  old_release.nccl_version = NcclVersion{2, 18, 5};
  new_release.nccl_version = NcclVersion{2, 20, 3};
  const CostModel old_model(t, old_release), new_model(t, new_release);
  auto time = [&](const CostModel& m, std::uint64_t bytes) {
    CollectiveQuery q{ranks, Collective::allreduce, bytes, Algorithm::tree};
    q.protocols = *parse_protocol_set("Simple");
    return m.collective(q).time_us;
  };
  // 16 MiB over a depth-8 tree (8 ranks a box, 2 boxes) holds far fewer
  // than 8 x 8 whole 512 KiB steps a channel: the old chunk halves, the fill
  // shrinks with it.
  CHECK(time(old_model, std::uint64_t{16} << 20) < time(new_model, std::uint64_t{16} << 20) * 0.9);
  // 2 GiB holds 64 whole steps on each of NCCL's 64 channels at most: the
  // chunk stays a step.
  const std::uint64_t large = std::uint64_t{64} * 64 * 512 * 1024;
  CHECK(time(old_model, large) == Approx(time(new_model, large)).epsilon(1e-12));
}

TEST_CASE("NCCL_PROTO's syntax for a query's protocols") {
  CHECK(parse_protocol_set("Simple") == (protocol_bit(Protocol::simple) | protocol_bit(Protocol::scheduled)));
  CHECK(parse_protocol_set("ll,LL128") ==
        (protocol_bit(Protocol::ll) | protocol_bit(Protocol::ll128) | protocol_bit(Protocol::scheduled)));
  CHECK(parse_protocol_set("^LL128") ==
        (protocol_bit(Protocol::ll) | protocol_bit(Protocol::simple) | protocol_bit(Protocol::scheduled)));
  CHECK_FALSE(parse_protocol_set(""));
  CHECK_FALSE(parse_protocol_set("scheduled"));
  CHECK_FALSE(parse_protocol_set("LL,,Simple"));
  CHECK(parse_algorithm_set("Ring,NVLSTree") == (algorithm_bit(Algorithm::ring) | algorithm_bit(Algorithm::nvlstree)));
}

TEST_CASE("the nccl: mapping's version names the release whose tuner chooses") {
  NcclEnvironment env;
  CHECK_FALSE(env.version);
  CHECK(apply(env, "version", "2.26.2").empty());
  CHECK(env.version == NcclVersion{2, 26, 2});
  CHECK(apply(env, "NCCL_PROTO", "Simple").empty());
  CHECK(env.describe() == "NCCL 2.26.2 NCCL_PROTO=Simple");
  CHECK(contains(apply(env, "version", "two"), "NCCL version 'two'"));
  CHECK(env.version == NcclVersion{2, 26, 2});

  Topology t = load(boxes_with("  version: v2.21.5-1\n"));
  CHECK(t.nccl_environment().version == NcclVersion{2, 21, 5});
  Topology back = parse_topology_yaml(write_topology_yaml(t, {}), "back.yaml", {});
  CHECK(back.nccl_environment().version == t.nccl_environment().version);
  CHECK(contains(load_error(boxes_with("  version: 2.x\n")), "env.yaml:7:12"));

  // NVLSTree's network step: 14 us in NCCL 2.21.5's table, 20.9 in the
  // newest; a tiny all-reduce over 2 domains pays it twice (log2(2) up and
  // down). The topology's version holds unless the options name another.
  const auto ranks = first(t, 16);
  const CollectiveQuery q{ranks, Collective::allreduce, 8, Algorithm::nvlstree};
  const double old_latency = CostModel(t).collective(q).latency_us;
  CostModelOptions newest;
  newest.nccl_version = NcclVersion{2, 30, 7};
  const double new_latency = CostModel(t, newest).collective(q).latency_us;
  CHECK(new_latency - old_latency == Approx(2 * (20.9 - 14.0)));
}

TEST_CASE("a command's --nccl-version joins the topology's environment as its last setting") {
  Topology t = load(boxes_with("  NCCL_PROTO: Simple\n  version: 2.29.3\n"));
  Topology older = with_nccl_setting(t, {"version", "2.26.2", {"--nccl-version", 0, 0}});
  CHECK(older.nccl_environment().version == NcclVersion{2, 26, 2});
  CHECK(older.nccl_environment().protocols == t.nccl_environment().protocols);
  CHECK(t.nccl_environment().version == NcclVersion{2, 29, 3});
  try {
    (void)with_nccl_setting(t, {"version", "2.x", {"--nccl-version", 0, 0}});
    FAIL("accepted 2.x");
  } catch (const InputError& e) {
    REQUIRE(!e.diagnostics().empty());
    CHECK(e.diagnostics().front().where.file == "--nccl-version");
    CHECK_THAT(e.what(), Catch::Contains("NCCL version '2.x'"));
  }
}

TEST_CASE("the nccl: mapping's net_latency is what the network plugin reports") {
  NcclEnvironment env;
  CHECK_FALSE(env.net_latency_us);
  CHECK(apply(env, "net_latency", "75").empty());
  REQUIRE(env.net_latency_us);
  CHECK(*env.net_latency_us == 75.0);
  CHECK(apply(env, "net_latency", "0.5").empty());
  CHECK(*env.net_latency_us == 0.5);
  CHECK(env.describe() == "net latency 0.5 us");
  for (const char* bad : {"", "-1", "75us", "1e3", "10001", "nan", "inf"}) {
    INFO(bad);
    CHECK(contains(apply(env, "net_latency", bad), "microseconds the network plugin reports"));
  }
  CHECK(*env.net_latency_us == 0.5);
  CHECK(contains(apply(env, "NCCL_NET_LATENCY", "75"), "'net_latency' (the latency the network plugin reports)"));

  Topology t = load(boxes_with("  net_latency: 75\n"));
  CHECK(t.nccl_environment().net_latency_us == 75.0);
  Topology back = parse_topology_yaml(write_topology_yaml(t, {}), "back.yaml", {});
  CHECK(back.nccl_environment().net_latency_us == t.nccl_environment().net_latency_us);
  CHECK(contains(load_error(boxes_with("  net_latency: soon\n")), "env.yaml:7:16"));
}

TEST_CASE("the plugin's net_latency steers NCCL's choice while the links time the steps") {
  // NCCL's search keeps the plugin's latency as the graph's latencyInter and
  // its tuner adds it to every network step, twice for Simple (tuning.cc);
  // NCCL's InfiniBand transport reports 0, aws-ofi-nccl 75 us on p5.
  Topology ib = load(kBoxes);
  Topology ofi = load(boxes_with("  net_latency: 75\n"));
  const CostModel ib_model(ib), ofi_model(ofi);
  const auto ranks = first(ib, 16);
  bool flipped = false;
  for (std::uint64_t bytes = 8; bytes <= (std::uint64_t{1} << 30); bytes *= 8) {
    INFO(bytes);
    const CollectiveCost a = ib_model.collective({ranks, Collective::allreduce, bytes});
    const CollectiveCost b = ofi_model.collective({ranks, Collective::allreduce, bytes});
    REQUIRE(a.candidates().size() == b.candidates().size());
    for (std::size_t i = 0; i < a.candidates().size(); ++i) {
      const Candidate& x = a.candidates()[i];
      const Candidate& y = b.candidates()[i];
      INFO(algorithm_name(x.algorithm) << "/" << protocol_name(x.protocol));
      // The time of every candidate is the links'.
      CHECK(y.time_us == x.time_us);
      // Two boxes: a tree's and NVLSTree's log2(2) network level up and down,
      // a ring's 2(N - 1) = 2 network steps, each 75 us more (150 for
      // Simple, and NCCL's 1.4 for a Simple ring's plateau past 64 bytes a
      // channel and rank).
      const double more = 2 * (x.protocol == Protocol::simple ? 150.0 : 75.0);
      const double plateau = x.algorithm == Algorithm::ring && x.protocol == Protocol::simple ? 1.4 : 1.0;
      const double diff = y.tuner_us - x.tuner_us;
      CHECK((diff == Approx(more).margin(1e-6) || diff == Approx(more * plateau).margin(1e-6)));
    }
    flipped = flipped || a.algorithm != b.algorithm || a.protocol != b.protocol;
  }
  // And so NCCL's choice moves away from the algorithms with Simple's steps.
  CHECK(flipped);
}
