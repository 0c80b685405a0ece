#!/usr/bin/env node
// A local webhook receiver for trying deliveries out: prints each event it receives and whether
// its Service-Signature verifies with WEBHOOK_SECRET. Answers 200, or STATUS if set (e.g. 500 to
// watch retries). Usage: WEBHOOK_SECRET=whsec_… node scripts/receive-webhooks.mjs [port]
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const port = Number(process.argv[2] ?? 4343);
const secret = process.env.WEBHOOK_SECRET;
const status = Number(process.env.STATUS ?? 200);

function verified(body, header) {
  if (!secret || !header) return 'not checked (set WEBHOOK_SECRET)';
  const t = /t=(\d+)/.exec(header)?.[1];
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const ok = [...header.matchAll(/v1=([0-9a-f]+)/g)].some(([, hex]) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return ok ? 'valid' : 'INVALID';
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const event = JSON.parse(body || '{}');
      console.log(`${new Date().toISOString()} ${event.type} ${event.id} signature ${verified(body, req.headers['service-signature'])} → ${status}`);
      res.writeHead(status).end();
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`receiving webhooks on http://127.0.0.1:${port}/webhooks`));
