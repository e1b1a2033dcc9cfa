#include "topoplan/placement/policy.hpp"

#include <fmt/format.h>

#include "topoplan/placement/kueue_policy.hpp"
#include "topoplan/placement/slurm_policy.hpp"
#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

std::vector<std::string> policy_names() { return {"topo", "kueue", "slurm", "slurm-22.05", "naive"}; }

std::unique_ptr<PlacementPolicy> make_policy(std::string_view name, const Topology& topology) {
  if (name == "topo") return std::make_unique<TopoPolicy>();
  if (name == "kueue") return std::make_unique<KueuePolicy>(topology);
  if (name == "slurm") return std::make_unique<SlurmPolicy>(SlurmTreeRules::current);
  if (name == "slurm-22.05") return std::make_unique<SlurmPolicy>(SlurmTreeRules::v22_05);
  if (name == "naive") return std::make_unique<NaivePolicy>();
  std::vector<std::string> names = policy_names();
  std::string hint = did_you_mean(std::string(name), names);
  throw InputError({}, fmt::format("unknown policy '{}'; policies are {}{}{}", name, fmt::join(names, ", "),
                                   hint.empty() ? "" : "; ", hint));
}

}  // namespace topoplan
