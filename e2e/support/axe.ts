/**
 * Accessibility audit: axe-core's WCAG 2.0/2.1 level A and AA rules over what the page shows
 * now. `expectAccessible` fails the test with one line per violation and node (rule, impact,
 * the element, axe's summary), so the report says what to fix.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";

export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

export interface AxeFinding {
  rule: string;
  impact: string;
  target: string;
  summary: string;
}

/** The violations axe finds on `page` (optionally only inside `include`, a CSS selector). */
export async function auditPage(page: Page, opts: { include?: string } = {}): Promise<AxeFinding[]> {
  let builder = new AxeBuilder({ page })
    // WCAG 2.5.3 (label in name) is an "experimental" rule axe leaves out unless it is named.
    .options({ rules: { "label-content-name-mismatch": { enabled: true } } })
    .withTags(WCAG_TAGS);
  if (opts.include) builder = builder.include(opts.include);
  const result = await builder.analyze();
  return result.violations.flatMap((v) =>
    v.nodes.map((n) => ({
      rule: v.id,
      impact: v.impact ?? "unknown",
      target: n.target.join(" "),
      summary: (n.failureSummary ?? v.help).replace(/\s+/g, " ").trim(),
    })),
  );
}

/** Audits `page` as the view called `view`; the findings go into the report either way. */
export async function expectAccessible(
  page: Page,
  view: string,
  opts: { include?: string } = {},
): Promise<void> {
  const findings = await auditPage(page, opts);
  await test
    .info()
    .attach(`axe: ${view}`, { body: JSON.stringify(findings, null, 2), contentType: "application/json" });
  expect(
    findings.map((f) => `${f.rule} (${f.impact}) at ${f.target}: ${f.summary}`),
    `axe-core (WCAG 2.1 A/AA) on ${view}`,
  ).toEqual([]);
}

const SCHEMES = ["light", "dark"] as const;

/**
 * Audits what `page` shows in both colour schemes (the page's own state, hover included, is
 * left as it is) and fails with every violation of both, so one run says all there is to fix.
 */
export async function expectAccessibleInBothSchemes(
  page: Page,
  view: string,
  opts: { include?: string } = {},
): Promise<void> {
  const lines: string[] = [];
  for (const colorScheme of SCHEMES) {
    await page.emulateMedia({ colorScheme });
    // Let transitions on colours settle before axe reads the computed styles.
    await page.waitForTimeout(250);
    const findings = await auditPage(page, opts);
    await test.info().attach(`axe: ${view} (${colorScheme})`, {
      body: JSON.stringify(findings, null, 2),
      contentType: "application/json",
    });
    for (const f of findings)
      lines.push(`[${colorScheme}] ${f.rule} (${f.impact}) at ${f.target}: ${f.summary}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  expect(lines, `axe-core (WCAG 2.1 A/AA) on ${view}, light and dark`).toEqual([]);
}
