#include "sim/engine/kv_transfer_outputs.h"

#include "sim/metrics/output_writers.h"

namespace efimsim {
namespace {

// Counter names (summed over replicas).
const char* const kLinks = "kv_links";                  // replicas with a link
const char* const kTransfers = "kv_transfers";          // pulls started
const char* const kTokens = "kv_transfer_tokens";
const char* const kBytes = "kv_transfer_bytes";
const char* const kTimeNs = "kv_transfer_time_ns";      // sum over pulls, link queueing included

// True when any replica of the run had a KV link.
bool HasKvTransfer(const RunSummary& summary) { return summary.engine.part(kLinks) > 0; }

// Mean time from asking for a pull to its last byte (link queueing
// included), ms; 0 without pulls.
double MeanKvTransferMs(const EngineCounters& counters) {
  const int64_t transfers = counters.part(kTransfers);
  return transfers > 0
             ? static_cast<double>(counters.part(kTimeNs)) / static_cast<double>(transfers) / 1e6
             : 0.0;
}

}  // namespace

void AppendKvTransferCounters(const KvLinkStats& stats, std::vector<PartCounter>& counters) {
  using Combine = PartCounter::Combine;
  counters.push_back({kLinks, 1, Combine::kSum});
  counters.push_back({kTransfers, stats.transfers, Combine::kSum});
  counters.push_back({kTokens, stats.tokens, Combine::kSum});
  counters.push_back({kBytes, stats.bytes, Combine::kSum});
  counters.push_back({kTimeNs, ToNanoseconds(stats.time), Combine::kSum});
}

void SummarizeKvTransfer(const RunSummary& summary, std::vector<RunInfoSection>& results) {
  if (!HasKvTransfer(summary)) return;
  const EngineCounters& e = summary.engine;
  RunInfoSection section{"kv_transfer", {}};
  auto& t = section.settings;
  t.push_back({"transfers", e.part(kTransfers)});
  t.push_back({"tokens", e.part(kTokens)});
  t.push_back({"bytes", e.part(kBytes)});
  t.push_back({"mean_transfer_ms", MeanKvTransferMs(e)});
  results.push_back(std::move(section));
}

std::vector<EngineReportRow> KvTransferReportRows() {
  return {
      {"KV pulled (GiB)",
       [](const RunSummary& s) {
         return FormatFixed(static_cast<double>(s.engine.part(kBytes)) / (1 << 30), 2);
       },
       HasKvTransfer},
      {"mean KV pull (ms)",
       [](const RunSummary& s) { return FormatFixed(MeanKvTransferMs(s.engine), 3); },
       HasKvTransfer},
  };
}

}  // namespace efimsim
