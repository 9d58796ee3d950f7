import { describe, expect, it } from "vitest";
import { parseWebEnv } from "./env.js";

describe("parseWebEnv", () => {
  it("defaults to port 7434 and the local connection", () => {
    expect(parseWebEnv({})).toEqual({ port: 7434, remote: undefined });
  });

  it("takes a remote connection from HEADWATER_API_URL and HEADWATER_API_KEY together", () => {
    expect(parseWebEnv({ HEADWATER_WEB_PORT: "0", HEADWATER_API_URL: "https://api.pipedream.com/v1", HEADWATER_API_KEY: "k1" })).toEqual({
      port: 0,
      remote: { baseUrl: "https://api.pipedream.com/v1", apiKey: "k1" },
    });
  });

  it("refuses a bad port, a non-http URL, or a URL without a key, saying which", () => {
    expect(() => parseWebEnv({ HEADWATER_WEB_PORT: "70000" })).toThrow(/HEADWATER_WEB_PORT/);
    expect(() => parseWebEnv({ HEADWATER_WEB_PORT: "abc" })).toThrow(/must be a port number/);
    expect(() => parseWebEnv({ HEADWATER_API_URL: "ftp://x/v1", HEADWATER_API_KEY: "k" })).toThrow(/HEADWATER_API_URL/);
    expect(() => parseWebEnv({ HEADWATER_API_URL: "http://x/v1" })).toThrow(/both HEADWATER_API_URL and HEADWATER_API_KEY/);
  });
});
