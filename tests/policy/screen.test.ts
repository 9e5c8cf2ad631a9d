/**
 * The policy screen (lib/policy) on its own: normalisation, outcomes, allow-list exceptions, and
 * the goals on the labelled set (the same numbers `npm run bench -- policy` prints).
 */
import { describe, expect, it } from "vitest";
import { evaluatePolicy, type LabelledItem } from "../../lib/policy/evaluate.js";
import {
  normalizePolicyText,
  POLICY_REASON_CODES,
  POLICY_VERSION,
  REFUSING_REASON_CODES,
  screenSubmission,
} from "../../lib/policy/screen.js";
import labelled from "./labelled-set.json" with { type: "json" };

const items = labelled.items as LabelledItem[];

describe("normalisation", () => {
  it("folds accents, case, ligatures, apostrophes and punctuation", () => {
    expect(normalizePolicyText("  Œuvre — ÉPIER l’Homme!! ")).toBe("oeuvre epier l'homme");
  });
});

describe("outcomes", () => {
  it.each([
    ["Photograph the storefront and the posted opening hours.", "allow", []],
    ["Inspect the security camera installation at our warehouse.", "allow", []],
    ["Inspecter l'installation des caméras de surveillance du dépanneur.", "allow", []],
    ["Pick up a glue gun from a seller in Laval.", "allow", []],
    ["Install a hidden camera in the nanny's room.", "refuse", ["PRIVACY_INTRUSION"]],
    ["SUIVRE mon EX après son travail", "refuse", ["PERSON_SURVEILLANCE"]],
    ["Pretend to be a city inspector so the tenant lets you in.", "refuse", ["IMPERSONATION"]],
    ["Climb onto the roof of the barn to photograph the damaged sheet metal.", "review", ["DANGEROUS_ACT"]],
    ["Pick up a hunting rifle I won at auction; I hold a PAL.", "review", ["WEAPONS"]],
    // "his new address" is surveillance, except as where something is sent (rules 2026-11-24.11)
    ["Get me her new address, she moved out last month.", "refuse", ["PERSON_SURVEILLANCE"]],
    ["Show my dad how to forward his own emails to his new address.", "allow", []],
    // a car dealer is not a drug dealer (rules 2026-11-24.11)
    ["Pick up a car from a dealer in Longueuil; papers are signed.", "allow", []],
    ["Get some molly from a dealer downtown.", "refuse", ["ILLEGAL_GOODS"]],
  ])("%s → %s", (text, outcome, codes) => {
    const screen = screenSubmission([text]);
    expect(screen.outcome).toBe(outcome);
    expect(screen.reason_codes).toEqual(codes);
    expect(screen.version).toBe(POLICY_VERSION);
  });

  it("reads every field on its own and reports the refusing codes first", () => {
    const screen = screenSubmission([
      "Check the roof of the barn, climb onto the roof if needed.",
      null,
      "Also put a GPS tracker under my wife's car.",
    ]);
    expect(screen.outcome).toBe("refuse");
    // refusing codes first, then the reviewing ones in rule order (a GPS tracker is also surveillance wording)
    expect(screen.reason_codes).toEqual(["PRIVACY_INTRUSION", "PERSON_SURVEILLANCE", "DANGEROUS_ACT"]);
    expect(screen.matches.map((m) => m.rule_id)).toEqual([
      "surveil-words",
      "danger-review",
      "privacy-devices",
    ]);
    // a match never spans two fields
    expect(screenSubmission(["Please follow", "my ex"]).outcome).toBe("allow");
  });

  it("lists the issue's reason codes", () => {
    for (const code of [
      "PERSON_SURVEILLANCE",
      "TRESPASS",
      "IMPERSONATION",
      "ILLEGAL_GOODS",
      "DANGEROUS_ACT",
      "PRIVACY_INTRUSION",
      "HARASSMENT",
      "WEAPONS",
      "MEDICAL_OR_LEGAL_ADVICE_IN_PERSON",
    ]) {
      expect(POLICY_REASON_CODES).toContain(code);
    }
  });
});

