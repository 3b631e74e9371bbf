/**
 * Guards an xterm.js 6.0 terminal (the server's headless screen models, every page's terminal)
 * against defects a shell's output reaches, through xterm.js's internals (`_core`), pinned by
 * server/src/screen/xterm-guard.test.ts so that an upgrade that moves them fails there first.
 *
 * - ED 1 (`CSI 1 J`, erase above) with the cursor in the last column of the last row, while
 *   the buffer has no line below the screen (a new terminal, or after `clear`), throws a
 *   TypeError out of xterm.js's write loop (it clears the wrapped flag of the line after the
 *   cursor's, which does not exist). Thrown from a timer, that ended the whole server: every
 *   shell of every agent, from `printf '\e[40;120H\e[1J'`. There, ED 1 erases the whole
 *   screen, which is what ED 2 does: it runs as ED 2. (Fixed in xterm.js 6.1, in beta.)
 * - Any other exception out of the parser, or out of a resize, is caught rather than left to
 *   end the process or stall the terminal's write queue: the parser and the terminal are
 *   reset (the screen starts over, as after `reset`; the rest of that chunk is lost), and
 *   `onDefect` is told.
 */

/** The parts of xterm.js's input handler the guard uses (6.0.0's internals). */
interface InputHandler {
  parse(data: string | Uint8Array, promiseResult?: boolean): undefined | Promise<boolean>;
  eraseInDisplay(params: { params: Int32Array | number[] }, respectProtect?: boolean): boolean;
  readonly _activeBuffer: {
    readonly x: number;
    readonly y: number;
    readonly lines: { readonly length: number };
  };
  readonly _bufferService: { readonly cols: number };
  /** The escape sequence parser: a throw leaves it inside the sequence it was dispatching. */
  readonly _parser: { reset(): void };
}

/** ED's parameter for erasing the whole screen. */
const ERASE_ALL = 2;
const ERASE_ABOVE = 1;

export interface GuardableTerminal {
  reset(): void;
  resize(cols: number, rows: number): void;
}

/** Throws when the terminal does not have the internals the guard was written for. */
export function guardTerminal(
  terminal: GuardableTerminal,
  onDefect: (error: unknown) => void,
): void {
  const handler = (terminal as unknown as { _core?: { _inputHandler?: InputHandler } })._core
    ?._inputHandler;
  if (
    typeof handler?.parse !== 'function' ||
    typeof handler.eraseInDisplay !== 'function' ||
    handler._activeBuffer === undefined ||
    handler._bufferService === undefined ||
    typeof handler._parser?.reset !== 'function'
  ) {
    throw new Error(
      'xterm.js internals changed: the terminal guard (xterm-guard.ts) needs updating',
    );
  }
  const eraseInDisplay = handler.eraseInDisplay;
  handler.eraseInDisplay = function (this: InputHandler, params, respectProtect) {
    const buffer = this._activeBuffer;
    const cols = this._bufferService.cols;
    if (
      params.params[0] === ERASE_ABOVE &&
      buffer.y + 1 >= buffer.lines.length &&
      Math.min(buffer.x, cols - 1) + 1 >= cols
    ) {
      params.params[0] = ERASE_ALL;
      try {
        return eraseInDisplay.call(this, params, respectProtect);
      } finally {
        params.params[0] = ERASE_ABOVE;
      }
    }
    return eraseInDisplay.call(this, params, respectProtect);
  };
  const parse = handler.parse;
  handler.parse = function (this: InputHandler, data, promiseResult) {
    try {
      return parse.call(this, data, promiseResult);
    } catch (error) {
      // The terminal's reset leaves the parser's state as it was (inside a sequence).
      this._parser.reset();
      terminal.reset();
      onDefect(error);
      return undefined;
    }
  };
  // A resize can meet a defect in the buffers (a fuzz found ones after resizes); thrown from a
  // write callback it ends the server, from a page's queue it stops the page: the screen
  // starts over at the new size instead.
  const resize = terminal.resize.bind(terminal);
  terminal.resize = (cols, rows) => {
    try {
      resize(cols, rows);
    } catch (error) {
      terminal.reset();
      resize(cols, rows);
      onDefect(error);
    }
  };
}
