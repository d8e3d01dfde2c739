/**
 * In this repository the test kit runs the worker bundle built from this
 * checkout; a bot outside it gets the bundle inside `@fanout/testing`.
 */
import { bundle } from "../../../packages/testing/scripts/bundle.mjs";

export default async function setup() {
  await bundle();
}