/**
 * One refusal, one review and one allow-list case per class, in English and French (rules
 * version 2026-11-24.10). MEDICAL_OR_LEGAL_ADVICE_IN_PERSON never refuses: every in-person medical
 * or legal act has a legitimate reading (a nurse hired by the family, a paralegal), so its cases
 * are reviews; its refusals come from other classes (posing as a lawyer is IMPERSONATION).
 */
const byClass: [string, "refuse" | "review" | "allow", string, string][] = [
  [
    "PERSON_SURVEILLANCE",
    "refuse",
    "en",
    "Park across from my ex-wife's new apartment and text me when she leaves.",
  ],
  ["PERSON_SURVEILLANCE", "refuse", "fr", "Stationne-toi devant chez mon ex pis texte-moi quand elle part."],
  ["PERSON_SURVEILLANCE", "review", "en", "Find out where my former tenant moved to; he owes me rent."],
  ["PERSON_SURVEILLANCE", "review", "fr", "Prendre des photos de ma conjointe quand elle sort du bureau."],
  [
    "PERSON_SURVEILLANCE",
    "allow",
    "en",
    "Watch the auction of lot 12 and follow up with the seller about pickup.",
  ],
  [
    "PERSON_SURVEILLANCE",
    "allow",
    "fr",
    "Surveiller les travaux de l'entrepreneur et suivre les instructions du plan.",
  ],
  [
    "HARASSMENT",
    "refuse",
    "en",
    "Slip an anonymous note under my coworker's door saying everyone knows what he did.",
  ],
  ["HARASSMENT", "refuse", "fr", "Écrire des insultes à la craie devant l'entrée de mon ancien patron."],
  ["HARASSMENT", "review", "en", "Deliver an anonymous letter to the building manager."],
  ["HARASSMENT", "review", "fr", "Livrer une lettre anonyme au bureau du syndic."],
  ["HARASSMENT", "allow", "en", "Check for security threats on the office network and update the firewall."],
  ["HARASSMENT", "allow", "fr", "Effacer les insultes écrites sur le mur de notre commerce."],
  [
    "TRESPASS",
    "refuse",
    "en",
    "Climb the fence of the hydro substation and take photos of the transformers.",
  ],
  ["TRESPASS", "refuse", "fr", "Passer par la fenêtre du sous-sol pour entrer chez mon ancien locataire."],
  ["TRESPASS", "review", "en", "Replace the smoke detector while the tenant is at work."],
  ["TRESPASS", "review", "fr", "Livrer un cadeau surprise à ma mère, elle n'est pas au courant."],
  ["TRESPASS", "allow", "en", "Photograph the no trespassing sign we installed at the site entrance."],
  ["TRESPASS", "allow", "fr", "Couper le cadenas de notre casier, nous avons perdu la clé."],
  ["IMPERSONATION", "refuse", "en", "Call the bank and say you're my father to get his account balance."],
  [
    "IMPERSONATION",
    "refuse",
    "fr",
    "Appeler la clinique en disant que vous êtes ma conjointe pour avoir ses résultats.",
  ],
  ["IMPERSONATION", "review", "en", "Sign for my neighbour's parcel at the post office."],
  ["IMPERSONATION", "review", "fr", "Récupérer le colis de ma voisine au bureau de poste."],
  [
    "IMPERSONATION",
    "allow",
    "en",
    "Pick up a parcel for me at the post office with my signed authorisation letter.",
  ],
  [
    "IMPERSONATION",
    "allow",
    "fr",
    "Dites au concierge que vous êtes de la part de Marc pour récupérer le colis.",
  ],
  ["ILLEGAL_GOODS", "refuse", "en", "Grab some molly and a bit of blow from my guy on Ontario Street."],
  ["ILLEGAL_GOODS", "refuse", "fr", "Va me chercher un 8 de weed chez mon gars à Longueuil."],
  [
    "ILLEGAL_GOODS",
    "review",
    "en",
    "Buy a used laptop from a guy who sells them out of a backpack, no receipt.",
  ],
  ["ILLEGAL_GOODS", "review", "fr", "Photographier le vélo qui a été volé puis retrouvé par la police."],
  ["ILLEGAL_GOODS", "allow", "en", "Buy some Coke and chips for the office party."],
  ["ILLEGAL_GOODS", "allow", "fr", "Aller chercher mes pilules à la pharmacie, le sac est prêt à mon nom."],
  ["WEAPONS", "refuse", "en", "Buy a Glock from a guy on Facebook and bring it to my place."],
  ["WEAPONS", "refuse", "fr", "Acheter un calibre 12 d'un chasseur, pas besoin de papiers."],
  ["WEAPONS", "review", "en", "Pick up a hunting rifle I won at auction; I hold a PAL."],
  ["WEAPONS", "review", "fr", "Aller chercher une arbalète de chasse achetée sur Marketplace."],
  ["WEAPONS", "allow", "en", "Pick up a stereo receiver and speakers from a guy on Kijiji."],
  ["WEAPONS", "allow", "fr", "Aller chercher un pistolet à calfeutrer et un fusil à clous chez un vendeur."],
  ["DANGEROUS_ACT", "refuse", "en", "Jump into the river from the bridge to fetch my phone."],
  ["DANGEROUS_ACT", "refuse", "fr", "Mets le feu aux vieux pneus dans le champ."],
  ["DANGEROUS_ACT", "review", "en", "Swim across the river to get my kayak back."],
  ["DANGEROUS_ACT", "review", "fr", "Changer la prise du salon sans couper le courant."],
  [
    "DANGEROUS_ACT",
    "allow",
    "en",
    "Fix the dead outlet in our office kitchen after switching off the breaker.",
  ],
  ["DANGEROUS_ACT", "allow", "fr", "Vérifier que le détecteur de monoxyde de carbone du chalet fonctionne."],
  [
    "PRIVACY_INTRUSION",
    "refuse",
    "en",
    "Take pictures of the house across the street through their living room window at night.",
  ],
  [
    "PRIVACY_INTRUSION",
    "refuse",
    "fr",
    "Photographier l'intérieur de la maison du voisin par-dessus la haie.",
  ],
  ["PRIVACY_INTRUSION", "review", "en", "Copy my roommate's files to a USB key."],
  ["PRIVACY_INTRUSION", "review", "fr", "Changer son mot de passe Windows."],
  ["PRIVACY_INTRUSION", "allow", "en", "Photograph the window seals and frames of our duplex."],
  ["PRIVACY_INTRUSION", "allow", "fr", "Photographier les fenêtres de notre maison pour le remplacement."],
  ["MEDICAL_OR_LEGAL_ADVICE_IN_PERSON", "review", "en", "Give my mom her evening shot of Ozempic."],
  [
    "MEDICAL_OR_LEGAL_ADVICE_IN_PERSON",
    "review",
    "fr",
    "Faire le pansement de la jambe de mon père à domicile.",
  ],
  [
    "MEDICAL_OR_LEGAL_ADVICE_IN_PERSON",
    "allow",
    "en",
    "Pick up my mother's prescription at the Jean Coutu; the pharmacist has her authorization.",
  ],
  [
    "MEDICAL_OR_LEGAL_ADVICE_IN_PERSON",
    "allow",
    "fr",
    "Déposer des documents au greffe du palais de justice pour notre avocate.",
  ],
];

