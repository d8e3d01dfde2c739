/** A small SVG of latency distributions: one box (p10–p90, p50 line) and whiskers (min–p99) per series. */
import { percentile } from "./stats.mjs";

export function latencyChart(groups) {
  const rows = groups.flatMap((g) => g.series.map((s) => ({ group: g.title, ...s })));
  const width = 860;
  const left = 250;
  const rowH = 34;
  const height = 40 + rows.length * rowH + 30;
  const max = Math.max(...rows.map((r) => percentile(r.values, 99))) * 1.05;
  const scale = (ms) => left + ((width - left - 30) * Math.log10(1 + ms)) / Math.log10(1 + max);
  const esc = (t) =>
    String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="22" font-size="14" font-weight="600">fanout vs the platform floor: latency (ms, log scale; box p10–p90, line p50, whiskers min–p99)</text>`,
  ];
  rows.forEach((r, i) => {
    const y = 40 + i * rowH;
    const [min, p10, p50, p90, p99] = [0, 10, 50, 90, 99].map((p) =>
      p === 0 ? Math.min(...r.values) : percentile(r.values, p),
    );
    const color = r.color ?? "#2f5fd0";
    parts.push(
      `<text x="10" y="${y + 18}">${esc(`${r.group}: ${r.label}`)}</text>`,
      `<line x1="${scale(min)}" x2="${scale(p99)}" y1="${y + 14}" y2="${y + 14}" stroke="#999"/>`,
      `<rect x="${scale(p10)}" y="${y + 5}" width="${Math.max(1, scale(p90) - scale(p10))}" height="18" fill="${color}" fill-opacity="0.25" stroke="${color}"/>`,
      `<line x1="${scale(p50)}" x2="${scale(p50)}" y1="${y + 3}" y2="${y + 25}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${scale(p99) + 6}" y="${y + 18}" fill="#555">p50 ${p50.toFixed(1)}</text>`,
    );
  });
  for (const tick of [1, 10, 100, 1000, 10000].filter((t) => t <= max)) {
    const x = scale(tick);
    parts.push(
      `<line x1="${x}" x2="${x}" y1="34" y2="${height - 24}" stroke="#eee"/>`,
      `<text x="${x - 8}" y="${height - 8}" fill="#777">${tick}</text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("\n");
}
