// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, remoteProfile } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { AccountView } from "./AccountView.js";
import { firstSentence, isHostedService, prettyJson, stdioConfig } from "./agentConfig.js";

const panel = () => screen.findByRole("region", { name: "Connect an agent" });
/** The configuration under a heading ("Over HTTP"), parsed: it must be valid JSON as shown. */
const configUnder = (root: HTMLElement, heading: string): unknown => {
  const block = within(root).getByRole("heading", { name: heading }).closest(".agent-config")!;
  return JSON.parse(block.querySelector("pre")!.textContent!);
};

/** A remote connection to another Headwater server, current. */
function remoteBridge() {
  const bridge = new FakeBridge();
  bridge.profiles = [
    { ...bridge.profiles[0]!, current: false },
    remoteProfile({ baseUrl: "https://hw.example.com/v1" }),
  ];
  return bridge;
}

describe("Connect an agent", () => {
  it("shows a remote connection's MCP URL and both configurations, with a placeholder for the key", async () => {
    const bridge = remoteBridge();
    const { container } = renderWith(bridge, <AccountView />);
    const p = await panel();
    expect(within(p).getByText("https://hw.example.com/mcp")).toBeTruthy();
    expect(configUnder(p, "Over HTTP")).toEqual({
      mcpServers: {
        headwater: {
          type: "http",
          url: "https://hw.example.com/mcp",
          headers: { Authorization: "Bearer <your API key>" },
        },
      },
    });
    expect(configUnder(p, "Over stdio")).toEqual({
      mcpServers: {
        headwater: {
          command: "npx",
          args: ["headwater", "mcp"],
          env: { HEADWATER_API_URL: "https://hw.example.com/v1", HEADWATER_API_KEY: "<your API key>" },
        },
      },
    });
    // Where the key goes: this connection's, named by its last four only.
    const note = p.querySelector(".agent-key-note")!.textContent!;
    expect(note).toContain("<your API key>");
    expect(note).toContain("…wxyz");
    expect(note).toMatch(/Rotate API key/);
    expect(container.innerHTML).not.toMatch(/Bearer (?!&lt;your API key&gt;)/);
  });

  it("copies exactly what it shows", async () => {
    const user = userEvent.setup();
    renderWith(remoteBridge(), <AccountView />);
    const p = await panel();
    await user.click(within(p).getByRole("button", { name: "Copy HTTP configuration" }));
    const copied = await navigator.clipboard.readText();
    expect(copied).toBe(
      p.querySelector("#agent-http-title")!.closest(".agent-config")!.querySelector("pre")!.textContent,
    );
    expect(JSON.parse(copied).mcpServers.headwater.headers.Authorization).toBe("Bearer <your API key>");
    await user.click(within(p).getByRole("button", { name: "Copy MCP URL" }));
    expect(await navigator.clipboard.readText()).toBe("https://hw.example.com/mcp");
  });

  it("on the Local server in web mode, stdio needs no variables: the CLI finds the server and its key", async () => {
    const bridge = new FakeBridge();
    bridge.user = { ...bridge.user, admin: true };
    renderWith(bridge, <AccountView />);
    const p = await panel();
    expect(within(p).getByText("http://127.0.0.1:7433/mcp")).toBeTruthy();
    expect(configUnder(p, "Over stdio")).toEqual({
      mcpServers: { headwater: { command: "npx", args: ["headwater", "mcp"] } },
    });
    expect(
      (configUnder(p, "Over HTTP") as { mcpServers: { headwater: { url: string } } }).mcpServers.headwater
        .url,
    ).toBe("http://127.0.0.1:7433/mcp");
    // Local's key is the app's: a key for HTTP comes from a user of the agent's own (an admin's Users panel).
    const note = p.querySelector(".agent-key-note")!.textContent!;
    expect(note).toMatch(/never shown; over stdio none is needed/);
    await waitFor(() => expect(p.querySelector(".agent-key-note")!.textContent).toMatch(/under Users below/));
  });

  it("on the Local server of the desktop app (key in the keychain), stdio names the server in variables", async () => {
    const bridge = new FakeBridge();
    bridge.host = { mode: "electron", version: "test", keyStorage: "os-encrypted" };
    renderWith(bridge, <AccountView />);
    const p = await panel();
    await waitFor(() =>
      expect(configUnder(p, "Over stdio")).toEqual({
        mcpServers: {
          headwater: {
            command: "npx",
            args: ["headwater", "mcp"],
            env: { HEADWATER_API_URL: "http://127.0.0.1:7433/v1", HEADWATER_API_KEY: "<your API key>" },
          },
        },
      }),
    );
    expect(p.querySelector(".agent-key-note")!.textContent).not.toMatch(/over stdio none is needed/);
  });

  it("before the Local server has started, says so and offers what needs no URL", async () => {
    const bridge = new FakeBridge();
    bridge.profiles = [{ ...bridge.profiles[0]!, baseUrl: "", status: "starting" }];
    renderWith(bridge, <AccountView />);
    const p = await panel();
    expect(within(p).getByText(/has not started yet/)).toBeTruthy();
    expect(within(p).queryByRole("heading", { name: "Over HTTP" })).toBeNull();
    expect(configUnder(p, "Over stdio")).toEqual({
      mcpServers: { headwater: { command: "npx", args: ["headwater", "mcp"] } },
    });
  });

  it("for the hosted service: says /mcp is Headwater's and offers only stdio, no HTTP and no test", async () => {
    const bridge = new FakeBridge();
    bridge.profiles = [
      { ...bridge.profiles[0]!, current: false },
      remoteProfile({ name: "Hosted", baseUrl: "https://api.pipedream.com/v1" }),
    ];
    renderWith(bridge, <AccountView />);
    const p = await panel();
    expect(p.textContent).toMatch(/The MCP endpoint \(\/mcp\) is Headwater's: the hosted service has none/);
    expect(within(p).queryByRole("heading", { name: "Over HTTP" })).toBeNull();
    expect(within(p).queryByRole("button", { name: "Test connection" })).toBeNull();
    expect(within(p).queryByText(/pipedream\.com\/mcp/)).toBeNull();
    expect(configUnder(p, "Over stdio")).toEqual({
      mcpServers: {
        headwater: {
          command: "npx",
          args: ["headwater", "mcp"],
          env: { HEADWATER_API_URL: "https://api.pipedream.com/v1", HEADWATER_API_KEY: "<your API key>" },
        },
      },
    });
  });

  it("Test lists the server's tools through the host", async () => {
    const bridge = new FakeBridge();
    const release = bridge.hold("testAgentConnection");
    renderWith(bridge, <AccountView />);
    const p = await panel();
    await userEvent.click(within(p).getByRole("button", { name: "Test connection" }));
    expect(within(p).getByText("Testing the MCP endpoint")).toBeTruthy();
    expect(within(p).getByRole("button", { name: "Test connection" }).hasAttribute("disabled")).toBe(true);
    release();
    const status = await within(p).findByText(/^Connected to headwater 1\.0\.0 at/);
    expect(status.closest("[role=status]")!.textContent).toBe(
      "Connected to headwater 1.0.0 at http://127.0.0.1:7433/mcp (MCP 2026-07-28): 3 tools.",
    );
    const tools = within(p).getByRole("list", { name: "Tools" });
    expect(
      within(tools)
        .getAllByRole("listitem")
        .map((li) => li.querySelector("code")!.textContent),
    ).toEqual(["whoami", "list_sources", "wait_for_events"]);
    expect(bridge.callsOf("testAgentConnection")).toEqual([[]]);
  });

  it("Test shows a refusal in words: a refused key, a server without /mcp, one out of reach", async () => {
    const bridge = new FakeBridge();
    bridge.fail("testAgentConnection", {
      status: 401,
      code: "unauthorized",
      message:
        "The MCP endpoint http://127.0.0.1:7433/mcp refused this connection's API key: unknown API key.",
    });
    renderWith(bridge, <AccountView />);
    const p = await panel();
    const test = within(p).getByRole("button", { name: "Test connection" });
    await userEvent.click(test);
    let alert = await within(p).findByRole("alert");
    expect(alert.textContent).toContain("The agent could not connect");
    expect(alert.textContent).toContain("refused this connection's API key: unknown API key.");
    expect(within(p).queryByRole("list", { name: "Tools" })).toBeNull();

    bridge.fail("testAgentConnection", {
      status: 404,
      code: "no_mcp",
      message: "There is no MCP endpoint at http://127.0.0.1:7433/mcp (HTTP 404).",
    });
    await userEvent.click(test);
    await waitFor(() =>
      expect(within(p).getByRole("alert").textContent).toContain("There is no MCP endpoint at"),
    );

    bridge.fail("testAgentConnection", {
      status: 0,
      code: "network_error",
      message: "Cannot reach http://127.0.0.1:7433/mcp: connect ECONNREFUSED 127.0.0.1:7433.",
    });
    await userEvent.click(test);
    await waitFor(() => expect(within(p).getByRole("alert").textContent).toContain("ECONNREFUSED"));
    alert = within(p).getByRole("alert");
    expect(alert.textContent).toContain("Check that the server is running");

    // A success afterwards replaces the error.
    bridge.failures.delete("testAgentConnection");
    await userEvent.click(test);
    expect(await within(p).findByRole("list", { name: "Tools" })).toBeTruthy();
    expect(within(p).queryByRole("alert")).toBeNull();
  });

  it("a test's answer belongs to its connection: switching connection clears it", async () => {
    const bridge = new FakeBridge();
    bridge.profiles.push(remoteProfile({ current: false }));
    renderWith(bridge, <AccountView />);
    const p = await panel();
    await userEvent.click(within(p).getByRole("button", { name: "Test connection" }));
    expect(await within(p).findByRole("list", { name: "Tools" })).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Use Staging" }));
    await waitFor(() => expect(screen.getByText("https://s/mcp")).toBeTruthy());
    expect(screen.queryByRole("list", { name: "Tools" })).toBeNull();
  });
});

describe("agentConfig", () => {
  it("knows the hosted service by its host name", () => {
    expect(isHostedService("https://api.pipedream.com/v1")).toBe(true);
    expect(isHostedService("https://hw.example.com/v1")).toBe(false);
    expect(isHostedService("https://notpipedream.com/v1")).toBe(false);
    expect(isHostedService("")).toBe(false);
  });
  it("writes JSON as people write these files: an array of strings on one line", () => {
    expect(stdioConfig()).toBe(
      '{\n  "mcpServers": {\n    "headwater": {\n      "command": "npx",\n      "args": ["headwater", "mcp"]\n    }\n  }\n}',
    );
    const odd = { a: ['say "hi"', "x"], b: [1, 2] };
    expect(JSON.parse(prettyJson(odd))).toEqual(odd);
  });
  it("cuts a description to its first sentence", () => {
    expect(firstSentence("Lists sources. Newest first.")).toBe("Lists sources.");
    expect(firstSentence(undefined)).toBe("");
    expect(firstSentence("x".repeat(200), 10)).toBe(`${"x".repeat(9)}…`);
  });
});
