import { describe, expect, it } from "vitest";
import { apiError } from "./fixtures";
import { coerceBool, coerceSeconds, normalizeJobIds, pyRepr, truthy } from "../../src/core/calls/coerce";

describe("pyRepr", () => {
  it("quotes strings with single quotes like Python", () => {
    expect(pyRepr("abc")).toBe("'abc'");
    expect(pyRepr("")).toBe("''");
  });

  it("switches to double quotes when the string holds a single quote and no double quote", () => {
    expect(pyRepr("it's")).toBe(`"it's"`);
  });

  it("escapes a single quote when the string holds both kinds of quote", () => {
    expect(pyRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
  });

  it("escapes backslashes and control characters", () => {
    expect(pyRepr("a\\b\nc\td")).toBe("'a\\\\b\\nc\\td'");
  });

  it("writes null as None and booleans as True / False", () => {
    expect(pyRepr(null)).toBe("None");
    expect(pyRepr(true)).toBe("True");
    expect(pyRepr(false)).toBe("False");
  });

  it("writes numbers as their decimal text", () => {
    expect(pyRepr(30)).toBe("30");
    expect(pyRepr(1.5)).toBe("1.5");
  });

  it("writes lists and objects as JSON", () => {
    expect(pyRepr([1, "a", null])).toBe('[1,"a",null]');
    expect(pyRepr({ a: 1, b: [true] })).toBe('{"a":1,"b":[true]}');
  });
});

describe("truthy", () => {
  it("follows Python truthiness for JSON values", () => {
    expect([0, "", null, false, [], {}].map(truthy)).toEqual([false, false, false, false, false, false]);
    expect([1, -1, "x", "0", true, [0], { a: 0 }].map(truthy)).toEqual([true, true, true, true, true, true, true]);
  });
});

describe("coerceBool", () => {
  it.each(["1", "true", "yes", "on", "TRUE", "Yes", "oN"])("reads %j as true", (word) => {
    expect(coerceBool(word, false)).toBe(true);
  });

  it.each(["0", "false", "no", "off", "FALSE", "No", "OFF"])("reads %j as false", (word) => {
    expect(coerceBool(word, true)).toBe(false);
  });

  it("keeps booleans as they are", () => {
    expect(coerceBool(true, false)).toBe(true);
    expect(coerceBool(false, true)).toBe(false);
  });

  it("uses the fallback when the value is missing", () => {
    expect(coerceBool(undefined, true)).toBe(true);
    expect(coerceBool(undefined, false)).toBe(false);
  });

  it("falls back to Python truthiness for any other string", () => {
    expect(coerceBool("maybe", false)).toBe(true);
    expect(coerceBool("", true)).toBe(false);
  });

  it("falls back to Python truthiness for numbers, lists and objects", () => {
    expect(coerceBool(0, true)).toBe(false);
    expect(coerceBool(2, false)).toBe(true);
    expect(coerceBool(0.5, false)).toBe(true);
    expect(coerceBool([], true)).toBe(false);
    expect(coerceBool([0], false)).toBe(true);
    expect(coerceBool({}, true)).toBe(false);
    expect(coerceBool({ a: 1 }, false)).toBe(true);
  });
});

describe("coerceSeconds", () => {
  it("accepts positive integers", () => {
    expect(coerceSeconds("timeout", 30)).toBe(30);
    expect(coerceSeconds("job_timeout", 1)).toBe(1);
  });

  it("accepts numeric strings, surrounding whitespace included", () => {
    expect(coerceSeconds("timeout", "45")).toBe(45);
    expect(coerceSeconds("timeout", " 12 ")).toBe(12);
    expect(coerceSeconds("timeout", "+7")).toBe(7);
  });

  it("truncates floats toward zero", () => {
    expect(coerceSeconds("timeout", 30.9)).toBe(30);
    expect(coerceSeconds("timeout", 1.01)).toBe(1);
  });

  it("reads true as one second", () => {
    expect(coerceSeconds("timeout", true)).toBe(1);
  });

  it("treats a missing value as not given", () => {
    expect(coerceSeconds("timeout", undefined)).toBeUndefined();
  });

  it.each([
    ["abc", "'abc'"],
    ["1.5", "'1.5'"],
    ["ten seconds", "'ten seconds'"],
    [[5], "[5]"],
    [{ s: 5 }, '{"s":5}'],
  ])("refuses %j with its Python repr in the message", (value, repr) => {
    const e = apiError(() => coerceSeconds("timeout", value));
    expect(e.status).toBe(400);
    expect(e.code).toBe("invalid_timeout");
    expect(e.message).toBe(`\`timeout\` must be an integer number of seconds, got ${repr}.`);
  });

  it("names job_timeout in the not-an-integer message", () => {
    const e = apiError(() => coerceSeconds("job_timeout", "soon"));
    expect(e.code).toBe("invalid_timeout");
    expect(e.message).toBe("`job_timeout` must be an integer number of seconds, got 'soon'.");
  });

  it.each([0, -5, "0", "-3", 0.5, -0.5, false])("refuses %j as not greater than 0", (value) => {
    const e = apiError(() => coerceSeconds("timeout", value));
    expect(e.status).toBe(400);
    expect(e.code).toBe("invalid_timeout");
    expect(e.message).toBe("`timeout` must be greater than 0.");
  });

  it("names job_timeout in the not-greater-than-0 message", () => {
    const e = apiError(() => coerceSeconds("job_timeout", 0));
    expect(e.message).toBe("`job_timeout` must be greater than 0.");
  });
});

describe("normalizeJobIds", () => {
  it("takes a string as one id without splitting it", () => {
    expect(normalizeJobIds("a,b c")).toEqual(["a,b c"]);
    expect(normalizeJobIds("wait-V1StGXR8_Z5j")).toEqual(["wait-V1StGXR8_Z5j"]);
  });

  it("treats missing and blank values as no ids", () => {
    expect(normalizeJobIds(undefined)).toEqual([]);
    expect(normalizeJobIds(null)).toEqual([]);
    expect(normalizeJobIds("   ")).toEqual([]);
    expect(normalizeJobIds([])).toEqual([]);
  });

  it("stringifies array items", () => {
    expect(normalizeJobIds(["a", 12, true])).toEqual(["a", "12", "True"]);
  });

  it("drops blank array items", () => {
    expect(normalizeJobIds(["", "a", "   ", "b"])).toEqual(["a", "b"]);
  });

  it("drops duplicates keeping the first occurrence in order", () => {
    expect(normalizeJobIds(["b", "a", "b", "c", "a"])).toEqual(["b", "a", "c"]);
  });

  it("treats a number and its string form as the same id", () => {
    expect(normalizeJobIds([7, "7"])).toEqual(["7"]);
  });

  it.each([5, true, { id: "a" }])("refuses %j as job_ids", (value) => {
    const e = apiError(() => normalizeJobIds(value));
    expect(e.status).toBe(400);
    expect(e.code).toBe("invalid_job_ids");
    expect(e.message).toBe("`job_ids` must be a string or an array of strings.");
  });
});
