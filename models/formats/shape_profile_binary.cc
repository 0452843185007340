#include "models/formats/shape_profile_binary.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "sim/base/check.h"

namespace efimsim {
namespace {

constexpr std::string_view kMagic = "efimsim-shape-profile/compact-1\n";

// Appends fields (Value) and lists (Items) to `out`.
class Encoder {
 public:
  explicit Encoder(std::string& out) : out_(out) {}

  void Value(int64_t& v) { Bytes(&v); }
  void Value(double& v) { Bytes(&v); }
  void Value(bool& v) { out_.push_back(v ? '\1' : '\0'); }
  void Value(std::string& s) {
    Count(s.size());
    out_.append(s);
  }
  template <typename T>
  void Items(std::vector<T>& items) {
    Count(items.size());
    for (T& item : items) Fields(*this, item);
  }

 private:
  template <typename T>
  void Bytes(const T* v) {
    static_assert(sizeof(T) == 8 && std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(v), sizeof(T));
  }
  void Count(size_t n) {
    int64_t count = static_cast<int64_t>(n);
    Bytes(&count);
  }
  std::string& out_;
};

// Reads fields and lists back in the order the Encoder wrote them.
class Decoder {
 public:
  Decoder(std::string_view bytes, const std::string& origin) : bytes_(bytes), origin_(origin) {}

  void Value(int64_t& v) { Bytes(&v); }
  void Value(double& v) { Bytes(&v); }
  void Value(bool& v) {
    Need(1);
    v = bytes_[at_++] != '\0';
  }
  void Value(std::string& s) {
    const size_t n = Count();
    s.assign(bytes_.substr(at_, n));
    at_ += n;
  }
  template <typename T>
  void Items(std::vector<T>& items) {
    items.resize(Count());
    for (T& item : items) Fields(*this, item);
  }
  // Measured points, most of a profile's bytes: their fields were written
  // in declaration order, 8 bytes each, which is their layout in memory, so
  // a list is copied whole (the same values as field by field).
  void Items(std::vector<ProfilePoint>& items) { Raw(items); }
  void Items(std::vector<AttentionPoint>& items) { Raw(items); }

  void Magic() {
    Need(kMagic.size());
    if (bytes_.substr(0, kMagic.size()) != kMagic) Fail("not a compact shape profile");
    at_ = kMagic.size();
  }
  void End() const {
    if (at_ != bytes_.size()) Fail("bytes left over after the profile");
  }

 private:
  [[noreturn]] void Fail(const std::string& problem) const {
    throw InternalError(origin_ + ": compact form at byte " + std::to_string(at_) + ": " + problem);
  }
  void Need(size_t n) const {
    if (n > bytes_.size() - at_) Fail("truncated");
  }
  template <typename T>
  void Bytes(T* v) {
    static_assert(sizeof(T) == 8 && std::is_trivially_copyable_v<T>);
    Need(sizeof(T));
    std::memcpy(v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
  }
  template <typename T>
  void Raw(std::vector<T>& items) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0 && alignof(T) == 8);
    const size_t n = Count();
    if (n > (bytes_.size() - at_) / sizeof(T)) Fail("count out of range");
    items.resize(n);
    if (n > 0) std::memcpy(items.data(), bytes_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
  }
  // A count of items, each at least one byte: never beyond the bytes left.
  size_t Count() {
    int64_t n = 0;
    Bytes(&n);
    if (n < 0 || static_cast<uint64_t>(n) > bytes_.size() - at_) Fail("count out of range");
    return static_cast<size_t>(n);
  }

