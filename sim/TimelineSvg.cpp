#include "sim/TimelineSvg.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>

namespace tlxsim::sim {

std::string xmlEscape(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

namespace {


/// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `count` ticks over `span`.
double tickStep(double span, int count) {
  double raw = span / std::max(1, count);
  double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-12))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw)
      return m * p;
  return 10 * p;
}

std::string fmt(double v, const char *spec) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, v);
  return buffer;
}

/// A row's label and its empty lane at height `y` (the rows of both the timeline and the lane charts).
void writeRowLane(llvm::raw_ostream &os, int y, const std::string &name, int labelW, int plotW, int rowH) {
  os << "<text x=\"0\" y=\"" << y + 13 << "\" class=\"row\">" << xmlEscape(name) << "</text>\n";
  os << "<rect x=\"" << labelW << "\" y=\"" << y + 1 << "\" width=\"" << plotW << "\" height=\"" << rowH - 2
     << "\" class=\"lane\"/>\n";
}

/// The time axis at height `axisY` over `span` units: about 8 ticks, tick t at x = labelW + t * scale * pxPerScaled,
/// labelled `prefix` t `unit`.
void writeTimeAxis(llvm::raw_ostream &os, int labelW, int plotW, int axisY, double span, double scale,
                   double pxPerScaled, const char *prefix, const char *unit) {
  double step = tickStep(span, 8);
  os << "<line x1=\"" << labelW << "\" y1=\"" << axisY << "\" x2=\"" << labelW + plotW << "\" y2=\"" << axisY
     << "\" class=\"axis\"/>\n";
  for (double t = 0; t <= span + 1e-9; t += step) {
    double x = labelW + t * scale * pxPerScaled;
    os << "<line x1=\"" << fmt(x, "%.2f") << "\" y1=\"" << axisY << "\" x2=\"" << fmt(x, "%.2f") << "\" y2=\""
       << axisY + 5 << "\" class=\"axis\"/><text x=\"" << fmt(x, "%.2f") << "\" y=\"" << axisY + 18
       << "\" class=\"tick\">" << prefix << fmt(t, step < 1 ? "%.2f" : "%.0f") << unit << "</text>\n";
  }
}

} // namespace