describe("rules by class (refusal, review, allow-list; English and French)", () => {
  it.each(byClass)("%s %s (%s): %s", (code, outcome, _lang, text) => {
    const screen = screenSubmission([text]);
    expect(screen.outcome).toBe(outcome);
    if (outcome === "allow") expect(screen.reason_codes).toEqual([]);
    // a refusal is reported under its class first (refusing codes come first)
    if (outcome === "refuse") expect(screen.reason_codes[0]).toBe(code);
    if (outcome === "review") expect(screen.reason_codes).toContain(code);
  });

  it("covers every reason code in both languages, and lets no medical or legal rule refuse", () => {
    for (const code of POLICY_REASON_CODES) {
      for (const lang of ["en", "fr"]) {
        const cases = byClass.filter(([c, , l]) => c === code && l === lang).map(([, o]) => o);
        const expected = REFUSING_REASON_CODES.includes(code)
          ? ["refuse", "review", "allow"]
          : ["review", "allow"];
        expect(cases.sort()).toEqual(expected.sort());
      }
    }
    expect(REFUSING_REASON_CODES).not.toContain("MEDICAL_OR_LEGAL_ADVICE_IN_PERSON");
  });

  it("never lets one field's words complete another field's pattern, even with the broader vocabulary", () => {
    expect(screenSubmission(["Park across from", "my ex-wife's apartment"]).outcome).toBe("allow");
  });
});

