/**
 * The field app's language helpers: the common dictionary and helpers of shared/i18n.js with the
 * field app's own texts (./messages.js) added.
 */
import { addMessages } from "../shared/i18n.js";
import { EN, FR } from "./messages.js";

export * from "../shared/i18n.js";

addMessages({ en: EN, fr: FR });
