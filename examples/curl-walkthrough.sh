#!/bin/sh
# A walk through the API with curl (POSIX sh; needs curl, base64, od).
#
#   BASE=http://127.0.0.1:3000 sh examples/curl-walkthrough.sh          # sandbox task, no key needed
#   BASE=... ADMIN_KEY=svc_... sh examples/curl-walkthrough.sh          # + a real task through to completion
#
# Request bodies are written to files and sent with --data-binary @file, so a photo of any size
# fits (no "Argument list too long"). Idempotency keys are made from /dev/urandom with od, so no
# uuidgen is needed. With ADMIN_KEY (e.g. the bootstrap key printed by `npm run dev`) the script
# plays the operator too: approve, record the payment, dispatch, complete with
# examples/sample-photo.png as the proof.
set -eu

BASE=${BASE:-http://127.0.0.1:3000}
HERE=$(cd "$(dirname "$0")" && pwd)
PHOTO=${PHOTO:-$HERE/sample-photo.png}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A fresh idempotency key: 16 random bytes in hex.
idem() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }

# json_get FIELD FILE: the first string or number value of "FIELD" in a JSON file (good enough
# for these flat answers; use jq for anything serious).
json_get() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$2" | head -n 1; }

# post PATH BODY_FILE OUT_FILE [KEY]: POST with a fresh Idempotency-Key; fails on HTTP >= 400.
post() {
  auth=""
  [ -n "${4:-}" ] && auth="Authorization: Bearer $4"
  curl -sS --fail-with-body -X POST "$BASE$1" \
    -H "content-type: application/json" -H "Idempotency-Key: $(idem)" ${auth:+-H "$auth"} \
    --data-binary @"$2" -o "$3"
}

echo "== Estimate: 2 h in Laval"
curl -sS --fail-with-body "$BASE/api/estimate?hours=2&location=Laval" -o "$WORK/estimate.json"
echo "total_cad: $(json_get total_cad "$WORK/estimate.json")"

echo "== Sandbox task (X-Service-Mode: sandbox): free, advances one step per status poll"
cat > "$WORK/task.json" <<JSON
{"service_type":"SVC-01","location_address":"1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
 "task_description":"Photograph the storefront and the posted opening hours.",
 "requester_contact":"agent@example.com","lang":"en"}
JSON
curl -sS --fail-with-body -X POST "$BASE/api/submit-task" -H "content-type: application/json" \
  -H "X-Service-Mode: sandbox" -H "Idempotency-Key: $(idem)" --data-binary @"$WORK/task.json" \
  -o "$WORK/sandbox.json"
SANDBOX_ID=$(json_get task_id "$WORK/sandbox.json")
TOKEN=$(json_get access_token "$WORK/sandbox.json")
echo "task_id: $SANDBOX_ID"
status=""
i=0
while [ "$status" != "completed" ] && [ $i -lt 10 ]; do
  curl -sS --fail-with-body "$BASE/api/submit-task?task_id=$SANDBOX_ID&access_token=$TOKEN" -o "$WORK/status.json"
  status=$(json_get status "$WORK/status.json")
  echo "status: $status"
  i=$((i + 1))
done
[ "$status" = "completed" ] || { echo "sandbox task did not complete" >&2; exit 1; }

if [ -z "${ADMIN_KEY:-}" ]; then
  echo "== Done (set ADMIN_KEY to walk a real task through review, payment and completion)"
  exit 0
fi

echo "== Real task, played through as the operator"
post /api/submit-task "$WORK/task.json" "$WORK/real.json" "$ADMIN_KEY"
ID=$(json_get task_id "$WORK/real.json")
echo "task_id: $ID"
printf '{"task_id":"%s","action":"approve"}' "$ID" > "$WORK/approve.json"
post /api/task-review "$WORK/approve.json" "$WORK/out.json" "$ADMIN_KEY"
echo "status: $(json_get status "$WORK/out.json")"
printf '{"task_id":"%s","note":"paid out of band (walk-through)"}' "$ID" > "$WORK/pay.json"
post /api/task-payment "$WORK/pay.json" "$WORK/out.json" "$ADMIN_KEY"
echo "status: $(json_get status "$WORK/out.json")"
printf '{"task_id":"%s","action":"dispatch"}' "$ID" > "$WORK/dispatch.json"
post /api/task-complete "$WORK/dispatch.json" "$WORK/out.json" "$ADMIN_KEY"
echo "status: $(json_get status "$WORK/out.json")"
# The proof photo goes into the JSON body as base64, built in a file (never on the command line).
# SVC-01 requires a site visit (catalog `site_visit`); an admin key completing without the field
# person's check-in says why (recorded, flagged NO_SITE_VISIT in the status and the receipt).
{
  printf '{"task_id":"%s","action":"complete","operator_notes":"done","no_visit_reason":"Walkthrough: no field visit","proof_files":[{"filename":"%s","type":"image/png","content":"' \
    "$ID" "$(basename "$PHOTO")"
  base64 < "$PHOTO" | tr -d '\n'
  printf '"}]}'
} > "$WORK/complete.json"
post /api/task-complete "$WORK/complete.json" "$WORK/out.json" "$ADMIN_KEY"
echo "status: $(json_get status "$WORK/out.json")"
curl -sS --fail-with-body "$BASE/api/submit-task?task_id=$ID" -H "Authorization: Bearer $ADMIN_KEY" -o "$WORK/final.json"
echo "final status: $(json_get status "$WORK/final.json"), proof: $(json_get filename "$WORK/final.json")"
