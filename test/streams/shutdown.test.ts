/** A server with open streams still stops promptly: the streams end, the client can resume elsewhere. */
import { describe, expect, it } from "vitest";
import { startServer } from "../support/server.js";
import { newSource } from "../events/fixtures.js";
import { openSse } from "./sse-reader.js";

describe("shutdown with open streams", () => {
  it("ends every stream and finishes closing", async () => {
    const srv = await startServer();
    try {
      const u = await srv.newUser();
      const source = await newSource(u);
      const streams = await Promise.all(
        [1, 2, 3].map(() => openSse(`${srv.origin}/sources/${source}/sse`, { authorization: `Bearer ${u.key}` })),
      );
      // Without the streams' preClose hook this would hang until the test times out.
      await srv.stop();
      await Promise.all(streams.map((s) => s.ended));
      expect(streams.every((s) => s.isEnded())).toBe(true);
    } finally {
      await srv.stop();
    }
  });
});
