#pragma once
// A table of measured times over one or two integer keys, and its lookup.
//
// Points are grouped in rows by the first key x (for 1-key tables there is
// one row); each row is a curve over the second key y. Inside the grid the
// lookup is piecewise: along y within the two rows that bracket x, then
// along x between them, either
//   linear:  time linear in key, or
//   log-log: log(time) linear in log(key + offset)
// per axis (offset 0 for token counts, which start at 1; offset 1 for
// context lengths, which may be 0). Either way measured points are
// reproduced exactly and, between two points, the time is monotone in each
// key. A profile says which it uses (models/PROFILE.md, "interpolation").
//
// Outside the grid (a key beyond its row's or the table's range) the value
// at the nearest edge is scaled by the ratio of a fitted model, value(edge)
// x fit(query) / fit(edge): the fit's shape beyond the grid, anchored to the
// measurement at the edge so that there is no jump there. Such lookups are
// flagged as extrapolated.
//
// Lookups memoize rows' values at integer keys (the same bits as computing
// them again), so a table is not safe to look up from two threads at once:
// each run builds its own.

#include <cstdint>
#include <functional>
#include <vector>

namespace efimsim {

enum class Interpolation : uint8_t { kLogLog, kLinear };
const char* InterpolationName(Interpolation interpolation);  // "log-log", "linear"

struct TableLookup {
  double seconds = 0;
  bool extrapolated = false;
};

class ProfileTable {
 public:
  struct Point {
    double x = 0;  // first key (row); any constant for 1-key tables
    double y = 0;  // second key
    double seconds = 0;
  };
  // Fitted model used beyond the grid: seconds at (x, y), > 0.
  using Fit = std::function<double(double x, double y)>;

  // Precondition: points sorted by (x, y), unique, seconds > 0, keys >= 0,
  // and key + offset > 0.
  ProfileTable(const std::vector<Point>& points, double x_offset, double y_offset, Fit fit,
               Interpolation interpolation = Interpolation::kLogLog);

  TableLookup Lookup(double x, double y) const;

  // Many lookups at one x (a step's decodes all share the batch size): the
  // rows bracketing x are found once. Lookup(At(x), y) == Lookup(x, y), bit
  // for bit.
  struct AtX {
    double x = 0;
    double x_edge = 0;
    size_t hi = 0;        // row index of the upper bracket (== lo when x_edge is a row)
    bool on_row = false;  // x_edge is a row's x
    double t = 0;         // between rows: x_edge's place between them (BetweenT)
  };
  AtX At(double x) const;
  // Inline: a step's decode lookups at a batch size inside the grid, at
  // contexts asked before, take only the remembered values of its rows.
  TableLookup Lookup(const AtX& at, double y) const { return LookupRemembered(at, MemoIndex(y), y); }
  // The same for an integer key (a context length), bit for bit: the
  // remembered values are indexed by the integer itself, without the
  // round trip through a double that a double key needs.
  TableLookup Lookup(const AtX& at, int64_t y) const {
    return LookupRemembered(at, MemoIndex(y), static_cast<double>(y));
  }

  // A decode step's many lookups at one x, at integer keys: the two rows'
  // remembered values and everything that does not depend on the key,
  // resolved once (Remembering), so that each key costs two loads and the
  // interpolation (FindRemembered). Stale once the table is looked up by
  // any other call (a miss grows a row's memo): take a fresh one then.
  struct RememberedAt {
    const double* lo = nullptr;  // the lower row's memo (the row's own, on a row)
    const double* hi = nullptr;  // the upper row's memo
    size_t size = 0;             // entries both memos hold; 0 outside the grid's x
    double t = 0;                // between rows: AtX::t
    double y_min = 0;            // keys in [y_min, y_max] are inside both rows
    double y_max = 0;
    bool on_row = false;
  };
  RememberedAt Remembering(const AtX& at) const;
  // Lookup(at, y) (`view` = Remembering(at)) where both rows remember y:
  // the same bits, into `out`. False, `out` untouched, where they do not.
  bool FindRemembered(const RememberedAt& view, int64_t y, TableLookup& out) const {
    if (y < 0 || static_cast<uint64_t>(y) >= view.size) return false;
    const double b = view.hi[y];
    const double a = view.lo[y];
    if (b != b || a != a) return false;  // NaN: not yet remembered
    const double key = static_cast<double>(y);
    const bool outside = key < view.y_min || key > view.y_max;
    if (view.on_row) {
      out = {b, outside};
    } else {
      out = {BetweenAt(a, b, view.t), outside};
    }
    return true;
  }
  // Starts loading what FindRemembered(view, y) will read. A hint for
  // loops over a batch: a decode step reads one value per request,
  // scattered over rows of up to 512 KiB that the rest of a step pushes out
  // of the core's caches. Changes nothing. Always inline: GCC drops the
  // call of a function whose only effect is a prefetch.
  [[gnu::always_inline]] static void Prefetch(const RememberedAt& view, int64_t y) {
    if (y < 0 || static_cast<uint64_t>(y) >= view.size) return;
    __builtin_prefetch(view.hi + y);
    __builtin_prefetch(view.lo + y);
  }

