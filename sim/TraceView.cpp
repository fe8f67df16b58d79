#include "sim/TraceView.h"

#include "llvm/Support/JSON.h"

#include <cmath>

namespace tlxsim::sim {

namespace {

const char *category(TimelineSlice::Kind kind) {
  switch (kind) {
  case TimelineSlice::Issue: return "issue";
  case TimelineSlice::BarrierOp: return "barrier";
  case TimelineSlice::BarrierWait: return "wait";
  case TimelineSlice::AsyncWait: return "wait";
  case TimelineSlice::Mma: return "mma";
  case TimelineSlice::TmaLoad: return "tma";
  case TimelineSlice::TmaStore: return "tma";
  }
  return "other";
}

} // namespace

void writeChromeTrace(const Timeline &timeline, const TraceInfo &info, llvm::raw_ostream &os,
                      const TraceOverlay &overlay) {
  const Program &program = timeline.program();
  const std::vector<TimelineTrack> &tracks = timeline.tracks();
  std::vector<int32_t> order = timeline.trackOrder();
  std::vector<TimelineSlice> slices = timeline.sortedSlices();
  std::vector<TimelineFlow> flows = timeline.sortedFlows();
  double mhz = info.clockMhz > 0 ? info.clockMhz : 1;
  // Microseconds, rounded to 0.1 ns so that the text does not depend on float printing details.
  auto us = [&](double cycles) { return std::round(cycles / mhz * 1e4) / 1e4; };

  // pid 1: the SM's units; pid 2, 3, ...: the CTAs in order of first appearance.
  std::vector<int32_t> pid(tracks.size()), tid(tracks.size());
  std::vector<int64_t> ctas;
  std::vector<int32_t> ctaSlot;
  for (int32_t t : order) {
    const TimelineTrack &track = tracks[t];
    if (track.kind == TimelineTrack::Unit) {
      pid[t] = 1;
      tid[t] = 1 + track.order * 1000 + track.lane;
      continue;
    }
    auto it = std::find(ctas.begin(), ctas.end(), track.cta);
    if (it == ctas.end()) {
      ctas.push_back(track.cta);
      ctaSlot.push_back(track.slot);
      it = std::prev(ctas.end());
    }
    pid[t] = 2 + static_cast<int32_t>(it - ctas.begin());
    tid[t] = 1 + track.order;
  }

  llvm::json::OStream j(os, 0);
  j.objectBegin();
  j.attribute("displayTimeUnit", "ns");
  j.attributeObject("otherData", [&] {
    j.attribute("tool", "tlx-sim trace");
    j.attribute("kernel", info.kernel);
    j.attribute("model", info.model);
    j.attribute("sm", timeline.sm());
    j.attribute("clock_mhz", info.clockMhz);
    j.attribute("cycles", static_cast<int64_t>(info.cycles));
    j.attribute("time_unit", "microseconds at the simulated SM clock; args hold cycles");
  });
  j.attributeArray("traceEvents", [&] {
    auto meta = [&](const char *name, int32_t p, int32_t t, const std::string &key, llvm::json::Value value) {
      j.object([&] {
        j.attribute("name", name);
        j.attribute("ph", "M");
        j.attribute("pid", p);
        if (t >= 0)
          j.attribute("tid", t);
        j.attributeObject("args", [&] { j.attribute(key, std::move(value)); });
      });
    };
    meta("process_name", 1, -1, "name", "SM " + std::to_string(timeline.sm()) + " units");
    meta("process_sort_index", 1, -1, "sort_index", 0);
    for (size_t i = 0; i < ctas.size(); ++i) {
      int32_t p = 2 + static_cast<int32_t>(i);
      meta("process_name", p, -1, "name",
           "CTA " + std::to_string(ctas[i]) + " (SM " + std::to_string(timeline.sm()) + ", slot " +
               std::to_string(ctaSlot[i]) + ")");
      meta("process_sort_index", p, -1, "sort_index", p);
    }
    for (int32_t t : order) {
      const TimelineTrack &track = tracks[t];
      std::string name = track.name;
      if (track.kind == TimelineTrack::Partition)
        name += " (" + std::to_string(track.numWarps) + (track.numWarps == 1 ? " warp)" : " warps)");
      meta("thread_name", pid[t], tid[t], "name", name);
      meta("thread_sort_index", pid[t], tid[t], "sort_index", tid[t]);
    }
    for (const TimelineSlice &s : slices) {
      j.object([&] {
        j.attribute("name", s.label);
        j.attribute("cat", category(s.kind));
        j.attribute("ph", "X");
        j.attribute("ts", us(static_cast<double>(s.start)));
        j.attribute("dur", std::round((us(static_cast<double>(s.end)) - us(static_cast<double>(s.start))) * 1e4) / 1e4);
        j.attribute("pid", pid[s.track]);
        j.attribute("tid", tid[s.track]);
        j.attributeObject("args", [&] {
          j.attribute("start_cycle", static_cast<int64_t>(s.start));
          j.attribute("cycles", static_cast<int64_t>(s.end - s.start));
          if (s.loc >= 0 && s.loc < static_cast<int32_t>(program.locs.size()))
            j.attribute("loc", program.locs[s.loc].str());
          if (s.bytes)
            j.attribute("bytes", s.bytes);
          if (s.flops)
            j.attribute("flops", s.flops);
        });
      });
    }
    if (const MeasuredTimeline *m = overlay.measured) {
      // pid 0: after the units and CTAs in the viewer's sort order (sort index below); a thread per warp.
      const int32_t p = 0;
      meta("process_name", p, -1, "name", "measured (Proton): " + m->cta);
      meta("process_sort_index", p, -1, "sort_index", static_cast<int64_t>(ctas.size()) + 2);
      std::vector<int32_t> warps;
      for (const MeasuredScope &sc : m->scopes)
        if (warps.empty() || warps.back() != sc.warp)
          warps.push_back(sc.warp);
      for (int32_t w : warps)
        meta("thread_name", p, 1 + w, "name", "warp " + std::to_string(w));
      auto round = [](double v) { return std::round(v * 1e4) / 1e4; };
      for (const MeasuredScope &sc : m->scopes)
        j.object([&] {
          j.attribute("name", sc.name);
          j.attribute("cat", "measured");
          j.attribute("ph", "X");
          double toUs = m->inCycles ? 1 / mhz : 1;
          j.attribute("ts", round((sc.start + overlay.shift) * toUs));
          j.attribute("dur", round((sc.end - sc.start) * toUs));
          j.attribute("pid", p);
          j.attribute("tid", 1 + sc.warp);
          j.attributeObject("args", [&] {
            j.attribute(m->inCycles ? "measured_start_cycle" : "measured_ts_us", sc.start);
            if (m->inCycles)
              j.attribute("cycles", sc.end - sc.start);
          });
        });
    }
    // Flow points sit at the middle of their slices, strictly inside them, so that the
    // viewer binds each to its slice (the deepest one enclosing the timestamp).
    auto mid = [&](const TimelineSlice &s) { return us((static_cast<double>(s.start) + static_cast<double>(s.end)) / 2); };
    int64_t id = 1;
    for (const TimelineFlow &f : flows) {
      const TimelineSlice &from = slices[f.from], &to = slices[f.to];
      for (int end = 0; end < 2; ++end) {
        const TimelineSlice &s = end ? to : from;
        j.object([&] {
          j.attribute("name", "release " + f.barrier);
          j.attribute("cat", "barrier");
          j.attribute("ph", end ? "f" : "s");
          if (end)
            j.attribute("bp", "e");
          j.attribute("id", id);
          j.attribute("ts", mid(s));
          j.attribute("pid", pid[s.track]);
          j.attribute("tid", tid[s.track]);
        });
      }
      ++id;
    }
  });
  j.objectEnd();
  os << "\n";
}

} // namespace tlxsim::sim
