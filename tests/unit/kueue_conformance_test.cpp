// Kueue's own test table as conformance tests of `--policy kueue`: the 66
// entries of TestFindTopologyAssignments (kubernetes-sigs/kueue
// pkg/cache/scheduler/tas_cache_test.go @ff69552e79ad) listed in issue 18,
// ported to tests/data/kueue-conformance (one file per entry; SOURCES says
// how). Each file holds what a Kueue user has: `kubectl get nodes`, the pods
// already running (`kubectl get pods`), Kueue's Topology and ResourceFlavor
// and the workload; its first document holds Kueue's expected answer and the
// feature gates the entry sets. The test runs them as the command line does:
// import the node list, read the manifests, plan with the kueue policy, and
// compares the pods per node (per domain for topologies whose lowest level
// is not the hostname) or Kueue's reason.
//
// ctest runs each file as its own test (TOPOPLAN_KUEUE_CASE names it);
// unit_tests alone runs them all, a section each, named by line and name.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "source_dir.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/manifests/pod_list.hpp"
#include "topoplan/placement/kueue_workload.hpp"
#include "topoplan/placement/planner.hpp"

using namespace topoplan;

namespace {

const std::filesystem::path kDir = std::filesystem::path(TOPOPLAN_SOURCE_DIR) / "tests/data/kueue-conformance";

struct CaseFile {
  YAML::Node expected;
  std::string nodes;
  std::string pods;
  std::string manifests;
};

CaseFile read_case(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  CaseFile c;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find("\n---\n", start);
    std::string doc = text.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
    YAML::Node n = YAML::Load(doc);
    std::string kind = n["kind"].as<std::string>();
    if (kind == "Expected") {
      c.expected = n["expected"];
    } else if (kind == "List" && n["items"][0]["kind"].as<std::string>() == "Node") {
      c.nodes = doc;
    } else if (kind == "List") {
      c.pods = doc;
    } else {
      c.manifests += (c.manifests.empty() ? "" : "---\n") + doc;
    }
    if (end == std::string::npos) break;
    start = end + 5;
  }
  return c;
}

// The pod sets of an entry that no manifest can carry, as Kueue's scheduler
// gets them.
Job job_from_pod_sets(const Topology& t, const YAML::Node& sets, const std::vector<std::string>& levels) {
  auto w = std::make_shared<KueueWorkload>();
  std::vector<KueueLevel> known = default_kueue_levels(t);
  for (const std::string& key : levels)
    for (const KueueLevel& l : known)
      if (l.key == key) w->flavor.levels.push_back(l);
  REQUIRE(w->flavor.levels.size() == levels.size());
  for (const YAML::Node& s : sets) {
    KueuePodSet p;
    p.name = s["name"].as<std::string>();
    p.count = s["count"].as<std::uint32_t>();
    for (const auto& r : s["requests"]) {
      std::string name = r.first.as<std::string>();
      p.requests.set(name, *parse_quantity(name, r.second.as<std::string>()));
    }
    if (s["required"]) p.topology.required = s["required"].as<std::string>();
    if (s["preferred"]) p.topology.preferred = s["preferred"].as<std::string>();
    for (const YAML::Node& l : s["slices"])
      p.topology.slices.push_back({l["topology"].as<std::string>(), l["size"].as<std::int32_t>()});
    if (s["group"]) p.group = s["group"].as<std::string>();
    w->pod_sets.push_back(std::move(p));
  }
  Job job;
  job.name = "case";
  job.per_replica = 1;
  job.kueue = std::move(w);
  return job;
}

// Pods per pod set and Kueue domain: the hostname, or the node's domain path
// at Kueue's lowest level when that is not the hostname.
std::map<std::string, std::map<std::string, int>> assignment(const Topology& t, const JobPlacement& p,
                                                             bool hostnames, std::size_t kueue_levels) {
  std::map<std::string, std::map<std::string, int>> out;
  for (const JobPlacement::NodePods& n : p.pods) {
    std::string key = hostnames ? std::string(t.hostname(n.node))
                                : t.domain_path(t.ancestor(n.node, static_cast<LevelIndex>(kueue_levels)));
    out[n.pod_set][key] += static_cast<int>(n.pods);
  }
  return out;
}

void run_case(const std::filesystem::path& path) {
  CaseFile c = read_case(path);
  const YAML::Node& e = c.expected;
  std::vector<std::string> levels = e["levels"].as<std::vector<std::string>>();
  const bool hostname_leaves = levels.back() == "kubernetes.io/hostname";

  // kubectl get nodes, imported with the Topology's levels (the hostname
  // level is the topology's own).
  ImportOptions options;
  options.name = "default";
  options.cpu_nodes = true;  // Kueue's flavor holds every node with the labels
  for (const std::string& l : levels)
    if (l != "kubernetes.io/hostname") options.level_labels.push_back(l);
  if (options.level_labels.empty()) options.level_labels.push_back("kubernetes.io/hostname");
  std::vector<ImportSource> sources{{path.filename().string(), c.nodes}};
  Topology t = find_import_format("k8s-nodes")->run(sources, options).topology;

  std::vector<Job> jobs;
  if (e["pod_sets"]) {
    jobs.push_back(job_from_pod_sets(t, e["pod_sets"], levels));
  } else {
    ManifestJobs read = read_job_manifests({{c.manifests, path.filename().string()}}, t);
    if (e["rejected"]) {
      REQUIRE(read.rejections.size() == 1);
      CHECK_THAT(read.rejections.front().message, Catch::Contains(e["rejected"].as<std::string>()));
      return;
    }
    if (read.jobs.empty() && e["reason"]) {
      // Kueue's checks of the levels: refused when read, with its reason.
      REQUIRE(read.rejections.size() == 1);
      CHECK_THAT(read.rejections.front().message, Catch::Contains(e["reason"].as<std::string>()));
      return;
    }
    REQUIRE(read.rejections.empty());
    REQUIRE(read.jobs.size() == 1);
    jobs = std::move(read.jobs);
  }
  RunningPods running;
  std::vector<Diagnostic> warnings;
  if (!c.pods.empty()) running = read_pod_list({{c.pods, "pods.yaml"}}, t, warnings);

  PlanOptions plan_options;
  plan_options.policy = e["policy"].as<std::string>();
  plan_options.running = &running;
  Plan plan = plan_jobs(t, jobs, plan_options);
  const JobPlacement& p = plan.placements.front();
  if (e["reason"]) {
    CHECK_FALSE(p.placed);
    CHECK(p.reason == e["reason"].as<std::string>());
    return;
  }
  INFO(p.reason);
  REQUIRE(p.placed);
  std::map<std::string, std::map<std::string, int>> want;
  for (const auto& set : e["assignment"])
    for (const auto& d : set.second) want[set.first.as<std::string>()][d.first.as<std::string>()] = d.second.as<int>();
  CHECK(assignment(t, p, hostname_leaves, levels.size()) == want);
}

}  // namespace

TEST_CASE("Kueue TAS conformance: TestFindTopologyAssignments entries of issue 18") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kDir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  CHECK(files.size() == 66);
  const char* only = std::getenv("TOPOPLAN_KUEUE_CASE");
  for (const std::filesystem::path& f : files) {
    if (only && f.stem().string() != only) continue;
    const YAML::Node expected = read_case(f).expected;
    DYNAMIC_SECTION("L" << expected["line"].as<int>() << ": " << expected["case"].as<std::string>()) { run_case(f); }
  }
}
