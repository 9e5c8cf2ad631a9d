/**
 * The link from a page's views back to its router: a view that must redraw the page (after a
 * form succeeds, on Refresh) calls `render`, which the router registered with `setRenderer`.
 * It lets views live in their own modules without importing the router that imports them.
 */

/**
 * A new hook.
 * @returns {{ setRenderer(render: (options?: { focus?: boolean }) => Promise<void>): void,
 *   render(options?: { focus?: boolean }): Promise<void> }}
 */
export function renderHook() {
  let renderer = async () => {};
  return {
    setRenderer(render) {
      renderer = render;
    },
    render(options) {
      return renderer(options);
    },
  };
}
