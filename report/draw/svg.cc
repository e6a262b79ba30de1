#include "report/draw/svg.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ckpt {
namespace {

constexpr double kWidth = 760, kHeight = 320;
constexpr double kLeft = 72, kRight = 150, kTop = 34, kBottom = 78;
constexpr double kPlotW = kWidth - kLeft - kRight;
constexpr double kPlotH = kHeight - kTop - kBottom;

// A round step (1, 2 or 5 x 10^k) giving about `n` ticks up to `max`.
double NiceStep(double max, int n) {
  if (max <= 0) return 1;
  double raw = max / n;
  double p = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

std::string Num(double v) {
  if (v == 0) return "0";
  if (std::fabs(v) >= 100) return absl::StrFormat("%.0f", v);
  if (std::fabs(v) >= 1) return absl::StrFormat("%.3g", v);
  return absl::StrFormat("%.2g", v);
}

std::string Open(const std::string& kind, const std::string& title,
                 double height) {
  return absl::StrFormat(
      "<figure class=\"chart\" data-chart=\"%s\"><svg "
      "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
      "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"%s\">"
      "<text x=\"%.0f\" y=\"20\" class=\"title\">%s</text>",
      kind, kWidth, height, kWidth, height, HtmlEscape(title), kLeft,
      HtmlEscape(title));
}

std::string Close(const std::string& title) {
  return absl::StrCat("</svg><figcaption>", HtmlEscape(title),
                      "</figcaption></figure>\n");
}

std::string Legend(
    const std::vector<std::pair<std::string, std::string>>& names_colors) {
  std::string s;
  double y = kTop + 6;
  for (const auto& [name, color] : names_colors) {
    std::string text = name.size() > 20 ? name.substr(0, 19) + "~" : name;
    absl::StrAppendFormat(
        &s,
        "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" "
        "fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\" "
        "class=\"legend\"><title>%s</title>%s</text>",
        kWidth - kRight + 14, y, color, kWidth - kRight + 32, y + 10,
        HtmlEscape(name), HtmlEscape(text));
    y += 18;
  }
  return s;
}

std::string YLabel(const std::string& label) {
  return absl::StrFormat(
      "<text transform=\"translate(16 %.0f) rotate(-90)\" "
      "class=\"axis-label\" text-anchor=\"middle\">%s</text>",
      kTop + kPlotH / 2, HtmlEscape(label));
}

// Category labels under the plot, rotated when there are many.
std::string XLabels(const std::vector<std::string>& labels) {
  std::string s;
  double slot =
      kPlotW / static_cast<double>(std::max<size_t>(labels.size(), 1));
  // Rotated (down and to the right, clear of the y axis) when a label
  // would be wider (about 6.5 px a character) than its slot.
  bool rotate = false;
  for (const auto& l : labels) {
    rotate |= 6.5 * static_cast<double>(std::min<size_t>(l.size(), 28)) > slot;
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    double x = kLeft + slot * (static_cast<double>(i) + 0.5);
    double y = kTop + kPlotH + 16;
    std::string text = labels[i];
    if (text.size() > 28) text = text.substr(0, 27) + "~";
    if (rotate) {
      absl::StrAppendFormat(
          &s,
          "<text transform=\"translate(%.1f %.0f) rotate(25)\" "
          "class=\"tick\" text-anchor=\"start\">%s</text>",
          x, y, HtmlEscape(text));
    } else {
      absl::StrAppendFormat(&s,
                            "<text x=\"%.1f\" y=\"%.0f\" class=\"tick\" "
                            "text-anchor=\"middle\">%s</text>",
                            x, y, HtmlEscape(text));
    }
  }
  return s;
}

// A horizontal grid line across the plot at `y`, labelled on the axis.
std::string YGridLine(double y, const std::string& label) {
  return absl::StrFormat(
      "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" "
      "class=\"grid\"/><text x=\"%.0f\" y=\"%.1f\" class=\"tick\" "
      "text-anchor=\"end\">%s</text>",
      kLeft, kLeft + kPlotW, y, y, kLeft - 6, y + 4, label);
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows) {
  std::string s = "<table><thead><tr>";
  for (const auto& h : header)
    absl::StrAppend(&s, "<th>", HtmlEscape(h), "</th>");
  s += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    s += "<tr>";
    for (const auto& c : row)
      absl::StrAppend(&s, "<td>", HtmlEscape(c), "</td>");
    s += "</tr>";
  }
  return s + "</tbody></table>\n";
}

std::string SeriesColor(size_t i) {
  static const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                  "#bcbd22", "#17becf"};
  return kColors[i % (sizeof(kColors) / sizeof(kColors[0]))];
}

