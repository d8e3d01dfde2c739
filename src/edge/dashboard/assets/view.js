// Building the dashboard from API data (docs/api.md#dashboard): elements whose
// strings are always text nodes, so nothing the API returns can become markup,
// and the formats a job is shown in. Served as is, beside dashboard.js.

export const $ = (id) => document.getElementById(id);

/** Builds an element; strings become text nodes, so API data can never become markup. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** An SVG element: like `h`, in the SVG namespace (attributes only, text children as text nodes). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** `10:42:07.315`: a time of day, to the millisecond, in the viewer's zone. */
export const clock = (ms) => {
  const d = new Date(ms);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, "0")}`;
};

/** `3 / 6 · copying files`: a running MCP tool's last report. */
export const progressText = ({ progress, total, message }) =>
  [total === undefined ? String(progress) : `${progress} / ${total}`, message].filter(Boolean).join(" · ");
