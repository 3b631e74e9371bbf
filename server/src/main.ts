/** `npm start`: the server, configured by flags and JUMPSEAT_* variables (see serve.ts). */
import { serveOrExit } from './serve.ts';

serveOrExit(process.argv.slice(2));
