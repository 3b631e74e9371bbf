/**
 * The client and protocol types the Playwright fixtures use, from their one definition
 * (`jumpseat/client` and `shared/`), so this folder never redeclares them.
 */

export type {
  CallInfo,
  Dialect,
  JumpseatClient,
  LiveEvent,
  LiveWatch,
  SessionInfo,
} from '../../client/src/index.ts';
export type { Viewer } from '../../shared/src/live.ts';
