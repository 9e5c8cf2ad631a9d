/** Texts of the field app's offline mode (field/offline.js), added to the dictionary there. */

/** English texts. */
export const EN = {
  "offline.banner": "Offline: check-ins and photos are kept on this phone and sent when the network returns.",
  "offline.banner_count": "Offline: {count} waiting to send, kept on this phone.",
  "offline.title": "Waiting to send",
  "offline.check_in": "Check-in made at {time}",
  "offline.photo": "Photo {name} taken at {time}",
  "offline.position": "Position {lat}, {lon} (± {accuracy})",
  "offline.no_position": "No position",
  "offline.waiting": "Waiting to send",
  "offline.refused": "Refused: {message}",
  "offline.reassigned": "Refused: this task was reassigned to {name}.",
  "offline.unassigned": "Refused: this task is no longer assigned to you.",
  "offline.remove": "Remove from this phone",
  "offline.remove_confirm": "Remove this item from the phone? It will not be sent.",
  "offline.check_in_queued":
    "No network: the check-in is kept on this phone and will be sent when the network returns.",
  "offline.photo_queued":
    "No network: {name} is kept on this phone and will be sent when the network returns.",
  "offline.check_in_waiting": "Check-in made at {time}: waiting to send.",
  "offline.sent": "Sent: {count} kept while offline.",
  "offline.list_badge": "{count} waiting to send",
  "visit.received_at": "Received by the server at",
  "offline.other_task": "Kept on this phone: task {id}",
};

/** Textes français. */
export const FR = {
  "offline.banner":
    "Hors ligne : les arrivées et les photos sont gardées sur ce téléphone et envoyées au retour du réseau.",
  "offline.banner_count": "Hors ligne : {count} en attente d'envoi, gardés sur ce téléphone.",
  "offline.title": "En attente d'envoi",
  "offline.check_in": "Arrivée enregistrée à {time}",
  "offline.photo": "Photo {name} prise à {time}",
  "offline.position": "Position {lat}, {lon} (± {accuracy})",
  "offline.no_position": "Sans position",
  "offline.waiting": "En attente d'envoi",
  "offline.refused": "Refusé : {message}",
  "offline.reassigned": "Refusé : cette tâche a été réassignée à {name}.",
  "offline.unassigned": "Refusé : cette tâche ne vous est plus assignée.",
  "offline.remove": "Retirer de ce téléphone",
  "offline.remove_confirm": "Retirer cet élément du téléphone? Il ne sera pas envoyé.",
  "offline.check_in_queued":
    "Pas de réseau : l'arrivée est gardée sur ce téléphone et sera envoyée au retour du réseau.",
  "offline.photo_queued":
    "Pas de réseau : {name} est gardée sur ce téléphone et sera envoyée au retour du réseau.",
  "offline.check_in_waiting": "Arrivée enregistrée à {time} : en attente d'envoi.",
  "offline.sent": "Envoyés : {count} gardés hors ligne.",
  "offline.list_badge": "{count} en attente d'envoi",
  "visit.received_at": "Reçue par le serveur à",
  "offline.other_task": "Gardé sur ce téléphone : tâche {id}",
};
