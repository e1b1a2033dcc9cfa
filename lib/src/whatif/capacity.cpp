#include "topoplan/whatif/capacity.hpp"

namespace topoplan {

namespace {

// Places copies of `probe` until one does not fit; returns how many did.
std::uint64_t fill(PlannerState& state, const Job& probe, std::uint64_t& each, std::string& reason) {
  std::uint64_t n = 0;
  // Each placed copy takes at least one accelerator: this bounds the loop.
  const std::uint64_t limit = state.topology().accelerators().size();
  while (n <= limit) {
    PlannerState::PlaceResult r = state.place(probe);
    if (r.id == kNone) {
      reason = r.placement.reason;
      break;
    }
    if (each == 0) each = r.placement.device_count();
    ++n;
  }
  return n;
}

}  // namespace

CapacityCount count_capacity(const PlannerState& state, const Job& probe) {
  CapacityCount out;
  {
    PlannerState now(state);
    out.fits_now = fill(now, probe, out.accelerators_each, out.reason_now);
  }
  PlannerState empty(state.topology(), state.options());
  empty.set_mask(state.mask());
  out.fits_empty = fill(empty, probe, out.accelerators_each, out.reason_empty);
  return out;
}

}  // namespace topoplan
