import express from 'express';
import net from 'node:net';
import { limitBodyTime } from '/work/main/src/http/request-timeouts.ts';
const app = express();
app.use((req,res,next)=>{ console.log('complete?', req.complete, req.headers['content-length']); req.on('close',()=>console.log('req close')); req.on('end',()=>console.log('req end')); next(); });
app.use(limitBodyTime(1000));
app.use(express.json());
app.use((req,res)=>res.json({ok:1}));
const s = app.listen(0, () => {
  const t0=Date.now();
  const c = net.connect(s.address().port, '127.0.0.1', () => c.write('POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"ema'));
  c.on('data', d => console.log(`+${Date.now()-t0}`, JSON.stringify(d.toString())));
  c.on('close', () => { console.log('closed', Date.now()-t0); s.close(); });
  setTimeout(()=>process.exit(0), 4000);
});