std::string BarChart(const std::string& title, const std::string& y_label,
                     const std::vector<std::string>& categories,
                     const std::vector<BarSeries>& series,
                     const std::optional<BarRule>& rule) {
  double max = rule ? rule->value : 0;
  for (const auto& s : series) {
    for (double v : s.values) max = std::max(max, v);
    for (double v : s.high) max = std::max(max, v);
    for (const auto& d : s.dots) {
      for (double v : d) max = std::max(max, v);
    }
  }
  double step = NiceStep(max, 5);
  double top = std::max(step, std::ceil(max / step) * step);
  auto y = [&](double v) { return kTop + kPlotH * (1 - v / top); };
  std::string s = Open("bar", title, kHeight);
  for (double t = 0; t <= top + step / 2; t += step) {
    s += YGridLine(y(t), Num(t));
  }
  const double slot =
      kPlotW / static_cast<double>(std::max<size_t>(categories.size(), 1));
  const double bar =
      slot * 0.8 / static_cast<double>(std::max<size_t>(series.size(), 1));
  for (size_t si = 0; si < series.size(); ++si) {
    const BarSeries& b = series[si];
    for (size_t c = 0; c < categories.size() && c < b.values.size(); ++c) {
      double x = kLeft + slot * static_cast<double>(c) + slot * 0.1 +
                 bar * static_cast<double>(si);
      double v = b.values[c];
      absl::StrAppendFormat(
          &s,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"%s\" class=\"bar\"><title>%s %s: %s</title></rect>",
          x, y(v), bar * 0.9, kTop + kPlotH - y(v), b.color,
          HtmlEscape(categories[c]), HtmlEscape(b.name), Num(v));
      double cx = x + bar * 0.45;
      if (c < b.low.size() && c < b.high.size()) {
        absl::StrAppendFormat(
            &s,
            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
            "class=\"whisker\"/><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
            "y2=\"%.1f\" class=\"whisker\"/><line x1=\"%.1f\" x2=\"%.1f\" "
            "y1=\"%.1f\" y2=\"%.1f\" class=\"whisker\"/>",
            cx, cx, y(b.low[c]), y(b.high[c]), cx - 4, cx + 4, y(b.low[c]),
            y(b.low[c]), cx - 4, cx + 4, y(b.high[c]), y(b.high[c]));
      }
      if (c < b.dots.size()) {
        for (double d : b.dots[c]) {
          absl::StrAppendFormat(
              &s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" class=\"dot\"/>", cx,
              y(d));
        }
      }
    }
  }
  if (rule) {
    absl::StrAppendFormat(
        &s,
        "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" "
        "class=\"rule\"/><text x=\"%.0f\" y=\"%.1f\" class=\"tick\">%s</text>",
        kLeft, kLeft + kPlotW, y(rule->value), y(rule->value), kLeft + 4,
        y(rule->value) - 4, HtmlEscape(rule->label));
  }
  std::vector<std::pair<std::string, std::string>> legend;
  for (const auto& b : series) legend.emplace_back(b.name, b.color);
  absl::StrAppend(&s, XLabels(categories), YLabel(y_label), Legend(legend));
  absl::StrAppendFormat(&s,
                        "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" "
                        "class=\"axis\"/>",
                        kLeft, kLeft + kPlotW, kTop + kPlotH, kTop + kPlotH);
  return s + Close(title);
}

