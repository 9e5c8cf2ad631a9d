/**
 * Photos from the camera (`<input type="file" accept="image/*" capture="environment" multiple>`,
 * the rear camera on phones), sent ONE PER REQUEST as soon as they are picked (POST
 * /api/field-proof): a lost connection costs one photo, not the whole completion, and the files
 * are attached to the task before it is completed (docs/decisions.md). Each file gets its own
 * Idempotency-Key, kept with the file, so "Send again" after a failure can never attach it twice.
 * Large photos are scaled down first, as in the operator console (shared/photos.js).
 */

import { field, h, replace } from "../shared/dom.js";
import { readBase64, shrink, typeOf } from "../shared/photos.js";
import { newIdempotencyKey, request } from "./api.js";
import { messages } from "./context.js";
import { formatBytes, t } from "./i18n.js";
import { isNetworkError, queuePhoto } from "./offline.js";

const { announce } = messages;

/** Types GET /api/field-proof serves as a thumbnail (lib/field/schemas.ts FIELD_PROOF_IMAGE_TYPES). */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"]);

/** The photos section of `task` (its already attached files listed first). */
export function photosSection(task) {
  const list = h("ul", { class: "proof-list", "aria-live": "polite" });
  /** Thumbnails of the photos sent from this page, by SHA-256 (object URLs of the picked files). */
  const thumbs = new Map();
  /** @type {{ file: File, key: string, state: "sending" | "sent" | "failed" }[]} */
  const pending = [];

  const render = () => {
    const sent = task.proof_files.map((f) =>
      h(
        "li",
        { class: "proof-item" },
        thumbs.has(f.sha256) || IMAGE_TYPES.has(f.type)
          ? h("img", {
              class: "thumb",
              // Sent from this page: the picked file; else (after a reload) the stored photo.
              src:
                thumbs.get(f.sha256) ??
                `/api/field-proof?task_id=${encodeURIComponent(task.task_id)}&sha256=${encodeURIComponent(f.sha256)}`,
              alt: t("photos.thumb", { name: f.filename }),
              loading: "lazy",
            })
          : null,
        h("span", { class: "proof-name" }, `${f.filename} (${formatBytes(f.size)})`),
      ),
    );
    const others = pending
      .filter((p) => p.state !== "sent")
      .map((p) =>
        h(
          "li",
          { class: "proof-item" },
          h(
            "span",
            { class: "proof-name" },
            p.state === "sending"
              ? t("photos.sending", { name: p.file.name })
              : t("photos.failed", { name: p.file.name }),
          ),
          p.state === "failed"
            ? h(
                "button",
                { type: "button", class: "button secondary small", onclick: () => send(p) },
                t("photos.retry", { name: p.file.name }),
              )
            : null,
        ),
      );
    replace(
      list,
      sent.length || others.length ? [sent, others] : h("li", { class: "muted" }, t("photos.none")),
    );
  };

  /** Sends one picked file with its own Idempotency-Key (kept for retries). */
  async function send(item) {
    item.state = "sending";
    render();
    try {
      const answer = await request("POST", "/api/field-proof", {
        idempotencyKey: item.key,
        body: {
          task_id: task.task_id,
          file: {
            filename: item.file.name.slice(0, 200) || "photo.jpg",
            type: typeOf(item.file),
            content: await readBase64(item.file),
          },
        },
      });
      item.state = "sent";
      if (item.file.type.startsWith("image/") && !thumbs.has(answer.file.sha256)) {
        thumbs.set(answer.file.sha256, URL.createObjectURL(item.file));
      }
      if (!task.proof_files.some((f) => f.sha256 === answer.file.sha256)) task.proof_files.push(answer.file);
      announce(t("photos.sent", { name: answer.file.filename }));
    } catch (e) {
      if (isNetworkError(e)) {
        // No network: kept on the phone with its time (field/offline.js), listed under "Waiting to send".
        pending.splice(pending.indexOf(item), 1);
        await queuePhoto(task, item.file, item.capturedAt);
      } else {
        item.state = "failed";
        announce(t("photos.failed", { name: item.file.name }));
      }
    }
    render();
  }

  const onPick = async (event) => {
    const input = event.currentTarget;
    const chosen = Array.from(input.files ?? []);
    input.value = "";
    for (const original of chosen) {
      const capturedAt = new Date().toISOString();
      const item = { file: await shrink(original), key: newIdempotencyKey(), state: "sending", capturedAt };
      pending.push(item);
      await send(item);
    }
  };

  render();
  return h(
    "section",
    { class: "panel", "aria-labelledby": "sec-photos" },
    h("h2", { id: "sec-photos" }, t("photos.title")),
    field(
      t("photos.camera"),
      "input",
      {
        type: "file",
        name: "photos",
        accept: "image/*",
        capture: "environment",
        multiple: true,
        class: "file-input",
        onchange: onPick,
      },
      { hint: t("photos.hint") },
    ),
    list,
  );
}
