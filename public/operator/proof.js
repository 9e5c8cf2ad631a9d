/**
 * Proof files for a completion: a camera input (`accept="image/*" capture="environment"
 * multiple`, which opens the rear camera on phones) and a plain file input for PDFs and
 * existing pictures. Each pick adds to the list (a phone camera returns one photo at a time).
 * Large photos (over 1.5 MB, JPEG/PNG/WebP) are scaled down in the browser to at most
 * 2048 px and re-encoded as JPEG (shared/photos.js), so that a completion stays within the API's limits
 * (3 MiB per file, 4,000,000 bytes in all, 10 files) and Vercel's 4.5 MB request body.
 */
import { field, h, replace, uid } from "../shared/dom.js";
import { readBase64, shrink, typeOf } from "../shared/photos.js";
import { formatBytes, t } from "./i18n.js";

export const MAX_FILES = 10;
/** Base64 in JSON grows by 4/3 and Vercel caps request bodies at 4.5 MB: ~3.3 MB of files. */
export const MAX_TOTAL_BYTES = 3_200_000;
/**
 * The picker. `element` goes in the completion form; `files()` resolves to the API's
 * `proof_files` array; `problem()` names a limit the selection breaks, or null.
 */
export function proofPicker() {
  /** @type {{ file: File, url: string }[]} */
  const picked = [];
  const list = h("ul", { class: "proof-list", "aria-live": "polite" });

  const render = () => {
    for (const old of list.querySelectorAll("img")) old.remove();
    if (!picked.length) {
      replace(list, h("li", { class: "muted" }, t("action.no_files")));
      return;
    }
    replace(
      list,
      picked.map((item, index) =>
        h(
          "li",
          { class: "proof-item" },
          item.file.type.startsWith("image/") ? h("img", { src: item.url, alt: "", class: "thumb" }) : null,
          h("span", { class: "proof-name" }, `${item.file.name} (${formatBytes(item.file.size)})`),
          h(
            "button",
            {
              type: "button",
              class: "button secondary small",
              "aria-label": t("action.remove", { name: item.file.name }),
              onclick: () => {
                URL.revokeObjectURL(item.url);
                picked.splice(index, 1);
                render();
              },
            },
            "✕",
          ),
        ),
      ),
    );
  };

  const onPick = async (event) => {
    const input = event.currentTarget;
    const chosen = Array.from(input.files ?? []);
    input.value = "";
    for (const original of chosen) {
      const file = await shrink(original);
      picked.push({ file, url: URL.createObjectURL(file) });
    }
    render();
  };

  const cameraId = uid("proof-camera");
  const camera = field(t("action.photos"), "input", {
    id: cameraId,
    type: "file",
    name: "proof_camera",
    accept: "image/*",
    capture: "environment",
    multiple: true,
    class: "file-input",
    onchange: onPick,
  });
  const other = field(t("action.files"), "input", {
    type: "file",
    name: "proof_files",
    accept: "image/*,application/pdf,video/mp4,video/quicktime",
    multiple: true,
    class: "file-input",
    onchange: onPick,
  });
  render();

  return {
    element: h(
      "div",
      { class: "proof-picker" },
      camera,
      other,
      h("p", { class: "label-like", id: `${cameraId}-list` }, t("action.selected")),
      list,
    ),
    problem() {
      if (picked.length > MAX_FILES) return t("action.too_many");
      const total = picked.reduce((sum, p) => sum + p.file.size, 0);
      if (total > MAX_TOTAL_BYTES)
        return t("action.too_big", { size: formatBytes(total), limit: formatBytes(MAX_TOTAL_BYTES) });
      return null;
    },
    async files() {
      return Promise.all(
        picked.map(async ({ file }) => ({
          filename: file.name.slice(0, 200) || "proof",
          type: typeOf(file),
          content: await readBase64(file),
        })),
      );
    },
    clear() {
      for (const p of picked) URL.revokeObjectURL(p.url);
      picked.length = 0;
      render();
    },
  };
}