describe("cross-class cues (rules 2026-11-24.11): review, never refuse on their own", () => {
  // [cue rule id, reason code, abusive en, abusive fr, allowed en, allowed fr]
  const cues: [string, string, string, string, string, string][] = [
    [
      "cue-no-consent",
      "PRIVACY_INTRUSION",
      "Clean the garage at my brother's place; he doesn't need to know I sent you.",
      "Ménage du sous-sol chez mon frère, il sait pas que c'est moi qui t'envoie.",
      "Clean the garage at my brother's place; the owner has been notified and left the door open.",
      "Livraison dans un emballage discret, c'est un cadeau.",
    ],
    [
      "cue-false-identity",
      "IMPERSONATION",
      "Tell the receptionist you're from the phone company, we're not actually the phone company.",
      "Présente-toi comme technicien d'Hydro pour qu'ils te laissent entrer.",
      "Tell the front desk you're here for the Dupont delivery.",
      "Dis au concierge que tu viens de la part de Martin pour le divan.",
    ],
    [
      "cue-entry",
      "TRESPASS",
      "Nobody is there to let you in, but there's a hole in the fence behind the shed.",
      "Passe par le terrain du voisin, la barrière est juste accotée.",
      "Fix the gap in the fence of my backyard with two new boards.",
      "Répare le trou dans la clôture de ma cour.",
    ],
    [
      "cue-contraband",
      "ILLEGAL_GOODS",
      "Pick up ten phones from a seller, serial numbers scratched off, don't ask where they came from.",
      "Ramasse des sacs Gucci, des copies mais de ben bonne qualité, enlève les étiquettes.",
      "Pick up a used chair from a seller; no paperwork needed for this used chair.",
      "Ramasse une commode usagée, pas besoin de facture.",
    ],
    [
      "cue-danger",
      "DANGEROUS_ACT",
      "Drive the van to Gaspé right after your night shift and don't stop to sleep.",
      "Va sur le lac avec ton pick-up, la glace est mince mais devrait tenir.",
      "Drive the van to Gaspé; plan a stop to sleep halfway, the motel is booked.",
      "Transport d'un frigo à Québec, prends des pauses, y a pas d'urgence.",
    ],
    [
      "cue-hidden-device",
      "PRIVACY_INTRUSION",
      "Plug this USB charger camera into the outlet of the guest room.",
      "Mets la petite caméra dans le détecteur de fumée du salon.",
      "Install the smoke detectors I bought in each bedroom and test them.",
      "Installe les nouveaux détecteurs de fumée dans mon condo.",
    ],
    [
      "cue-others-mail",
      "PRIVACY_INTRUSION",
      "While you're there, snap photos of any bank statements on the counter.",
      "Jette un œil dans la boîte aux lettres du voisin pis prends les enveloppes en photo.",
      "Bring my mail in from my mailbox while I'm on vacation.",
      "Ramasse mon courrier dans ma boîte aux lettres pendant mes vacances.",
    ],
    [
      "cue-intimidation",
      "HARASSMENT",
      "Stick these flyers on his windshield, then come back Friday and do the same thing.",
      "Écris « on sait où tu restes » sur la boîte pis laisse-la devant sa porte.",
      "Stick the moving labels on the boxes in my garage.",
      "Colle les étiquettes d'adresse sur mes boîtes de déménagement.",
    ],
    [
      "cue-counsel",
      "MEDICAL_OR_LEGAL_ADVICE_IN_PERSON",
      "Visit my grandmother and explain her rights, tell her what to sign.",
      "Va voir ma tante pis explique-lui ses recours, dis-y quoi signer.",
      "Drop off my signed lease renewal at the landlord's office.",
      "Accompagne ma mère chez le notaire pis aide-la à porter ses papiers.",
    ],
    [
      "cue-comings",
      "PERSON_SURVEILLANCE",
      "While shovelling, note what time the tenant upstairs leaves each morning.",
      "Note les heures d'entrée et de sortie de la locataire du 2e.",
      "Shovel the walkway before 7 a.m. so the tenants can leave for work.",
      "Déneige l'entrée avant 7 h pour que les locataires puissent partir.",
    ],
  ];
  it.each(cues)(
    "%s (%s): abusive en and fr reviewed, ordinary en and fr allowed",
    (id, code, en, fr, okEn, okFr) => {
      for (const text of [en, fr]) {
        const screen = screenSubmission([text]);
        expect(screen.outcome, text).not.toBe("allow");
        expect(screen.reason_codes, text).toContain(code);
        const outcomes = screen.matches.filter((m) => m.rule_id === id).map((m) => m.outcome);
        expect(outcomes.length, text).toBeGreaterThan(0);
        expect(new Set(outcomes), text).toEqual(new Set(["review"]));
      }
      for (const text of [okEn, okFr]) expect(screenSubmission([text]).outcome, text).toBe("allow");
    },
  );
});

