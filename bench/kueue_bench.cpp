// Speed of the kueue policy alone: what it costs to place a long queue of
// jobs, without the planner's pricing and checks around it.
//
//   topoplan_kueue_bench [JOBS [gb200|k8s]]   (default: 10000, both)
//
// Two clusters: gb200-nvl72:racks=1820 (131,040 GPUs, 32,760 nodes; only
// accelerators count) with jobs of topoplan's own format (pods of 1-4 GPUs
// without a level, tensor-parallel groups of 8-144 GPUs required or
// preferred in a rack, services of two replicas; about 185,000 GPUs asked, so
// the cluster fills), and a Kubernetes node list of 4,096 nodes (8 GPUs, CPU, memory,
// pods) with Jobs whose pods ask for all three. Each job is placed as the
// planner places it: the policy chooses, the accelerators and node usage are
// taken. Reports seconds per cluster and exits 1 when the GB200 queue takes
// more than the target (issue 18: about 1 s for 10,000 jobs).
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/placement/kueue_policy.hpp"
#include "topoplan/placement/node_usage.hpp"
#include "topoplan/placement/occupancy.hpp"

using namespace topoplan;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Result {
  double seconds = 0;
  std::size_t placed = 0;
};

// Places every job's pod groups in turn, taking what each gets.
Result run(const Topology& t, const std::vector<Job>& jobs, const std::vector<PlaceRequest>& requests) {
  KueuePolicy policy(t);
  Occupancy occupancy(t);
  NodeUsage usage(t);
  Result r;
  auto start = std::chrono::steady_clock::now();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    PlaceRequest request = requests[j];
    request.job = &jobs[j];
    request.usage = &usage;
    std::vector<PodPlacement> got;
    bool ok = true;
    for (std::uint32_t g = 0; g < policy.pod_groups(jobs[j]) && ok; ++g) {
      request.pod_group = g;
      got.push_back(policy.place_pods(CapacityView(occupancy, false), request));
      ok = !got.back().pods.empty();
      if (ok) {
        for (std::uint32_t a : got.back().accelerators) occupancy.take(a, static_cast<std::uint32_t>(j));
        for (const PodPlacement::Pods& p : got.back().pods) usage.add(p.node, p.per_pod, p.pods);
      }
    }
    if (!ok)  // all or none, as the planner does
      for (const PodPlacement& p : got) {
        for (std::uint32_t a : p.accelerators) occupancy.release(a);
        for (const PodPlacement::Pods& pods : p.pods) usage.add(pods.node, pods.per_pod, -std::int64_t{pods.pods});
      }
    r.placed += ok ? 1 : 0;
  }
  r.seconds = seconds_since(start);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t count = argc > 1 ? std::stoul(argv[1]) : 10000;
  const std::string only = argc > 2 ? argv[2] : "";
  auto no_files = [](const std::string&) { return std::optional<std::string>(); };
  std::mt19937 rng(18);
  auto pick = [&](std::initializer_list<std::uint32_t> values) {
    std::vector<std::uint32_t> v(values);
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
  };

  // GB200 NVL72 at full scale, jobs of topoplan's format.
  Topology gb200 = load_topology("gb200-nvl72:racks=1820", no_files);
  const LevelIndex rack = *gb200.find_level("rack");
  std::vector<Job> jobs(count);
  std::vector<PlaceRequest> requests(count);
  for (std::size_t i = 0; i < count; ++i) {
    Job& job = jobs[i];
    PlaceRequest& r = requests[i];
    job.name = fmt::format("j{}", i);
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    if (u < 0.4) {
      r.units = pick({1, 2, 4});
    } else if (u < 0.75) {
      r.units = pick({8, 16});
      r.granule = 4;
      r.required = rack;
    } else if (u < 0.9) {
      r.units = pick({32, 64});
      r.granule = 4;
      r.preferred = rack;
    } else if (u < 0.95) {
      r.units = pick({72, 144});
      r.granule = 4;
      r.preferred = rack;
    } else {
      job.kind = JobKind::inference;
      job.replicas = 2;
      r.units = 8;
      r.granule = 4;
    }
    job.per_replica = r.units;
  }
  Result a;
  if (only != "k8s") a = run(gb200, jobs, requests);
  fmt::print("gb200-nvl72:racks=1820 ({} nodes): {} jobs in {:.3f} s ({:.1f} us/job), {} placed\n",
             gb200.domain_count_at(gb200.host_level()), count, a.seconds, a.seconds * 1e6 / static_cast<double>(count),
             a.placed);

  if (only == "gb200") return a.seconds > static_cast<double>(count) / 10000.0 ? 1 : 0;

  // A Kubernetes node list: 4,096 nodes of 8 GPUs in 256 racks of 16.
  std::string nodes = "apiVersion: v1\nkind: List\nitems:\n";
  for (int n = 0; n < 4096; ++n)
    nodes += fmt::format("- kind: Node\n  metadata:\n    name: n{:04}\n    labels: {{example.com/rack: r{:03}}}\n"
                         "  status:\n    capacity: {{nvidia.com/gpu: \"8\"}}\n    allocatable: {{cpu: \"{}\", "
                         "memory: 1Ti, pods: \"110\", nvidia.com/gpu: \"8\"}}\n",
                         n, n / 16, 96 + 32 * (n % 3));
  ImportOptions o;
  o.level_labels = {"example.com/rack"};
  std::vector<ImportSource> sources{{"nodes.yaml", nodes}};
  Topology k8s = find_import_format("k8s-nodes")->run(sources, o).topology;
  std::string manifests;
  const std::size_t k8s_count = count / 4;
  for (std::size_t i = 0; i < k8s_count; ++i) {
    std::uint32_t pods = pick({1, 2, 4, 8, 16});
    std::uint32_t gpus = pick({0, 1, 2, 8});
    manifests += fmt::format("---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: k{}}}\nspec:\n  parallelism: {}\n"
                             "  template:\n    metadata: {{annotations: {{{}}}}}\n    spec:\n      containers: [{{name: c, "
                             "resources: {{requests: {{cpu: \"{}\", memory: {}Gi, nvidia.com/gpu: {}}}}}}}]\n",
                             i, pods, i % 2 ? "kueue.x-k8s.io/podset-required-topology: example.com/rack" : "",
                             pick({1, 4, 16}), pick({8, 64}), gpus);
  }
  ManifestJobs read = read_job_manifests({{manifests, "jobs.yaml"}}, k8s);
  std::vector<PlaceRequest> k8s_requests(read.jobs.size());
  Result b = run(k8s, read.jobs, k8s_requests);
  fmt::print("k8s node list ({} nodes): {} Jobs in {:.3f} s ({:.1f} us/job), {} placed\n",
             k8s.domain_count_at(k8s.host_level()), read.jobs.size(), b.seconds,
             b.seconds * 1e6 / static_cast<double>(std::max<std::size_t>(1, read.jobs.size())), b.placed);

  const double target = 1.0 * static_cast<double>(count) / 10000.0;
  if (a.seconds > target) {
    fmt::print("the GB200 queue took {:.3f} s; the target is {:.3f} s\n", a.seconds, target);
    return 1;
  }
  return 0;
}
