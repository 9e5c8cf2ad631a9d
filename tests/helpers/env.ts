/**
 * Environment variables a test file changes and puts back: `set(values)` sets each variable (or
 * removes it when its value is undefined), remembering the value it had before its first change,
 * then calls `afterChange` (e.g. resetConfig, resetLimiters) so the service reads the new values;
 * `restore()` puts every remembered value back the same way (call it in `afterAll`).
 */
export function envOverrides(afterChange: () => void): {
  set: (values: Record<string, string | undefined>) => void;
  restore: () => void;
} {
  const saved: Record<string, string | undefined> = {};
  function set(values: Record<string, string | undefined>): void {
    for (const [k, v] of Object.entries(values)) {
      if (!(k in saved)) saved[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    afterChange();
  }
  return { set, restore: () => set({ ...saved }) };
}
