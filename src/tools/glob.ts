/**
 * Name globs of agent `tools` lists and `permission.task` (SPEC §2.1):
 * `*` any run, `?` one character, case-insensitive, whole-name match.
 */
export function globMatch(glob: string, name: string): boolean {
  const pattern = glob
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`, "is").test(name);
}