  std::string_view bytes_;
  const std::string& origin_;
  size_t at_ = 0;
};

// The one list of fields, in declaration order, for both directions.
// Decoder::Raw copies lists of points whole: their fields must stay 8-byte
// values without padding, in this order.
static_assert(sizeof(ProfilePoint) == 16 && offsetof(ProfilePoint, time_us) == 8);
static_assert(sizeof(AttentionPoint) == 24 && offsetof(AttentionPoint, context_tokens) == 8 &&
              offsetof(AttentionPoint, time_us) == 16);
template <typename Io>
void Fields(Io& io, ProfilePoint& p) {
  io.Value(p.key);
  io.Value(p.time_us);
}
template <typename Io>
void Fields(Io& io, AttentionPoint& p) {
  io.Value(p.rows);
  io.Value(p.context_tokens);
  io.Value(p.time_us);
}
template <typename Io>
void Fields(Io& io, ProfileSourceFile& f) {
  io.Value(f.path);
  io.Value(f.sha256);
}
template <typename Io>
void Fields(Io& io, ShapeHeads& h) {
  io.Value(h.q_heads);
  io.Value(h.kv_heads);
  io.Value(h.head_dim);
}
template <typename Io>
void Fields(Io& io, ShapeGemmTable& t) {
  io.Value(t.n);
  io.Value(t.k);
  io.Items(t.points);
}
template <typename Io>
void Fields(Io& io, ShapeGemmDtype& d) {
  io.Value(d.dtype);
  io.Value(d.kernels);
  io.Items(d.tables);
}
template <typename Io>
void Fields(Io& io, ShapePrefillTable& t) {
  Fields(io, t.heads);
  io.Items(t.points);
}
template <typename Io>
void Fields(Io& io, ShapeDecodeTable& t) {
  Fields(io, t.heads);
  io.Items(t.points);
}
template <typename Io>
void Fields(Io& io, ShapeAllReduceTable& t) {
  io.Value(t.gpus);
  io.Items(t.points);
}
template <typename Io>
void Fields(Io& io, ShapeMoeTable& t) {
  io.Value(t.key.dtype);
  io.Value(t.key.hidden);
  io.Value(t.key.inter);
  io.Value(t.key.topk);
  io.Value(t.key.experts);
  io.Value(t.key.tp);
  io.Value(t.key.ep);
  io.Value(t.key.distribution);
  io.Value(t.kernel);
  io.Value(t.includes_router);
  io.Items(t.points);
}
template <typename Io>
void Fields(Io& io, ShapeMlaAttention& m) {
  io.Value(m.kv_cache_dtype);
  io.Value(m.kv_lora_rank);
  io.Value(m.qk_rope_head_dim);
  io.Value(m.qk_nope_head_dim);
  io.Value(m.v_head_dim);
  io.Value(m.kernel);
  io.Items(m.prefill);
  io.Items(m.decode);
}
template <typename Io>
void Fields(Io& io, ShapeProfile& p) {
  io.Value(p.gpu);
  io.Value(p.engine);
  io.Value(p.command);
  io.Value(p.source.kind);
  io.Value(p.source.stack);
  io.Value(p.source.method);
  io.Items(p.source.files);
  io.Value(p.device);
  io.Value(p.measured_on);
  io.Value(p.ceilings.bf16_flops_per_second);
  io.Value(p.ceilings.memory_bytes_per_second);
  io.Value(p.ceilings.fp8_flops_per_second);
  io.Value(p.elementwise.memory_bytes_per_second);
  io.Value(p.elementwise.bandwidth_fraction);
  io.Value(p.elementwise.constant_us);
  io.Items(p.gemm);
  io.Items(p.prefill_attention);
  io.Items(p.decode_attention);
  io.Items(p.all_reduce);
  io.Items(p.gemm_fp8);
  io.Items(p.prefill_attention_fp8kv);
  io.Items(p.decode_attention_fp8kv);
  io.Items(p.moe);
  io.Items(p.mla);
}

}  // namespace

std::string EncodeShapeProfile(const ShapeProfile& profile) {
  ShapeProfile copy = profile;  // the field list takes mutable references
  std::string out(kMagic);
  Encoder encoder(out);
  Fields(encoder, copy);
  return out;
}

ShapeProfile DecodeShapeProfile(std::string_view bytes, const std::string& origin) {
  Decoder decoder(bytes, origin);
  decoder.Magic();
  ShapeProfile profile;
  Fields(decoder, profile);
  decoder.End();
  profile.origin = origin;
  return profile;
}

}  // namespace efimsim
