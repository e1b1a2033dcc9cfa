// A simulation study: the report simulate() assembles from a topology, a
// trace and the request, policy by policy, and its progress stages.
#include "topoplan/simulate/simulation.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

Trace tiny_trace() {
  // Two nodes of 8: a (0-100) and b (5-55) run side by side; c, at 10,
  // waits for b's node.
  Trace trace = read_trace("id,submit_s,gpus,duration_s\na,0,8,100\nb,5,8,50\nc,10,8,20\n", "t.csv", {});
  trace.name = "t.csv:x=1";
  return trace;
}

}  // namespace

TEST_CASE("simulation: the report holds one run and its metrics per policy, in request order") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = tiny_trace();
  SimulationRequest request;
  request.topology = "dgx-h100:nodes=2";
  request.policies = {"naive", "topo"};
  request.options.slowdown.scale = 2;
  request.options.slowdown.comm_fraction = 0.25;
  request.options.checkpoint_interval_s = 600;
  request.options.seed = 7;
  SimulationReport r = simulate(t, trace, request);
  CHECK(r.topology == "dgx-h100:nodes=2");
  CHECK(r.trace == "t.csv:x=1");
  CHECK(r.trace_format == "csv");
  CHECK(r.job_ids == std::vector<std::string>{"a", "b", "c"});
  CHECK(r.accelerators == 16);
  CHECK(r.levels == std::vector<std::string>{"cluster", "su", "node"});
  CHECK(r.slowdown_scale == 2);
  CHECK(r.comm_fraction == 0.25);
  CHECK(r.checkpoint_interval_s == 600);
  CHECK(r.seed == 7);
  CHECK(r.failures_source.empty());
  CHECK(r.assumptions == trace.assumptions);
  REQUIRE(r.runs.size() == 2);
  REQUIRE(r.metrics.size() == 2);
  CHECK(r.runs[0].policy == "naive");
  CHECK(r.runs[1].policy == "topo");
  CHECK(r.metrics[0].policy == "naive");
  CHECK(r.metrics[1].policy == "topo");
  // c starts when b ends at 55 and takes 20 s (one node: nothing to slow).
  for (const PolicyRun& run : r.runs) {
    REQUIRE(run.jobs.size() == 3);
    CHECK(run.jobs[2].start_s == 55);
    CHECK(run.jobs[2].end_s == 75);
  }
  CHECK(r.metrics[1].completed == 3);
  CHECK(r.metrics[1].wait.max == 45);
}

TEST_CASE("simulation: the failure source is the file's, else the file name") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = tiny_trace();
  FailureRates rates;  // nothing fails: no rates
  SimulationRequest request;
  request.policies = {"topo"};
  request.options.failures = &rates;
  request.failures_file = "rates.yaml";
  CHECK(simulate(t, trace, request).failures_source == "rates.yaml");
  rates.source = "Llama 3 (Table 5)";
  CHECK(simulate(t, trace, request).failures_source == "Llama 3 (Table 5)");
}

TEST_CASE("simulation: progress names each stage in order") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = tiny_trace();
  SimulationRequest request;
  request.policies = {"topo", "naive"};
  std::vector<std::string> stages;
  double last = -1;
  bool in_range = true;
  request.progress = [&](std::string_view stage, double f) {
    if (stages.empty() || stages.back() != stage) stages.emplace_back(stage);
    in_range = in_range && f >= 0 && f <= 1;
    last = f;
  };
  simulate(t, trace, request);
  CHECK(stages == std::vector<std::string>{"simulate: preparing", "simulate: topo", "simulate: naive"});
  CHECK(in_range);
  CHECK(last == 1);
}

TEST_CASE("simulation: no policy or an unknown one fails before any replay") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = tiny_trace();
  SimulationRequest request;
  bool called = false;
  request.progress = [&](std::string_view, double) { called = true; };
  CHECK_THROWS_AS(simulate(t, trace, request), InputError);
  request.policies = {"topo", "nope"};
  CHECK_THROWS_AS(simulate(t, trace, request), InputError);
  CHECK_FALSE(called);
}
