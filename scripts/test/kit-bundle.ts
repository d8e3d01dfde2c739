/** The test kit's worker bundle, built from this checkout for the README's commands (readme.test.ts). */
import { bundle } from "../../packages/testing/scripts/bundle.mjs";

export default async function setup() {
  await bundle();
}
