/**
 * Stands in for an xterm.js 6.0 defect met in a resize (a fuzz found some after resizes): the
 * terminal's buffer service throws on its next resize, once, and resizes as ever after.
 */
interface Resizing {
  resize(cols: number, rows: number): void;
}

/** Makes `terminal`'s next resize throw inside xterm.js; `thrown()` says whether it did. */
export function throwOnNextResize(terminal: unknown): { thrown(): boolean } {
  const buffers = (terminal as { _core: { _bufferService: Resizing } })._core._bufferService;
  const resize = buffers.resize.bind(buffers);
  let thrown = false;
  buffers.resize = (cols, rows) => {
    if (!thrown) {
      thrown = true;
      throw new Error('a defect met in a resize');
    }
    resize(cols, rows);
  };
  return { thrown: () => thrown };
}
