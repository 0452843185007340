#pragma once
// Per-position acceptance rates measured by a real vLLM server, read from
// its Prometheus metrics (`curl http://SERVER/metrics > FILE`): vLLM v1's
// counters (vllm/v1/spec_decode/metrics.py, SpecDecodingProm)
//   vllm:spec_decode_num_drafts_total                      drafts proposed
//   vllm:spec_decode_num_accepted_tokens_per_pos_total{position="i"}
//                                                          drafts whose
//                                                          first i + 1 tokens
//                                                          were accepted
// summed over every other label set (engines, models). The rate of position
// i given the positions before it were accepted is count(i) / count(i - 1)
// (count(-1) = drafts): the conditional rates of --speculative-config's
// acceptance_rates. A position after one never accepted gets 0.

#include <string>
#include <vector>

namespace efimsim {

// Throws InputError naming the file, line and metric for a file that is not
// a regular file of at most 64 MiB, a value that is not a finite count >= 0,
// no drafts or none counted, positions missing from 0..k-1, or a position
// counted more often than the one before it.
std::vector<double> ReadSpecDecodeAcceptanceRates(const std::string& path);

}  // namespace efimsim
