/** The bundle the package ships, built from this checkout before any test starts a fanout. */
// @ts-expect-error a plain script, without types
import { bundle } from "../scripts/bundle.mjs";

export default async function setup() {
  await bundle();
}
