import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON answer as the whole response: serialised once, headers and body handed to the
 * socket in one write (Express's `res.send` would parse the content type again and look for an
 * ETag and a conditional request, none of which an API answer has).
 */
export function writeJson(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
