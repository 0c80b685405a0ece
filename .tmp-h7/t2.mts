import net from 'node:net';
import { startTestServer } from '../test/helpers/test-server.ts';
const server = await startTestServer('sqlite');
const port = new URL(server.url).port;
const t0 = Date.now();
const c = net.connect(Number(port), '127.0.0.1', () => c.write(`POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.api.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"ema`));
c.on('data', d => console.log(`+${Date.now()-t0}`, JSON.stringify(d.toString())));
c.on('close', async () => { console.log('closed', Date.now()-t0); await server.close(); process.exit(0); });
setTimeout(()=>process.exit(0), 14000);
