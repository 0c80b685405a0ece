/**
 * Where a request's CPU goes, read from a V8 CPU profile of the server under load: every sample is
 * given to a stage of the pipeline by the innermost frame on its stack that belongs to one (by the
 * file the frame's function is in, or the name of a native function), so that a library called by
 * a stage counts for that stage (path-to-regexp called by the validator is validation). The
 * garbage collector is its own stage; idle samples are left out.
 */
import fs from 'node:fs';

/** The stages, in the order they are printed. */
export const STAGES = [
  'parse',
  'authenticate',
  'validate',
  'router (Express)',
  'handler',
  'database',
  'serialise',
  'write (socket)',
  'log/metrics',
  'GC',
  'other',
] as const;
export type Stage = (typeof STAGES)[number];

/** What a stage is made of: files of the project (`src/…`), packages, Node's own modules, native functions. */
const RULES: Array<[Stage, RegExp]> = [
  [
    'log/metrics',
    /^(src\/(logging|metrics)\/|src\/http\/request-(id|log|logging)\.ts|pino|prom-client|sonic-boom|thread-stream)/,
  ],
  [
    'authenticate',
    /^(src\/auth\/|src\/http\/(authenticate-early|rate-limit|cross-origin)\.ts|jose\/)/,
  ],
  [
    'validate',
    /^(express-openapi-validator\/|ajv\/|ajv-formats\/|src\/http\/(spec-validator|validator-route-cache)\.ts|src\/operations\/validation-errors\.ts)/,
  ],
  [
    'database',
    /^(src\/db\/|src\/resources\/.*\.repo\.ts|src\/operations\/idempotency\/store\.ts|better-sqlite3\/|knex\/|pg\/|pg-[a-z-]+\/|tarn\/)/,
  ],
  [
    'parse',
    /^(src\/http\/(bodies|form-[a-z]+|request-parameters|request-guards|versioning|request-timeouts)\.ts|src\/domain\/nul-guard\.ts|body-parser\/|raw-body\/|qs\/|iconv-lite\/|content-type\/|type-is\/|node:_http_common|node:_http_incoming)/,
  ],
  ['serialise', /^(express\/lib\/response\.js|src\/http\/write-json\.ts|native:stringify$)/],
  [
    'write (socket)',
    /^(node:_http_outgoing|node:_http_server|node:net|node:internal\/stream_base_commons|node:internal\/streams\/|native:(writev|writeBuffer|writeUtf8String|writeLatin1String)$)/,
  ],
  ['router (Express)', /^(express\/|router\/|finalhandler\/|helmet\/|on-finished\/|src\/app\.ts)/],
  [
    'handler',
    /^(src\/resources\/|src\/operations\/|src\/http\/(binder|idempotent-replay|error-mapper)\.ts|src\/domain\/)/,
  ],
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

/** A frame's place: `src/…` for the project, `<package>/…` for a package, `node:…`, or `native:<name>`. */
function placeOf(frame: ProfileNode['callFrame'], root: string): string {
  const { url, functionName } = frame;
  if (!url) return `native:${functionName}`;
  const inPackage = url.lastIndexOf('/node_modules/');
  if (inPackage >= 0) return url.slice(inPackage + '/node_modules/'.length);
  const rootUrl = `file://${root.endsWith('/') ? root : `${root}/`}`;
  if (url.startsWith(rootUrl)) return url.slice(rootUrl.length);
  return url;
}

function stageOfPlace(place: string): Stage | undefined {
  for (const [stage, pattern] of RULES) if (pattern.test(place)) return stage;
  return undefined;
}

/** Each stage's share of the profile's busy samples (idle ones left out), and how many there were. */
export function stageShares(
  profileFile: string,
  root: string,
): { shares: Record<Stage, number>; samples: number } {
  const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as Profile;
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const stageOfNode = new Map<number, Stage | null>();
  const stageOf = (id: number): Stage | null => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const { callFrame } = byId.get(id)!;
    let stage: Stage | null;
    if (callFrame.functionName === '(idle)') stage = null;
    else if (callFrame.functionName === '(garbage collector)') stage = 'GC';
    else {
      const up = parent.get(id);
      stage = stageOfPlace(placeOf(callFrame, root)) ?? (up === undefined ? 'other' : stageOf(up));
    }
    stageOfNode.set(id, stage);
    return stage;
  };
  const counts = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<Stage, number>;
  let busy = 0;
  for (const id of profile.samples) {
    const stage = stageOf(id);
    if (stage === null) continue;
    counts[stage] += 1;
    busy += 1;
  }
  const shares = Object.fromEntries(
    STAGES.map((stage) => [stage, busy ? counts[stage] / busy : 0]),
  ) as Record<Stage, number>;
  return { shares, samples: busy };
}
