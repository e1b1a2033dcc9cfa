// export-plan --to slurm: the sbatch options that pin each job, the
// reservations and their flags, shell quoting, and the warnings for what
// sbatch cannot say. (The real slurmctld runs the output in
// tests/scripts/plan_export_slurm.sh.)
#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include <sstream>

#include "topoplan/formats/plan_export.hpp"
#include "topoplan/model/topology_builder.hpp"
#include "topoplan/placement/plan_io.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

PlanExport slurm(const Topology& t, const std::string& plan_text, PlanExportOptions o = {}) {
  Plan plan = parse_plan_yaml(plan_text, "plan.yaml", t);
  return find_plan_export_format("slurm")->run(t, plan, o);
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

std::vector<std::string> messages(const PlanExport& e) {
  std::vector<std::string> out;
  for (const Diagnostic& d : e.warnings) out.push_back(d.message);
  return out;
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

bool any_contains(const std::vector<std::string>& all, const std::string& part) {
  for (const std::string& s : all)
    if (s.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("slurm plan export: a whole-node job gets its nodes, their number, --exclusive and its GPUs") {
  Topology t = preset("gb200-nvl72:racks=2");
  PlanExport e = slurm(t, "jobs:\n  - {name: pretrain, nodes: 3, hosts: \"r0000-n[05-06],r0001-n00\"}\n");
  std::vector<std::string> sbatch = lines_starting(e.text, "sbatch ");
  REQUIRE(sbatch.size() == 1);
  CHECK(sbatch[0] ==
        "sbatch --job-name=pretrain --nodes=3 --nodelist='r0000-n[05-06],r0001-n00' --exclusive --gpus-per-node=4 "
        "pretrain.sbatch");
  CHECK(e.text.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(e.text.find("\nset -e\n") != std::string::npos);
  CHECK(lines_starting(e.text, "scontrol").empty());
  CHECK(e.warnings.empty());
}

TEST_CASE("slurm plan export: shared nodes keep their count, uneven nodes a total, each with a warning") {
  Topology t = preset("gb200-nvl72:racks=1");
  PlanExport e = slurm(t,
                       "jobs:\n"
                       "  - {name: small, gpus: 2, devices: \"r0000-n03/gpu[2-3]\"}\n"
                       "  - {name: six, gpus: 6, devices: \"r0000-n04/gpu[0-3],r0000-n05/gpu[0-1]\"}\n"
                       "  - {name: eight, gpus: 8, devices: \"r0000-n0[6-7]/gpu[0-3]\"}\n");
  std::vector<std::string> sbatch = lines_starting(e.text, "sbatch ");
  REQUIRE(sbatch.size() == 3);
  CHECK(sbatch[0] == "sbatch --job-name=small --nodes=1 --nodelist=r0000-n03 --gpus-per-node=2 small.sbatch");
  CHECK(sbatch[1] == "sbatch --job-name=six --nodes=2 --nodelist='r0000-n[04-05]' --gpus=6 six.sbatch");
  // A GPU count that fills the nodes is still not a request for whole nodes.
  CHECK(sbatch[2] == "sbatch --job-name=eight --nodes=2 --nodelist='r0000-n[06-07]' --gpus-per-node=4 eight.sbatch");
  std::vector<std::string> w = messages(e);
  CHECK(any_contains(w, "job 'small': Slurm picks which 2 accelerators of the 4 on r0000-n03 it gets"));
  CHECK(any_contains(w, "job 'six': 2 accelerators on r0000-n05 but 4 on r0000-n04"));
  CHECK_FALSE(any_contains(w, "job 'eight'"));
  // Warnings point at the plan entry.
  CHECK(e.warnings.front().where.file == "plan.yaml");
  CHECK(e.warnings.front().where.line == 2);
}

TEST_CASE("slurm plan export: reservations hold each job's nodes, with the flags Slurm needs") {
  Topology t = preset("gb200-nvl72:racks=1");
  PlanExportOptions o;
  o.reservations = true;
  PlanExport e = slurm(t,
                       "jobs:\n"
                       "  - {name: whole, nodes: 2, hosts: \"r0000-n[00-01]\"}\n"
                       "  - {name: left, gpus: 1, devices: r0000-n02/gpu0}\n"
                       "  - {name: right, gpus: 2, devices: \"r0000-n02/gpu[1-2]\"}\n"
                       "  - {name: alone, gpus: 2, devices: \"r0000-n03/gpu[0-1]\"}\n",
                       o);
  std::vector<std::string> res = lines_starting(e.text, "scontrol create reservation ");
  REQUIRE(res.size() == 4);
  CHECK(res[0] == "scontrol create reservation ReservationName=whole Nodes='r0000-n[00-01]' StartTime=now "
                  "Duration=UNLIMITED Users=\"$(id -un)\"");
  // Two jobs share r0000-n02: both reservations may overlap, and neither
  // minds the jobs already on the node.
  CHECK(res[1].find("ReservationName=left Nodes=r0000-n02 ") != std::string::npos);
  CHECK(ends_with(res[1], "\" Flags=OVERLAP,IGNORE_JOBS"));
  CHECK(ends_with(res[2], "\" Flags=OVERLAP,IGNORE_JOBS"));
  CHECK(ends_with(res[3], "\" Flags=IGNORE_JOBS"));
  // The reservations come before the first submission, which goes into its own.
  CHECK(e.text.find("scontrol create") < e.text.find("sbatch "));
  std::vector<std::string> sbatch = lines_starting(e.text, "sbatch ");
  REQUIRE(sbatch.size() == 4);
  CHECK(sbatch[0].find(" --reservation=whole whole.sbatch") != std::string::npos);
  CHECK(sbatch[3].find(" --reservation=alone alone.sbatch") != std::string::npos);
  std::vector<std::string> w = messages(e);
  CHECK(any_contains(w, "job 'alone': its reservation holds all of r0000-n03 (Slurm reserves whole nodes), so jobs "
                        "outside it cannot use the node's 2 accelerators that the plan leaves to others"));
  CHECK(any_contains(w, "job 'left': its reservation holds all of r0000-n02 (Slurm reserves whole nodes), so jobs "
                        "outside it cannot use the node's 1 accelerator that the plan leaves to others"));
  // Whole nodes, and nodes the plan's jobs fill between them, lose nothing.
  CHECK_FALSE(any_contains(w, "job 'whole'"));

  o.reservation_start = "2027-01-04T08:00:00";
  o.reservation_duration = "1-00:00:00";
  o.reservation_users = "alice,bob";
  PlanExport later = slurm(t, "jobs:\n  - {name: whole, nodes: 2, hosts: \"r0000-n[00-01]\"}\n", o);
  CHECK(lines_starting(later.text, "scontrol")[0] ==
        "scontrol create reservation ReservationName=whole Nodes='r0000-n[00-01]' StartTime=2027-01-04T08:00:00 "
        "Duration=1-00:00:00 Users=alice,bob");

  o.reservation_start = "now +1hour";
  CHECK_THROWS_AS(slurm(t, "jobs:\n  - {name: whole, nodes: 2, hosts: \"r0000-n[00-01]\"}\n", o), InputError);
}

TEST_CASE("slurm plan export: names are quoted for the shell and made into reservation names") {
  Topology t = preset("dgx-h100:nodes=2");
  PlanExportOptions o;
  o.reservations = true;
  o.batch_script = "jobs/{name}.sh";
  PlanExport e = slurm(t,
                       "jobs:\n"
                       "  - {name: \"it's a b\", nodes: 1, hosts: h100-00000}\n"
                       "  - {name: \"it-s a b\", nodes: 1, hosts: h100-00001}\n"
                       "  - {name: \"x\\ny\", gpus: 1, placed: false}\n",
                       o);
  std::vector<std::string> sbatch = lines_starting(e.text, "sbatch ");
  REQUIRE(sbatch.size() == 2);
  CHECK(sbatch[0] == "sbatch --job-name='it'\\''s a b' --nodes=1 --nodelist=h100-00000 --exclusive --gpus-per-node=8 "
                     "--reservation=it_s_a_b 'jobs/it'\\''s a b.sh'");
  CHECK(sbatch[1].find("--reservation=it-s_a_b ") != std::string::npos);
  std::vector<std::string> res = lines_starting(e.text, "scontrol");
  CHECK(res[0].find("ReservationName=it_s_a_b ") != std::string::npos);
  // The unplaced job with a newline in its name: a comment that stays one.
  CHECK(lines_starting(e.text, "y").empty());
  CHECK(e.text.find("# job x?y: not placed") != std::string::npos);
  CHECK(any_contains(messages(e), "not placed in the plan, so not submitted"));
}

TEST_CASE("slurm plan export: names that become the same reservation name get a suffix") {
  Topology t = preset("dgx-h100:nodes=3");
  PlanExportOptions o;
  o.reservations = true;
  PlanExport e = slurm(t,
                       "jobs:\n"
                       "  - {name: a_b, nodes: 1, hosts: h100-00000}\n"
                       "  - {name: a b, nodes: 1, hosts: h100-00001}\n"
                       "  - {name: a/b, nodes: 1, hosts: h100-00002}\n",
                       o);
  std::vector<std::string> res = lines_starting(e.text, "scontrol");
  REQUIRE(res.size() == 3);
  CHECK(res[0].find("ReservationName=a_b ") != std::string::npos);
  CHECK(res[1].find("ReservationName=a_b-2 ") != std::string::npos);
  CHECK(res[2].find("ReservationName=a_b-3 ") != std::string::npos);
}

TEST_CASE("slurm plan export: what sbatch cannot say is a warning naming the job") {
  Topology t = preset("gb200-nvl72:racks=2");
  PlanExport e = slurm(t,
                       "jobs:\n"
                       "  - {name: order, devices: [r0000-n01/gpu0, r0000-n00/gpu0]}\n"
                       "  - {name: serve, kind: inference, replica_devices: [\"r0000-n02/gpu[0-3]\", "
                       "\"r0001-n02/gpu[0-3]\"]}\n"
                       "  - {name: rack, nodes: 2, exclusive_level: rack, hosts: \"r0001-n0[5-6]\"}\n"
                       "  - {name: team, gpus: 4, tenant: blue, devices: \"r0001-n10/gpu[0-3]\"}\n"
                       "  - {name: pair, gpus: 2, tenant: blue, devices: \"r0001-n11/gpu[0-1]\"}\n");
  std::vector<std::string> w = messages(e);
  CHECK(any_contains(w, "job 'order': its ranks are not in Slurm's task order (node by node in node order, each "
                        "node's accelerators in index order): rank 1 (r0000-n00/gpu0) comes after r0000-n01/gpu0"));
  CHECK(any_contains(w, "job 'serve': Slurm runs its 2 replicas as one job"));
  CHECK(e.text.find("#   replica 0: r0000-n02\n#   replica 1: r0001-n02\n") != std::string::npos);
  CHECK(any_contains(w, "job 'rack': the plan keeps its rack to itself"));
  // A tenant's job on whole nodes keeps them with --exclusive; on part of
  // a node, Slurm cannot keep other tenants off the rest.
  CHECK_FALSE(any_contains(w, "job 'team'"));
  CHECK(any_contains(w, "job 'pair': Slurm keeps tenant 'blue' off other tenants' nodes only with --exclusive"));
  std::vector<std::string> sbatch = lines_starting(e.text, "sbatch ");
  REQUIRE(sbatch.size() == 5);
  CHECK(sbatch[1].find("--nodes=2 --nodelist=r0000-n02,r0001-n02 --gpus-per-node=4") != std::string::npos);
  CHECK(sbatch[1].find("--exclusive") == std::string::npos);
  CHECK(sbatch[2].find("--exclusive") != std::string::npos);
  CHECK(sbatch[3].find("--exclusive --gpus-per-node=4") != std::string::npos);
  CHECK(sbatch[4].find("--exclusive") == std::string::npos);
}

TEST_CASE("slurm plan export: LPUs are tasks per node, and names Slurm cannot carry are errors") {
  Topology groq = preset("groq:racks=1");
  std::string host(groq.hostname(groq.domains_at(groq.host_level()).first));
  PlanExport e = slurm(groq, "jobs:\n  - {name: g, hosts: " + host + "}\n");
  std::vector<std::string> sbatch = lines_starting(e.text, "sbatch ");
  REQUIRE(sbatch.size() == 1);
  CHECK(sbatch[0].find(" --ntasks-per-node=8 ") != std::string::npos);
  CHECK(any_contains(messages(e), "Slurm has no standard resource for lpus"));

  TopologyBuilder b("odd", {"cluster", "node"});
  DomainId n = b.add_domain(b.root(), "n1");
  b.set_hostname(n, "host#1");
  b.add_device(n, DeviceKind::gpu, "gpu0", {});
  DiagnosticSink sink;
  Topology odd = b.finish(sink);
  CHECK_THROWS_WITH(slurm(odd, "jobs:\n  - {name: j, devices: host#1/gpu0}\n"),
                    Catch::Contains("hostname 'host#1' cannot be written in a Slurm hostlist"));
}

TEST_CASE("slurm plan export: warnings point at the job's entry in a plan written as JSON") {
  // topoplan's JSON plans hold the job under "job": its position is the entry's.
  Topology t = preset("gb200-nvl72:racks=1");
  PlanExport e = slurm(t, "{\"jobs\": [\n  {\"name\": \"a\", \"job\": {\"gpus\": 2},\n   \"devices\": "
                          "[\"r0000-n00/gpu0\", \"r0000-n00/gpu1\"]}\n]}\n");
  REQUIRE(e.warnings.size() == 1);
  CHECK(e.warnings[0].where.line == 2);
  CHECK(e.warnings[0].where.column == 3);
}
