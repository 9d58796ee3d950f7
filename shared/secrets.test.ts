import { describe, expect, it } from "vitest";
import type { PropDescriptor } from "./resources/index.js";
import { isSecretName, MASK, redactConfiguredProps } from "./secrets.js";

describe("redactConfiguredProps", () => {
  const props: PropDescriptor[] = [
    { name: "gh", type: "app", app: "github" },
    { name: "hush", type: "string", secret: true },
    { name: "channel", type: "string" },
  ];

  it("masks $auth values, declared secrets and secret-looking names; keeps the rest and the keys", () => {
    const out = redactConfiguredProps(
      {
        gh: { $auth: { oauth_access_token: "t1", scope: "repo" } },
        hush: "h",
        channel: "general",
        api_key: "k",
        timer: { intervalSeconds: 60 },
      },
      props,
    );
    expect(out).toEqual({
      gh: { $auth: { oauth_access_token: MASK, scope: MASK } },
      hush: MASK,
      channel: "general",
      api_key: MASK,
      timer: { intervalSeconds: 60 },
    });
  });

  it("without the component's props: $auth and names still masked, a declared secret cannot be known", () => {
    expect(redactConfiguredProps({ x: { $auth: { k: "v" } }, hush: "h", password: "p" })).toEqual({
      x: { $auth: { k: MASK } },
      hush: "h",
      password: MASK,
    });
  });

  it("an app prop's credentials not in $auth form are masked by its type; empty values stay empty", () => {
    expect(redactConfiguredProps({ gh: { token: "t", empty: "" }, hush: null }, props)).toEqual({
      gh: { token: MASK, empty: "" },
      hush: null,
    });
  });

  it("a connected account's reference is shown (an id, not a value), whatever the prop's name or type", () => {
    const withAuth: PropDescriptor[] = [...props, { name: "auth", type: "app", app: "slack" }];
    expect(
      redactConfiguredProps(
        { gh: { authProvisionId: "apn_1" }, auth: { authProvisionId: "apn_2" }, hush: { authProvisionId: "apn_3", token: "t" } },
        withAuth,
      ),
    ).toEqual({ gh: { authProvisionId: "apn_1" }, auth: { authProvisionId: "apn_2" }, hush: MASK });
    // Beside other keys it may hold values: masked as any app prop.
    expect(redactConfiguredProps({ gh: { authProvisionId: "apn_1", token: "t" } }, props)).toEqual({
      gh: { authProvisionId: MASK, token: MASK },
    });
  });

  it("names: the dashboard's rule", () => {
    expect(["password", "apiToken", "client_secret", "API_KEY", "cookie"].every(isSecretName)).toBe(true);
    expect(["channel", "greeting", "url"].some(isSecretName)).toBe(false);
  });

  it("names: whole words only, in any case convention", () => {
    expect(
      ["oauth_access_token", "clientSecret", "ssl-key", "db_password", "privateKey", "dsn"].every(
        isSecretName,
      ),
    ).toBe(true);
    expect(["keyword", "monkey", "author", "passenger", "tokenizer_name"].some(isSecretName)).toBe(false);
  });
});
