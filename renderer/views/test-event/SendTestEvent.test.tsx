// @vitest-environment happy-dom
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { SendTestEvent } from "./SendTestEvent.js";

describe("Send test event", () => {
  it("checks the JSON body as it is typed, sends through the host, and shows the response", async () => {
    const bridge = new FakeBridge();
    renderWith(bridge, <SendTestEvent emitterId="dc_src1" />);
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
    renderWith(bridge, <SendTestEvent emitterId="dc_src1" />);
    await userEvent.click(screen.getByRole("button", { name: "Send test event" }));
    const panel = screen.getByRole("region", { name: "Send test event" });
    fireEvent.change(within(panel).getByLabelText("Headers"), { target: { value: "no colon here" } });
    expect(within(panel).getByText('Headers: line 1 is not "Name: value"')).toBeTruthy();
    expect((within(panel).getByRole("button", { name: "Send" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(within(panel).getByLabelText("Headers"), { target: { value: "" } });
    await userEvent.click(within(panel).getByRole("button", { name: "Send" }));
    expect((await within(panel).findByRole("alert")).textContent).toContain("no HTTP endpoint");
  });
});
