// The report: JSON with the keys the issue names, read back by an
// independent parser (yaml-cpp reads JSON), and the chart's SVG.
#include "topoplan/simulate/simulation_report.hpp"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "test_presets.hpp"
#include "topoplan/simulate/simulation_chart.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

SimulationReport tiny_report(const Topology& t, const Trace& trace) {
  Simulator sim(t, trace, {});
  SimulationReport r;
  r.topology = "dgx-h100:nodes=2";
  r.trace = "t.csv";
  r.trace_format = trace.format;
  for (const TraceJob& j : trace.jobs) r.job_ids.push_back(j.id);
  r.accelerators = t.accelerators().size();
  r.levels = {"cluster", "su", "node"};
  for (const char* p : {"topo", "naive"}) {
    r.runs.push_back(sim.run(p));
    r.metrics.push_back(summarize(r.runs.back()));
  }
  return r;
}

}  // namespace

TEST_CASE("simulation report: JSON per policy with the documented keys") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = read_trace("id,submit_s,gpus,duration_s\na,0,8,100\nb,5,8,50\nbig,0,64,10\n", "t.csv", {});
  SimulationReport r = tiny_report(t, trace);
  std::ostringstream out;
  write_simulation_json(out, r);
  YAML::Node doc = YAML::Load(out.str());
  REQUIRE(doc["policies"].size() == 2);
  YAML::Node topo = doc["policies"][0];
  CHECK(topo["policy"].as<std::string>() == "topo");
  // a 0-100, b 5-55 (the second node): jct 100 and 50.
  CHECK(topo["jct_mean_s"].as<double>() == 75);
  CHECK(topo["jct_p95_s"].as<double>() == 100);
  CHECK(topo["wait_mean_s"].as<double>() == 0);
  CHECK(topo["completed"].as<int>() == 2);
  CHECK(topo["never_started"].as<int>() == 1);
  CHECK(topo["utilisation"].as<double>() > 0);
  CHECK(topo["utilisation"].as<double>() <= 1);
  REQUIRE(topo["jobs"].size() == 3);
  CHECK(topo["jobs"][1]["id"].as<std::string>() == "b");
  CHECK(topo["jobs"][1]["submit_s"].as<double>() == 5);
  CHECK(topo["jobs"][1]["start_s"].as<double>() == 5);
  CHECK(topo["jobs"][1]["end_s"].as<double>() == 55);
  CHECK(topo["jobs"][1]["slowdown"].as<double>() == 1);
  CHECK(topo["jobs"][2]["start_s"].IsNull());
}

TEST_CASE("simulation report: text names every policy, and the chart is an SVG document") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = read_trace("id,submit_s,gpus,duration_s\na,0,8,100\nb,5,12,50\n", "t.csv", {});
  SimulationReport r = tiny_report(t, trace);
  std::ostringstream text;
  write_simulation_text(text, r);
  CHECK(text.str().find("\ntopo ") != std::string::npos);
  CHECK(text.str().find("\nnaive ") != std::string::npos);
  const std::string svg = simulation_svg(r);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("</svg>") != std::string::npos);
  // Same bytes run to run is checked across processes (determinism.sh):
  // cairo numbers its surfaces per process, so a second chart in the same
  // process differs in those ids.
  CHECK(human_duration(45) == "45 s");
  CHECK(human_duration(750) == "12.5 min");
}
