// The trace formats read_trace() tells apart (trace.hpp), one file each.
#pragma once

#include <string>
#include <string_view>

#include "topoplan/simulate/trace.hpp"

namespace topoplan {

/// Looks up settings a format takes; every other key is an error naming the
/// ones it does take.
class TraceSettingsReader {
 public:
  TraceSettingsReader(const TraceSettings& settings, std::string_view format,
                      std::vector<std::string> allowed);
  std::optional<std::string> get(std::string_view key) const;
  std::optional<double> number(std::string_view key, double low, double high) const;

 private:
  const TraceSettings& settings_;
  std::string format_;
};

/// topoplan's own CSV: id,submit_s,gpus,duration_s and optional columns.
Trace read_native_trace(std::string_view text, const std::string& file, const TraceOptions& options);
/// Gavel (Narayanan et al., OSDI'20) traces, Philly-derived or physical.
Trace read_gavel_trace(std::string_view text, const std::string& file, const TraceOptions& options);
/// Alibaba's openb GPU pod list (Weng et al., ATC'23).
Trace read_openb_trace(std::string_view text, const std::string& file, const TraceOptions& options);
/// A synthetic trace from one cluster of the AcmeTrace summary (Hu et al.,
/// NSDI'24).
Trace read_acme_trace(std::string_view text, const std::string& file, const TraceOptions& options);

}  // namespace topoplan