void writeTimelineSvg(const Timeline &timeline, double clockMhz, llvm::raw_ostream &os, int width) {
  const std::vector<TimelineTrack> &tracks = timeline.tracks();
  // Rows: partitions by (slot, partition order), then unit lanes (units keep their tracks).
  std::map<std::tuple<int, int32_t, int32_t>, int> rowOf; // (0 partition / 1 unit, slot or order, order or lane)
  std::vector<std::string> rowNames;
  std::vector<int> trackRow(tracks.size());
  for (int32_t t : timeline.trackOrder()) {
    const TimelineTrack &tr = tracks[t];
    auto key = tr.kind == TimelineTrack::Partition ? std::make_tuple(0, tr.slot, tr.order)
                                                   : std::make_tuple(1, tr.order, tr.lane);
    rowOf.emplace(key, 0);
  }
  for (auto &[key, row] : rowOf) {
    row = static_cast<int>(rowNames.size());
    rowNames.emplace_back();
  }
  for (size_t t = 0; t < tracks.size(); ++t) {
    const TimelineTrack &tr = tracks[t];
    auto key = tr.kind == TimelineTrack::Partition ? std::make_tuple(0, tr.slot, tr.order)
                                                   : std::make_tuple(1, tr.order, tr.lane);
    trackRow[t] = rowOf[key];
    if (rowNames[trackRow[t]].empty())
      rowNames[trackRow[t]] = tr.kind == TimelineTrack::Partition
                                  ? "slot " + std::to_string(tr.slot) + " " + tr.name
                                  : tr.name;
  }

  const int labelW = 170, rowH = 18, top = 24, axisH = 28;
  const int plotW = std::max(200, width - labelW - 10);
  const int height = top + static_cast<int>(rowNames.size()) * rowH + axisH;
  double end = std::max<double>(1, static_cast<double>(timeline.endCycle()));
  for (const TimelineSlice &s : timeline.sortedSlices())
    end = std::max(end, static_cast<double>(s.end));
  double pxPerCycle = plotW / end;
  double mhz = clockMhz > 0 ? clockMhz : 1;

  os << "<svg class=\"timeline\" width=\"" << width << "\" height=\"" << height
     << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\"timeline of SM "
     << timeline.sm() << "\">\n";
  os << "<text x=\"0\" y=\"14\" class=\"title\">SM " << timeline.sm()
     << ": partitions by CTA slot, then units (hover a bar for details)</text>\n";
  for (size_t r = 0; r < rowNames.size(); ++r) {
    int y = top + static_cast<int>(r) * rowH;
    writeRowLane(os, y, rowNames[r], labelW, plotW, rowH);
  }
  // Slices, merged per (row, kind) when they touch at pixel resolution.
  struct Open {
    double x0 = -1, x1 = -1;
    TimelineSlice::Kind kind{};
    std::string label;
    Cycle cycles = 0;
    int count = 0;
  };
  std::map<std::pair<int, int>, Open> open; // (row, kind) -> bar being extended
  auto flush = [&](int row, Open &o) {
    if (o.count == 0)
      return;
    int y = top + row * rowH + (o.kind == TimelineSlice::BarrierOp ? 4 : 2);
    int h = rowH - (o.kind == TimelineSlice::BarrierOp ? 8 : 4);
    os << "<rect x=\"" << fmt(labelW + o.x0, "%.2f") << "\" y=\"" << y << "\" width=\""
       << fmt(std::max(0.5, o.x1 - o.x0), "%.2f") << "\" height=\"" << h << "\" class=\"" << sliceCssClass(o.kind)
       << "\"><title>" << xmlEscape(o.count == 1 ? o.label : o.label + " and " + std::to_string(o.count - 1) + " more")
       << ": " << o.cycles << " cycles</title></rect>\n";
    o.count = 0;
  };
  for (const TimelineSlice &s : timeline.sortedSlices()) {
    int row = trackRow[s.track];
    double x0 = static_cast<double>(s.start) * pxPerCycle, x1 = static_cast<double>(s.end) * pxPerCycle;
    Open &o = open[{row, static_cast<int>(s.kind)}];
    if (o.count > 0 && x0 <= o.x1 + 0.5) {
      o.x1 = std::max(o.x1, x1);
      o.cycles += s.end - s.start;
      ++o.count;
      continue;
    }
    flush(row, o);
    o = Open{x0, x1, s.kind, s.label, s.end - s.start, 1};
  }
  for (auto &[key, o] : open)
    flush(key.first, o);
  // Where each CTA starts on its slot rows (a thin mark at its first slice).
  std::map<int64_t, std::pair<Cycle, int32_t>> ctaStart; // cta -> (first cycle, slot)
  for (const TimelineSlice &s : timeline.sortedSlices()) {
    const TimelineTrack &tr = tracks[s.track];
    if (tr.kind != TimelineTrack::Partition)
      continue;
    auto [it, inserted] = ctaStart.emplace(tr.cta, std::make_pair(s.start, tr.slot));
    if (!inserted)
      it->second.first = std::min(it->second.first, s.start);
  }
  for (const auto &[cta, start] : ctaStart) {
    int firstRow = -1, lastRow = -1;
    for (const auto &[key, row] : rowOf)
      if (std::get<0>(key) == 0 && std::get<1>(key) == start.second) {
        firstRow = firstRow < 0 ? row : std::min(firstRow, row);
        lastRow = std::max(lastRow, row);
      }
    double x = labelW + static_cast<double>(start.first) * pxPerCycle;
    os << "<line x1=\"" << fmt(x, "%.2f") << "\" y1=\"" << top + firstRow * rowH << "\" x2=\"" << fmt(x, "%.2f")
       << "\" y2=\"" << top + (lastRow + 1) * rowH << "\" class=\"ctastart\"><title>CTA " << cta << " starts (slot "
       << start.second << ", cycle " << start.first << ")</title></line>\n";
  }
  // Time axis in microseconds.
  writeTimeAxis(os, labelW, plotW, top + static_cast<int>(rowNames.size()) * rowH, end / mhz, mhz, pxPerCycle, "",
                " us");
  os << "</svg>\n";
}

