#include "models/formats/profile_table.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/base/check.h"

namespace efimsim {

const char* InterpolationName(Interpolation interpolation) {
  return interpolation == Interpolation::kLinear ? "linear" : "log-log";
}

ProfileTable::ProfileTable(const std::vector<Point>& points, double x_offset, double y_offset,
                           Fit fit, Interpolation interpolation)
    : x_offset_(x_offset), y_offset_(y_offset), fit_(std::move(fit)),
      interpolation_(interpolation) {
  EFIMSIM_CHECK(!points.empty(), "a profile table has points");
  for (const Point& p : points) {
    EFIMSIM_CHECK(p.seconds > 0 && p.x + x_offset > 0 && p.y + y_offset > 0,
                  "profile points are positive");
    if (rows_.empty() || rows_.back().x != p.x) {
      EFIMSIM_CHECK(rows_.empty() || rows_.back().x < p.x, "profile points sorted by x");
      Row row;
      row.x = p.x;
      rows_.push_back(row);
    }
    Row& row = rows_.back();
    EFIMSIM_CHECK(row.y.empty() || row.y.back() < p.y, "profile points sorted by y, unique");
    row.y.push_back(p.y);
    row.seconds.push_back(p.seconds);
  }
}

double ProfileTable::BetweenT(double ka, double kb, double key) const {
  if (interpolation_ == Interpolation::kLinear) return (key - ka) / (kb - ka);
  return (std::log(key) - std::log(ka)) / (std::log(kb) - std::log(ka));
}

double ProfileTable::BetweenAtLogLog(double a, double b, double t) const {
  return std::exp(std::log(a) + t * (std::log(b) - std::log(a)));
}

// fit(to) / fit(from), or 1 when the fit cannot say (a zero).
double ProfileTable::Scale(double x_from, double y_from, double x_to, double y_to) const {
  const double from = fit_(x_from, y_from);
  const double to = fit_(x_to, y_to);
  return from > 0 && to > 0 ? to / from : 1.0;
}

TableLookup ProfileTable::RowLookup(const Row& row, double y) const {
  const size_t index = MemoIndex(y);
  if (const double* seconds = Remembered(row, index)) return {*seconds, Outside(row, y)};
  const TableLookup out = ComputeRowLookup(row, y);
  if (index == kNotRemembered) return out;
  if (index >= row.memo.size()) {
    row.memo.resize(std::min(kMemoLimit, std::max<size_t>(index + 1, 2 * row.memo.size())),
                    std::numeric_limits<double>::quiet_NaN());
  }
  row.memo[index] = out.seconds;
  return out;
}

TableLookup ProfileTable::ComputeRowLookup(const Row& row, double y) const {
  const double y_edge = std::clamp(y, row.y.front(), row.y.back());
  double seconds = row.seconds.front();
  if (row.y.size() > 1) {
    const size_t hi = static_cast<size_t>(
        std::upper_bound(row.y.begin(), row.y.end(), y_edge) - row.y.begin());
    if (hi >= row.y.size()) {
      seconds = row.seconds.back();
    } else if (hi > 0) {
      const size_t lo = hi - 1;
      if (row.y[lo] == y_edge) {
        seconds = row.seconds[lo];  // a measured point: exactly its value
      } else {
        seconds = Between(row.seconds[lo], row.seconds[hi], row.y[lo] + y_offset_,
                          row.y[hi] + y_offset_, y_edge + y_offset_);
      }
    }
  }
  TableLookup out{seconds, false};
  if (y_edge != y) {
    out.seconds *= Scale(row.x, y_edge, row.x, y);
    out.extrapolated = true;
  }
  return out;
}

ProfileTable::AtX ProfileTable::At(double x) const {
  AtX at;
  at.x = x;
  at.x_edge = std::clamp(x, rows_.front().x, rows_.back().x);
  const auto hi_it = std::lower_bound(rows_.begin(), rows_.end(), at.x_edge,
                                      [](const Row& row, double value) { return row.x < value; });
  at.hi = static_cast<size_t>(hi_it - rows_.begin());
  at.on_row = hi_it->x == at.x_edge;
  if (!at.on_row) at.t = BetweenT(rows_[at.hi - 1].x + x_offset_, hi_it->x + x_offset_, at.x_edge + x_offset_);
  return at;
}

TableLookup ProfileTable::Lookup(double x, double y) const { return Lookup(At(x), y); }

ProfileTable::RememberedAt ProfileTable::Remembering(const AtX& at) const {
  RememberedAt view;
  // LookupRemembered's conditions for its remembered path: a batch size
  // inside the grid (else every lookup is scaled), the rows' values as
  // remembered.
  if (at.x_edge != at.x) return view;
  const Row& hi = rows_[at.hi];
  const Row& lo = at.on_row ? hi : rows_[at.hi - 1];
  view.lo = lo.memo.data();
  view.hi = hi.memo.data();
  view.size = std::min(lo.memo.size(), hi.memo.size());
  view.t = at.t;
  // Outside(lo, y) || Outside(hi, y).
  view.y_min = std::max(lo.y.front(), hi.y.front());
  view.y_max = std::min(lo.y.back(), hi.y.back());
  view.on_row = at.on_row;
  return view;
}

TableLookup ProfileTable::LookupFrom(const AtX& at, double y) const {
  TableLookup out;
  if (at.on_row) {
    out = RowLookup(rows_[at.hi], y);
  } else {
    const Row& hi = rows_[at.hi];
    const Row& lo = rows_[at.hi - 1];
    const TableLookup a = RowLookup(lo, y);
    const TableLookup b = RowLookup(hi, y);
    out.seconds = Between(a.seconds, b.seconds, lo.x + x_offset_, hi.x + x_offset_, at.x_edge + x_offset_);
    out.extrapolated = a.extrapolated || b.extrapolated;
  }
  if (at.x_edge != at.x) {
    out.seconds *= Scale(at.x_edge, y, at.x, y);
    out.extrapolated = true;
  }
  return out;
}

}  // namespace efimsim
