/**
 * Texts of the analytics page (operator/analytics.js), added to the common dictionary there.
 */

/** English texts. */
export const EN = {
  "an.title": "Analytics",
  "an.intro": "Paid, non-sandbox tasks. Weeks are ISO weeks of the payment date in America/Toronto.",
  "an.period": "Period",
  "an.from": "From (optional)",
  "an.to": "To (optional)",
  "an.apply": "Show",
  "an.default_period": "Leave both empty for the last 12 weeks.",
  "an.range": "From {from} to {to}",
  "an.revenue": "Revenue by service and week",
  "an.revenue_total": "Total revenue",
  "an.revenue_alt": "Stacked bar chart of revenue in CAD per ISO week, one colour per service. {summary}",
  "an.revenue_empty": "No paid task in this period.",
  "an.week": "Week",
  "an.total": "Total",
  "an.top_clients": "Top clients",
  "an.client": "Client",
  "an.account": "Account",
  "an.tasks": "Tasks",
  "an.revenue_col": "Revenue",
  "an.no_clients": "No client in this period.",
  "an.completion": "Completion rate",
  "an.completion_alt": "Doughnut chart: {completed} completed, {failed} failed, {cancelled} cancelled.",
  "an.completion_none": "No paid task has ended in this period.",
  "an.completion_help": "Completed ÷ (completed + failed + cancelled), among paid tasks.",
  "an.outcome": "Outcome",
  "an.count": "Tasks",
  "an.created": "Tasks created by status",
  "an.no_created": "No task was created in this period.",
  "an.status": "Status",
  "an.chart_unavailable": "The chart library could not be loaded; the tables below hold the same data.",
  "an.bad_dates": "The start date must not be after the end date.",
};

/** French texts (Quebec). */
export const FR = {
  "an.title": "Analytique",
  "an.intro":
    "Tâches payées, hors bac à sable. Les semaines sont les semaines ISO de la date de paiement (America/Toronto).",
  "an.period": "Période",
  "an.from": "Du (facultatif)",
  "an.to": "Au (facultatif)",
  "an.apply": "Afficher",
  "an.default_period": "Laissez les deux vides pour les 12 dernières semaines.",
  "an.range": "Du {from} au {to}",
  "an.revenue": "Revenus par service et par semaine",
  "an.revenue_total": "Revenus totaux",
  "an.revenue_alt":
    "Histogramme empilé des revenus en CAD par semaine ISO, une couleur par service. {summary}",
  "an.revenue_empty": "Aucune tâche payée dans cette période.",
  "an.week": "Semaine",
  "an.total": "Total",
  "an.top_clients": "Meilleurs clients",
  "an.client": "Client",
  "an.account": "Compte",
  "an.tasks": "Tâches",
  "an.revenue_col": "Revenus",
  "an.no_clients": "Aucun client dans cette période.",
  "an.completion": "Taux de réalisation",
  "an.completion_alt":
    "Graphique en anneau : {completed} terminées, {failed} échouées, {cancelled} annulées.",
  "an.completion_none": "Aucune tâche payée ne s'est terminée dans cette période.",
  "an.completion_help": "Terminées ÷ (terminées + échouées + annulées), parmi les tâches payées.",
  "an.outcome": "Issue",
  "an.count": "Tâches",
  "an.created": "Tâches créées par état",
  "an.no_created": "Aucune tâche créée dans cette période.",
  "an.status": "État",
  "an.chart_unavailable":
    "La bibliothèque de graphiques n'a pas pu être chargée; les tableaux ci-dessous contiennent les mêmes données.",
  "an.bad_dates": "La date de début doit précéder la date de fin.",
};
