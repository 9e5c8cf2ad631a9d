/**
 * The words of staff push notifications, in the language of the subscription (issue 44 item 6;
 * docs/notifications.md "Push notifications"). A message carries the task id, its execution
 * deadline or waiting time and fixed words, never the requester's text or address: push services
 * only relay the encrypted payload, but the `push_messages` row keeps it for a week.
 */
import type { Lang } from "../db/schema/enums.js";
import type { PushKind, PushPayload } from "../db/schema/index.js";
import { formatDateTime } from "../mail/format.js";

/** What a message is built from. */
export interface PushFacts {
  kind: PushKind;
  taskId: string;
  /** task_assigned, task_at_risk: the task's execution deadline. */
  executionDeadline?: Date;
  /** review_waiting: minutes since the task was received. */
  waitingMinutes?: number;
}

/** The page a click opens: the field app's task for its assignee, the console's for a reviewer. */
export function taskPath(kind: PushKind, taskId: string): string {
  const id = encodeURIComponent(taskId);
  return kind === "review_waiting" ? `/operator/#/task/${id}` : `/field/#/task/${id}`;
}

const WORDS: Record<Lang, Record<PushKind, { title: string; body: (f: PushFacts) => string }>> = {
  en: {
    task_assigned: {
      title: "New task assigned to you",
      body: (f) => `${f.taskId} — to be done by ${formatDateTime(f.executionDeadline, "en")}.`,
    },
    task_at_risk: {
      title: "Task at risk of being late",
      body: (f) => `${f.taskId} — execution deadline ${formatDateTime(f.executionDeadline, "en")}.`,
    },
    review_waiting: {
      title: "A task is waiting for review",
      body: (f) => `${f.taskId} has been waiting ${f.waitingMinutes} min for its review.`,
    },
  },
  fr: {
    task_assigned: {
      title: "Nouvelle tâche assignée",
      body: (f) => `${f.taskId} — à faire avant le ${formatDateTime(f.executionDeadline, "fr")}.`,
    },
    task_at_risk: {
      title: "Tâche en retard possible",
      body: (f) => `${f.taskId} — échéance d'exécution le ${formatDateTime(f.executionDeadline, "fr")}.`,
    },
    review_waiting: {
      title: "Une tâche attend son examen",
      body: (f) => `${f.taskId} attend son examen depuis ${f.waitingMinutes} min.`,
    },
  },
};

/** The payload of one message in `lang`. */
export function pushPayload(facts: PushFacts, lang: Lang): PushPayload {
  const words = WORDS[lang][facts.kind];
  return {
    kind: facts.kind,
    task_id: facts.taskId,
    title: words.title,
    body: words.body(facts),
    url: taskPath(facts.kind, facts.taskId),
    tag: `${facts.kind}:${facts.taskId}`,
  };
}
