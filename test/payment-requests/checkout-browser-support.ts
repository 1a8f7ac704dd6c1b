import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const require = createRequire(import.meta.url);
/** axe-core and jsQR as browser scripts: evaluated as the test's own code (the page's CSP refuses added scripts). */
const AXE_SCRIPT = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const JSQR_SCRIPT = readFileSync(require.resolve("jsqr/dist/jsQR.js"), "utf8");

/** The phone the issue names: 390 x 844 CSS pixels. */
export const PHONE = { width: 390, height: 844 };

/** The page's serious and critical accessibility violations (axe-core, WCAG 2.x A and AA). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SCRIPT);
  const results = (await page.evaluate(
    `axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })`,
  )) as { violations: Array<{ id: string; impact?: string | null; help: string; nodes: Array<{ target: unknown }> }> };
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")})`);
}

/**
 * What the QR code the page shows (the #qr image as drawn) decodes to: the image is painted on a
 * canvas inside the page, at a size of its own on white, and read back with jsQR. null if unreadable.
 */
export async function decodeShownQr(page: Page): Promise<string | null> {
  await page.evaluate(JSQR_SCRIPT);
  // Polled with evaluate: waitForFunction evaluates strings with eval, which the page's CSP refuses.
  for (let i = 0; ; i++) {
    if (
      await page.evaluate(
        `(() => { const img = document.getElementById("qr"); return !!img && img.complete && img.naturalWidth > 0; })()`,
      )
    )
      break;
    if (i > 200) throw new Error("the QR code image never loaded");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // In the page (no DOM types here): paint the shown image on a canvas, read the pixels, decode.
  return page.evaluate(`(() => {
    const img = document.getElementById("qr");
    const size = 480;
    const canvas = document.createElement("canvas");
    canvas.width = size;
    canvas.height = size;
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff";
    context.fillRect(0, 0, size, size);
    context.imageSmoothingEnabled = false;
    context.drawImage(img, 0, 0, size, size);
    const read = jsQR(context.getImageData(0, 0, size, size).data, size, size);
    return read ? read.data : null;
  })()`) as Promise<string | null>;
}
