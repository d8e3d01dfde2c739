// spend-panel.js ships as text (wrangler.toml [[rules]] type = "Text"): the worker serves it as is.
declare const source: string;
export default source;
