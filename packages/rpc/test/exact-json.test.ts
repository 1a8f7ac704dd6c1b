import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonNumberLiteral, parseJsonExact, quoteInexactNumbers, stringifyJson } from "../src/exact-json.ts";

describe("parseJsonExact", () => {
  it("keeps fractional and exponent literals as their exact text", () => {
    expect(parseJsonExact('{"value":0.49993020,"n":0,"difficulty":4.656542373906925e-10,"neg":-1}')).toEqual({
      value: "0.49993020",
      n: 0,
      difficulty: "4.656542373906925e-10",
      neg: -1,
    });
    expect(parseJsonExact("[1.10,2E+3,-0.5]")).toEqual(["1.10", "2E+3", "-0.5"]);
  });

  it("keeps integers too long for a double exact", () => {
    expect(parseJsonExact('{"big":12345678901234567890,"ok":123456789012345}')).toEqual({
      big: "12345678901234567890",
      ok: 123456789012345,
    });
  });

  it("does not touch numbers inside strings, including after escaped quotes and backslashes", () => {
    const text = String.raw`{"a":"x\"0.5\"y","b":"c:\\","c":1.5,"d":"\\\"2.5"}`;
    expect(parseJsonExact(text)).toEqual({ a: 'x"0.5"y', b: "c:\\", c: "1.5", d: '\\"2.5' });
  });

  it("returns the text unchanged when nothing needs quoting", () => {
    const text = '{"result":[1,2,"3.5"],"error":null,"id":7}';
    expect(quoteInexactNumbers(text)).toBe(text);
  });

  it("parses like JSON.parse whenever there are no inexact numbers", () => {
    const noFloats = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value")),
        fc.dictionary(fc.string(), tie("value")),
      ),
    })).value;
    fc.assert(
      fc.property(noFloats, (value) => {
        const text = JSON.stringify(value);
        expect(parseJsonExact(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  it("throws on invalid JSON like JSON.parse", () => {
    expect(() => parseJsonExact('{"a":')).toThrow(SyntaxError);
    expect(() => parseJsonExact('{"a":"unterminated')).toThrow(SyntaxError);
  });
});

describe("stringifyJson", () => {
  it("writes number literals verbatim", () => {
    expect(stringifyJson(["addr", new JsonNumberLiteral("0.00012345"), 3, { x: null }])).toBe(
      '["addr",0.00012345,3,{"x":null}]',
    );
  });

  it("refuses a literal that is not a JSON number", () => {
    expect(() => new JsonNumberLiteral("0.1; drop")).toThrow(RangeError);
  });
});
