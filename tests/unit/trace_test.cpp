// Trace readers: topoplan's CSV with its errors, and the public traces read
// the way topoplan-formats(5) TRACES documents (counts checked with an
// independent CSV parser: Python's csv module over the same files).
#include "topoplan/simulate/trace.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include "source_dir.hpp"

using namespace topoplan;

namespace {

std::string slurp(const std::string& relative) { return topoplan::test::source_file(relative); }

std::vector<std::string> errors_of(const std::string& text) {
  try {
    read_trace(text, "t.csv", {});
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.str());
    return out;
  }
  return {};
}

bool has_prefix(const std::vector<std::string>& all, const std::string& prefix) {
  for (const std::string& s : all)
    if (s.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("trace: the native CSV, required and optional columns in any order") {
  Trace t = read_trace(
      "gpus,id,duration_s,submit_s,tp,pp,priority,tenant,kind,required,comm_fraction\n"
      "16,pretrain,3600,0,4,2,3,research,training,rack,0.25\n"
      "1,tiny,60,12.5,,,,,,,\n",
      "t.csv", {});
  CHECK(t.format == "csv");
  REQUIRE(t.jobs.size() == 2);
  const TraceJob& a = t.jobs[0];
  CHECK(a.id == "pretrain");
  CHECK(a.gpus == 16);
  CHECK(a.duration_s == 3600);
  REQUIRE(a.parallelism);
  CHECK(a.parallelism->tp == 4);
  CHECK(a.parallelism->pp == 2);
  CHECK(a.parallelism->dp == 2);  // follows from 16 / (4 x 2)
  CHECK(a.priority == 3);
  CHECK(a.tenant == "research");
  CHECK(a.required == std::optional<std::string>("rack"));
  CHECK(a.comm_fraction == std::optional<double>(0.25));
  CHECK(a.where.line == 2);
  const TraceJob& b = t.jobs[1];
  CHECK(b.submit_s == 12.5);
  CHECK_FALSE(b.parallelism);
  CHECK_FALSE(b.comm_fraction);
  CHECK_FALSE(b.required);
}

TEST_CASE("trace: every problem of a CSV is reported with its line and column") {
  auto e = errors_of(
      "id,submit_s,gpus,duration_s,tp,dp\n"
      "a,0,8,10,4,4\n"     // 4 x 4 != 8
      "b,-1,8,10,,\n"      // negative submit
      "a,0,two,10,,\n"     // duplicate id, gpus not a number
      "c,0,8\n");          // too few fields
  CHECK(has_prefix(e, "t.csv:2:12: "));
  CHECK(has_prefix(e, "t.csv:3:3: "));
  CHECK(has_prefix(e, "t.csv:4:1: "));
  CHECK(has_prefix(e, "t.csv:4:5: "));
  CHECK(has_prefix(e, "t.csv:5:1: "));  // a line's problem is at its start
  CHECK(e.size() == 5);
  auto unknown = errors_of("id,submit_s,gpus,duraton_s\n");
  REQUIRE(unknown.size() == 2);  // the unknown column, and the missing one
  CHECK(unknown[0].find("duration_s") != std::string::npos);
  // An empty (or blank) file says so, not "not a trace".
  for (const char* blank : {"", "\n \n\t\r\n"}) {
    auto empty = errors_of(blank);
    REQUIRE(empty.size() == 1);
    CHECK(has_prefix(empty, "t.csv:1:1: the file is empty; a trace is "));
  }
  CHECK(errors_of("id,submit_s,gpus,duration_s\n") ==
        std::vector<std::string>{"t.csv:1:1: the trace has no jobs"});
  CHECK_FALSE(errors_of("what,is,this\n1,2,3\n").empty());            // no known format
}

TEST_CASE("trace: settings after the last colon, paths with colons kept") {
  auto [file, settings] = parse_trace_argument("a:b/pods.csv:sharing=skip");
  CHECK(file == "a:b/pods.csv");
  REQUIRE(settings.values.size() == 1);
  CHECK(settings.values[0] == std::pair<std::string, std::string>("sharing", "skip"));
  auto [plain, none] = parse_trace_argument("dir:x/jobs.csv");
  CHECK(plain == "dir:x/jobs.csv");
  CHECK(none.values.empty());
  // A format that takes no settings says so.
  TraceOptions o;
  o.settings = parse_trace_argument("t.csv:load=2").second;
  CHECK_THROWS_AS(read_trace("id,submit_s,gpus,duration_s\na,0,1,1\n", "t.csv", o), InputError);
}

TEST_CASE("trace: the Gavel/Philly trace, one job a line") {
  const std::string file = "tests/data/traces/gavel-philly-vc2869ce.trace";
  Trace t = read_trace(slurp(file), file, {});
  CHECK(t.format == "gavel");
  CHECK(t.jobs.size() == 533);
  // Line 3: Transformer (batch 256), scale factor 4, arrival 352430.
  CHECK(t.jobs[2].submit_s == 352430);
  CHECK(t.jobs[2].gpus == 4);
  for (const TraceJob& j : t.jobs) {
    CHECK(j.duration_s > 0);
    CHECK(j.gpus >= 1);
  }
  CHECK_FALSE(t.assumptions.empty());
}

TEST_CASE("trace: the openb pod list, GPU pods only, sharing pods whole or skipped") {
  const std::string file = "tests/data/traces/openb_pod_list_default.csv";
  const std::string text = slurp(file);
  Trace all = read_trace(text, file, {});
  CHECK(all.format == "openb");
  // 8,152 pods, 1,088 of them without GPUs (counted with Python's csv module).
  CHECK(all.jobs.size() == 7064);
  TraceOptions skip;
  skip.settings = parse_trace_argument(file + ":sharing=skip").second;
  Trace whole = read_trace(text, file, skip);
  CHECK(whole.jobs.size() == 3986);
  std::uint64_t gpus = 0;
  for (const TraceJob& j : whole.jobs) gpus += j.gpus;
  CHECK(gpus == 4355);
  // openb-pod-0000: created and scheduled at 0, deleted at 12,537,496.
  CHECK(all.jobs[0].id == "openb-pod-0000");
  CHECK(all.jobs[0].duration_s == 12537496);
  TraceOptions bad;
  bad.settings = parse_trace_argument(file + ":sharing=maybe").second;
  CHECK_THROWS_AS(read_trace(text, file, bad), InputError);
  // A pod runs on one node: with the host level named, every job requires it.
  CHECK_FALSE(all.jobs[0].required);
  TraceOptions on_nodes;
  on_nodes.host_level = "node";
  Trace pods = read_trace(text, file, on_nodes);
  REQUIRE(pods.jobs.size() == 7064);
  CHECK(std::all_of(pods.jobs.begin(), pods.jobs.end(), [](const TraceJob& j) { return j.required == "node"; }));
}

TEST_CASE("trace: AcmeTrace's summary gives a synthetic trace with its means, the same for a seed") {
  const std::string file = "tests/data/traces/acme-cluster-summary.csv";
  const std::string text = slurp(file);
  TraceOptions o;
  o.accelerators = 1024;
  o.settings = parse_trace_argument(file + ":cluster=Seren,jobs=20000,seed=3").second;
  Trace a = read_trace(text, file, o);
  Trace b = read_trace(text, file, o);
  CHECK(a.format == "acme");
  REQUIRE(a.jobs.size() == 20000);
  double gpus = 0, run = 0, top = 0;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    gpus += a.jobs[i].gpus;
    run += a.jobs[i].duration_s;
    top = std::max(top, static_cast<double>(a.jobs[i].gpus));
    CHECK(a.jobs[i].submit_s == b.jobs[i].submit_s);
    CHECK(a.jobs[i].duration_s == b.jobs[i].duration_s);
  }
  // Seren: mean 5.68 GPUs, mean run 1,414 s (the cut at max_run_time_gpu
  // and sampling keep it near, not at, the mean).
  CHECK(gpus / 20000 == Approx(5.68).epsilon(0.15));
  CHECK(run / 20000 == Approx(1414.3).epsilon(0.25));
  CHECK(top <= 1024);
  TraceOptions unknown = o;
  unknown.settings = parse_trace_argument(file + ":cluster=Nowhere").second;
  CHECK_THROWS_AS(read_trace(text, file, unknown), InputError);
}
