// The chart behind simulation_chart.hpp. cairo stays in this file: it draws,
// and its SVG surface writes the file; axes, ticks and legends are laid out
// here.
#include "topoplan/simulate/simulation_chart.hpp"

#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace topoplan {

namespace {

constexpr double kWidth = 900, kHeight = 680;
constexpr double kPi = 3.14159265358979323846;

struct Rgb {
  double r, g, b;
};

// ColorBrewer's Dark2 palette, one colour per policy in report order.
constexpr std::array<Rgb, 8> kPalette = {{{0.106, 0.620, 0.467},
                                          {0.851, 0.373, 0.008},
                                          {0.459, 0.439, 0.702},
                                          {0.906, 0.161, 0.541},
                                          {0.400, 0.651, 0.118},
                                          {0.902, 0.671, 0.008},
                                          {0.651, 0.463, 0.114},
                                          {0.400, 0.400, 0.400}}};

// A plot area in pixels and the data range it shows.
struct Panel {
  double x, y, w, h;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  bool log_x = false;
  double px(double v) const {
    const double f = log_x ? (std::log10(v) - std::log10(x0)) / (std::log10(x1) - std::log10(x0))
                           : (v - x0) / (x1 - x0);
    return x + std::clamp(f, 0.0, 1.0) * w;
  }
  double py(double v) const { return y + h - std::clamp((v - y0) / (y1 - y0), 0.0, 1.0) * h; }
};

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

// `align`: 0 left, 0.5 centred, 1 right of x.
void text(cairo_t* cr, double x, double y, const std::string& s, double size, double align = 0) {
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  cairo_move_to(cr, x - align * e.x_advance, y);
  cairo_show_text(cr, s.c_str());
}

void colour(cairo_t* cr, std::size_t k) {
  const Rgb& c = kPalette[k % kPalette.size()];
  cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

// A round step (1, 2 or 5 times a power of ten) giving about `ticks` ticks.
double nice_step(double span, int ticks) {
  const double raw = span / ticks;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

void grid_line(cairo_t* cr, double x0, double y0, double x1, double y1) {
  cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
  cairo_set_line_width(cr, 0.5);
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
}

void frame(cairo_t* cr, const Panel& p, const std::string& title, const std::string& xlabel,
           const std::string& ylabel) {
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, p.x, p.y, p.w, p.h);
  cairo_stroke(cr);
  text(cr, p.x, p.y - 10, title, 14);
  text(cr, p.x + p.w / 2, p.y + p.h + 34, xlabel, 11, 0.5);
  cairo_save(cr);
  cairo_translate(cr, p.x - 44, p.y + p.h / 2);
  cairo_rotate(cr, -kPi / 2);
  text(cr, 0, 0, ylabel, 11, 0.5);
  cairo_restore(cr);
}

void legend(cairo_t* cr, const SimulationReport& r, double x, double y) {
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const double row = y + 20.0 * static_cast<double>(k);
    colour(cr, k);
    cairo_set_line_width(cr, 2.5);
    cairo_move_to(cr, x, row - 4);
    cairo_line_to(cr, x + 22, row - 4);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, x + 28, row, r.runs[k].policy, 12);
  }
}

// Utilisation over time: each policy's timeline as a step line.
void utilisation_panel(cairo_t* cr, const SimulationReport& r, Panel p) {
  double origin = r.runs.front().start_s, end = r.runs.front().end_s;
  for (const PolicyRun& run : r.runs) {
    origin = std::min(origin, run.start_s);
    end = std::max(end, run.end_s);
  }
  const double span = std::max(end - origin, 1.0);
  const bool days = span > 3 * 86400.0;
  const double unit = days ? 86400.0 : 3600.0;
  p.x1 = span / unit;
  p.y1 = 100;
  frame(cr, p, "Utilisation over time", days ? "days since the first arrival" : "hours since the first arrival",
        "busy accelerators (%)");
  const double step = nice_step(p.x1, 8);
  for (double v = 0; v <= p.x1 * (1 + 1e-9); v += step) {
    grid_line(cr, p.px(v), p.y, p.px(v), p.y + p.h);
    text(cr, p.px(v), p.y + p.h + 16, fmt::format("{:g}", v), 10, 0.5);
  }
  for (int v = 0; v <= 100; v += 20) {
    grid_line(cr, p.x, p.py(v), p.x + p.w, p.py(v));
    text(cr, p.x - 6, p.py(v) + 4, fmt::format("{}", v), 10, 1);
  }
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const PolicyRun& run = r.runs[k];
    colour(cr, k);
    cairo_set_line_width(cr, 1.6);
    double prev = run.start_s;
    for (std::size_t i = 0; i < run.timeline.size(); ++i) {
      const TimelinePoint& t = run.timeline[i];
      const double y = p.py(100 * t.utilisation);
      if (i == 0) cairo_move_to(cr, p.px((prev - origin) / unit), y);
      else cairo_line_to(cr, p.px((prev - origin) / unit), y);
      cairo_line_to(cr, p.px((t.time_s - origin) / unit), y);
      prev = t.time_s;
    }
    cairo_stroke(cr);
  }
}