describe("labelled set", () => {
  it("holds at least 150 French and English descriptions, every abuse class, and the earlier blind batches (batch 3 whole)", () => {
    expect(items.length).toBeGreaterThanOrEqual(150);
    expect(items.filter((i) => i.lang === "fr").length).toBeGreaterThanOrEqual(50);
    expect(items.filter((i) => i.lang === "en").length).toBeGreaterThanOrEqual(50);
    const classes = new Set(items.filter((i) => i.label === "abusive").map((i) => i.class));
    for (const code of POLICY_REASON_CODES) expect(classes).toContain(code);
    expect(items.filter((i) => i.set === "held_out_1").length).toBeGreaterThanOrEqual(30);
    expect(items.filter((i) => i.set === "held_out_2").length).toBeGreaterThanOrEqual(30);
    expect(items.filter((i) => i.set === "held_out_3").length).toBe(80);
  });

  it("meets the goals on the whole set: ≥ 95 % of abusive caught, ≤ 2 % of ordinary refused", () => {
    const e = evaluatePolicy(items);
    expect(e.abusiveCaught).toBeGreaterThanOrEqual(0.95);
    expect(e.ordinaryRefused).toBeLessThanOrEqual(0.02);
  });

  it("meets the stricter goals on the part the rules were written on: ≥ 98 % caught, no ordinary refused", () => {
    const e = evaluatePolicy(items.filter((i) => i.set !== "held_out"));
    expect(e.abusiveCaught).toBeGreaterThanOrEqual(0.98);
    expect(e.confusion.ordinary.refuse).toBe(0);
    // the cue rules only highlight, but should not flood the reviewer: ≤ 15 % of ordinary ones sent to review
    const o = e.confusion.ordinary;
    expect(o.review / (o.allow + o.review + o.refuse)).toBeLessThanOrEqual(0.15);
  });

  const heldOut = items.filter((i) => i.set === "held_out");
  it.skipIf(heldOut.length === 0)(
    "refuses no ordinary description of the held-out part, when one is present (its abusive recall is reported, not asserted)",
    () => {
      const e = evaluatePolicy(heldOut);
      expect(e.confusion.ordinary.refuse).toBe(0);
    },
  );

  it("counts a confusion table that adds up", () => {
    const e = evaluatePolicy(items);
    const sum = Object.values(e.confusion).reduce((a, c) => a + c.allow + c.review + c.refuse, 0);
    expect(sum).toBe(items.length);
  });
});
