/** Per-file environment: test mode, and no accidental use of a developer's .data directory. */
process.env.NODE_ENV = "test";
process.env.DATA_DIR ??= "memory://";
// Handlers called directly share one "unknown" client IP; tests of the limits set their own.
process.env.RATE_LIMIT_ANON_PER_MIN ??= "1000000";
process.env.RATE_LIMIT_KEY_PER_MIN ??= "1000000";
process.env.KEY_CREATIONS_PER_IP_PER_HOUR ??= "1000000";
process.env.ANON_SUBMISSIONS_PER_IP_PER_DAY ??= "1000000";
process.env.LOGIN_ATTEMPTS_PER_IP_PER_HOUR ??= "1000000";
process.env.LOGIN_ATTEMPTS_PER_EMAIL_PER_HOUR ??= "1000000";
process.env.STAFF_SIGN_IN_FAILURES_PER_IP_PER_HOUR ??= "1000000";
process.env.STAFF_SIGN_IN_FAILURES_PER_ACCOUNT ??= "1000000";
process.env.EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR ??= "1000000";
process.env.EMAIL_CODE_ATTEMPTS_PER_EMAIL_PER_HOUR ??= "1000000";
process.env.OAUTH_REQUESTS_PER_IP_PER_MIN ??= "1000000";
process.env.OAUTH_CLIENT_REQUESTS_PER_IP_PER_MIN ??= "1000000";
process.env.OAUTH_REGISTRATIONS_PER_IP_PER_HOUR ??= "1000000";
