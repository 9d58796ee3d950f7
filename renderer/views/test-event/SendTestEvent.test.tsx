// @vitest-environment happy-dom
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { SendTestEvent } from "./SendTestEvent.js";

const SOURCE = { id: "dc_src1", kind: "source", name: "Orders webhook", active: true } as const;
const WORKFLOW = { id: "p_wf1", kind: "workflow", name: "Notify the team", active: true } as const;

describe("Send test event", () => {
  it("checks the JSON body as it is typed, sends through the host, and shows the response", async () => {
    const bridge = new FakeBridge();
    renderWith(bridge, <SendTestEvent target={SOURCE} />);
    await userEvent.click(screen.getByRole("button", { name: "Send test event" }));
    const panel = screen.getByRole("region", { name: "Send test event" });
    const body = within(panel).getByLabelText("Body");
    const send = within(panel).getByRole("button", { name: "Send" });

    fireEvent.change(body, { target: { value: '{"order": ' } });
    expect(body.getAttribute("aria-invalid")).toBe("true");
    expect(within(panel).getByText(/Body is not valid JSON/)).toBeTruthy();
    expect((send as HTMLButtonElement).disabled).toBe(true);

    fireEvent.change(body, { target: { value: '{"order": 7}' } });
    expect(body.getAttribute("aria-invalid")).toBeNull();
    await userEvent.clear(within(panel).getByLabelText("Path"));
    await userEvent.type(within(panel).getByLabelText("Path"), "/orders/7");
    fireEvent.change(within(panel).getByLabelText("Headers"), {
      target: { value: "Content-Type: application/json\nAuthorization: Bearer s3cret" },
    });
    await userEvent.click(send);

    await waitFor(() =>
      expect(bridge.callsOf("sendTestRequest")).toEqual([
        [
          "dc_src1",
          {
            method: "POST",
            path: "/orders/7",
            headers: [
              { name: "Content-Type", value: "application/json" },
              { name: "Authorization", value: "Bearer s3cret" },
            ],
            body: '{"order": 7}',
          },
        ],
      ]),
    );
    const response = await within(panel).findByRole("region", { name: "Response" });
    expect(within(response).getByRole("status").textContent).toBe("200 OK");
    expect(within(response).getByLabelText("Response body").textContent).toContain('"ok": true');

    // Kept by the host: listed to load or send again, without the credential header.
    const recent = await within(panel).findByRole("list", { name: "Recent requests" });
    expect(within(recent).getAllByRole("listitem")).toHaveLength(1);
    await userEvent.click(within(recent).getByRole("button", { name: "Send again POST /orders/7" }));
    await waitFor(() => expect(bridge.callsOf("sendTestRequest")).toHaveLength(2));
    expect(bridge.callsOf("sendTestRequest")[1]![1]).toMatchObject({
      path: "/orders/7",
      headers: [{ name: "Content-Type", value: "application/json" }],
    });
  });

  it("refuses headers that are not Name: value, and shows the host's error in words", async () => {
    const bridge = new FakeBridge();
    bridge.fail("sendTestRequest", {
      status: 400,
      code: "no_endpoint",
      message: "This source has no HTTP endpoint.",
    });
    renderWith(bridge, <SendTestEvent target={SOURCE} />);
    await userEvent.click(screen.getByRole("button", { name: "Send test event" }));
    const panel = screen.getByRole("region", { name: "Send test event" });
    fireEvent.change(within(panel).getByLabelText("Headers"), { target: { value: "no colon here" } });
    expect(within(panel).getByText('Headers: line 1 is not "Name: value"')).toBeTruthy();
    expect((within(panel).getByRole("button", { name: "Send" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(within(panel).getByLabelText("Headers"), { target: { value: "" } });
    await userEvent.click(within(panel).getByRole("button", { name: "Send" }));
    expect((await within(panel).findByRole("alert")).textContent).toContain("no HTTP endpoint");
  });

  it("keeps Send and the answer in the panel's pinned foot, and links a workflow's run", async () => {
    const bridge = new FakeBridge();
    bridge.testResponse = {
      ...bridge.testResponse,
      headers: [
        ["content-type", "application/json"],
        ["x-headwater-run-id", "run_42"],
      ],
    };
    renderWith(bridge, <SendTestEvent target={WORKFLOW} />);
    await userEvent.click(screen.getByRole("button", { name: "Send test event" }));
    const panel = screen.getByRole("region", { name: "Send test event" });
    expect(panel.textContent).toContain("to Notify the team");
    const foot = panel.querySelector(".test-event-foot")!;
    await userEvent.click(within(foot as HTMLElement).getByRole("button", { name: "Send" }));
    const response = await within(foot as HTMLElement).findByRole("region", { name: "Response" });
    const link = within(response).getByRole("link", { name: "Open the run" });
    expect(link.getAttribute("href")).toBe("#/workflows/p_wf1/runs/run_42");
    expect(link.getAttribute("title")).toBe("run run_42");
    // Escape closes the panel and gives the focus back to its button.
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("region", { name: "Send test event" })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Send test event" }));
  });

  it("says an inactive target refuses requests before sending, and offers to activate it", async () => {
    const bridge = new FakeBridge();
    let activated = 0;
    renderWith(bridge, <SendTestEvent target={{ ...SOURCE, active: false }} onActivate={() => (activated += 1)} />);
    await userEvent.click(screen.getByRole("button", { name: "Send test event" }));
    const panel = screen.getByRole("region", { name: "Send test event" });
    expect(within(panel).getByRole("note").textContent).toContain(
      "Orders webhook is inactive: its endpoint refuses requests (404)",
    );
    await userEvent.click(within(panel).getByRole("button", { name: "Activate source" }));
    expect(activated).toBe(1);
    // A source's answer has no run to link.
    await userEvent.click(within(panel).getByRole("button", { name: "Send" }));
    const response = await within(panel).findByRole("region", { name: "Response" });
    expect(within(response).queryByRole("link")).toBeNull();
  });
});
