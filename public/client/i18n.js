/**
 * The client dashboard's language helpers: the common dictionary and helpers of
 * shared/i18n.js (language choice, task statuses, CAD and America/Toronto formatting) with the
 * dashboard's own texts (./messages.js) added.
 */
import { addMessages } from "../shared/i18n.js";
import { EN, FR } from "./messages.js";

export * from "../shared/i18n.js";

addMessages({ en: EN, fr: FR });
