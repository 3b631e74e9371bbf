import { fileURLToPath } from 'node:url';

/** The CLI under test, by its absolute path: the shells may read the project (not write). */
export const todo = fileURLToPath(new URL('../bin/todo', import.meta.url));
