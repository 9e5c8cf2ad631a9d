/**
 * The legal pages (/legal/terms, /legal/privacy): fills the operator's name, contact e-mail and
 * website (`[data-setting=operator|contact|website]`) from GET /api/capabilities, which
 * publishes the OPERATOR_NAME, CONTACT_EMAIL and WEBSITE_URL settings. Without an answer the
 * placeholders written in the page stay.
 */
import { capabilities } from "../shared/capabilities.js";

async function fillSettings() {
  let platform;
  try {
    platform = (await capabilities()).platform ?? {};
  } catch {
    return;
  }
  const values = { operator: platform.operator, contact: platform.contact, website: platform.website };
  for (const el of document.querySelectorAll("[data-setting]")) {
    const value = values[el.dataset.setting];
    if (typeof value !== "string" || !value) continue;
    el.textContent = value;
    if (el instanceof HTMLAnchorElement)
      el.href = el.dataset.setting === "contact" ? `mailto:${value}` : value;
  }
}

fillSettings();
