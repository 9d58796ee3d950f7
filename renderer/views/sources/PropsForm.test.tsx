// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import type { PropDescriptor } from "../../../shared/resources/index.js";
import { FakeBridge, TIMER_COMPONENT } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { CreateSourceDialog } from "./CreateSourceDialog.js";
import { PropsForm } from "./PropsForm.js";
import { buildConfiguredProps, initialState, type FormState } from "./propsForm.js";

const PROPS: PropDescriptor[] = [
  { name: "http", type: "$.interface.http", customResponse: true },
  { name: "db", type: "$.service.db" },
  { name: "timer", type: "$.interface.timer", default: { intervalSeconds: 900 } },
  { name: "url", type: "string", label: "Feed URL", description: "An RSS feed" },
  { name: "token", type: "string", secret: true, label: "Token" },
  { name: "limit", type: "integer", min: 1, max: 50, default: 10 },
  { name: "verbose", type: "boolean", optional: true },
  { name: "tags", type: "string[]", optional: true },
  { name: "region", type: "string", options: ["eu", "us"], default: "eu" },
  {
    name: "levels",
    type: "integer[]",
    options: [
      { label: "Low", value: 1 },
      { label: "High", value: 3 },
    ],
    optional: true,
  },
  { name: "extra", type: "object", optional: true },
];

describe("props form rules", () => {
  it("builds configured_props from defaults and typed values", () => {
    const state = initialState(PROPS);
    state.url = "https://example.com/feed";
    state.token = "s3cret";
    state.tags = "a\n b \n\n";
    state.levels = ["3"];
    state.extra = '{"k": [1]}';
    const built = buildConfiguredProps(PROPS, state);
    expect(built).toEqual({
      ok: true,
      value: {
        timer: { intervalSeconds: 900 },
        url: "https://example.com/feed",
        token: "s3cret",
        limit: 10,
        verbose: false,
        tags: ["a", "b"],
        region: "eu",
        levels: [3],
        extra: { k: [1] },
      },
    });
  });

  it("reports each bad field and sends nothing", () => {
    const state = initialState(PROPS);
    state.limit = "99";
    state.extra = "{nope";
    state.timer = { mode: "cron", interval: "", cron: " " };
    const built = buildConfiguredProps(PROPS, state);
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.errors).toEqual({
      timer: "enter a cron expression, e.g. */5 * * * *",
      url: "required",
      token: "required",
      limit: "must be at most 50",
      extra: "must be valid JSON",
    });
  });

  it("starts from a source's current values (timer as the API returns it)", () => {
    const state = initialState(PROPS, { timer: { cron: "*/5 * * * *", interval_seconds: null }, limit: 7 });
    expect(state.timer).toEqual({ mode: "cron", interval: "", cron: "*/5 * * * *" });
    expect(state.limit).toBe("7");
  });
});

function Harness({ onState }: { onState: (s: FormState) => void }) {
  const [state, setState] = useState(() => initialState(PROPS));
  return (
    <PropsForm
      descriptors={PROPS}
      state={state}
      errors={{}}
      onChange={(s) => {
        setState(s);
        onState(s);
      }}
    />
  );
}

describe("props form inputs", () => {
  it("renders one labelled input per prop, hides secrets, skips platform props", async () => {
    let last: FormState = {};
    renderWith(new FakeBridge(), <Harness onState={(s) => (last = s)} />);
    expect(screen.getByLabelText("Feed URL")).toHaveProperty("type", "text");
    expect(screen.getByLabelText(/^Token/)).toHaveProperty("type", "password");
    expect(screen.getByLabelText(/^limit/)).toHaveProperty("type", "number");
    expect(screen.getByLabelText("timer: interval in seconds")).toHaveProperty("value", "900");
    expect(screen.getByRole("checkbox", { name: "verbose" })).toBeTruthy();
    expect(screen.queryByLabelText(/^http/)).toBeNull();
    expect(screen.queryByLabelText(/^db/)).toBeNull();
    expect(screen.getByText(/own HTTP endpoint URL/)).toBeTruthy();

    await userEvent.selectOptions(screen.getByLabelText("timer: schedule kind"), "cron");
    await userEvent.type(screen.getByLabelText("timer: cron expression"), "0 * * * *");
    await userEvent.click(screen.getByRole("checkbox", { name: "High" }));
    expect(last.timer).toEqual({ mode: "cron", interval: "900", cron: "0 * * * *" });
    expect(last.levels).toEqual(["3"]);
  });

  it("creates a source from a saved component with the generated form, showing field errors first", async () => {
    const bridge = new FakeBridge();
    bridge.components = [{ ...TIMER_COMPONENT, configurable_props: PROPS }];
    let created = "";
    renderWith(bridge, <CreateSourceDialog onClose={() => undefined} onCreated={(s) => (created = s.id)} />);
    await userEvent.click(screen.getByRole("tab", { name: "Saved" }));
    await userEvent.click(await screen.findByRole("button", { name: /Every minute/ }));
    const dialog = screen.getByRole("dialog");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    expect(
      within(dialog)
        .getAllByRole("alert")
        .map((a) => a.textContent),
    ).toEqual(["Feed URL: required", "Token: required"]);
    expect(bridge.callsOf("createSource")).toHaveLength(0);

    await userEvent.type(within(dialog).getByLabelText("Feed URL"), "https://example.com/rss");
    await userEvent.type(within(dialog).getByLabelText(/^Token/), "tok");
    await userEvent.type(within(dialog).getByLabelText("Name"), "news");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    await waitFor(() => expect(created).not.toBe(""));
    expect(bridge.callsOf("createSource")).toEqual([
      [
        {
          component_id: "sc_timer",
          name: "news",
          configured_props: {
            timer: { intervalSeconds: 900 },
            url: "https://example.com/rss",
            token: "tok",
            limit: 10,
            verbose: false,
            region: "eu",
          },
        },
      ],
    ]);
  });

  it("shows the host's error inside the dialog when creation fails", async () => {
    const bridge = new FakeBridge();
    bridge.fail("createSource", {
      status: 400,
      code: "validation_failed",
      message: "configured_props is not valid",
      details: [{ path: "configured_props.timer", message: "a timer needs intervalSeconds or cron" }],
    });
    renderWith(bridge, <CreateSourceDialog onClose={() => undefined} onCreated={() => undefined} />);
    await userEvent.click(screen.getByRole("tab", { name: "Saved" }));
    await userEvent.click(await screen.findByRole("button", { name: /Every minute/ }));
    await userEvent.click(screen.getByRole("button", { name: "Create source" }));
    const alert = await within(screen.getByRole("dialog")).findByRole("alert");
    expect(alert.textContent).toContain("Could not create the source");
    expect(alert.textContent).toContain("a timer needs intervalSeconds or cron");
  });
});