std::string LogLineChart(const std::string& title, const std::string& y_label,
                         const std::vector<std::string>& x_labels,
                         const std::vector<LineSeries>& series) {
  double lo = 1e300, hi = 0;
  for (const auto& l : series) {
    for (double v : l.values) {
      if (v <= 0) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (hi <= 0) lo = hi = 1;
  double e0 = std::floor(std::log10(lo)), e1 = std::ceil(std::log10(hi));
  if (e1 <= e0) e1 = e0 + 1;
  auto y = [&](double v) {
    return kTop + kPlotH * (1 - (std::log10(v) - e0) / (e1 - e0));
  };
  const double slot =
      kPlotW / static_cast<double>(std::max<size_t>(x_labels.size(), 1));
  auto x = [&](size_t i) {
    return kLeft + slot * (static_cast<double>(i) + 0.5);
  };
  std::string s = Open("line", title, kHeight);
  for (double e = e0; e <= e1; ++e) {
    double v = std::pow(10, e);
    s += YGridLine(y(v), Num(v));
  }
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t si = 0; si < series.size(); ++si) {
    const LineSeries& l = series[si];
    std::string color = SeriesColor(si);
    legend.emplace_back(l.name, color);
    std::string points;
    for (size_t i = 0; i < l.values.size() && i < x_labels.size(); ++i) {
      if (l.values[i] <= 0) continue;
      absl::StrAppendFormat(&points, "%s%.1f,%.1f", points.empty() ? "" : " ",
                            x(i), y(l.values[i]));
      absl::StrAppendFormat(
          &s,
          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s "
          "%s: %s</title></circle>",
          x(i), y(l.values[i]), color, HtmlEscape(l.name),
          HtmlEscape(x_labels[i]), Num(l.values[i]));
    }
    absl::StrAppendFormat(&s,
                          "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                          "class=\"line\"/>",
                          points, color);
  }
  absl::StrAppend(&s, XLabels(x_labels), YLabel(y_label), Legend(legend));
  return s + Close(title);
}

std::string Timeline(const std::string& title, const std::string& x_label,
                     const std::vector<TimelineRow>& rows) {
  constexpr double kRow = 18;
  const double height = kTop + 30 + kRow * static_cast<double>(rows.size());
  double max = 0;
  for (const auto& r : rows) max = std::max(max, r.end);
  double step = NiceStep(max, 6);
  double right = std::max(step, std::ceil(max / step) * step);
  const double left = kLeft + 60, width = kWidth - left - 30;
  auto x = [&](double v) { return left + width * v / right; };
  const double bottom = kTop + kRow * static_cast<double>(rows.size());
  std::string s = Open("timeline", title, height);
  for (double t = 0; t <= right + step / 2; t += step) {
    absl::StrAppendFormat(
        &s,
        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" "
        "class=\"grid\"/><text x=\"%.1f\" y=\"%.0f\" class=\"tick\" "
        "text-anchor=\"middle\">%s</text>",
        x(t), x(t), kTop, bottom, x(t), bottom + 14, Num(t));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const TimelineRow& r = rows[i];
    double y = kTop + kRow * static_cast<double>(i);
    absl::StrAppendFormat(
        &s,
        "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" "
        "text-anchor=\"end\">%s</text><rect x=\"%.1f\" y=\"%.0f\" "
        "width=\"%.1f\" height=\"%.0f\" fill=\"%s\" class=\"span\"><title>%s: "
        "%s s to %s s</title></rect>",
        left - 6, y + 13, HtmlEscape(r.label), x(r.start), y + 3,
        std::max(1.0, x(r.end) - x(r.start)), kRow - 6, r.color,
        HtmlEscape(r.label), Num(r.start), Num(r.end));
    if (r.mark >= 0) {
      absl::StrAppendFormat(
          &s,
          "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" "
          "class=\"mark\"/>",
          x(r.mark), x(r.mark), y + 1, y + kRow - 1);
    }
  }
  absl::StrAppendFormat(&s,
                        "<text x=\"%.1f\" y=\"%.0f\" class=\"axis-label\" "
                        "text-anchor=\"middle\">%s</text>",
                        left + width / 2, bottom + 28, HtmlEscape(x_label));
  return s + Close(title);
}

}  // namespace ckpt
