import http from 'node:http';
import { CHARGE, CUSTOMER } from './bare-bodies.js';

// The floor of the cost part (bench/cost.ts): node:http alone, answering the same three requests
// as the bare Express routes with the same bodies (the POSTs parsed and echoed), no framework.
// Started as its own process, on 127.0.0.1 and PORT.

function answer(res: http.ServerResponse, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  if (req.method === 'GET' && url.startsWith('/v1/customers/'))
    return answer(res, { ...CUSTOMER, id: url.slice(14) });
  if (req.method === 'GET' && url.startsWith('/v1/charges/')) return answer(res, CHARGE);
  if (req.method !== 'POST' || (url !== '/v1/charges' && url !== '/v1/customers')) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (url === '/v1/charges') {
      const { amount, currency } = JSON.parse(text) as { amount: number; currency: string };
      return answer(res, { ...CHARGE, amount, currency });
    }
    const form = new URLSearchParams(text);
    answer(res, { ...CUSTOMER, email: form.get('email'), name: form.get('name') });
  });
});

server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
