/** Per-file environment: test mode, and no accidental use of a developer's .data directory. */
process.env.NODE_ENV = "test";
process.env.DATA_DIR ??= "memory://";