 private:
  struct Row {
    double x = 0;
    std::vector<double> y;
    std::vector<double> seconds;  // as measured: returned as-is at grid points
    // RowLookup's seconds at integer y in [0, memo.size()), NaN where not
    // yet asked: a decode step looks up every request's context, and the
    // same contexts come back step after step. Grown on demand up to
    // kMemoLimit entries (512 KiB a row; keys beyond it are computed each
    // time).
    mutable std::vector<double> memo;
  };
  static constexpr size_t kMemoLimit = size_t{1} << 16;
  static constexpr size_t kNotRemembered = static_cast<size_t>(-1);
  // y's entry in a row's memo: y itself when it is an integer in [0,
  // kMemoLimit), else kNotRemembered.
  static size_t MemoIndex(double y) {
    if (!(y >= 0 && y < static_cast<double>(kMemoLimit))) return kNotRemembered;
    const auto index = static_cast<size_t>(y);
    return static_cast<double>(index) == y ? index : kNotRemembered;
  }
  // The same for an integer key.
  static size_t MemoIndex(int64_t y) {
    return y >= 0 && y < static_cast<int64_t>(kMemoLimit) ? static_cast<size_t>(y) : kNotRemembered;
  }
  // The remembered RowLookup(row, y).seconds, or null, where `index` is
  // MemoIndex(y).
  static const double* Remembered(const Row& row, size_t index) {
    if (index >= row.memo.size()) return nullptr;  // kNotRemembered included
    const double* seconds = &row.memo[index];
    return *seconds == *seconds ? seconds : nullptr;  // NaN: not yet
  }
  // Lookup(at, y), where `index` is MemoIndex(y): the rows' remembered
  // values when the batch size is inside the grid and they are there,
  // else computed (and remembered) by LookupFrom.
  TableLookup LookupRemembered(const AtX& at, size_t index, double y) const {
    if (at.x_edge == at.x) {
      const Row& hi = rows_[at.hi];
      if (at.on_row) {
        if (const double* seconds = Remembered(hi, index)) return {*seconds, Outside(hi, y)};
      } else {
        const Row& lo = rows_[at.hi - 1];
        const double* a = Remembered(lo, index);
        const double* b = a != nullptr ? Remembered(hi, index) : nullptr;
        if (b != nullptr) return {BetweenAt(*a, *b, at.t), Outside(lo, y) || Outside(hi, y)};
      }
    }
    return LookupFrom(at, y);
  }
  static bool Outside(const Row& row, double y) { return y < row.y.front() || y > row.y.back(); }
  TableLookup LookupFrom(const AtX& at, double y) const;
  TableLookup RowLookup(const Row& row, double y) const;
  TableLookup ComputeRowLookup(const Row& row, double y) const;
  double Scale(double x_from, double y_from, double x_to, double y_to) const;
  // The value at `key` between a (measured at ka) and b (at kb), ka < key <
  // kb, by the table's interpolation; keys include the axis' offset.
  double Between(double a, double b, double ka, double kb, double key) const {
    return BetweenAt(a, b, BetweenT(ka, kb, key));
  }
  // Between's two halves: the key's place t between ka and kb, and the
  // value at t between a and b.
  double BetweenT(double ka, double kb, double key) const;
  // Inline: a decode step interpolates one value per request.
  double BetweenAt(double a, double b, double t) const {
    if (interpolation_ == Interpolation::kLinear) return a + t * (b - a);
    return BetweenAtLogLog(a, b, t);
  }
  double BetweenAtLogLog(double a, double b, double t) const;

  std::vector<Row> rows_;
  double x_offset_;
  double y_offset_;
  Fit fit_;
  Interpolation interpolation_;
};

}  // namespace efimsim
