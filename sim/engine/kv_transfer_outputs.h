#pragma once
// What decode replicas' KV pulls (kv_link.h; disaggregated serving) add to a
// run's outputs: named counters in EngineCounters::parts (present only on
// replicas with a link), summed over the run's replicas, and the
// "kv_transfer" section under summary.json's results. A co-located run has
// none of them, and its outputs keep their bytes.

#include <string>
#include <vector>

#include "sim/engine/engine_entry.h"
#include "sim/engine/kv_link.h"

namespace efimsim {

void AppendKvTransferCounters(const KvLinkStats& stats, std::vector<PartCounter>& counters);

// The "kv_transfer" results section (EngineEntry::summarize_parts).
void SummarizeKvTransfer(const RunSummary& summary, std::vector<RunInfoSection>& results);
// The compare table's rows (EngineEntry::report_rows): GiB pulled, mean pull.
std::vector<EngineReportRow> KvTransferReportRows();

}  // namespace efimsim
