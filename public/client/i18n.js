/**
 * The client dashboard's language helpers: the common dictionary and helpers of
 * shared/i18n.js (language choice, task statuses, CAD and America/Toronto formatting) with the
 * dashboard's own texts (./messages.en.js, ./messages.fr.js) added.
 */
import { addMessages } from "../shared/i18n.js";
import { EN } from "./messages.en.js";
import { FR } from "./messages.fr.js";

export * from "../shared/i18n.js";

addMessages({ en: EN, fr: FR });
