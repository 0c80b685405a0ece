/**
 * Loaded into a measured server process by the cost part (`node --import tsx --import
 * ./bench/server-probe.ts src/main.ts`); inert until signalled. The first SIGUSR2 opens a window
 * (and writes `{"open": true}` to `BENCH_PROBE_FILE`), the next closes it and writes there (JSON,
 * replaced atomically) what the process spent in it:
 *
 * - `cpuMicros`: its user + system CPU (`process.cpuUsage`, every thread);
 * - `allocatedBytes`: what its JavaScript heap allocated, exactly: the growth of the used heap
 *   between garbage collections, summed (v8.GCProfiler's before/after figures), plus the growth
 *   since the last one;
 * - `gcCount`, `gcMillis`: the collections and their main-thread cost;
 * - when the file `BENCH_PROBE_FILE.profile` names a path as the window opens, a V8 CPU profile of
 *   the window (the sampler `--cpu-prof` uses, started and stopped through the inspector so that
 *   start-up is not in it), written to that path.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import v8 from 'node:v8';

interface Window {
  cpu: NodeJS.CpuUsage;
  usedHeap: number;
  gc: v8.GCProfiler;
  profile?: { session: Session; file: string };
}

interface GcStatistics {
  cost: number;
  beforeGC: { heapStatistics: { usedHeapSize: number } };
  afterGC: { heapStatistics: { usedHeapSize: number } };
}

const outFile = process.env.BENCH_PROBE_FILE;
/** Sampling interval of the CPU profile, in µs (V8's default is 1,000). */
const PROFILE_INTERVAL_MICROS = 250;
let open: Window | undefined;

async function start(): Promise<Window> {
  const request = `${outFile}.profile`;
  let profile: Window['profile'];
  if (fs.existsSync(request)) {
    const session = new Session();
    profile = { session, file: fs.readFileSync(request, 'utf8') };
    fs.rmSync(request);
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_MICROS });
    await session.post('Profiler.start');
  }
  const gc = new v8.GCProfiler();
  gc.start();
  return { cpu: process.cpuUsage(), usedHeap: v8.getHeapStatistics().used_heap_size, gc, profile };
}

async function stop(window: Window): Promise<void> {
  const cpu = process.cpuUsage(window.cpu);
  const usedHeap = v8.getHeapStatistics().used_heap_size;
  const { statistics } = window.gc.stop() as unknown as { statistics: GcStatistics[] };
  let allocatedBytes = 0;
  let since = window.usedHeap;
  for (const gc of statistics) {
    allocatedBytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - since);
    since = gc.afterGC.heapStatistics.usedHeapSize;
  }
  allocatedBytes += Math.max(0, usedHeap - since);
  if (window.profile) {
    const { profile } = await window.profile.session.post('Profiler.stop');
    window.profile.session.disconnect();
    fs.writeFileSync(window.profile.file, JSON.stringify(profile));
  }
  const report = {
    cpuMicros: cpu.user + cpu.system,
    allocatedBytes,
    gcCount: statistics.length,
    gcMillis: statistics.reduce((sum, gc) => sum + gc.cost, 0) / 1000,
  };
  write(report);
}

/** Replaces the probe's file at once, so that the bench never reads half of it. */
function write(content: object): void {
  fs.writeFileSync(`${outFile}.tmp`, JSON.stringify(content));
  fs.renameSync(`${outFile}.tmp`, outFile!);
}

if (outFile) {
  process.on('SIGUSR2', () => {
    const window = open;
    open = undefined;
    if (window) void stop(window);
    else
      void start().then((started) => {
        open = started;
        write({ open: true });
      });
  });
}
