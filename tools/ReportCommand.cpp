// `tlx-sim report FILE [launch options] -o report.html`: one self-contained HTML page
// about one launch: the summary (time, TFLOP/s, bound, partitions, units; from the summary
// view), the SVG timeline of one SM and the per-barrier wait histograms (from the Timeline
// listener), the verifier's findings and the largest wait sites at their Python source
// lines, and the GPU model with the source of every parameter. The page has no script and
// references no file or network resource (its style sheet is embedded).
#include "tools/CommandLine.h"
#include "tools/OutputFile.h"
#include "tools/Simulation.h"
#include "tools/SourceFiles.h"
#include "report/ReportAssets.h"

#include "sim/SummaryView.h"
#include "sim/MeasuredTimeline.h"
#include "sim/SteadyState.h"
#include "sim/Timeline.h"
#include "sim/TimelineSvg.h"
#include "verifier/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

#include <map>

using namespace llvm;
using tlxsim::sim::xmlEscape;

namespace tlxsim::tool {
namespace {

std::string num(double v, const char *spec = "%.2f") {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, v);
  return buffer;
}

std::string percentBar(double frac) {
  frac = std::clamp(frac, 0.0, 1.0);
  return "<span class=\"barbg\"><span class=\"bar\" style=\"width:" + num(120 * frac, "%.0f") + "px\"></span></span>" +
         num(100 * frac, "%.1f") + " %";
}

/// `loc` and its Python line as HTML.
std::string locationHtml(const ir::SourceLoc &loc, SourceFiles &sources) {
  std::string out = "<code>" + xmlEscape(loc.str()) + "</code>";
  std::string text = sources.line(loc);
  if (!text.empty())
    out += "<pre class=\"src\">" + xmlEscape(std::to_string(loc.line) + " | " + text) + "</pre>";
  return out;
}

void writeSummary(const json::Object &summary, raw_ostream &os) {
  auto number = [&](StringRef key) { return summary.getNumber(key).value_or(0); };
  os << "<div class=\"cards\">\n";
  auto card = [&](const std::string &value, const char *key) {
    os << "<div class=\"card\"><div class=\"v\">" << xmlEscape(value) << "</div><div class=\"k\">" << key
       << "</div></div>\n";
  };
  // --max-ctas: the time is that of the simulated CTAs alone, not the launch's
  bool partial = summary.getBoolean("partial_grid").value_or(false);
  std::string timeLabel = partial ? "predicted time of " + std::to_string(summary.getInteger("ctas").value_or(0)) +
                                        " of the grid's " + std::to_string(summary.getInteger("grid_ctas").value_or(0)) +
                                        " CTAs (--max-ctas)"
                                  : "predicted time";
  card(num(number("time_us"), "%.1f") + " us", timeLabel.c_str());
  card(num(number("tflops"), "%.1f"), "TFLOP/s");
  card(std::string(summary.getString("bound").value_or("?")), "bound");
  card(num(number("bytes_per_s") / 1e12, "%.2f") + " TB/s", "from HBM");
  card(std::to_string(summary.getInteger("cycles").value_or(0)), "cycles");
  card(num(number("clock_mhz"), "%.0f") + " MHz", "SM clock (modeled)");
  card(std::to_string(summary.getInteger("ctas").value_or(0)) + " (" +
           std::to_string(summary.getInteger("ctas_per_sm").value_or(0)) + "/SM)",
       "CTAs simulated");
  os << "</div>\n<p class=\"sub\">Occupancy limited by "
     << xmlEscape(std::string(summary.getString("occupancy_limit").value_or("?"))) << "; "
     << summary.getInteger("shared_bytes_per_cta").value_or(0) << " bytes of shared memory per CTA.</p>\n";
  os << "<h3>Partitions</h3>\n<table><tr><th>partition</th><th>warps</th><th>busy</th><th>waiting</th><th>waits on</th></tr>\n";
  if (const json::Array *parts = summary.getArray("partitions"))
    for (const json::Value &p : *parts) {
      const json::Object &o = *p.getAsObject();
      os << "<tr><td>" << xmlEscape(std::string(o.getString("name").value_or(""))) << "</td><td class=\"num\">"
         << o.getInteger("num_warps").value_or(0) << "</td><td>" << percentBar(o.getNumber("busy_frac").value_or(0))
         << "</td><td>" << percentBar(o.getNumber("wait_frac").value_or(0)) << "</td><td>";
      if (const json::Array *waits = o.getArray("waits"))
        for (const json::Value &w : *waits) {
          const json::Object &wo = *w.getAsObject();
          os << xmlEscape(std::string(wo.getString("barrier").value_or(""))) << " "
             << num(100 * wo.getNumber("frac").value_or(0), "%.1f") << " %<br>";
        }
      os << "</td></tr>\n";
    }
  os << "</table>\n<h3>Units</h3>\n<table><tr><th>unit</th><th>utilization</th></tr>\n";
  if (const json::Array *units = summary.getArray("units"))
    for (const json::Value &u : *units) {
      const json::Object &o = *u.getAsObject();
      os << "<tr><td>" << xmlEscape(std::string(o.getString("name").value_or(""))) << "</td><td>"
         << percentBar(o.getNumber("utilization").value_or(0)) << "</td></tr>\n";
    }
  os << "</table>\n";
}

void writeFindings(const std::vector<verifier::Finding> &findings, const std::vector<std::string> &warnings,
                   SourceFiles &sources, raw_ostream &os) {
  if (findings.empty())
    os << "<p>The verifier found no synchronization error in this launch.</p>\n";
  for (const verifier::Finding &f : findings) {
    os << "<div class=\"finding\"><span class=\"cls\">" << xmlEscape(f.cls) << "</span>: " << xmlEscape(f.message)
       << "<br>" << locationHtml(f.location, sources);
    for (const verifier::Related &r : f.related)
      os << "<div class=\"note\">" << xmlEscape(r.message.empty() ? r.op + " of partition '" + r.partition + "'" : r.message)
         << " " << locationHtml(r.location, sources) << "</div>";
    for (const auto &[loc, text] : f.notes)
      os << "<div class=\"note\"><code>" << xmlEscape(loc.str()) << "</code> " << xmlEscape(text) << "</div>";
    os << "</div>\n";
  }
  for (const std::string &w : warnings)
    os << "<div class=\"note\">warning: " << xmlEscape(w) << "</div>\n";
}

void writeWaitSites(const sim::Timeline &timeline, const sim::Program &program, SourceFiles &sources,
                    raw_ostream &os) {
  std::vector<sim::WaitSite> sites = timeline.waitSites();
  sim::Cycle total = 0;
  for (const sim::WaitSite &s : sites)
    total += s.total;
  if (sites.empty()) {
    os << "<p>No partition waited.</p>\n";
    return;
  }
  os << "<p>Where partitions wait, over all simulated CTAs (largest first):</p>\n<table><tr><th>share of all "
        "waiting</th><th>partition</th><th>waits on</th><th>waits</th><th>mean cycles</th><th>Python "
        "source</th></tr>\n";
  for (size_t i = 0; i < sites.size() && i < 8; ++i) {
    const sim::WaitSite &s = sites[i];
    ir::SourceLoc loc = s.loc >= 0 && s.loc < static_cast<int32_t>(program.locs.size()) ? program.locs[s.loc]
                                                                                         : ir::SourceLoc{};
    os << "<tr><td>" << percentBar(total ? static_cast<double>(s.total) / static_cast<double>(total) : 0)
       << "</td><td>" << xmlEscape(s.partition) << "</td><td>" << xmlEscape(s.what) << "</td><td class=\"num\">"
       << s.count << "</td><td class=\"num\">"
       << num(static_cast<double>(s.total) / static_cast<double>(std::max<uint64_t>(1, s.count)), "%.0f")
       << "</td><td>" << locationHtml(loc, sources) << "</td></tr>\n";
  }
  os << "</table>\n";
}

void writeHistograms(const sim::Timeline &timeline, raw_ostream &os) {
  std::vector<sim::WaitHistogram> histograms = timeline.waitHistograms();
  if (histograms.empty()) {
    os << "<p>No mbarrier waits.</p>\n";
    return;
  }
  os << "<table><tr><th>barrier</th><th>waits</th><th>passed at once</th><th>blocked cycles</th><th>mean "
        "blocked</th><th>max</th></tr>\n";
  for (const sim::WaitHistogram &h : histograms) {
    uint64_t passed = h.buckets.empty() ? 0 : h.buckets[0];
    uint64_t blocked = h.waits - passed;
    os << "<tr><td>" << xmlEscape(h.barrier) << "</td><td class=\"num\">" << h.waits << "</td><td class=\"num\">"
       << passed << "</td><td class=\"num\">" << h.total << "</td><td class=\"num\">"
       << num(blocked ? static_cast<double>(h.total) / static_cast<double>(blocked) : 0, "%.0f")
       << "</td><td class=\"num\">" << h.max << "</td></tr>\n";
  }
  os << "</table>\n<div class=\"hists\">\n";
  for (const sim::WaitHistogram &h : histograms) {
    os << "<figure>";
    sim::writeWaitHistogramSvg(h, os);
    os << "<figcaption>" << xmlEscape(h.barrier) << ": wait durations</figcaption></figure>\n";
  }
  os << "</div>\n";
}

void writeModel(const sim::GpuModel &model, raw_ostream &os) {
  os << "<p>Model <b>" << xmlEscape(model.name()) << "</b> (target " << xmlEscape(model.target()) << ", file <code>"
     << xmlEscape(model.path()) << "</code>). Each parameter with its unit and source:</p>\n";
  std::vector<std::string> keys;
  for (const auto &entry : model.params())
    keys.push_back(entry.getKey().str());
  std::sort(keys.begin(), keys.end());
  os << "<table class=\"model\"><tr><th>parameter</th><th>value</th><th>unit</th><th>source</th></tr>\n";
  for (const std::string &key : keys) {
    const sim::GpuModel::Param &p = model.params().find(key)->second;
    os << "<tr><td><code>" << xmlEscape(key) << "</code></td><td class=\"num\">" << num(p.value, "%.6g")
       << "</td><td>" << xmlEscape(p.unit) << "</td><td class=\"src\">" << xmlEscape(p.source) << "</td></tr>\n";
  }
  os << "</table>\n";
}

/// The zoomed steady state of one CTA (sim/SteadyState.h): predicted, and measured below it when given.
void writeSteadyState(const sim::Timeline &timeline, double clockMhz, const sim::MeasuredTimeline *measured,
                      raw_ostream &os) {
  sim::LaneChart predicted = sim::predictedSteadyState(timeline, steadyIterationsOpt);
  if (predicted.rows.empty())
    return;
  os << "<h2>Steady state (one CTA, zoomed)</h2>\n<p class=\"sub\">A few loop iterations in the middle of the "
        "first CTA's life on this SM: which partition waits while the loads and the MMAs of neighbouring stages "
        "overlap."
     << (measured ? " Below: the same window measured with Proton on the hardware (one row per instrumented warp; "
                    "bars are its scopes, the gaps between them are issuing)."
                  : " Add <code>--proton TRACE.json</code> (from <code>tlx-sim run --proton</code>) to draw the "
                    "measured timeline below it.")
     << "</p>\n";
  if (!measured) {
    sim::writeLaneChartSvg(predicted, os);
    return;
  }
  // One scale for both (cycles): the same iterations measured longer than predicted read longer on the page.
  sim::LaneChart observed = sim::measuredSteadyState(*measured, steadyIterationsOpt);
  double span = std::max(predicted.window.to - predicted.window.from, observed.window.to - observed.window.from);
  if (predicted.unit != observed.unit)
    span = 0; // not comparable: each on its own scale
  sim::writeLaneChartSvg(predicted, os, 1200, span);
  sim::writeLaneChartSvg(observed, os, 1200, span);
}

int runReport() {
  PreparedSimulation prepared;
  if (int code = prepareSimulation(prepared))
    return code;
  if (smOpt < 0)
    return badInput("--sm must be a non-negative SM index");
  if (steadyIterationsOpt < 1) // the zoomed view's window: at least one loop iteration (more than exist: as many as do)
    return badInput("--steady-iterations must be at least 1, got " + std::to_string(steadyIterationsOpt));
  const sim::Program &program = *prepared.program;
  sim::Timeline timeline(program, smOpt);
  sim::SummaryView summary(program, *prepared.model);
  verifier::Verifier checks(program);
  WarningCollector warnings(program);
  warnings.warnings = prepared.warnings; // the binary's (spills), then the simulator's
  checks.attach(*prepared.engine);
  prepared.engine->addListener(&warnings);
  prepared.engine->addListener(&summary);
  prepared.engine->addListener(&timeline);
  auto result = prepared.engine->run();
  if (!result) {
    for (const auto &w : warnings.warnings)
      errs() << w << "\n";
    return badInput(toString(result.takeError()));
  }
  if (smOpt >= result->numSms)
    return badInput("--sm " + Twine(smOpt) + " is beyond the model's " + Twine(result->numSms) + " SMs");
  const std::vector<verifier::Finding> findings = checks.findings();

  std::optional<sim::MeasuredTimeline> measured;
  if (!protonTimelineOpt.empty()) {
    auto read = sim::readProtonTimeline(protonTimelineOpt);
    if (!read)
      return badInput(toString(read.takeError()));
    measured = std::move(*read);
  }
  SourceFiles sources(inputFile);
  auto write = [&](raw_ostream &os) {
    std::string title = "tlx-sim report: " + program.kernelName;
    os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << xmlEscape(title)
       << "</title>\n<style>\n" << kReportCss << "</style>\n</head>\n<body>\n";
    os << "<h1>" << xmlEscape(program.kernelName) << "</h1>\n<p class=\"sub\">" << xmlEscape(std::string(inputFile))
       << " &middot; target " << xmlEscape(program.target) << " &middot; model " << xmlEscape(prepared.model->name())
       << " &middot; " << result->ctasSimulated << " CTAs simulated</p>\n";

    os << "<h2>Summary</h2>\n";
    if (findings.empty())
      writeSummary(summary.toJson(*result), os);
    else
      os << "<p><b>No time predicted</b>: the verifier found " << findings.size() << " synchronization error"
         << (findings.size() == 1 ? "" : "s") << " (below).</p>\n";
    // Warnings qualify the numbers above (a binary that spills runs 1.5-7x slower than predicted, a serialized
    // wgmma pipeline): said next to them, not only under Findings at the end of the page.
    if (!warnings.warnings.empty()) {
      os << "<p class=\"sub\"><b>" << warnings.warnings.size() << " warning"
         << (warnings.warnings.size() == 1 ? "" : "s") << " qualify these numbers</b> (under Findings):</p>\n<ul>\n";
      for (const std::string &w : warnings.warnings)
        os << "<li>" << xmlEscape(w) << "</li>\n";
      os << "</ul>\n";
    }

    os << "<h2>Timeline</h2>\n<div class=\"legend\"><span><i class=\"issue\"></i>issuing</span><span><i "
          "class=\"barop\"></i>mbarrier op</span><span><i class=\"barwait\"></i>mbarrier wait</span><span><i "
          "class=\"asyncwait\"></i>wgmma / TMA-store wait</span><span><i class=\"mma\"></i>tensor core</span><span><i "
          "class=\"tmaload\"></i>TMA load</span><span><i class=\"tmastore\"></i>TMA store</span></div>\n";
    sim::writeTimelineSvg(timeline, result->clockMhz, os);
    os << "<p class=\"sub\">The same timeline with every slice and the arrive-to-wait flows: <code>tlx-sim trace</code> "
          "(Chrome/Perfetto JSON).</p>\n";

    writeSteadyState(timeline, result->clockMhz, measured ? &*measured : nullptr, os);

    os << "<h2>Barrier waits</h2>\n";
    writeHistograms(timeline, os);

    os << "<h2>Findings</h2>\n";
    writeFindings(findings, warnings.warnings, sources, os);
    os << "<h3>Wait sites</h3>\n";
    writeWaitSites(timeline, program, sources, os);

    os << "<h2>Model</h2>\n";
    writeModel(*prepared.model, os);
    os << "</body>\n</html>\n";
  };
  if (auto err = writeOutputFile(outputOpt, "the report", write))
    return badInput(toString(std::move(err)));
  return findings.empty() ? kClean : kFindings;
}

RegisterCommand registerReport(reportCommand(), runReport);

} // namespace
} // namespace tlxsim::tool
