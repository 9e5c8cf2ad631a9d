/**
 * The console's service worker: only push notifications (issue 44 item 6). The handlers are the
 * field app's (/field/push-sw.js): a reviewer's notification of a task waiting for review opens
 * /operator/#/task/<id>.
 */
/* global importScripts */
importScripts("/field/push-sw.js");