void writeLaneChartSvg(const LaneChart &chart, llvm::raw_ostream &os, int width, double axisSpan) {
  const int labelW = 170, rowH = 18, top = 24, axisH = 28;
  const int plotW = std::max(200, width - labelW - 10);
  const int height = top + static_cast<int>(chart.rows.size()) * rowH + axisH;
  double span = std::max({1e-9, chart.window.to - chart.window.from, axisSpan});
  double pxPerUnit = plotW / span;
  bool cycles = chart.unit == "cycles";
  os << "<svg class=\"timeline\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
     << height << "\" role=\"img\" aria-label=\"" << xmlEscape(chart.title) << "\">\n";
  os << "<text x=\"0\" y=\"14\" class=\"title\">" << xmlEscape(chart.title) << "</text>\n";
  for (size_t r = 0; r < chart.rows.size(); ++r) {
    int y = top + static_cast<int>(r) * rowH;
    writeRowLane(os, y, chart.rows[r].name, labelW, plotW, rowH);
    for (const ChartSpan &sp : chart.rows[r].spans) {
      double x0 = (sp.start - chart.window.from) * pxPerUnit, x1 = (sp.end - chart.window.from) * pxPerUnit;
      bool thin = sp.cls == "barop";
      os << "<rect x=\"" << fmt(labelW + x0, "%.2f") << "\" y=\"" << y + (thin ? 4 : 2) << "\" width=\""
         << fmt(std::max(0.5, x1 - x0), "%.2f") << "\" height=\"" << rowH - (thin ? 8 : 4) << "\" class=\"" << sp.cls
         << "\"><title>" << xmlEscape(sp.label) << ": " << fmt((sp.end - sp.start) * (cycles ? 1 : 1e3), "%.0f")
         << (cycles ? " cycles" : " ns") << "</title></rect>\n";
    }
  }
  writeTimeAxis(os, labelW, plotW, top + static_cast<int>(chart.rows.size()) * rowH, span, pxPerUnit, 1.0, "+",
                cycles ? " cyc" : " us");
  os << "</svg>\n";
}

void writeWaitHistogramSvg(const WaitHistogram &h, llvm::raw_ostream &os) {
  const int barW = 22, chartH = 90, top = 8, bottom = 34, left = 36;
  size_t n = std::max<size_t>(h.buckets.size(), 1);
  int width = std::max(190, left + static_cast<int>(n) * barW + 10);
  uint64_t peak = std::max<uint64_t>(1, h.buckets.empty() ? 1 : *std::max_element(h.buckets.begin(), h.buckets.end()));
  os << "<svg class=\"hist\" width=\"" << width << "\" height=\""
     << top + chartH + bottom << "\" role=\"img\" aria-label=\"wait histogram of " << xmlEscape(h.barrier) << "\">\n";
  os << "<text x=\"0\" y=\"" << top + 10 << "\" class=\"tick\">" << peak << "</text>\n";
  for (size_t b = 0; b < h.buckets.size(); ++b) {
    double bh = chartH * static_cast<double>(h.buckets[b]) / static_cast<double>(peak);
    int x = left + static_cast<int>(b) * barW;
    std::string range = b == 0 ? "0 (passed)"
                               : std::to_string(uint64_t(1) << (b - 1)) + "-" + std::to_string((uint64_t(1) << b) - 1);
    os << "<rect x=\"" << x + 2 << "\" y=\"" << fmt(top + chartH - bh, "%.2f") << "\" width=\"" << barW - 4
       << "\" height=\"" << fmt(std::max(bh, h.buckets[b] ? 1.0 : 0.0), "%.2f") << "\" class=\""
       << (b == 0 ? "pass" : "barwait") << "\"><title>" << range << " cycles: " << h.buckets[b]
       << " waits</title></rect>\n";
    if (b % 2 == 0)
      os << "<text x=\"" << x + barW / 2 << "\" y=\"" << top + chartH + 14 << "\" class=\"tick\" text-anchor=\"middle\">"
         << (b == 0 ? std::string("0") : "2^" + std::to_string(b - 1)) << "</text>\n";
  }
  os << "<text x=\"" << left << "\" y=\"" << top + chartH + 30 << "\" class=\"tick\">wait cycles (log2 buckets)</text>\n";
  os << "</svg>\n";
}

} // namespace tlxsim::sim
