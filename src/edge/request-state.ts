import type { AuthFailure, Principal } from '../auth/authenticator.js';
import type { Door } from './door.js';

/** What the edge leaves on the request for the door. */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The door serving the request, picked by its path as it entered the edge. */
      door?: Door;
      /** Who the credentials belong to, once authentication accepted them. */
      principal?: Principal;
      /** Why authentication refused the credentials. */
      authFailure?: AuthFailure;
    }
  }
}