// Job completion times: each policy's empirical CDF on a log axis.
void jct_panel(cairo_t* cr, const SimulationReport& r, Panel p) {
  std::vector<std::vector<double>> jct(r.runs.size());
  double lo = 0, hi = 0;
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    for (const JobOutcome& o : r.runs[k].jobs)
      if (o.end_s >= 0) jct[k].push_back(std::max(o.end_s - o.submit_s, 1.0));
    std::sort(jct[k].begin(), jct[k].end());
    if (jct[k].empty()) continue;
    lo = lo == 0 ? jct[k].front() : std::min(lo, jct[k].front());
    hi = std::max(hi, jct[k].back());
  }
  if (lo == 0) lo = 1;
  // Whole decades around the data.
  p.log_x = true;
  p.x0 = std::pow(10.0, std::floor(std::log10(lo)));
  p.x1 = std::pow(10.0, std::max(std::ceil(std::log10(std::max(hi, lo * 10))), std::log10(p.x0) + 1));
  p.y1 = 1;
  frame(cr, p, "Job completion time (submit to end)", "job completion time (log scale)",
        "share of completed jobs");
  for (double v = p.x0; v <= p.x1 * 1.0001; v *= 10) {
    grid_line(cr, p.px(v), p.y, p.px(v), p.y + p.h);
    text(cr, p.px(v), p.y + p.h + 16, human_duration(v), 10, 0.5);
  }
  for (int v = 0; v <= 10; v += 2) {
    grid_line(cr, p.x, p.py(v / 10.0), p.x + p.w, p.py(v / 10.0));
    text(cr, p.x - 6, p.py(v / 10.0) + 4, fmt::format("{:g}", v / 10.0), 10, 1);
  }
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    if (jct[k].empty()) continue;
    colour(cr, k);
    cairo_set_line_width(cr, 1.6);
    const auto n = static_cast<double>(jct[k].size());
    cairo_move_to(cr, p.px(jct[k].front()), p.py(0));
    // At most ~1000 steps, so that large traces stay small files.
    const std::size_t stride = std::max<std::size_t>(1, jct[k].size() / 1000);
    for (std::size_t i = 0; i < jct[k].size(); i += stride) {
      const std::size_t last = std::min(i + stride, jct[k].size()) - 1;
      cairo_line_to(cr, p.px(jct[k][last]), p.py(static_cast<double>(i) / n));
      cairo_line_to(cr, p.px(jct[k][last]), p.py(static_cast<double>(last + 1) / n));
    }
    cairo_stroke(cr);
  }
}

}  // namespace

std::string simulation_svg(const SimulationReport& r) {
  std::string out;
  cairo_surface_t* surface = cairo_svg_surface_create_for_stream(append, &out, kWidth, kHeight);
  cairo_svg_surface_restrict_to_version(surface, CAIRO_SVG_VERSION_1_1);
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_source_rgb(cr, 0, 0, 0);
  text(cr, 20, 28,
       fmt::format("topoplan simulate: {} jobs on {} ({} {})", r.job_ids.size(), r.topology, r.accelerators,
                   r.accelerator_noun),
       15);
  text(cr, 20, 46, fmt::format("trace {} ({})", r.trace, r.trace_format), 11);
  if (!r.runs.empty()) {
    const Panel top{70, 90, 660, 220};
    const Panel bottom{70, 400, 660, 220};
    utilisation_panel(cr, r, top);
    jct_panel(cr, r, bottom);
    legend(cr, r, 750, 100);
  }
  cairo_destroy(cr);
  cairo_surface_finish(surface);
  cairo_status_t status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) throw std::runtime_error(cairo_status_to_string(status));
  return out;
}

}  // namespace topoplan
