/**
 * Photos picked in the browser, as the operator console (operator/proof.js) and the field app
 * (field/photos.js) send them: the MIME type (from the extension when the browser gives none),
 * large photos scaled down (over 1.5 MB, JPEG/PNG/WebP: at most 2048 px, JPEG quality 0.85) so a
 * file stays within the API's 3 MiB per proof file, and the content as base64 (`readBase64`, also
 * what the client dashboard sends a dispute's evidence files with).
 */

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
export function typeOf(file) {
  if (file.type) return file.type;
  const ext = file.name.split(".").pop()?.toLowerCase() ?? "";
  return EXTENSION_TYPES[ext] ?? "application/octet-stream";
}

/** Scales a large photo down (JPEG, quality 0.85); returns the original when it cannot. */
export async function shrink(file) {
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
export function readBase64(file) {
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
