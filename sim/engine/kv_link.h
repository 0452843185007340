#pragma once
// The link over which a decode replica pulls the KV a prefill replica
// computed (disaggregated serving: vLLM's NixlConnector reading the prefill
// instance's blocks over RDMA or NVLink). docs/disaggregation.md.
//
// Contract: transfers are serialized on the link in the order they start
// (one NIC per GPU, shared by the replica's pulls); each begins when the
// link is free and ends latency + bytes / rate later (rounded to the
// nanosecond: a rate of 1e21 B/s makes any KV free, leaving the latency).

#include <cstdint>

#include "sim/base/time.h"

namespace efimsim {

struct KvLinkSpec {
  double bytes_per_s = 0;       // the replica's whole link (every TP rank's NIC); 0: no link
  Duration latency{0};          // per transfer, before its first byte
  int64_t bytes_per_token = 0;  // KV of one token over all layers, summed over the replica's GPUs
  bool enabled() const { return bytes_per_s > 0; }
};

struct KvLinkStats {
  int64_t transfers = 0;
  int64_t tokens = 0;
  int64_t bytes = 0;
  Duration time{0};  // sum over transfers of (ready - asked), queueing on the link included
};

class KvLink {
 public:
  // Precondition: spec.enabled().
  explicit KvLink(KvLinkSpec spec);
  // Starts moving `tokens` tokens' KV (>= 1) asked for at `now`; returns
  // when they have all arrived.
  TimePoint StartTransfer(TimePoint now, int64_t tokens);
  const KvLinkStats& stats() const { return stats_; }
  const KvLinkSpec& spec() const { return spec_; }

 private:
  KvLinkSpec spec_;
  TimePoint link_free_{};
  KvLinkStats stats_;
};

}  // namespace efimsim
