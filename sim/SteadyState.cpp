#include "sim/SteadyState.h"

#include <algorithm>
#include <limits>
#include <map>

namespace tlxsim::sim {

namespace {

/// "wait ready[2]" -> "wait ready": the barrier array, not its slot, repeats once per iteration.
std::string stem(const std::string &label) { return label.substr(0, label.find('[')); }


/// Appends `span` to `row` clipped to `w`, if it overlaps it.
void addClipped(ChartRow &row, const TimeWindow &w, double start, double end, std::string cls, std::string label) {
  if (end < w.from || start > w.to)
    return;
  row.spans.push_back(ChartSpan{std::max(start, w.from), std::min(end, w.to), std::move(cls), std::move(label)});
}

} // namespace

TimeWindow steadyWindow(const std::vector<std::pair<std::string, std::vector<double>>> &starts, int iterations,
                        double begin, double end) {
  const std::pair<std::string, std::vector<double>> *best = nullptr;
  for (const auto &entry : starts)
    if (!best || entry.second.size() > best->second.size())
      best = &entry;
  int n = iterations < 1 ? 1 : iterations;
  if (!best || best->second.size() < 2)
    return TimeWindow{begin, end, "the whole CTA (no wait repeats)"};
  const std::vector<double> &t = best->second;
  size_t from = t.size() / 2;
  if (from + 1 >= t.size())
    from = t.size() - 2;
  size_t to = std::min(t.size() - 1, from + static_cast<size_t>(n));
  return TimeWindow{t[from], t[to],
                    std::to_string(to - from) + " iteration" + (to - from == 1 ? "" : "s") + " of " + best->first +
                        " from its occurrence " + std::to_string(from + 1) + " of " + std::to_string(t.size())};
}

LaneChart predictedSteadyState(const Timeline &timeline, int iterations) {
  LaneChart chart;
  const std::vector<TimelineTrack> &tracks = timeline.tracks();
  std::vector<TimelineSlice> slices = timeline.sortedSlices();
  // The first CTA on the SM: its earliest partition slice.
  int64_t cta = -1;
  Cycle first = std::numeric_limits<Cycle>::max();
  for (const TimelineSlice &s : slices) {
    const TimelineTrack &t = tracks[s.track];
    if (t.kind == TimelineTrack::Partition && (s.start < first || (s.start == first && t.cta < cta))) {
      first = s.start;
      cta = t.cta;
    }
  }
  if (cta < 0)
    return chart;
  std::map<std::pair<int32_t, std::string>, std::vector<double>> waits; // (track, wait stem) -> starts
  double begin = std::numeric_limits<double>::infinity(), end = 0;
  for (const TimelineSlice &s : slices) {
    const TimelineTrack &t = tracks[s.track];
    if (t.kind != TimelineTrack::Partition || t.cta != cta)
      continue;
    begin = std::min(begin, static_cast<double>(s.start));
    end = std::max(end, static_cast<double>(s.end));
    bool wait = s.kind == TimelineSlice::BarrierWait ||
                (s.kind == TimelineSlice::BarrierOp && s.label.rfind("wait ", 0) == 0);
    if (wait)
      waits[{s.track, stem(s.label)}].push_back(static_cast<double>(s.start));
  }
  std::vector<std::pair<std::string, std::vector<double>>> starts;
  for (auto &[key, times] : waits) {
    std::sort(times.begin(), times.end());
    starts.emplace_back("'" + key.second + "' on " + tracks[key.first].name, std::move(times));
  }
  chart.window = steadyWindow(starts, iterations, begin, end);
  chart.title = "Predicted: CTA " + std::to_string(cta) + " on SM " + std::to_string(timeline.sm()) + ", " +
                chart.window.basis;
  std::map<int32_t, size_t> rowOf;
  for (int32_t t : timeline.trackOrder()) {
    const TimelineTrack &track = tracks[t];
    if (track.kind == TimelineTrack::Partition && track.cta != cta)
      continue;
    rowOf[t] = chart.rows.size();
    chart.rows.push_back(ChartRow{track.kind == TimelineTrack::Partition ? track.name : "SM " + track.name, {}});
  }
  for (const TimelineSlice &s : slices)
    if (auto it = rowOf.find(s.track); it != rowOf.end() && s.depth == 0)
      addClipped(chart.rows[it->second], chart.window, static_cast<double>(s.start), static_cast<double>(s.end),
                 sliceCssClass(s.kind), s.label);
  return chart;
}

LaneChart measuredSteadyState(const MeasuredTimeline &measured, int iterations) {
  LaneChart chart;
  std::map<std::pair<int32_t, std::string>, std::vector<double>> waits; // (warp, scope) -> starts (sorted)
  for (const MeasuredScope &s : measured.scopes)
    waits[{s.warp, s.name}].push_back(s.start);
  std::vector<std::pair<std::string, std::vector<double>>> starts;
  for (auto &[key, times] : waits)
    starts.emplace_back("'" + key.second + "' on warp " + std::to_string(key.first), std::move(times));
  chart.unit = measured.inCycles ? "cycles" : "us";
  chart.window = steadyWindow(starts, iterations, measured.begin, measured.end);
  chart.title = "Measured (Proton): " + measured.cta + ", " + chart.window.basis;
  std::map<int32_t, size_t> rowOf;
  for (const MeasuredScope &s : measured.scopes) {
    auto [it, inserted] = rowOf.emplace(s.warp, chart.rows.size());
    if (inserted)
      chart.rows.push_back(ChartRow{"warp " + std::to_string(s.warp), {}});
    const char *cls = s.name == "wgmma_wait" ? "asyncwait" : s.name.rfind("wait", 0) == 0 ? "barwait" : "issue";
    addClipped(chart.rows[it->second], chart.window, s.start, s.end, cls, s.name);
  }
  return chart;
}

} // namespace tlxsim::sim
