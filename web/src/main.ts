/**
 * Entry of the browser app (Vite root: web/). The live dashboard and session pages land
 * here with the jump-seat work; until then the server renders a plain page at `/`.
 */
export const WEB_APP_READY = false;
