/**
 * Proof files for a completion: a camera input (`accept="image/*" capture="environment"
 * multiple`, which opens the rear camera on phones) and a plain file input for PDFs and
 * existing pictures. Each pick adds to the list (a phone camera returns one photo at a time).
 * Large photos (over 1.5 MB, JPEG/PNG/WebP) are scaled down in the browser to at most
 * 2048 px and re-encoded as JPEG, so that a completion stays within the API's limits
 * (3 MiB per file, 4,000,000 bytes in all, 10 files) and Vercel's 4.5 MB request body.
 */
import { field, h, replace, uid } from "../shared/dom.js";
import { formatBytes, t } from "./i18n.js";

export const MAX_FILES = 10;
/** Base64 in JSON grows by 4/3 and Vercel caps request bodies at 4.5 MB: ~3.3 MB of files. */
export const MAX_TOTAL_BYTES = 3_200_000;
const SHRINK_ABOVE_BYTES = 1_500_000;
const MAX_EDGE_PX = 2048;
const SHRINKABLE = new Set(["image/jpeg", "image/png", "image/webp"]);

const EXTENSION_TYPES = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  heic: "image/heic",
  heif: "image/heif",
  pdf: "application/pdf",
  mp4: "video/mp4",
  mov: "video/quicktime",
};

/** The MIME type of `file`, guessed from its extension when the browser gives none. */
function typeOf(file) {
  if (file.type) return file.type;
  const ext = file.name.split(".").pop()?.toLowerCase() ?? "";
  return EXTENSION_TYPES[ext] ?? "application/octet-stream";
}

/** Scales a large photo down (JPEG, quality 0.85); returns the original when it cannot. */
async function shrink(file) {
  if (file.size <= SHRINK_ABOVE_BYTES || !SHRINKABLE.has(typeOf(file))) return file;
  try {
    const bitmap = await createImageBitmap(file);
    const scale = Math.min(1, MAX_EDGE_PX / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
    if (!blob || blob.size >= file.size) return file;
    const name = file.name.replace(/\.[^.]*$/, "") || "photo";
    return new File([blob], `${name}.jpg`, { type: "image/jpeg" });
  } catch {
    return file;
  }
}

/** Reads a file as base64 (without the data: prefix) with FileReader. */
function readBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

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
